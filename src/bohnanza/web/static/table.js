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
  retry: 0,
  ui: {
    selected: null, // a card id selected in my trade area / the duel's offer or revealed cards
    builder: null, // {to: seat|"all", give: [ids], declared: {id: ""|"red"}, want: {variety: n}, counterOf}
    accepting: null, // {offerId, cards: [ids]}
    tab: "log",
  },
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
    if (ev.code === 4404) return;
    const wait = Math.min(5000, 300 * 2 ** T.retry++);
    setTimeout(connect, wait);
  };
}

function send(msg) {
  if (!T.ws || T.ws.readyState !== WebSocket.OPEN) {
    B.toast(t("not_connected"), "error");
    return null;
  }
  msg.id = T.nextId++;
  T.ws.send(JSON.stringify(msg));
  return msg.id;
}

function act(action) {
  return send({ type: "action", action });
}

function setConn(state) {
  const c = $("#conn");
  c.dataset.state = state;
  c.textContent = t("conn." + state);
}

function onMessage(msg) {
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
    case "rematch": {
      const token = B.getToken(T.id);
      if (token && T.seat !== null) B.setToken(msg.table, token);
      location.href = "/t/" + encodeURIComponent(msg.table);
      break;
    }
    case "left":
      B.dropToken(T.id);
      T.seat = null;
      render();
      break;
    default:
      break;
  }
}

function onError(msg) {
  if (msg.code === "bad_token") {
    // A stale token (the seat was given up): watch instead.
    B.dropToken(T.id);
    T.ws.send(JSON.stringify({ type: "hello" }));
    return;
  }
  if (msg.code === "no_table") {
    $("#lobby").hidden = false;
    $("#lobby").replaceChildren(el("p", { class: "error", text: t("no_table") }), el("a", { href: "/", text: t("back_to_lobby") }));
    return;
  }
  const prefix = msg.code === "illegal" ? t("not_allowed") : t("error");
  B.toast(prefix + ": " + msg.message, "error");
  const box = $("#last-error");
  if (box) {
    box.textContent = prefix + ": " + msg.message;
    box.hidden = false;
  }
}

function takeState(s) {
  if (s.cards) Board.cards = s.cards;
  const prevTurn = T.state && T.state.view.turn;
  T.state = s;
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
  return T.state && T.seat !== null && T.state.view.active === T.seat;
}
function tradeable() {
  const v = T.state.view;
  const cards = (v.hand || []).slice();
  if (myTurn()) cards.push(...v.drawn);
  return cards;
}
function selectableIds() {
  const v = T.state.view;
  const ids = [];
  const mine = me();
  if (mine) ids.push(...mine.trade_area.map((c) => c.id));
  if (v.public && v.public.offer) ids.push(...v.public.offer.map((c) => c.id));
  if (v.public && v.public.revealed) ids.push(...v.public.revealed.map((c) => c.id));
  return ids;
}
function describeAction(a) {
  const c = (id) => Board.cardText(id);
  switch (a.type) {
    case "plant_revealed":
      return t("do.plant_revealed", { card: c(a.card), field: a.field + 1 });
    case "discard":
      return t("do.discard", { card: c(a.card) });
    case "skip_discard":
      return t("do.skip_discard");
    case "end_reveal":
      return t("do.end_reveal");
    case "move_lady":
      return a.card === null || a.card === undefined ? t("do.keep_lady") : t("do.move_lady", { card: c(a.card) });
    case "place_child":
      return t("do.place_child", { card: c(a.card), field: a.field + 1 });
    case "plant_traded":
      return t("do.plant_traded", { card: c(a.card), field: a.field + 1 });
    default:
      return a.type;
  }
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
  document.title = "Bohnanza · " + T.id;
  const lobby = T.table.status === "lobby" || !T.state;
  $("#lobby").hidden = !lobby;
  $("#board").hidden = lobby;
  if (lobby) renderLobby();
  else renderBoard();
}

function renderLobby() {
  const tb = T.table;
  const link = location.origin + "/t/" + encodeURIComponent(T.id);
  const seats = tb.seats.map((s) => {
    let who;
    if (s.kind === "bot") who = t("bot_name", { n: s.seat + 1, bot: s.bot });
    else if (s.taken) who = s.name + (s.seat === T.seat ? " (" + t("you") + ")" : "") + (s.connected ? "" : " · " + t("offline"));
    else who = t("open_seat");
    const row = el("li", { class: "lobby-seat" + (s.taken ? "" : " open"), dataset: { seat: s.seat } }, el("span", { class: "seat-no", text: t("seat_n", { n: s.seat + 1 }) }), el("span", { text: who }));
    if (!s.taken && T.seat === null) {
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
      tb.options && tb.options.remove ? " · " + t("without", { bean: B.bean(tb.options.remove) }) : "",
      " · ",
      tb.trade_limit ? t("trade_limit_s", { n: tb.trade_limit }) : t("no_trade_limit")
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
    el("ol", { class: "lobby-seats" }, seats),
  ];
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
  box.replaceChildren(...parts);
  if (typed && $("#join-name")) $("#join-name").value = typed;
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
  const name = ($("#join-name") && $("#join-name").value.trim()) || "";
  if (name) localStorage.setItem("bohnanza.name", name);
  try {
    const res = await B.api("POST", `/api/tables/${encodeURIComponent(T.id)}/join`, { name, seat });
    B.setToken(T.id, res.token);
    T.ws.close();
    connect();
  } catch (e) {
    B.toast(e.message, "error");
  }
}

function renderBoard() {
  const v = T.state.view;
  const tb = T.table;
  const board = $("#board");
  const parts = [Board.statusLine(tb, v)];
  parts.push(el("div", { id: "hint", class: "hint-line", text: hintText() }));
  parts.push(el("div", { id: "last-error", class: "error-line", hidden: true }));
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
  else parts.push(el("p", { class: "hint", id: "watching", text: t("watching") }));
  board.replaceChildren(...parts);
}

function hintText() {
  const v = T.state.view;
  if (v.phase === "over") return t("hint.over");
  if (T.seat === null) return t("hint.watching", { name: Board.seatName(T.table, v.active) });
  const pend = v.pending;
  if (pend) {
    if (pend[0] !== T.seat) return t("hint.wait_for", { names: Board.seatName(T.table, pend[0]) });
    return pend[1] === "place_child" ? t("hint.place_child") : t("hint.move_lady");
  }
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
  if (v.phase === "duel_offer" && myTurn()) return t("hint.duel_offer");
  if (v.phase === "duel_discard" && myTurn()) return t("hint.duel_discard");
  if (v.phase === "duel_reveal" && myTurn()) return t("hint.duel_reveal");
  const waiting = waitingFor();
  if (waiting.length) return t("hint.wait_for", { names: waiting.map((s) => Board.seatName(T.table, s)).join(", ") });
  return "";
}

// Whether the game waits for a decision of mine now.
function needsMe() {
  const v = T.state.view;
  if (T.seat === null || v.phase === "over") return false;
  if (v.pending) return v.pending[0] === T.seat;
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
  if (T.table.rematch) {
    buttons.append(el("a", { class: "button primary", href: "/t/" + encodeURIComponent(T.table.rematch), text: t("to_rematch"), onclick: () => B.getToken(T.id) && T.seat !== null && B.setToken(T.table.rematch, B.getToken(T.id)) }));
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
    box.append(el("div", { class: "drawn", id: "drawn" }, el("span", { class: "label", text: t("drawn_cards") }), v.drawn.map((c) => B.card(c))));
  }
  const pub = v.public || {};
  for (const key of ["offer", "revealed"]) {
    if (pub[key] && pub[key].length) {
      box.append(
        el(
          "div",
          { class: "duel-" + key, id: "duel-" + key },
          el("span", { class: "label", text: t("duel." + key) }),
          pub[key].map((c) => {
            const e = B.card(c);
            if (myTurn()) {
              e.classList.add("pickable");
              if (T.ui.selected === c.id) e.classList.add("selected");
              e.addEventListener("click", () => {
                T.ui.selected = T.ui.selected === c.id ? null : c.id;
                render();
              });
            }
            return e;
          })
        )
      );
    }
  }
  // Decisions the fields and buttons below do not cover, listed in words.
  const special = legal().filter((a) => ["plant_revealed", "discard", "skip_discard", "end_reveal", "move_lady", "place_child"].includes(a.type));
  if (special.length) {
    box.append(
      el(
        "div",
        { class: "choices", id: "choices" },
        el("span", { class: "label", text: t("your_choices") }),
        special.map((a) =>
          el("button", {
            type: "button",
            class: "choice " + a.type,
            text: describeAction(a),
            onclick: () => act(a),
          })
        )
      )
    );
  }
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
    if (f.length && v.phase !== "over") {
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
    if (target) {
      box.title = t("plant_here");
      box.addEventListener("click", () => act(target));
      box.append(el("span", { class: "plant-here", text: t("plant_here") }));
    }
    fields.append(box);
  });
  if (mine.fields.length < 3 && v.phase !== "over" && v.third_fields_left > 0) {
    fields.append(
      el(
        "div",
        { class: "field buy" },
        el("button", { type: "button", id: "btn-buy-field", class: "secondary", onclick: buyField }, el("span", null, t("buy_field") + " (" + v.field_price, B.coin(), ")"))
      )
    );
  }
  panel.append(fields);
  // Fasolufka: one's own coins are known to their owner (R-LADY-10).
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
  const discardPhase = v.phase === "duel_discard" && myTurn();
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
        } else if (accepting) {
          e.classList.add("pickable");
          if (accepting.cards.includes(c.id)) e.classList.add("selected");
          e.addEventListener("click", () => toggleAccept(c.id));
        } else if (discardPhase) {
          e.classList.add("pickable");
          e.addEventListener("click", () => act({ type: "discard", card: c.id }));
        }
        return e;
      })
    )
  );
  return panel;
}

// Where a click on my field i plants something now: the front card (phase 1), the
// selected trade-area card (phase 3), a received child, or a selected duel card.
function plantTargets() {
  const out = new Map();
  for (const a of legalOf("plant")) out.set(a.field, a);
  for (const a of legalOf("place_child")) out.set(a.field, a);
  const sel = T.ui.selected;
  let traded = legalOf("plant_traded");
  if (traded.length) {
    const chosen = sel !== null && traded.some((a) => a.card === sel) ? sel : traded[0].card;
    T.ui.selected = chosen;
    for (const a of traded) if (a.card === chosen) out.set(a.field, a);
  }
  if (sel !== null) for (const a of legalOf("plant_revealed")) if (a.card === sel) out.set(a.field, a);
  return out;
}

async function harvest(i) {
  const mine = me();
  const f = mine.fields[i];
  const coins = mine.payouts[i];
  const body = el(
    "div",
    null,
    el("p", { text: t("harvest_question", { n: f.length, bean: B.bean(f[f.length - 1].variety), field: i + 1 }) }),
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
  // Fasolufka (R-LADY-10): pick the coins, in the order they go onto the discard pile.
  const picked = [];
  const pick = el("div", { class: "coin-pick", id: "coin-pick" });
  const order = el("p", { class: "coin-order", id: "coin-order" });
  const body = el("div", null, question, el("p", { text: t("buy_pick_coins", { n: v.field_price }) }), pick, order);
  const answer = B.confirm(t("buy_title"), body, t("buy"));
  const ok = document.querySelector("#confirm-yes");
  const draw = () => {
    pick.replaceChildren(
      ...v.treasury.map((c) => {
        const e = B.card(c, { small: true });
        const k = picked.indexOf(c.id);
        e.classList.add("pickable");
        e.dataset.coin = c.id;
        if (k >= 0) {
          e.classList.add("selected");
          e.append(el("span", { class: "coin-rank", text: String(k + 1) }));
        }
        e.addEventListener("click", () => {
          if (k >= 0) picked.splice(k, 1);
          else if (picked.length < v.field_price) picked.push(c.id);
          draw();
        });
        return e;
      })
    );
    order.textContent = picked.length ? t("coin_order", { cards: picked.map((id) => Board.cardText(id)).join(" → ") }) : "";
    ok.disabled = picked.length !== v.field_price;
  };
  draw();
  if (await answer) act({ type: "buy_field", cards: picked.slice() });
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
      el("span", { class: "want" }, o.want.length ? t("wants") + " " + Board.wantText(o.want) : t("as_gift"))
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
        buttons.append(
          el("button", { type: "button", class: "primary", id: "accept-confirm", disabled: !ok, text: t("accept_with", { n: T.ui.accepting.cards.length }), onclick: () => act({ type: "accept", offer_id: o.offer_id, cards: T.ui.accepting.cards }) }),
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

function counter(o) {
  const want = {};
  for (const g of o.give) want[g.variety] = (want[g.variety] || 0) + 1;
  openBuilder({ to: o.proposer, want, counterOf: o.offer_id });
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
  for (const c of tradeable()) {
    const e = B.card(c, { small: true });
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
    if (c && c.kind === "black" && fromHand.has(id)) {
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
  const items = T.log.slice(-300).map((e) => el("li", { class: "ev ev-" + e.type, text: Board.eventText(T.table, e) }));
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

(async function main() {
  await B.load();
  $("#lang-slot").replaceWith(B.langSwitch());
  B.translateStatic();
  B.listeners.push(() => {
    render();
    renderLog();
    renderChat();
    setConn($("#conn").dataset.state);
  });
  $("#tab-log").addEventListener("click", () => showTab("log"));
  $("#tab-chat").addEventListener("click", () => showTab("chat"));
  $("#chat-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = $("#chat-input");
    const text = input.value.trim();
    if (text && send({ type: "chat", text })) input.value = "";
  });
  connect();
})();
