// Accounts, "your games", the leaderboard and players' pages (web/account_routes.py).
// One script for /account, /ratings, /player/NAME and the lobby's "your games" box.
"use strict";

const P = { account: null };
const q = (sel) => document.querySelector(sel);
const mk = (...a) => B.el(...a);



// Seats whose tokens this browser holds become the account's (the server checks each).
P.claimStored = async function () {
  const seats = [];
  for (let i = 0; i < localStorage.length && seats.length < 25; i++) {
    const key = localStorage.key(i);
    if (key && key.startsWith("bohnanza.token.")) {
      seats.push({ table: key.slice("bohnanza.token.".length), token: localStorage.getItem(key) });
    }
  }
  if (seats.length) {
    try {
      await B.api("POST", "/api/account/claim", { seats });
    } catch (e) {
      /* a claim that fails changes nothing; the seats stay the browser's */
    }
  }
};

// Open one of the account's games: with this browser's token, or a new one for the seat.
P.openGame = async function (tableId) {
  if (!B.getToken(tableId)) {
    const answer = await B.api("POST", "/api/account/seat", { table: tableId });
    B.setToken(tableId, answer.token);
  }
  location.href = "/t/" + encodeURIComponent(tableId);
};

P.gamesList = function (games) {
  if (!games.length) return mk("p", { class: "hint", text: B.t("acct.no_games") });
  return mk(
    "ul",
    { class: "your-games", id: "your-games-list" },
    games.map((g) => {
      const info = g.table;
      const state = g.your_turn ? B.t("acct.your_turn") : info.status === "lobby" ? B.t("acct.in_lobby") : B.t("acct.waiting");
      const link = mk("a", {
        href: "/t/" + encodeURIComponent(info.id),
        class: g.your_turn ? "game-link your-turn" : "game-link",
        text: B.rulesName ? B.rulesName(info.rules) : info.rules,
        onclick: (ev) => {
          ev.preventDefault();
          P.openGame(info.id).catch((e) => B.toast(B.errorText(e), "error"));
        },
      });
      return mk("li", { dataset: { table: info.id, turn: g.your_turn ? "1" : "0" } }, link, " · ", info.players + " · ", mk("span", { class: g.your_turn ? "turn" : "muted", text: state }));
    }),
  );
};

P.loadGames = async function () {
  const data = await B.api("GET", "/api/account/games");
  return data.games;
};

// ------------------------------------------------------------------ /account

// Passkeys (WebAuthn): the server's options as JSON, the browser's answer as JSON.
P.passkeysUsable = function () {
  return window.isSecureContext && window.PublicKeyCredential && PublicKeyCredential.parseCreationOptionsFromJSON;
};

// A passkey belongs to a name: on an address like 127.0.0.1 the browser only says "This is
// an invalid domain.", so the page says what to open instead.
P.passkeyCheck = function () {
  const host = location.hostname;
  if (/^[0-9.]+$/.test(host) || host.includes(":") || host.startsWith("[")) {
    const local = host === "127.0.0.1" || host === "::1" || host === "[::1]";
    throw new Error(B.t(local ? "acct.passkey_ip_local" : "acct.passkey_ip", { url: location.protocol + "//localhost" + (location.port ? ":" + location.port : "") + "/account" }));
  }
  if (!P.passkeysUsable()) throw new Error(B.t("acct.passkey_none"));
};

P.createPasskey = async function (startBody) {
  P.passkeyCheck();
  const start = await B.api("POST", "/api/account/passkey/register/start", startBody);
  const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(JSON.parse(start.options));
  const credential = await navigator.credentials.create({ publicKey });
  return B.api("POST", "/api/account/passkey/register/finish", { flow: start.flow, credential: credential.toJSON() });
};

P.loginPasskey = async function () {
  P.passkeyCheck();
  const start = await B.api("POST", "/api/account/passkey/login/start");
  const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(JSON.parse(start.options));
  const credential = await navigator.credentials.get({ publicKey });
  return B.api("POST", "/api/account/passkey/login/finish", { flow: start.flow, credential: credential.toJSON() });
};

P.accountPage = async function () {
  const main = q("#people-main");
  q("#page-title").textContent = B.t("acct.account");
  const error = mk("p", { id: "account-error", class: "error", role: "alert" });
  if (!P.account) {
    const form = (id, label) => {
      const f = mk(
        "form",
        { id: id + "-form", class: "card-box", autocomplete: "on" },
        mk("h2", { text: label }),
        mk("div", { class: "form-row" }, mk("label", { for: id + "-name", text: B.t("acct.name") }), mk("input", { id: id + "-name", maxlength: 24, required: true, autocomplete: "username" })),
        mk("div", { class: "form-row" }, mk("label", { for: id + "-password", text: B.t("acct.password") }), mk("input", { id: id + "-password", type: "password", maxlength: 256, required: true, autocomplete: id === "login" ? "current-password" : "new-password" })),
        id === "register" ? mk("p", { class: "hint", text: B.t("acct.register_note") }) : null,
        mk("div", { class: "buttons" }, mk("button", { type: "submit", class: "primary", id: id + "-btn", text: label })),
      );
      f.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        error.textContent = "";
        try {
          await B.api("POST", "/api/account/" + id, { name: q("#" + id + "-name").value, password: q("#" + id + "-password").value });
          location.reload();
        } catch (e) {
          error.textContent = B.errorText(e);
        }
      });
      return f;
    };
    const passkeyButton = (id, label, run) =>
      mk("button", {
        type: "button",
        id,
        class: "secondary",
        text: label,
        onclick: async () => {
          error.textContent = "";
          try {
            await run();
            location.reload();
          } catch (e) {
            error.textContent = B.errorText(e);
          }
        },
      });
    const login = form("login", B.t("acct.login"));
    login.append(mk("div", { class: "buttons" }, passkeyButton("passkey-login-btn", B.t("acct.passkey_login"), () => P.loginPasskey())));
    const register = form("register", B.t("acct.register"));
    register.append(mk("div", { class: "buttons" }, passkeyButton("passkey-register-btn", B.t("acct.passkey_register"), () => P.createPasskey({ name: q("#register-name").value }))));
    main.replaceChildren(mk("p", { class: "hint", text: B.t("acct.guest_note") }), error, login, register);
    return;
  }
  await P.claimStored();
  const games = await P.loadGames();
  const act = (id, path, label) =>
    mk("button", {
      type: "button",
      id,
      class: "secondary",
      text: label,
      onclick: async () => {
        try {
          await B.api("POST", path);
          location.reload();
        } catch (e) {
          error.textContent = B.errorText(e);
        }
      },
    });
  main.replaceChildren(
    mk(
      "section",
      { class: "card-box" },
      mk("p", { id: "logged-in", text: B.t("acct.logged_in_as", { name: P.account.name }) + " " }, mk("a", { href: "/player/" + encodeURIComponent(P.account.name), text: B.t("acct.my_page") })),
      error,
      mk(
        "div",
        { class: "buttons" },
        act("logout-btn", "/api/account/logout", B.t("acct.logout")),
        act("logout-all-btn", "/api/account/logout-everywhere", B.t("acct.logout_all")),
        mk("button", {
          type: "button",
          id: "passkey-add-btn",
          class: "secondary",
          text: B.t("acct.passkey_add"),
          onclick: async () => {
            try {
              await P.createPasskey({});
              error.textContent = B.t("acct.passkey_added");
            } catch (e) {
              error.textContent = B.errorText(e);
            }
          },
        }),
      ),
    ),
    mk("section", { class: "card-box", id: "your-games" }, mk("h2", { text: B.t("acct.your_games") }), P.gamesList(games)),
    P.mailBox(),
  );
};

// The account's address and which notices it wants (web/mail.py); off on servers without SMTP.
P.mailBox = function () {
  const box = mk("section", { class: "card-box", id: "mail-box" }, mk("h2", { text: B.t("acct.email") }));
  if (!P.mail) {
    box.append(mk("p", { class: "hint", text: B.t("acct.mail_off") }));
    return box;
  }
  const current = P.email || { address: "", turn: true, end: true };
  const note = mk("p", { id: "mail-note", role: "status" });
  // An address gets notices once confirmed, and never after it unsubscribed (web/mail.py).
  const state = (email, sent) => {
    if (!email) return "";
    if (email.opted_out) return B.t("acct.mail_opted_out");
    if (sent) return B.t("acct.mail_sent");
    return email.confirmed ? "" : B.t("acct.mail_unconfirmed");
  };
  note.textContent = state(P.email, false);
  const form = mk(
    "form",
    { id: "mail-form" },
    mk("div", { class: "form-row" }, mk("label", { for: "mail-address", text: B.t("acct.email_address") }), mk("input", { id: "mail-address", type: "email", maxlength: 254, value: current.address, autocomplete: "email" })),
    mk("label", {}, mk("input", { id: "mail-turn", type: "checkbox", checked: current.turn }), " " + B.t("acct.notify_turn")),
    mk("label", {}, mk("input", { id: "mail-end", type: "checkbox", checked: current.end }), " " + B.t("acct.notify_end")),
    mk("div", { class: "buttons" }, mk("button", { type: "submit", class: "secondary", id: "mail-save", text: B.t("acct.save") })),
    note,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const address = q("#mail-address").value.trim();
    try {
      const r = await B.api("POST", "/api/account/email", { address: address || null, turn: q("#mail-turn").checked, end: q("#mail-end").checked });
      P.email = r.email;
      note.textContent = state(r.email, r.confirmation_sent) || B.t("acct.saved");
    } catch (e) {
      note.textContent = B.errorText(e);
    }
  });
  box.append(form);
  return box;
};

// ------------------------------------------------------------------ /ratings

P.ratingsPage = async function () {
  const main = q("#people-main");
  q("#page-title").textContent = B.t("acct.ratings");
  const rules = (await B.api("GET", "/api/rules")).rulesets.map((r) => r.rules);
  const params = new URLSearchParams(location.search);
  const chosen = rules.includes(params.get("rules")) ? params.get("rules") : "classic";
  const select = mk("select", { id: "ratings-rules" }, rules.map((r) => mk("option", { value: r, text: B.rulesName ? B.rulesName(r) : r })));
  select.value = chosen;
  select.addEventListener("change", () => {
    location.search = "?rules=" + encodeURIComponent(select.value);
  });
  const board = (await B.api("GET", "/api/ratings/" + encodeURIComponent(chosen))).players;
  const head = mk("tr", {}, ["#", B.t("acct.player"), B.t("acct.rating"), B.t("acct.games"), B.t("acct.win_share"), B.t("acct.mean_coins")].map((h) => mk("th", { text: h })));
  const rows = board.map((p, i) =>
    mk(
      "tr",
      { dataset: { name: p.name } },
      mk("td", { text: p.provisional ? "–" : String(i + 1) }),
      mk("td", {}, mk("a", { href: "/player/" + encodeURIComponent(p.name), text: p.name }), p.provisional ? mk("span", { class: "muted", text: " (" + B.t("acct.provisional") + ")" }) : null),
      mk("td", { class: "rating", text: p.rating.toFixed(1) }),
      mk("td", { text: p.games }),
      mk("td", { text: Math.round(p.win_share * 100) + "%" }),
      mk("td", { text: p.mean_coins.toFixed(1) }),
    ),
  );
  main.replaceChildren(
    mk(
      "section",
      { class: "card-box" },
      mk("h2", { text: B.t("acct.ratings") }),
      mk("div", { class: "form-row" }, mk("label", { for: "ratings-rules", text: B.t("acct.rule_set") }), select),
      board.length ? mk("table", { class: "leaderboard", id: "leaderboard" }, mk("thead", {}, head), mk("tbody", {}, rows)) : mk("p", { class: "hint", id: "leaderboard-empty", text: B.t("acct.no_ratings") }),
    ),
  );
};

// ------------------------------------------------------------------ /player/NAME

// The rating after each game as a line (SVG, no library): y = rating, x = game number.
P.plot = function (points) {
  const NS = "http://www.w3.org/2000/svg";
  const w = 480;
  const h = 160;
  const pad = 24;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("class", "rating-plot");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", B.t("acct.history"));
  if (!points.length) return svg;
  const lo = Math.min(...points) - 1;
  const hi = Math.max(...points) + 1;
  const x = (i) => pad + (points.length === 1 ? (w - 2 * pad) / 2 : (i * (w - 2 * pad)) / (points.length - 1));
  const y = (v) => h - pad - ((v - lo) * (h - 2 * pad)) / (hi - lo);
  const line = document.createElementNS(NS, "polyline");
  line.setAttribute("points", points.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "currentColor");
  line.setAttribute("stroke-width", "2");
  svg.append(line);
  for (const [v, label] of [[hi - 1, (hi - 1).toFixed(1)], [lo + 1, (lo + 1).toFixed(1)]]) {
    const t = document.createElementNS(NS, "text");
    t.setAttribute("x", "2");
    t.setAttribute("y", String(y(v) + 4));
    t.setAttribute("font-size", "10");
    t.textContent = label;
    svg.append(t);
  }
  points.forEach((v, i) => {
    const dot = document.createElementNS(NS, "circle");
    dot.setAttribute("cx", x(i).toFixed(1));
    dot.setAttribute("cy", y(v).toFixed(1));
    dot.setAttribute("r", "3");
    svg.append(dot);
  });
  return svg;
};

P.playerPage = async function () {
  const main = q("#people-main");
  const name = decodeURIComponent(location.pathname.split("/").pop() || "");
  q("#page-title").textContent = name;
  let data;
  try {
    data = await B.api("GET", "/api/players/" + encodeURIComponent(name));
  } catch (e) {
    main.replaceChildren(mk("p", { class: "error", id: "no-player", text: B.t("acct.no_player") }));
    return;
  }
  q("#page-title").textContent = data.name;
  const sections = [];
  for (const [rules, r] of Object.entries(data.ratings)) {
    const mine = data.history.filter((g) => g.rules === rules);
    sections.push(
      mk(
        "section",
        { class: "card-box", dataset: { rules } },
        mk("h2", { text: (B.rulesName ? B.rulesName(rules) : rules) + ": " + r.rating.toFixed(1) + (r.provisional ? " (" + B.t("acct.provisional") + ")" : "") }),
        mk("p", { class: "player-stats", text: `${B.t("acct.games")}: ${r.games} · ${B.t("acct.win_share")}: ${Math.round(r.win_share * 100)}% · ${B.t("acct.mean_coins")}: ${r.mean_coins.toFixed(1)}` }),
        mk("h3", { text: B.t("acct.history") }),
        P.plot(mine.map((g) => g.rating)),
        mk("h3", { text: B.t("acct.recent") }),
        mk(
          "table",
          { class: "recent-games" },
          mk("thead", {}, mk("tr", {}, [B.t("acct.date"), B.t("acct.opponents"), B.t("acct.rank"), B.t("acct.coins"), B.t("acct.rating"), ""].map((h) => mk("th", { text: h })))),
          mk(
            "tbody",
            {},
            mine
              .slice(-20)
              .reverse()
              .map((g) =>
                mk(
                  "tr",
                  {},
                  mk("td", { class: "game-date", text: new Date(g.time * 1000).toLocaleDateString(B.lang === "pl" ? "pl-PL" : "en-GB") }),
                  mk("td", { class: "opponents", text: (g.opponents || []).join(", ") }),
                  mk("td", { text: g.rank + (g.fresh ? " *" : ""), title: g.fresh ? B.t("acct.fresh") : undefined }),
                  mk("td", { text: g.coins }),
                  mk("td", { text: g.rating.toFixed(1) }),
                  mk("td", {}, mk("a", { href: g.replay, class: "replay-link", text: B.t("acct.replay") })),
                ),
              ),
          ),
        ),
        mine.some((g) => g.fresh) ? mk("p", { class: "hint fresh-note", text: "* " + B.t("acct.fresh_note") }) : null,
      ),
    );
  }
  main.replaceChildren(...(sections.length ? sections : [mk("p", { class: "hint", text: B.t("acct.no_ratings") })]));
};

// ------------------------------------------------------------------ the lobby

P.homeBox = async function () {
  const header = q("header.top");
  const link = mk("a", { href: "/account", id: "account-link", class: "account-link", text: P.account ? P.account.name : B.t("acct.login") });
  header.insertBefore(link, q("#lang-slot") || q(".lang") || null);
  if (!P.account) return;
  // Rated tables are for accounts: the host chooses at creation (home.js sends it).
  const seatsBox = q("#create-form .seats-box");
  if (seatsBox && !q("#f-rated")) {
    const sel = mk("select", { id: "f-rated", name: "rated" }, [["no", B.t("acct.rated_no")], ["people", B.t("acct.rated_people")], ["bots", B.t("acct.rated_bots")]].map(([v, label]) => mk("option", { value: v, text: label })));
    seatsBox.before(mk("div", { class: "form-row" }, mk("label", { for: "f-rated", text: B.t("acct.rated") }), sel));
  }
  await P.claimStored();
  const games = await P.loadGames();
  const box = mk("section", { class: "card-box", id: "your-games" }, mk("h2", { text: B.t("acct.your_games") }), P.gamesList(games));
  const main = q("main.home");
  main.insertBefore(box, main.firstChild); // "your games" first, your turn at the top
};

P.start = async function () {
  if (!B.strings) await B.load();
  try {
    const me = await B.api("GET", "/api/account");
    P.account = me.account;
    P.email = me.email || null;
    P.mail = !!me.mail;
  } catch (e) {
    P.account = null;
  }
  const page = document.body.className;
  if (page.includes("page-home")) {
    await P.homeBox();
    return; // home.js owns the rest of the page
  }
  B.translateStatic();
  q("#lang-slot").replaceWith(B.langSwitch());
  B.listeners.push(() => location.reload());
  if (page.includes("page-account")) await P.accountPage();
  else if (page.includes("page-ratings")) await P.ratingsPage();
  else if (page.includes("page-player")) await P.playerPage();
};

P.start().catch((e) => {
  const main = q("#people-main");
  if (main) main.replaceChildren(mk("p", { class: "error", text: String(e.message || e) }));
});
