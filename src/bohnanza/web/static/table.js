// The table page: the lobby of one table, then the game, over one WebSocket.
"use strict";

const T = {
  id: decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || ""),
  ws: null,
  seat: null,
  table: null,
  state: null,
  log: [],
  chat: [],
  nextId: 1,
  idBase: B.clientId(),
  inflight: new Map(), // client id -> {key, control}: my messages that wait for an answer
  clicked: null, // the control being clicked now (it is marked pending if it sends)
  retry: 0,
  ui: {
    selected: null, // a card id selected in my trade area, or one a module action takes (actions.js)
    builder: null, // {to: seat|"all", give: [ids], declared: {id: ""|"red"}, want: {variety: n}, counterOf}
    accepting: null, // {offerId, cards: [ids]}
    tab: "log",
  },
  alerted: false, // the "your turn" alert is on
  offersSeen: new Set(),
  clockAt: 0, // performance.now() when the clock snapshot arrived
  stale: false, // a stored token matched no seat
  invite: null, // a rematch invitation {table, from}
};

const $ = (sel) => document.querySelector(sel);
const el = (...a) => B.el(...a);
const t = (...a) => B.t(...a);

// ------------------------------------------------------------------ connection

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws/${encodeURIComponent(T.id)}`);
  T.ws = ws;
  setConn("connecting");
  ws.onopen = () => {
    T.retry = 0;
    setConn("online");
    const token = B.getToken(T.id);
    ws.send(JSON.stringify(token ? { type: "hello", token } : { type: "hello" }));
  };
  ws.onmessage = (m) => {
    let msg;
    try {
      msg = JSON.parse(m.data);
    } catch (e) {
      return;
    }
    onMessage(msg);
  };
  ws.onclose = (ev) => {
    if (T.ws !== ws) return;
    setConn("offline");
    for (const id of [...T.inflight.keys()]) answered(id); // no answer will come now
    if (ev.code === 4404) return;
    if (ev.code === 4503) {
      // Shed: the server is full and a seated player needed the place; try much later.
      setTimeout(connect, 30000);
      return;
    }
    const wait = Math.min(5000, 300 * 2 ** T.retry++);
    setTimeout(connect, wait);
  };
}

// Every message carries a client id (this page's random prefix and a counter): the
// server answers a repeated id with its first answer and does nothing twice. The same
// message is not sent again while it waits for its answer (a double click), and the
// control that sent it is disabled and marked pending until the answer comes.
function send(msg) {
  if (!T.ws || T.ws.readyState !== WebSocket.OPEN) {
    B.toast(t("not_connected"), "error");
    return null;
  }
  msg.id = T.idBase + "." + T.nextId++;
  if (msg.type === "chat") {
    // Chat lines are answered by the line itself (no id): not tracked.
    T.ws.send(JSON.stringify(msg));
    return msg.id;
  }
  const key = JSON.stringify(Object.assign({}, msg, { id: null }));
  for (const p of T.inflight.values()) if (p.key === key) return null;
  const control = T.clicked;
  if (control) {
    control.classList.add("pending");
    control.setAttribute("aria-busy", "true");
    if ("disabled" in control) control.disabled = true;
  }
  T.inflight.set(msg.id, { key, control, action: msg.type === "action" });
  T.ws.send(JSON.stringify(msg));
  return msg.id;
}

// The answer to one of my messages came: its control is usable again. An accepted action
// is answered before the state it made arrives: until that state (or 2 s), the control
// stays pending and the same action is not sent again, so that the second click of a
// double click cannot repeat it against the old state (and be refused).
function answered(id, accepted, seq) {
  const p = T.inflight.get(id);
  if (!p) return;
  const shown = T.state && typeof seq === "number" && seq <= T.state.seq; // its state came first
  if (accepted && p.action && !p.settling && !shown) {
    p.settling = true;
    p.timer = setTimeout(() => answered(id, false), 2000);
    return;
  }
  if (p.timer) clearTimeout(p.timer);
  T.inflight.delete(id);
  if (p.control) {
    p.control.classList.remove("pending");
    p.control.removeAttribute("aria-busy");
    if ("disabled" in p.control) p.control.disabled = false;
  }
}

function act(action) {
  clearRefusal(); // a refusal is about the last try: the next one replaces it
  return send({ type: "action", action });
}

// A refusal is shown until dismissed, the player's next action, or a change of the game
// seen at least REFUSAL_MIN_MS after it (a refusal from turn 1 used to stay until turn 13,
// even on a device that had become a spectator's).
const REFUSAL_MIN_MS = 4000;
function clearRefusal() {
  if (!T.lastError) return;
  if (T.lastError.toast) T.lastError.toast.remove();
  T.lastError = null;
  showLastError();
}
function staleRefusal() {
  const e = T.lastError;
  if (!e) return;
  const left = REFUSAL_MIN_MS - (performance.now() - e.at);
  if (left <= 0) clearRefusal();
  else if (!e.timer) e.timer = setTimeout(() => T.lastError === e && clearRefusal(), left);
}

function setConn(state) {
  const c = $("#conn");
  c.dataset.state = state;
  c.textContent = t("conn." + state);
}

function onMessage(msg) {
  if (msg.id !== undefined && msg.type !== "state") answered(msg.id, msg.type === "ack", msg.seq);
  switch (msg.type) {
    case "welcome":
      T.seat = msg.seat;
      T.table = msg.table;
      T.chat = msg.chat || [];
      T.log = [];
      if (msg.state) {
        takeState(msg.state);
      } else {
        T.state = null;
      }
      renderChat();
      render();
      break;
    case "state":
      takeState(msg);
      // Accepted actions waiting for their state (answered above): it is here.
      for (const [id, p] of [...T.inflight]) if (p.settling) answered(id, false);
      render();
      break;
    case "table": {
      const before = T.table && T.table.status;
      T.table = msg.table;
      render();
      if (before && before !== T.table.status && T.table.status === "over") B.toast(t("game_over"));
      break;
    }
    case "ack":
      break;
    case "error":
      onError(msg);
      break;
    case "chat":
      T.chat.push(msg);
      if (T.chat.length > CHAT_KEEP) T.chat.splice(0, T.chat.length - CHAT_KEEP);
      appendChat(msg);
      if (T.ui.tab !== "chat") $("#tab-chat").classList.add("unread");
      break;
    case "rematch":
      // My seat at the rematch: its token, then go there.
      if (msg.token) B.setToken(msg.table, msg.token);
      location.href = "/t/" + encodeURIComponent(msg.table);
      break;
    case "rematch_invite":
      T.invite = { table: msg.table, from: msg.from };
      render();
      alertMe(t("alert.rematch", { name: Board.seatName(T.table, msg.from) }));
      break;
    case "rematch_declined":
      if (msg.seat === T.seat) {
        T.invite = null;
        localStorage.setItem("bohnanza.declined." + msg.table, "1");
      }
      B.toast(t("rematch_declined", { name: Board.seatName(T.table, msg.seat) }));
      T.log.push({ type: "rematch_declined", seat: msg.seat });
      renderLog();
      render();
      break;
    case "move":
      showDeviceLink(msg.token);
      break;
    case "moved": {
      // My seat continues on another device: its token is void here; this page watches.
      B.dropToken(T.id);
      T.seat = null;
      T.moved = true;
      T.returned = null;
      clearRefusal();
      const dlg = document.getElementById("device-dialog");
      if (dlg) dlg.remove();
      if (msg.state) takeState(msg.state);
      render();
      B.toast(t("seat_moved"));
      break;
    }
    case "returned":
      // Back after a bot played for me: what it played, until dismissed.
      T.returned = msg.played || [];
      render();
      break;
    case "left":
      B.dropToken(T.id);
      T.seat = null;
      clearRefusal();
      render();
      break;
    default:
      break;
  }
}

function onError(msg) {
  if (msg.code === "bad_token") {
    // A stale token: say so, and let the player choose (watch, or take a free seat).
    B.dropToken(T.id);
    T.stale = true;
    T.ws.send(JSON.stringify({ type: "hello" }));
    return;
  }
  if (msg.code === "no_table") {
    $("#lobby").hidden = false;
    $("#lobby").replaceChildren(el("p", { class: "error", text: t("no_table") }), el("a", { href: "/", text: t("back_to_lobby") }));
    return;
  }
  // Refusals are worded from the page's strings (1-based seats and fields) with a link
  // to the rule; other errors have a message of their own (or a code we know).
  const text = msg.code === "illegal" ? t("not_allowed") + ": " + B.refusalText(msg, T.table) : t("error") + ": " + (B.strings.ui[B.lang]["code." + msg.code] ? t("code." + msg.code) : msg.message);
  // A refusal stays (with its rule link) until dismissed, on the pop-up and above the
  // board; dismissing either dismisses both. A newer refusal replaces the older one.
  const rule = msg.rule || (msg.refusal && msg.refusal.rule) || null;
  for (const old of document.querySelectorAll(".toast.refusal")) old.remove();
  const toast = B.toast(text, "error", {
    rule,
    onDismiss: () => {
      T.lastError = null;
      showLastError();
    },
  });
  T.lastError = { text, rule, toast, at: performance.now(), timer: null };
  showLastError();
}

function showLastError() {
  const box = $("#last-error");
  if (!box) return;
  const e = T.lastError;
  box.hidden = !e;
  // Unchanged words keep their nodes (see renderBoard).
  const key = e ? e.text + "\u0000" + (e.rule || "") : "";
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (!e) return box.replaceChildren();
  const dismiss = el("button", {
    type: "button",
    class: "link dismiss",
    id: "last-error-close",
    "aria-label": t("close"),
    text: "×",
    onclick: () => {
      if (T.lastError && T.lastError.toast) T.lastError.toast.remove();
      T.lastError = null;
      showLastError();
    },
  });
  box.replaceChildren(e.text, e.rule ? " " : "", e.rule ? B.ruleLink(e.rule) : "", dismiss);
}

function takeState(s) {
  if (s.cards) Board.cards = s.cards;
  const prevTurn = T.state && T.state.view.turn;
  if (T.state && s.seq !== T.state.seq) staleRefusal();
  T.state = s;
  T.clockAt = performance.now();
  if (s.log) T.log = s.log.slice();
  if (s.events && s.events.length) T.log.push(...s.events);
  if (T.log.length > 600) T.log = T.log.slice(-400);
  const v = s.view;
  // Forget selections that no longer make sense.
  if (prevTurn !== v.turn || v.phase !== "trade") {
    T.ui.builder = null;
    T.ui.accepting = null;
  }
  if (T.ui.accepting && !v.offers.some((o) => o.offer_id === T.ui.accepting.offerId)) T.ui.accepting = null;
  if (T.ui.builder && T.seat !== null) {
    const mine = new Set(tradeable().map((c) => c.id));
    T.ui.builder.give = T.ui.builder.give.filter((id) => mine.has(id));
  }
  if (T.ui.accepting && T.seat !== null) {
    const mine = new Set(tradeable().map((c) => c.id));
    T.ui.accepting.cards = T.ui.accepting.cards.filter((id) => mine.has(id));
  }
  if (T.ui.selected !== null && !selectableIds().includes(T.ui.selected)) T.ui.selected = null;
  renderLog();
}

// ------------------------------------------------------------------ helpers

function me() {
  return T.state && T.seat !== null ? T.state.view.seats[T.seat] : null;
}
function legal() {
  return (T.state && T.state.legal) || [];
}
function legalOf(type) {
  return legal().filter((a) => a.type === type);
}
function myTurn() {
  return !!T.state && T.seat !== null && T.state.view.active === T.seat && T.state.view.phase !== "over";
}
function tradeable() {
  const v = T.state.view;
  const cards = (v.hand || []).slice();
  if (myTurn()) cards.push(...v.drawn);
  return cards;
}
// What the table's module tells the page (ModuleInfo.to_json, sent as table.module_info):
// its phases, public piles and behaviour flags; the page never tests module names.
function moduleInfo() {
  return (T.table && T.table.module_info) || {};
}
function selectableIds() {
  const v = T.state.view;
  const ids = [];
  const mine = me();
  if (mine) ids.push(...mine.trade_area.map((c) => c.id));
  // Any card a module's action takes (drawn from its shape, actions.js).
  for (const a of Shapes.legal()) {
    const p = Shapes.cardParam(Shapes.of(a.type));
    if (p && typeof a[p.fills] === "number") ids.push(a[p.fills]);
  }
  return ids;
}
// ------------------------------------------------------------------ rendering

function render() {
  document.body.dataset.status = T.table ? T.table.status : "loading";
  document.body.dataset.seat = T.seat === null ? "" : T.seat;
  if (T.state) {
    document.body.dataset.seq = T.state.seq;
    document.body.dataset.phase = T.state.view.phase;
    document.body.dataset.myTurn = myTurn() ? "1" : "0";
    document.body.dataset.need = needsMe() ? "1" : "0";
  }
  if (!T.table) return;
  $("#table-title").textContent = B.rulesName(T.table.rules) + " · " + t("players_n", { n: T.table.players }) + " · " + t("status." + T.table.status);
  updateAlert();
  const lobby = T.table.status === "lobby" || !T.state;
  $("#lobby").hidden = !lobby;
  $("#board").hidden = lobby;
  if (lobby) renderLobby();
  else renderBoard();
}

function renderLobby() {
  const tb = T.table;
  const link = (T.links && T.links[0]) || location.origin + "/t/" + encodeURIComponent(T.id);
  const seats = tb.seats.map((s) => {
    let who;
    if (s.kind === "bot") who = t("bot_name", { n: s.seat + 1, bot: s.bot });
    else if (s.taken) who = s.name + (s.seat === T.seat ? " (" + t("you") + ")" : "") + (s.connected ? "" : " · " + t("offline"));
    else if (s.reserved) who = t("reserved_seat");
    else who = t("open_seat");
    const row = el("li", { class: "lobby-seat" + (s.taken ? "" : " open"), dataset: { seat: s.seat } }, el("span", { class: "seat-no", text: t("seat_n", { n: s.seat + 1 }) }), el("span", { text: who }));
    if (!s.taken && !s.reserved && T.seat === null) {
      row.append(el("button", { type: "button", class: "primary take-seat", text: t("take_seat"), onclick: () => takeSeat(s.seat) }));
    }
    if (isHost() && s.kind === "person" && s.taken && s.seat !== T.seat) {
      row.append(el("button", { type: "button", class: "secondary remove-seat", text: t("remove_player"), onclick: () => send({ type: "host", op: "remove", seat: s.seat }) }));
    }
    return row;
  });
  const open = tb.seats.filter((s) => s.kind === "person" && !s.taken).length;
  const box = $("#lobby");
  const parts = [
    el("h2", { text: t("table_lobby") }),
    el(
      "p",
      { class: "settings-line" },
      B.rulesName(tb.rules),
      " · ",
      t("players_n", { n: tb.players }),
      tb.options && tb.options.remove ? " · " + t("without", { bean: B.bean(tb.options.remove, "gen") }) : "",
      " · ",
      tb.trade_limit ? t("trade_limit_is", { time: B.duration(tb.trade_limit) }) : t("no_trade_limit"),
      " · ",
      el("span", { class: "lobby-clock", text: t("clock") + ": " + (B.strings.ui[B.lang]["clock." + tb.clock] ? t("clock." + tb.clock) : tb.clock) }),
      tb.stand_in_bot ? " · " + t("stand_in_is", { bot: tb.stand_in_bot }) : "",
      tb.rated && tb.rated !== "no" ? el("span", { class: "lobby-rated" }, " · ", t("rated." + tb.rated)) : ""
    ),
    el(
      "div",
      { class: "share" },
      el("label", { for: "share-link", text: t("share_link") }),
      el("input", { id: "share-link", readonly: true, value: link }),
      el("button", {
        type: "button",
        class: "secondary",
        text: t("copy"),
        onclick: () => {
          navigator.clipboard && navigator.clipboard.writeText(link);
          B.toast(t("copied"));
        },
      })
    ),
    T.links && T.links.length > 1 ? el("p", { class: "muted other-links" }, t("other_addresses"), " ", T.links.slice(1).join(" · ")) : null,
    el("div", { class: "qr", id: "invite-qr", "aria-label": t("invite_qr") }),
    el("ol", { class: "lobby-seats" }, seats),
  ];
  if (T.stale) parts.unshift(staleBox());
  if (T.seat === null && open > 0 && tb.status === "lobby") {
    parts.push(el("div", { class: "join-row" }, el("label", { for: "join-name", text: t("your_name") }), el("input", { id: "join-name", maxlength: 40, value: localStorage.getItem("bohnanza.name") || "" })));
  }
  if (T.seat !== null && tb.status === "lobby") {
    parts.push(
      el(
        "div",
        { class: "buttons" },
        el("button", { type: "button", id: "btn-start", class: "primary", disabled: open > 0, text: open > 0 ? t("waiting_players", { n: open }) : t("start"), onclick: () => send({ type: "start" }) }),
        el("button", { type: "button", id: "btn-leave", class: "secondary", text: t("leave"), onclick: () => send({ type: "leave" }) })
      )
    );
    if (isHost()) parts.push(hostControls(tb));
  } else if (T.seat === null && tb.status === "lobby") {
    parts.push(el("p", { class: "hint", text: open ? t("pick_seat") : t("table_full") }));
  }
  // Keep the typed name across re-renders.
  const typed = $("#join-name") && $("#join-name").value;
  box.replaceChildren(...parts.filter(Boolean));
  if (typed && $("#join-name")) $("#join-name").value = typed;
  showQr($("#invite-qr"), link);
}

// The invite links, built by the server from the address this browser used.
async function loadInvite() {
  try {
    const invite = await B.api("GET", `/api/tables/${encodeURIComponent(T.id)}/invite`);
    T.links = invite.links;
    T.reachable = invite.reachable || null;
  } catch (e) {
    T.links = null;
  }
  render();
}

const qrCache = new Map();
async function showQr(box, text) {
  if (!box) return;
  let svg = qrCache.get(text);
  if (!svg) {
    const res = await fetch("/api/qr", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text }) });
    if (!res.ok) return;
    svg = await res.text();
    qrCache.set(text, svg);
  }
  const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
  const node = doc.documentElement;
  if (node && node.nodeName.toLowerCase() === "svg") box.replaceChildren(document.importNode(node, true));
}

function staleBox() {
  const free = T.table.status === "lobby" && T.table.seats.some((s) => s.kind === "person" && !s.taken);
  return el(
    "div",
    { class: "stale", id: "stale-token", role: "alert" },
    el("p", { text: t("stale_token") }),
    el(
      "div",
      { class: "buttons" },
      el("button", {
        type: "button",
        class: "secondary",
        id: "stale-watch",
        text: t("stale_watch"),
        onclick: () => {
          T.stale = false;
          render();
        },
      }),
      free ? el("span", { class: "muted", text: t("stale_free_seat") }) : null
    )
  );
}

function hostControls(tb) {
  const box = (id, key, checked, op) =>
    el(
      "label",
      { class: "host-option" },
      el("input", { type: "checkbox", id, checked, onchange: (ev) => send({ type: "host", op, value: ev.target.checked }) }),
      " " + t(key)
    );
  return el("div", { class: "host-controls" }, box("host-private", "private_table", !!tb.private, "private"), box("host-spectator-chat", "spectator_chat_on", tb.spectator_chat !== false, "spectator_chat"));
}

async function takeSeat(seat) {
  const typed = ($("#join-name") && $("#join-name").value.trim()) || "";
  if (typed) localStorage.setItem("bohnanza.name", typed);
  const name = typed || t("player_n", { n: seat + 1 });
  try {
    const res = await B.api("POST", `/api/tables/${encodeURIComponent(T.id)}/join`, { name, seat });
    B.setToken(T.id, res.token);
    T.stale = false;
    T.ws.close();
    connect();
  } catch (e) {
    B.toast(B.errorText(e), "error");
  }
}

function renderBoard() {
  const v = T.state.view;
  const tb = T.table;
  const board = $("#board");
  const parts = [Board.statusLine(tb, v)];
  if (T.stale) parts.push(staleBox());
  const clocks = renderClocks();
  if (clocks) parts.push(clocks);
  const idle = renderIdle();
  if (idle) parts.push(idle);
  if (T.returned) parts.push(renderReturned());
  parts.push(el("div", { id: "hint", class: "hint-line", text: hintText() }));
  // The refusal line is the one node kept across renders: the board is rebuilt on every
  // event, and a close button rebuilt between a person's press and release swallows the
  // click (the bots' moves come many a second).
  parts.push($("#last-error") || el("div", { id: "last-error", class: "error-line", role: "alert", hidden: true }));
  if (v.phase === "over") parts.push(renderOver());
  // Other players (all of them for a spectator), in seat order starting after me.
  const n = v.players;
  const order = [];
  for (let i = 1; i <= n; i++) {
    const s = T.seat === null ? i - 1 : (T.seat + i) % n;
    if (s !== T.seat) order.push(s);
  }
  parts.push(el("section", { id: "players", class: "players" }, order.map((s) => Board.seatPanel(tb, v, v.seats[s]))));
  parts.push(renderCenter());
  if (T.state.trading && v.phase === "trade") parts.push(renderTrading());
  if (T.seat !== null) parts.push(renderMine());
  else parts.push(el("p", { class: "hint", id: "watching", text: T.moved ? t("seat_moved") : t("watching") }));
  parts.push(renderSeatTools());
  board.replaceChildren(...parts);
  showLastError();
}

// Idle players (tables without a clock): the idle one is told, the others may vote to let
// a bot play for them; a stood-in player takes the seat back with "I'm back".
function renderIdle() {
  if (T.seat === null || T.table.status !== "playing") return null;
  const seats = T.table.seats;
  const mine = seats[T.seat] || {};
  const box = el("div", { class: "idle-box", id: "idle-box" });
  const out = T.state && T.state.clock && (T.state.clock.out || []).includes(T.seat);
  if (mine.stand_in || out) {
    box.append(el("p", { text: t(out ? "you_timed_out" : "you_stood_in") }), el("button", { type: "button", class: "primary", id: "btn-back", text: t("im_back"), onclick: () => send({ type: "back" }) }));
  } else if (mine.idle) {
    box.append(el("p", { text: t("you_idle") }));
  }
  for (const s of seats) {
    if (!s.idle || s.seat === T.seat) continue;
    const name = Board.seatName(T.table, s.seat);
    box.append(
      el(
        "p",
        { class: "idle-seat", dataset: { seat: s.seat } },
        t("idle_notice", { name }) + " ",
        el("button", { type: "button", class: "secondary vote-stand-in", text: t("vote_stand_in", { name }) + (s.votes ? " (" + t("votes_n", { n: s.votes }) + ")" : ""), onclick: () => send({ type: "stand_in", seat: s.seat }) })
      )
    );
  }
  return box.childNodes.length ? box : null;
}

// Back after a bot played for me (away, out of time, stood in): what it played, until
// dismissed.
function renderReturned() {
  const moves = T.returned.map((e) => el("li", { text: Board.eventText(T.table, e) }));
  return el(
    "div",
    { class: "returned-box", id: "returned-box", role: "status" },
    el("p", { text: moves.length ? t("returned_played") : t("returned_nothing") }),
    moves.length ? el("ul", { class: "returned-moves" }, moves) : null,
    el("button", {
      type: "button",
      class: "secondary",
      id: "returned-ok",
      text: t("dismiss"),
      onclick: () => {
        T.returned = null;
        render();
      },
    })
  );
}

// Leave/resign and "continue on another device", for a seated player.
function renderSeatTools() {
  const box = el("div", { class: "buttons seat-tools" });
  box.append(el("span", { class: "muted", id: "spectator-count", text: t("spectators_n", { n: T.table.spectators || 0 }) }));
  if (T.seat === null || T.table.status !== "playing") return box;
  box.append(
    el("button", { type: "button", class: "secondary", id: "btn-device", text: t("other_device"), onclick: otherDevice }),
    el("button", {
      type: "button",
      class: "secondary danger",
      id: "btn-resign",
      text: t("resign"),
      onclick: async () => {
        if (await B.confirm(t("resign_title"), el("p", { text: t("resign_question") }), t("resign"))) send({ type: "leave" });
      },
    })
  );
  return box;
}

// A link (and QR code) that moves this seat to another device, after a warning: the
// server gives a new token for it (`move`), the link is built from the address another
// device can reach (the invite's logic, `reachable`), and once it is opened this page
// watches (`moved`). The link holds a one-time code for that token, not the token: the
// other browser's history keeps what it opened (`handover`, then `claim` there).
function otherDevice() {
  if (T.seat === null) return;
  send({ type: "move" });
}

async function showDeviceLink(token) {
  let code;
  try {
    code = (await B.api("POST", `/api/tables/${encodeURIComponent(T.id)}/handover`, { token })).code;
  } catch (e) {
    B.toast(e.message);
    return;
  }
  const base = T.reachable || location.origin + "/t/" + encodeURIComponent(T.id);
  const link = base + "#claim=" + encodeURIComponent(code);
  const qr = el("div", { class: "qr", id: "device-qr" });
  const dlg = el(
    "div",
    { class: "modal", role: "dialog", "aria-modal": "true", id: "device-dialog" },
    el(
      "div",
      { class: "modal-box" },
      el("h3", { text: t("other_device") }),
      el("p", { class: "warning", text: t("other_device_warning") }),
      el("input", { id: "device-link", readonly: true, value: link }),
      qr,
      el(
        "div",
        { class: "buttons" },
        el("button", {
          type: "button",
          class: "secondary",
          text: t("copy"),
          onclick: () => {
            navigator.clipboard && navigator.clipboard.writeText(link);
            B.toast(t("copied"));
          },
        }),
        el("button", { type: "button", class: "primary", id: "device-close", text: t("close"), onclick: () => dlg.remove() })
      )
    )
  );
  document.body.append(dlg);
  showQr(qr, link);
}

// ------------------------------------------------------------------ clocks

function clockText(secs) {
  const s = Math.max(0, Math.ceil(secs));
  if (s >= 86400) return Math.floor(s / 86400) + " d " + Math.floor((s % 86400) / 3600) + " h"; // at your own pace
  if (s >= 3600) return Math.floor(s / 3600) + " h " + String(Math.floor((s % 3600) / 60)).padStart(2, "0") + " min";
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

function renderClocks() {
  const c = T.state.clock;
  const tradeLeft = T.state.trade_left;
  if (!c && (tradeLeft === undefined || tradeLeft === null)) return null;
  const box = el("div", { class: "clocks", id: "clocks" });
  if (c) {
    for (const seat of c.people) {
      const running = c.running.includes(seat);
      box.append(
        el(
          "span",
          { class: "clock" + (running ? " running" : "") + (c.out.includes(seat) ? " out" : "") + (seat === T.seat ? " mine" : ""), dataset: { clockSeat: seat } },
          Board.seatName(T.table, seat) + " ",
          el("b", { class: "clock-time", text: clockText(c.bank[seat]) })
        )
      );
    }
  }
  if (tradeLeft !== undefined && tradeLeft !== null && T.state.view.phase === "trade") {
    box.append(el("span", { class: "clock trade-clock running", id: "trade-clock" }, t("trade_ends_in") + " ", el("b", { class: "clock-time", text: clockText(tradeLeft) })));
  }
  return box;
}

// Count down between two states (the server's snapshot is the truth).
function tickClocks() {
  if (!T.state) return;
  const gone = (performance.now() - T.clockAt) / 1000;
  const c = T.state.clock;
  if (c) {
    for (const e of document.querySelectorAll("[data-clock-seat]")) {
      const seat = Number(e.dataset.clockSeat);
      const left = c.running.includes(seat) ? c.bank[seat] - gone : c.bank[seat];
      e.querySelector(".clock-time").textContent = clockText(left);
    }
  }
  const tc = document.getElementById("trade-clock");
  if (tc && T.state.trade_left !== undefined) tc.querySelector(".clock-time").textContent = clockText(T.state.trade_left - gone);
}

// ------------------------------------------------------------------ alerts

// The tab's title and icon say "your turn"; a sound and a notification, if switched on,
// when it becomes my turn or an offer comes to me.
function updateAlert() {
  const need = !!(T.state && T.table.status === "playing" && needsMe());
  const offers = T.state && T.seat !== null ? T.state.view.offers.filter((o) => o.to === T.seat) : [];
  const fresh = offers.filter((o) => !T.offersSeen.has(o.offer_id));
  for (const o of offers) T.offersSeen.add(o.offer_id);
  // A rematch invitation I have not answered counts too (the game is over by then).
  const invited = !!(T.invite && T.seat !== null && localStorage.getItem("bohnanza.declined." + T.invite.table) !== "1");
  const on = need || offers.length > 0 || invited;
  const what = need ? t("your_turn") : offers.length ? t("offer_for_you") : t("alert.rematch", { name: invited ? Board.seatName(T.table, T.invite.from) : "" });
  document.title = (on ? "● " + what + " · " : "") + "Bohnanza · " + T.id;
  const icon = document.getElementById("favicon");
  if (icon) icon.href = on ? "/static/favicon-turn.svg" : "/static/favicon.svg";
  document.body.dataset.alert = on ? "1" : "0";
  if (need && !T.alerted) alertMe(t("your_turn"));
  else if (fresh.length) alertMe(t("offer_for_you"));
  T.alerted = need;
}

function alertMe(text) {
  if (localStorage.getItem("bohnanza.sound") === "1") beep();
  if (localStorage.getItem("bohnanza.notify") === "1" && "Notification" in window && Notification.permission === "granted" && document.hidden) {
    new Notification("Bohnanza", { body: text, tag: "bohnanza-" + T.id });
  }
}

let audio = null;
function beep() {
  try {
    audio = audio || new AudioContext();
    const o = audio.createOscillator();
    const g = audio.createGain();
    o.frequency.value = 660;
    g.gain.setValueAtTime(0.12, audio.currentTime);
    g.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
    o.connect(g).connect(audio.destination);
    o.start();
    o.stop(audio.currentTime + 0.36);
  } catch (e) {
    /* no audio */
  }
}

function alertToggles() {
  const sound = localStorage.getItem("bohnanza.sound") === "1";
  const notify = localStorage.getItem("bohnanza.notify") === "1";
  // Short symbols (the header is narrow on phones); the words are the tooltips.
  for (const [id, on, key] of [["#btn-sound", sound, "sound"], ["#btn-notify", notify, "notify"]]) {
    const b = $(id);
    b.textContent = id === "#btn-sound" ? "♪" : "✉";
    b.title = t(key) + ": " + t(on ? "on" : "off");
    b.setAttribute("aria-label", b.title);
    b.setAttribute("aria-pressed", on ? "true" : "false");
    b.classList.toggle("on", on);
  }
}

function hintText() {
  const v = T.state.view;
  if (v.phase === "over") return t("hint.over");
  if (T.seat === null) return t("hint.watching", { name: Board.seatName(T.table, v.active) });
  const pend = v.pending;
  if (pend) {
    // A typed decision ({seat, asks, args}), worded by the shape of the action that answers it.
    if (pend.seat !== T.seat) return t("hint.wait_for", { names: Board.seatName(T.table, pend.seat) });
    // The cards the decision is about, which only the deciding seat's view carries.
    const about = (pend.cards || []).map((c) => B.bean(c.variety, true) + (c.kind ? " (" + B.kind(c.kind) + ")" : ""));
    const asks = Shapes.pendingHint(pend.asks);
    return about.length ? asks + " · " + about.join(", ") : asks;
  }
  const picked = Shapes.selectedHint(); // a card a module's action takes is selected
  if (picked) return picked;
  const mine = me();
  if (v.phase === "plant" && myTurn()) {
    const plants = legalOf("plant");
    if (v.planted === 0) return plants.length ? t("hint.plant_first") : t("hint.must_harvest");
    return plants.length ? t("hint.plant_second") : t("hint.stop");
  }
  if (v.phase === "trade") {
    if (!T.state.trading) return "";
    return myTurn() ? t("hint.trade_active") : t("hint.trade_other", { name: Board.seatName(T.table, v.active) });
  }
  if (v.phase === "plant_traded" && mine && mine.trade_area.length) {
    return legalOf("plant_traded").length ? t("hint.plant_traded") : t("hint.must_harvest_traded");
  }
  if ((moduleInfo().hint_phases || []).includes(v.phase) && myTurn()) return t("hint." + v.phase);
  const waiting = waitingFor();
  if (waiting.length) return t("hint.wait_for", { names: waiting.map((s) => Board.seatName(T.table, s)).join(", ") });
  return "";
}

// Whether the game waits for a decision of mine now.
function needsMe() {
  const v = T.state.view;
  if (T.seat === null || v.phase === "over") return false;
  if (v.pending) return v.pending.seat === T.seat;
  if (v.phase === "plant_traded") return me().trade_area.length > 0;
  return v.active === T.seat;
}

function waitingFor() {
  const v = T.state.view;
  if (v.phase === "plant_traded") return v.seats.filter((s) => s.trade_area.length).map((s) => s.seat);
  if (v.phase === "over") return [];
  return [v.active];
}

function renderOver() {
  const v = T.state.view;
  const box = el("section", { id: "game-over", class: "game-over" }, el("h2", { text: t("final_scores") }), Board.scores(T.table, v));
  const buttons = el("div", { class: "buttons" });
  buttons.append(el("a", { class: "button secondary", id: "replay-link", href: "/replay/" + encodeURIComponent(T.id), text: t("replay") }));
  const answered = T.table.rematch && (B.getToken(T.table.rematch) || localStorage.getItem("bohnanza.declined." + T.table.rematch));
  if (T.table.rematch && T.seat !== null && !answered) {
    // Invited: join by choice, or decline (a bot takes the seat there).
    box.append(el("p", { class: "invite", id: "rematch-invite", text: t("rematch_invited", { name: T.invite ? Board.seatName(T.table, T.invite.from) : "" }) }));
    buttons.append(
      el("button", { type: "button", class: "primary", id: "btn-rematch-join", text: t("rematch_join"), onclick: () => send({ type: "rematch_join" }) }),
      el("button", { type: "button", class: "secondary", id: "btn-rematch-decline", text: t("rematch_decline"), onclick: () => send({ type: "rematch_decline" }) })
    );
  } else if (T.table.rematch) {
    buttons.append(el("a", { class: "button primary", id: "to-rematch", href: "/t/" + encodeURIComponent(T.table.rematch), text: T.seat === null ? t("watch_rematch") : t("to_rematch") }));
  } else if (T.seat !== null) {
    buttons.append(el("button", { type: "button", class: "primary", id: "btn-rematch", text: t("rematch"), onclick: () => send({ type: "rematch" }) }));
  }
  buttons.append(el("a", { class: "button secondary", href: "/", text: t("back_to_lobby") }));
  box.append(buttons);
  return box;
}

function renderCenter() {
  const v = T.state.view;
  const box = el("section", { id: "center", class: "center" });
  if (v.drawn.length) {
    box.append(el("div", { class: "drawn", id: "drawn" }, el("span", { class: "label", text: t("drawn_cards") }), v.drawn.map((c) => {
      const e = B.card(c, { drawn: true });
      Shapes.decorate(e, c.id);
      return e;
    })));
  }
  // The module's public piles (ModuleInfo.public), headed by their ModuleInfo.pile_labels;
  // a card a module's action takes is pickable there (actions.js).
  const pub = v.public || {};
  for (const key of moduleInfo().public || []) {
    if (pub[key] && pub[key].length) {
      box.append(
        el(
          "div",
          { class: "pile pile-" + key, id: "pile-" + key },
          el("span", { class: "label", text: Shapes.pileLabel(T.table, key) }),
          pub[key].map((c) => {
            const e = B.card(c);
            Shapes.decorate(e, c.id);
            return e;
          })
        )
      );
    }
  }
  // Every module action, drawn from its shape, listed in words (actions.js).
  const choices = Shapes.choices();
  if (choices) box.append(choices);
  const buttons = el("div", { class: "buttons main-actions" });
  if (legalOf("stop_planting").length) {
    buttons.append(el("button", { type: "button", id: "btn-stop-planting", class: "primary", text: t("stop_planting"), onclick: () => act({ type: "stop_planting" }) }));
  }
  if (legalOf("end_trading").length) {
    buttons.append(el("button", { type: "button", id: "btn-end-trading", class: "primary", text: t("end_trading"), onclick: () => act({ type: "end_trading" }) }));
  }
  if (buttons.childElementCount) box.append(buttons);
  return box;
}

// ------------------------------------------------------------------ my side

function renderMine() {
  const v = T.state.view;
  const mine = me();
  const panel = el("section", { id: "mine", class: "mine seat is-me" + (myTurn() ? " is-active" : "") });
  panel.append(
    el(
      "div",
      { class: "seat-head" },
      el("span", { class: "seat-name", text: Board.seatName(T.table, T.seat) + " (" + t("you") + ")" }),
      myTurn() && v.phase !== "over" ? el("span", { class: "badge active", text: t("active") }) : null,
      el("span", { class: "seat-stats" }, el("span", { class: "coins", id: "my-coins", title: t("coins") }, B.coin(), String(mine.coins)), el("span", { class: "hand-size", text: "🂠 " + mine.hand_size }))
    )
  );
  // Fields: click a highlighted one to plant; harvest with the payout shown first.
  const targets = plantTargets();
  const fields = el("div", { class: "fields", id: "my-fields" });
  mine.fields.forEach((f, i) => {
    const actions = el("div", { class: "field-actions" });
    if (f.length && legal().some((a) => a.type === "harvest" && a.field === i)) {
      actions.append(
        el("button", {
          type: "button",
          class: "harvest",
          dataset: { harvest: i },
          onclick: (ev) => {
            ev.stopPropagation();
            harvest(i);
          },
        }, el("span", null, t("harvest_for") + " " + mine.payouts[i], B.coin()))
      );
    }
    const target = targets.get(i);
    const box = Board.field(f, i, mine.payouts[i], { cls: target ? "target" : "", actions });
    for (const c of box.querySelectorAll(".stack .card[data-card]")) Shapes.decorate(c, Number(c.dataset.card));
    if (target) {
      box.title = t("plant_here");
      box.addEventListener("click", () => Shapes.send(target));
      box.append(el("span", { class: "plant-here", text: t("plant_here") }));
    }
    fields.append(box);
  });
  if (legalOf("buy_field").length) {
    fields.append(
      el(
        "div",
        { class: "field buy" },
        el("button", { type: "button", id: "btn-buy-field", class: "secondary", onclick: buyField }, el("span", null, t("buy_field") + " (" + v.field_price, B.coin(), ")"))
      )
    );
  }
  panel.append(fields);
  // Coins known to their owner (ModuleInfo.own_treasury_visible: the view carries them).
  if (v.treasury && v.treasury.length) {
    panel.append(el("div", { class: "treasury", id: "my-treasury" }, el("span", { class: "label", text: t("your_coins") }), v.treasury.map((c) => B.card(c, { small: true }))));
  }
  // The trade area: received and kept cards, planted in phase 3.
  if (mine.trade_area.length) {
    panel.append(
      el(
        "div",
        { class: "trade-area", id: "my-trade" },
        el("span", { class: "label", text: t("trade_area") }),
        mine.trade_area.map((c) => {
          const e = B.card(c);
          if (Shapes.decorate(e, c.id)) return e;
          e.classList.add("pickable");
          if (T.ui.selected === c.id) e.classList.add("selected");
          e.addEventListener("click", () => {
            T.ui.selected = T.ui.selected === c.id ? null : c.id;
            render();
          });
          return e;
        })
      )
    );
  }
  // The hand, in order; the front card is planted first.
  const hand = v.hand || [];
  const builder = T.ui.builder;
  const accepting = T.ui.accepting;
  panel.append(
    el(
      "div",
      { class: "hand", id: "my-hand" },
      el("span", { class: "label", text: t("your_hand", { n: hand.length }) }),
      hand.length ? null : el("span", { class: "muted", text: t("empty_hand") }),
      hand.map((c, i) => {
        const e = B.card(c, { extra: i === 0 ? "front" : i === 1 ? "second" : "" });
        if (i === 0) e.append(el("span", { class: "front-mark", text: t("front") }));
        if (builder && tradeable().some((x) => x.id === c.id)) {
          e.classList.add("pickable");
          if (builder.give.includes(c.id)) e.classList.add("selected");
          e.addEventListener("click", () => toggleGive(c.id));
        } else if (accepting && accepting.cards.includes(c.id)) {
          e.classList.add("selected");
        } else {
          Shapes.decorate(e, c.id); // a module's action on a hand card (actions.js)
        }
        return e;
      })
    )
  );
  return panel;
}

// Where a click on my field i plants something now: the front card (phase 1), the
// selected trade-area card (phase 3), or a module's action with a field parameter (its
// selected card, or the card of a pending decision: actions.js), which wins.
function plantTargets() {
  const out = new Map();
  for (const a of legalOf("plant")) out.set(a.field, a);
  const sel = T.ui.selected;
  let traded = legalOf("plant_traded");
  if (traded.length) {
    const chosen = sel !== null && traded.some((a) => a.card === sel) ? sel : traded[0].card;
    T.ui.selected = chosen;
    for (const a of traded) if (a.card === chosen) out.set(a.field, a);
  }
  for (const [f, a] of Shapes.fieldTargets()) out.set(f, a);
  return out;
}

async function harvest(i) {
  const mine = me();
  const f = mine.fields[i];
  const coins = mine.payouts[i];
  const body = el(
    "div",
    null,
    el("p", { text: t("harvest_question", { n: f.length, bean: B.bean(f[f.length - 1].variety), beans: B.beans(f[f.length - 1].variety, f.length), field: i + 1 }) }),
    el("p", { class: "big", id: "harvest-payout", text: t("harvest_payout", { coins, rest: Math.max(0, f.length - coins) }) })
  );
  if (await B.confirm(t("harvest_title", { field: i + 1 }), body, t("harvest"))) act({ type: "harvest", field: i });
}

async function buyField() {
  const v = T.state.view;
  const question = el("p", { text: t("buy_question", { n: v.field_price, coins: me().coins }) });
  if (!v.treasury) {
    if (await B.confirm(t("buy_title"), question, t("buy"))) act({ type: "buy_field" });
    return;
  }
  // Coins the buyer names (ModuleInfo.buyer_chooses_coins; the view shows them): picked in the
  // order they go onto the discard pile, by the generic coin picker (actions.js).
  const coins = await Shapes.pickCoins(t("buy_title"), question, v.field_price, t("buy"));
  if (coins !== null) act({ type: "buy_field", cards: coins });
}

// ------------------------------------------------------------------ trading

function partners() {
  const v = T.state.view;
  if (myTurn()) return v.seats.map((s) => s.seat).filter((s) => s !== T.seat);
  return [v.active];
}

function renderTrading() {
  const v = T.state.view;
  const box = el("section", { id: "trading", class: "trading" }, el("h3", { text: t("trading") }));
  const incoming = v.offers.filter((o) => o.to === T.seat);
  const outgoing = v.offers.filter((o) => o.proposer === T.seat);
  const others = v.offers.filter((o) => o.to !== T.seat && o.proposer !== T.seat);
  const offerLine = (o) =>
    el(
      "div",
      { class: "offer-what" },
      el("span", { class: "give" }, t("gives"), " ", o.give.length ? o.give.map((g) => B.card(g, { small: true })) : t("nothing")),
      el("span", { class: "want" }, o.want.length ? t("wants") + " " + Board.wantText(o.want, true) : t("as_gift"))
    );
  if (T.seat !== null) {
    for (const o of incoming) {
      const item = el(
        "div",
        { class: "offer incoming", dataset: { offer: o.offer_id } },
        el("div", { class: "offer-from", text: t(o.want.length ? "offer_from" : "gift_from", { name: Board.seatName(T.table, o.proposer) }) }),
        offerLine(o)
      );
      const acc = T.ui.accepting && T.ui.accepting.offerId === o.offer_id;
      const choices = legal().filter((a) => a.type === "accept" && a.offer_id === o.offer_id);
      const buttons = el("div", { class: "buttons" });
      if (!o.want.length) {
        buttons.append(el("button", { type: "button", class: "primary accept", text: t("accept_gift"), onclick: () => act({ type: "accept", offer_id: o.offer_id }) }));
      } else if (acc) {
        const ok = pickedMatches(o);
        item.append(el("p", { class: "hint", text: t("pick_cards", { want: Board.wantText(o.want) }) }));
        item.append(payPicker(o));
        item.append(el("p", { class: "pay-summary", id: "pay-summary" }, t("you_pay") + " ", T.ui.accepting.cards.length ? payText(T.ui.accepting.cards) : t("nothing")));
        buttons.append(
          el("button", { type: "button", class: "primary", id: "accept-confirm", disabled: !ok, text: t("accept_with", { n: T.ui.accepting.cards.length }), onclick: () => confirmAccept(o) }),
          el("button", {
            type: "button",
            class: "secondary",
            text: t("cancel"),
            onclick: () => {
              T.ui.accepting = null;
              render();
            },
          })
        );
      } else {
        buttons.append(
          el("button", {
            type: "button",
            class: "primary accept",
            disabled: !choices.length,
            title: choices.length ? "" : t("cannot_pay"),
            text: choices.length ? t("accept") : t("cannot_pay"),
            onclick: () => {
              T.ui.builder = null;
              T.ui.accepting = { offerId: o.offer_id, cards: (choices[0] && choices[0].cards) || [] };
              render();
            },
          })
        );
      }
      if (!acc) {
        buttons.append(el("button", { type: "button", class: "secondary counter", text: t("counter"), onclick: () => counter(o) }));
        buttons.append(el("button", { type: "button", class: "secondary decline", text: o.want.length ? t("decline") : t("refuse"), onclick: () => act({ type: "decline", offer_id: o.offer_id }) }));
      }
      item.append(buttons);
      box.append(item);
    }
    for (const o of outgoing) {
      box.append(
        el(
          "div",
          { class: "offer outgoing", dataset: { offer: o.offer_id } },
          el("div", { class: "offer-from", text: t("offer_to", { name: Board.seatName(T.table, o.to) }) }),
          offerLine(o),
          el("div", { class: "buttons" }, el("button", { type: "button", class: "secondary withdraw", text: t("withdraw"), onclick: () => act({ type: "withdraw", offer_id: o.offer_id }) }))
        )
      );
    }
  }
  if (others.length) {
    box.append(
      el(
        "details",
        { class: "other-offers" },
        el("summary", { text: t("other_offers", { n: others.length }) }),
        others.map((o) => el("div", { class: "offer other" }, el("div", { class: "offer-from", text: Board.seatName(T.table, o.proposer) + " → " + Board.seatName(T.table, o.to) }), offerLine(o)))
      )
    );
  }
  if (T.seat !== null) box.append(renderBuilder());
  return box;
}

// Every card that may pay for the offer (hand cards, and turned-up ones for the active
// player), each marked where it comes from; a click picks or unpicks it.
function payPicker(o) {
  const wanted = new Set(o.want.map(([v]) => v));
  const drawn = new Set(T.state.view.drawn.map((c) => c.id));
  const box = el("div", { class: "pay-picker", id: "pay-picker" });
  for (const c of tradeable()) {
    if (!wanted.has(c.variety)) continue;
    const e = B.card(c, { small: true, drawn: drawn.has(c.id) && myTurn() });
    e.classList.add("pickable");
    if (!drawn.has(c.id)) e.append(el("span", { class: "from-hand", text: t("from_hand") }));
    if (T.ui.accepting.cards.includes(c.id)) e.classList.add("selected");
    e.addEventListener("click", () => toggleAccept(c.id));
    box.append(e);
  }
  return box;
}

function payText(ids) {
  const drawn = new Set(T.state.view.drawn.map((c) => c.id));
  return ids.map((id) => Board.cardText(id) + (drawn.has(id) ? " (" + t("turned_up") + ")" : " (" + t("from_hand") + ")")).join(", ");
}

async function confirmAccept(o) {
  const cards = T.ui.accepting.cards.slice();
  const body = el("div", null, el("p", { id: "confirm-pay", text: t("you_pay") + " " + payText(cards) }), el("p", { text: t("you_get") + " " + Board.shownText(o.give) }));
  if (await B.confirm(t("accept_title"), body, t("accept"))) act({ type: "accept", offer_id: o.offer_id, cards });
}

function pickedMatches(o) {
  const counts = {};
  const cards = tradeable();
  for (const id of T.ui.accepting.cards) {
    const c = cards.find((x) => x.id === id);
    if (!c) return false;
    counts[c.variety] = (counts[c.variety] || 0) + 1;
  }
  const want = Object.fromEntries(o.want);
  const keys = new Set([...Object.keys(counts), ...Object.keys(want)]);
  for (const k of keys) if ((counts[k] || 0) !== (want[k] || 0)) return false;
  return true;
}

function toggleAccept(id) {
  const a = T.ui.accepting;
  a.cards = a.cards.includes(id) ? a.cards.filter((x) => x !== id) : [...a.cards, id];
  render();
}

function openBuilder(init) {
  const p = partners();
  T.ui.accepting = null;
  T.ui.builder = Object.assign({ to: p.length === 1 ? p[0] : p[0], give: [], declared: {}, want: {}, counterOf: null }, init || {});
  render();
}

// A counter-offer starts from the offer turned around: I want what they gave, and I give
// what they asked for, as far as my cards go (it pre-filled only the first half).
function counter(o) {
  const want = {};
  for (const g of o.give) want[g.variety] = (want[g.variety] || 0) + 1;
  const give = [];
  const mine = tradeable();
  for (const [variety, n] of o.want || []) {
    for (const c of mine.filter((c) => c.variety === variety && !give.includes(c.id)).slice(0, n)) give.push(c.id);
  }
  openBuilder({ to: o.proposer, want, give, counterOf: o.offer_id });
}

function toggleGive(id) {
  const b = T.ui.builder;
  b.give = b.give.includes(id) ? b.give.filter((x) => x !== id) : [...b.give, id];
  render();
}

function renderBuilder() {
  const b = T.ui.builder;
  if (!b) {
    return el("div", { class: "buttons" }, el("button", { type: "button", id: "btn-new-offer", class: "secondary", text: t("new_offer"), onclick: () => openBuilder() }));
  }
  const v = T.state.view;
  const box = el("div", { class: "builder", id: "offer-builder" }, el("h4", { text: b.counterOf ? t("counter_offer") : t("new_offer") }));
  // To whom.
  const p = partners();
  const to = el("div", { class: "builder-row to" }, el("span", { class: "label", text: t("offer_to_label") }));
  const choices = p.length > 1 ? [...p, "all"] : p;
  for (const s of choices) {
    to.append(
      el("button", {
        type: "button",
        class: "chip" + (b.to === s ? " on" : ""),
        dataset: { to: s },
        text: s === "all" ? t("everyone") : Board.seatName(T.table, s),
        onclick: () => {
          b.to = s;
          render();
        },
      })
    );
  }
  box.append(to);
  // What I give: hand and (active player) drawn cards.
  const give = el("div", { class: "builder-row give" }, el("span", { class: "label", text: t("you_give") }));
  const drawnIds = new Set(v.drawn.map((c) => c.id));
  for (const c of tradeable()) {
    const e = B.card(c, { small: true, drawn: drawnIds.has(c.id) });
    if (!drawnIds.has(c.id)) e.append(el("span", { class: "from-hand", text: t("from_hand") }));
    e.classList.add("pickable");
    if (b.give.includes(c.id)) e.classList.add("selected");
    e.addEventListener("click", () => toggleGive(c.id));
    give.append(e);
  }
  box.append(give);
  // Declarations (R-BLUFF-1): a black Fasolkopajak from the hand may be declared red.
  const fromHand = new Set((v.hand || []).map((c) => c.id));
  for (const id of b.give) {
    const c = tradeable().find((x) => x.id === id);
    if (moduleInfo().declarations && c && c.kind === "black" && fromHand.has(id)) {
      const sel = el(
        "select",
        {
          class: "declare",
          dataset: { card: id },
          onchange: (ev) => {
            b.declared[id] = ev.target.value;
          },
        },
        el("option", { value: "", text: t("declare_true") }),
        el("option", { value: "red", text: t("declare_red") })
      );
      sel.value = b.declared[id] || "";
      box.append(el("div", { class: "builder-row declare-row" }, el("span", { class: "label", text: t("declare_card", { card: B.bean(c.variety) }) }), sel));
    }
  }
  // What I want.
  const want = el("div", { class: "builder-row want" }, el("span", { class: "label", text: t("you_want") }));
  for (const variety of T.state.varieties) {
    const n = b.want[variety] || 0;
    want.append(
      el(
        "span",
        { class: "stepper v-" + variety + (n ? " on" : ""), dataset: { variety } },
        el("button", {
          type: "button",
          class: "minus",
          "aria-label": "-",
          text: "−",
          onclick: () => {
            b.want[variety] = Math.max(0, n - 1);
            render();
          },
        }),
        el("span", { class: "stepper-name", text: B.bean(variety) + (n ? " ×" + n : "") }),
        el("button", {
          type: "button",
          class: "plus",
          "aria-label": "+",
          text: "+",
          onclick: () => {
            b.want[variety] = n + 1;
            render();
          },
        })
      )
    );
  }
  box.append(want);
  const wantList = Object.entries(b.want).filter(([, n]) => n > 0);
  box.append(
    el(
      "div",
      { class: "buttons" },
      el("button", {
        type: "button",
        id: "offer-send",
        class: "primary",
        text: !wantList.length && b.give.length ? t("send_gift") : t("send_offer"),
        onclick: sendOffer,
      }),
      el("button", {
        type: "button",
        class: "secondary",
        id: "offer-cancel",
        text: t("cancel"),
        onclick: () => {
          T.ui.builder = null;
          render();
        },
      })
    )
  );
  return box;
}

function sendOffer() {
  const b = T.ui.builder;
  const want = Object.entries(b.want).filter(([, n]) => n > 0);
  const declared = b.give.map((id) => b.declared[id] || "");
  const offer = { give: b.give.slice(), want };
  if (declared.some((d) => d)) offer.declared = declared;
  if (b.counterOf !== null && T.state.view.offers.some((o) => o.offer_id === b.counterOf)) {
    act({ type: "decline", offer_id: b.counterOf });
  }
  const targets = b.to === "all" ? partners() : [b.to];
  for (const to of targets) act({ type: "propose", offer: Object.assign({ to }, offer) });
  T.ui.builder = null;
  render();
}

// ------------------------------------------------------------------ log and chat

function renderLog() {
  const list = $("#log");
  const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 30;
  // A trading limit that ran out ends trading in the active seat's name: one line says it.
  const shown = T.log.slice(-300).filter((e, i, all) => !(e.type === "end_trading" && i > 0 && all[i - 1].type === "trade_time_up"));
  const items = shown.map((e) => el("li", { class: "ev ev-" + e.type, text: Board.eventText(T.table, e) }));
  list.replaceChildren(...items);
  if (atEnd || true) list.scrollTop = list.scrollHeight;
}

// Lines kept on the page; a new line is appended (the list is not redrawn: a busy
// chat would otherwise rebuild hundreds of elements per line).
const CHAT_KEEP = 200;

function chatLine(m) {
  const who = m.seat === null || m.seat === undefined ? t("spectator") : m.name || Board.seatName(T.table, m.seat);
  const li = el("li", null, el("b", { text: who + ": " }), m.text);
  if (isHost() && m.chatter && m.chatter !== "s" + T.seat) {
    li.append(" ", el("button", { type: "button", class: "link mute", text: t("mute"), onclick: () => send({ type: "host", op: "mute", chatter: m.chatter }) }));
  }
  return li;
}

function renderChat() {
  const list = $("#chat");
  list.replaceChildren(...T.chat.map(chatLine));
  list.scrollTop = list.scrollHeight;
}

function appendChat(m) {
  const list = $("#chat");
  const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 30;
  list.append(chatLine(m));
  while (list.childElementCount > CHAT_KEEP) list.firstElementChild.remove();
  if (atEnd) list.scrollTop = list.scrollHeight;
}

function isHost() {
  return !!T.table && T.seat !== null && T.table.host === T.seat;
}

function showTab(tab) {
  T.ui.tab = tab;
  $("#tab-log").classList.toggle("on", tab === "log");
  $("#tab-chat").classList.toggle("on", tab === "chat");
  $("#log-panel").hidden = tab !== "log";
  $("#chat-panel").hidden = tab !== "chat";
  if (tab === "chat") $("#tab-chat").classList.remove("unread");
}

// ------------------------------------------------------------------ start

// The control a click is on, while its handlers run: send() marks it pending.
document.addEventListener(
  "click",
  (ev) => {
    T.clicked = ev.target.closest ? ev.target.closest("button, .target, .card, .field, a") : null;
    setTimeout(() => (T.clicked = null), 0);
  },
  true
);

(async function main() {
  // A "continue on another device" link carries a one-time code in the fragment (never
  // sent to the server as part of the URL): out of the address bar first, then traded for
  // the seat's token. (Links of older versions carried the token itself: "#seat=".)
  const m = /^#(seat|claim)=(.+)$/.exec(location.hash);
  if (m) {
    history.replaceState(null, "", location.pathname);
    const value = decodeURIComponent(m[2]);
    if (m[1] === "seat") B.setToken(T.id, value);
    else {
      try {
        B.setToken(T.id, (await B.api("POST", `/api/tables/${encodeURIComponent(T.id)}/claim`, { code: value })).token);
      } catch (e) {
        T.claimError = e.message;
      }
    }
  }
  await B.load();
  $("#lang-slot").replaceWith(B.langSwitch());
  B.translateStatic();
  if (T.claimError) B.toast(T.claimError);
  B.listeners.push(() => {
    render();
    renderLog();
    renderChat();
    setConn($("#conn").dataset.state);
  });
  $("#tab-log").addEventListener("click", () => showTab("log"));
  $("#rules-link").href = "/rules?lang=" + B.lang;
  $("#btn-sound").addEventListener("click", () => {
    localStorage.setItem("bohnanza.sound", localStorage.getItem("bohnanza.sound") === "1" ? "0" : "1");
    if (localStorage.getItem("bohnanza.sound") === "1") beep();
    alertToggles();
  });
  $("#btn-notify").addEventListener("click", async () => {
    const on = localStorage.getItem("bohnanza.notify") === "1";
    if (!on && "Notification" in window && Notification.permission !== "granted") await Notification.requestPermission();
    localStorage.setItem("bohnanza.notify", on ? "0" : "1");
    alertToggles();
  });
  alertToggles();
  B.listeners.push(() => {
    alertToggles();
    $("#rules-link").href = "/rules?lang=" + B.lang;
  });
  setInterval(tickClocks, 500);
  loadInvite();
  $("#tab-chat").addEventListener("click", () => showTab("chat"));
  $("#chat-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = $("#chat-input");
    const text = input.value.trim();
    if (text && send({ type: "chat", text })) input.value = "";
  });
  connect();
})();
