// The home page: create a table, see open and recent tables.
"use strict";

const H = { rules: [], bots: [], botInfo: {}, defaultBot: "heuristic", tables: [] };
const $ = (sel) => document.querySelector(sel);
const el = (...a) => B.el(...a);
const t = (...a) => B.t(...a);

// A bot's one-line description in the page's language (the server's English otherwise).
function botInfo(b) {
  const own = B.strings.ui[B.lang]["bot_desc." + b];
  return own || H.botInfo[b] || "";
}

function ruleset() {
  return H.rules.find((r) => r.rules === $("#f-rules").value);
}

function fillRules() {
  const sel = $("#f-rules");
  const current = sel.value || "classic";
  sel.replaceChildren(...H.rules.map((r) => el("option", { value: r.rules, text: B.rulesName(r.rules) })));
  sel.value = current;
  fillPlayers();
}

function fillPlayers() {
  const r = ruleset();
  const sel = $("#f-players");
  const current = Number(sel.value) || 4;
  const opts = [];
  for (let n = r.min_players; n <= r.max_players; n++) opts.push(el("option", { value: n, text: n }));
  sel.replaceChildren(...opts);
  sel.value = Math.min(Math.max(current, r.min_players), r.max_players);
  $("#rules-note").textContent = t("rules_note." + r.rules);
  fillOptions();
  fillSeats();
}

function fillOptions() {
  const r = ruleset();
  const n = Number($("#f-players").value);
  const opt = r.options.remove;
  const row = $("#row-remove");
  row.hidden = !(opt && opt.required_for_players.includes(n));
  if (opt) {
    const sel = $("#f-remove");
    const cur = sel.value;
    sel.replaceChildren(...opt.values.map((v) => el("option", { value: v, text: B.bean(v) })));
    if (cur) sel.value = cur;
  }
}

function fillLimit() {
  const sel = $("#f-limit");
  const cur = sel.value || "0";
  sel.replaceChildren(...[0, 30, 60, 90, 120, 180, 300].map((s) => el("option", { value: s, text: s ? t("seconds", { n: s }) : t("no_limit") })));
  sel.value = cur;
}

function fillClock() {
  const sel = $("#f-clock");
  const cur = sel.value || "none";
  sel.replaceChildren(...["none", "relaxed", "normal", "fast", "turn12h", "turn3d"].map((c) => el("option", { value: c, text: t("clock." + c) })));
  sel.value = cur;
}

// The bot that plays for people who are away, out of time or resigned: a trading one.
function fillStandIn() {
  const sel = $("#f-stand-in");
  const cur = sel.value || H.defaultBot;
  // Not the slow ones: a stand-in may play for every person at once (web/standin.py).
  const quick = H.bots.filter((b) => b !== "search" && b !== "llm");
  sel.replaceChildren(...quick.map((b) => el("option", { value: b, text: t("bot_kind", { bot: b }) + (botInfo(b) ? " – " + botInfo(b) : ""), title: botInfo(b) })));
  sel.value = cur;
}

function fillSeats() {
  const n = Number($("#f-players").value);
  const list = $("#f-seats");
  const old = [...list.querySelectorAll("select")].map((s) => s.value);
  const rows = [];
  for (let i = 0; i < n; i++) {
    if (i === 0) {
      rows.push(el("li", null, el("span", { class: "seat-no", text: t("seat_n", { n: 1 }) }), el("span", { text: t("you") })));
      continue;
    }
    const sel = el(
      "select",
      { id: "f-seat-" + i, "aria-label": t("seat_n", { n: i + 1 }) },
      el("option", { value: "person", text: t("person") }),
      H.bots.map((b) =>
        el("option", {
          value: "bot:" + b,
          text: t("bot_kind", { bot: b }) + (botInfo(b) ? " – " + botInfo(b) : ""),
          title: botInfo(b),
        })
      )
    );
    sel.value = old[i - 1] || "bot:" + H.defaultBot;
    rows.push(el("li", null, el("span", { class: "seat-no", text: t("seat_n", { n: i + 1 }) }), sel));
  }
  list.replaceChildren(...rows);
}

// One id per filled-in form: a double click, or a second click while the first is on its
// way, gets the same table back from the server (and the button is disabled meanwhile).
let createId = null;
async function create(ev) {
  ev.preventDefault();
  const button = $("#create-btn");
  if (button.disabled) return;
  createId = createId || B.clientId();
  const n = Number($("#f-players").value);
  const seats = [{ kind: "person" }];
  for (let i = 1; i < n; i++) {
    const v = $("#f-seat-" + i).value;
    seats.push(v === "person" ? { kind: "person" } : { kind: "bot", bot: v.slice(4) });
  }
  const typed = $("#f-name").value.trim();
  if (typed) localStorage.setItem("bohnanza.name", typed);
  const name = typed || t("player_n", { n: 1 });
  const body = { rules: $("#f-rules").value, players: n, seats, trade_limit: Number($("#f-limit").value), clock: $("#f-clock").value, stand_in_bot: $("#f-stand-in").value, name, options: {} };
  if ($("#f-rated")) body.rated = $("#f-rated").value; // people.js adds it for accounts
  if (!$("#row-remove").hidden) body.options.remove = $("#f-remove").value;
  if ($("#f-coach").checked) body.coach = true; // coach mode (issue 36): the host's choice
  body.request_id = createId;
  button.disabled = true;
  button.classList.add("pending");
  try {
    const res = await B.api("POST", "/api/tables", body);
    B.setToken(res.table.id, res.token);
    location.href = "/t/" + encodeURIComponent(res.table.id);
  } catch (e) {
    button.disabled = false;
    button.classList.remove("pending");
    B.toast(B.errorText(e), "error");
  }
}

function seatSummary(tb) {
  return tb.seats
    .map((s) => (s.kind === "bot" ? t("bot_kind", { bot: s.bot }) : s.taken ? s.name : t("open_seat")))
    .join(", ");
}

function renderTables() {
  const box = $("#tables");
  if (!H.tables.length) {
    box.replaceChildren(el("p", { class: "muted", text: t("no_tables") }));
    return;
  }
  box.replaceChildren(
    el(
      "ul",
      { class: "table-list" },
      H.tables.map((tb) => {
        const open = tb.seats.filter((s) => s.kind === "person" && !s.taken).length;
        const links = [];
        if (tb.status === "over") links.push(el("a", { class: "button secondary", href: "/replay/" + tb.id, text: t("replay") }));
        links.push(
          el("a", {
            class: "button " + (tb.status === "lobby" && open ? "primary" : "secondary"),
            href: "/t/" + tb.id,
            text: tb.status === "lobby" && open ? t("join") : B.getToken(tb.id) ? t("open") : t("watch"),
          })
        );
        const when = new Date(tb.created * 1000);
        const stamp = when.toLocaleString(B.lang === "pl" ? "pl-PL" : "en-GB", { dateStyle: "short", timeStyle: "short" });
        const extra = [el("span", { class: "when", text: stamp })];
        if (tb.status === "over" && tb.result && tb.result.winners) {
          const names = tb.result.winners.map((w) => {
            const s = tb.seats[w];
            // A bot is named with its seat: "Bot 3 (heuristic)", not "bot (heuristic)".
            return s && s.kind === "bot" ? t("bot_name", { n: w + 1, bot: s.bot }) : (s && s.name) || t("seat_n", { n: w + 1 });
          });
          extra.push(" · ", el("span", { class: "winner", text: t("won_by", { names: names.join(", ") }) }));
        }
        if (tb.rematch_of) extra.push(" · ", el("span", { class: "rematch-of", text: t("rematch_label") }));
        if (tb.spectators) extra.push(" · ", el("span", { class: "spectators", text: t("spectators_n", { n: tb.spectators }) }));
        return el(
          "li",
          { class: "table-item status-" + tb.status, dataset: { table: tb.id } },
          el("div", { class: "table-main" }, el("b", { text: B.rulesName(tb.rules) }), " · ", t("players_n", { n: tb.players }), " · ", el("span", { class: "status", text: t("status." + tb.status) })),
          el("div", { class: "muted", text: seatSummary(tb) }),
          el("div", { class: "muted table-extra" }, extra),
          el("div", { class: "buttons" }, links)
        );
      })
    )
  );
}

async function refresh() {
  try {
    H.tables = (await B.api("GET", "/api/tables")).tables;
    renderTables();
  } catch (e) {
    /* offline for a moment */
  }
}

(async function main() {
  await B.load();
  $("#lang-slot").replaceWith(B.langSwitch());
  B.translateStatic();
  const info = await B.api("GET", "/api/rules");
  H.rules = info.rulesets;
  H.bots = info.bots;
  H.botInfo = info.bot_descriptions || {};
  H.defaultBot = info.default_bot || "heuristic";
  $("#f-name").value = localStorage.getItem("bohnanza.name") || "";
  fillLimit();
  fillClock();
  fillStandIn();
  fillRules();
  $("#f-rules").addEventListener("change", fillPlayers);
  $("#f-players").addEventListener("change", () => {
    fillOptions();
    fillSeats();
  });
  $("#create-form").addEventListener("submit", create);
  B.listeners.push(() => {
    fillLimit();
    fillClock();
    fillStandIn();
    fillRules();
    renderTables();
  });
  await refresh();
  setInterval(refresh, 5000);
})();
