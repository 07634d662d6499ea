// Rendering shared by the table and the replay: players, fields, cards, the game log.
"use strict";

const Board = (window.Board = {});

// The card table of the game: id -> {variety, kind}. Public (views hide which card is
// where, not what a card id is).
Board.cards = [];

Board.cardById = function (id) {
  const c = Board.cards[id];
  return c ? { id, variety: c[0], kind: c[1] || undefined } : { id, variety: "?" };
};

Board.seatName = function (table, seat) {
  if (seat === null || seat === undefined) return "";
  const s = table && table.seats && table.seats[seat];
  if (!s) return B.t("seat_n", { n: seat + 1 });
  // A bot seat with a name is a person who resigned during the game: they keep their name.
  if (s.kind === "bot" && s.name) return B.t("resigned_name", { name: s.name, bot: s.bot });
  if (s.kind === "bot") return B.t("bot_name", { n: seat + 1, bot: s.bot });
  return s.name || B.t("seat_n", { n: seat + 1 });
};

Board.phaseName = function (phase) {
  return B.t("phase." + phase);
};

// One field: the cards bottom to top (left to right), its count and what it pays now.
Board.field = function (cards, index, payout, opts) {
  opts = opts || {};
  const variety = cards.length ? cards[cards.length - 1].variety : null;
  const box = B.el("div", {
    class: "field" + (cards.length ? "" : " empty") + (opts.cls ? " " + opts.cls : ""),
    dataset: { field: index },
  });
  const head = B.el(
    "div",
    { class: "field-head" },
    B.el("span", { class: "field-no", text: B.t("field_n", { n: index + 1 }) }),
    cards.length
      ? B.el("span", { class: "field-count", text: cards.length === 1 ? B.t("one_bean") : B.t("n_beans", { n: cards.length }) })
      : B.el("span", { class: "field-count", text: B.t("empty") }),
    cards.length ? B.el("span", { class: "payout", text: B.t("pays", { n: payout }) }) : null
  );
  const stack = B.el("div", { class: "stack" });
  if (variety) stack.classList.add("v-" + variety + "-bg");
  cards.forEach((c, i) => {
    const e = B.card(c, { small: true });
    e.style.setProperty("--i", i);
    if (i === cards.length - 1) e.classList.add("top");
    stack.append(e);
  });
  box.append(head, stack);
  const next = B.nextStep(cards);
  if (next) box.append(B.el("div", { class: "next-step", text: next }));
  if (opts.actions) box.append(opts.actions);
  return box;
};

// A player's public side (R-INFO-1).
Board.seatPanel = function (table, view, s, opts) {
  opts = opts || {};
  const info = table.seats[s.seat] || {};
  const badges = [];
  if (view.active === s.seat && view.phase !== "over") badges.push(B.el("span", { class: "badge active", text: B.t("active") }));
  if (opts.me) badges.push(B.el("span", { class: "badge me", text: B.t("you") }));
  if (info.kind === "bot") badges.push(B.el("span", { class: "badge bot", text: B.t("bot") }));
  else if (opts.presence !== false && (info.played || info.replaced || info.stand_in)) badges.push(B.el("span", { class: "badge away played", text: B.t("played_while_away", { name: Board.seatName(table, s.seat) }) }));
  else if (opts.presence !== false && info.idle) badges.push(B.el("span", { class: "badge away idle", text: B.t("idle_badge") }));
  else if (opts.presence !== false && info.kind === "person" && !info.connected) badges.push(B.el("span", { class: "badge away", text: B.t("offline") }));
  if (view.winners && view.winners.includes(s.seat)) badges.push(B.el("span", { class: "badge win", text: B.t("winner") }));
  const panel = B.el(
    "div",
    { class: "seat" + (view.active === s.seat && view.phase !== "over" ? " is-active" : "") + (opts.me ? " is-me" : ""), dataset: { seat: s.seat } },
    B.el(
      "div",
      { class: "seat-head" },
      B.el("span", { class: "seat-name", text: Board.seatName(table, s.seat) }),
      badges,
      B.el(
        "span",
        { class: "seat-stats" },
        B.el("span", { class: "coins", title: B.t("coins") }, B.coin(), String(s.coins)),
        B.el("span", { class: "hand-size", title: B.t("hand_size"), text: "🂠 " + s.hand_size }),
        B.el("span", { class: "field-slots", title: B.t("fields"), text: "▦ " + s.fields.length })
      )
    )
  );
  const fields = B.el("div", { class: "fields" });
  s.fields.forEach((f, i) => fields.append(Board.field(f, i, s.payouts[i])));
  panel.append(fields);
  if (s.trade_area.length) {
    panel.append(
      B.el("div", { class: "trade-area" }, B.el("span", { class: "label", text: B.t("trade_area") }), s.trade_area.map((c) => B.card(c, { small: true })))
    );
  }
  if (opts.hand) {
    panel.append(
      B.el(
        "div",
        { class: "hand revealed" },
        B.el("span", { class: "label", text: B.t("hand") }),
        opts.hand.map((c, i) => B.card(c, { small: true, extra: i === 0 ? "front" : "" }))
      )
    );
  }
  return panel;
};

Board.statusLine = function (table, view) {
  const items = [];
  items.push(B.el("span", { class: "st-turn", text: B.t("turn_n", { n: view.turn }) }));
  if (view.phase === "over") {
    items.push(B.el("span", { class: "st-phase", text: B.t("phase.over") }));
  } else {
    items.push(
      B.el("span", { class: "st-active", text: B.t("active_is", { name: Board.seatName(table, view.active) }) }),
      B.el("span", { class: "st-phase", dataset: { phase: view.phase }, text: Board.phaseName(view.phase) })
    );
  }
  items.push(B.el("span", { class: "st-deck", title: B.t("deck"), text: B.t("deck") + ": " + view.draw_size }));
  const top = view.discard_top ? " · " + B.bean(view.discard_top.variety) : "";
  items.push(B.el("span", { class: "st-discard", title: B.t("discard"), text: B.t("discard") + ": " + view.discard_size + top }));
  items.push(
    B.el("span", {
      class: "st-runouts",
      title: B.t("runouts_title"),
      text: B.t("runouts", { n: view.runouts, of: view.runouts_to_end }),
    })
  );
  items.push(B.el("span", { class: "st-supply", title: B.t("third_fields_left"), text: B.t("third_fields", { n: view.third_fields_left }) }));
  return B.el("div", { class: "status-line" }, items);
};

// A card's name; `acc`: as a sentence's object (the Polish accusative, B.bean).
Board.cardText = function (id, acc) {
  if (id === undefined || id === null) return "?";
  const c = Board.cardById(id);
  let s = B.bean(c.variety, acc);
  if (c.kind) s += " (" + B.kind(c.kind) + ")";
  return s;
};

// Cards, the same ones counted ("2× Blue"; Polish: "2 Niebieskie", B.beans); `acc` as
// for cardText. A Polish kind word ("czerwony") does not follow a count's plural, so
// there cards with a kind are named one by one.
Board.cardsText = function (ids, acc) {
  if (!ids || !ids.length) return B.t("nothing");
  const groups = new Map();
  for (const id of ids) {
    const c = Board.cardById(id);
    const key = c.variety + "|" + (c.kind || "") + (B.lang === "pl" && c.kind ? "|" + id : "");
    const g = groups.get(key);
    if (g) g.n += 1;
    else groups.set(key, { id, c, n: 1 });
  }
  return [...groups.values()]
    .map(({ id, c, n }) => (n === 1 ? Board.cardText(id, acc) : B.beans(c.variety, n, acc) + (c.kind ? " (" + B.kind(c.kind) + ")" : "")))
    .join(", ");
};

// A field's cards counted by its top card's variety ("3 × Blue"; Polish "3 Niebieskie",
// B.beans), with the top card's kind, which decides its payout in Fasolufka.
Board.fieldText = function (ids) {
  if (!ids || !ids.length) return "?";
  const top = Board.cardById(ids[ids.length - 1]);
  const kind = top.kind ? " (" + B.kind(top.kind) + ")" : "";
  return (B.lang === "pl" ? B.beans(top.variety, ids.length) : ids.length + " × " + B.bean(top.variety)) + kind;
};

// `acc`: as a sentence's object (B.bean).
Board.shownText = function (shown, acc) {
  // Offered cards as the reader sees them: a variety, maybe a declared colour, no id.
  return shown
    .map((g) => {
      let s = B.bean(g.variety, acc);
      if (g.kind) s += " (" + B.kind(g.kind) + ")";
      else if (g.declared) s += " (" + B.t("declared", { colour: B.kind(g.declared) }) + ")";
      return s;
    })
    .join(", ");
};

// Wanted cards, counted (B.beans); `acc`: as a sentence's object ("chce 1 Niebieską").
Board.wantText = function (want, acc) {
  if (!want || !want.length) return B.t("nothing_gift");
  return want.map(([v, n]) => B.beans(v, n, acc)).join(", ");
};

// One event, as a sentence in the current language.
Board.eventText = function (table, e) {
  const who = Board.seatName(table, e.seat);
  const f = (n) => (n === undefined || n === null ? "?" : n + 1);
  switch (e.type) {
    case "turn":
      return B.t("ev.turn", { n: e.turn, who });
    case "plant":
      if (e.source) return B.t("ev.plant_source", { who, card: Board.cardText(e.card, true), field: f(e.field) });
      return B.t(e.traded ? "ev.plant_traded" : "ev.plant", { who, card: Board.cardText(e.card, true), field: f(e.field) });
    case "stop_planting":
      return B.t("ev.stop_planting", { who });
    case "turn_over":
      return B.t("ev.turn_over", { who, card: Board.cardText(e.card) });
    case "offer": {
      // An offer's cards are what is offered, and for what ("za"): objects (the Polish
      // accusative); a gift names them after a colon.
      const offer = !!(e.want && e.want.length);
      return B.t(offer ? "ev.offer" : "ev.gift", {
        who,
        to: Board.seatName(table, e.to),
        give: e.give_cards ? Board.cardsText(e.give_cards, offer) : Board.shownText(e.give || [], offer) || B.t("nothing"),
        want: Board.wantText(e.want, true),
      });
    }
    case "trade":
      // "dostaje …, daje …": objects, the Polish accusative ("dostaje Niebieską").
      return B.t(e.gift ? "ev.gift_taken" : "ev.trade", {
        who,
        other: Board.seatName(table, e.proposer),
        gave: Board.cardsText(e.gave, !e.gift),
        got: Board.cardsText(e.got, true),
      });
    case "decline":
      return B.t(e.gift ? "ev.refuse_gift" : "ev.decline", { who, other: Board.seatName(table, e.proposer) });
    case "withdraw":
      return B.t("ev.withdraw", { who });
    case "offer_cancelled":
      // The engine says why: trading ended, or the offered cards are gone.
      return B.t(e.reason === "trading ended" ? "ev.offer_cancelled_ended" : "ev.offer_cancelled");
    case "clock_timeout":
      return B.t("ev.clock_timeout", { who });
    case "stand_in":
      return B.t("ev.stand_in", { who });
    case "away":
      return B.t("ev.away", { who });
    case "back":
      return B.t("ev.back", { who });
    case "trade_time_up":
      return B.t("ev.trade_time_up");
    case "rematch_declined":
      return B.t("rematch_declined", { name: who });
    case "end_trading":
      return B.t("ev.end_trading", { who });
    case "keep_drawn":
      return B.t("ev.keep_drawn", { who, cards: Board.cardsText(e.cards, true) });
    case "harvest":
      return Board.withNote(
        table,
        e,
        B.t(e.final ? "ev.harvest_final" : "ev.harvest", {
          who,
          field: f(e.field),
          n: e.cards ? e.cards.length : "?",
          card: e.cards && e.cards.length ? Board.cardText(e.cards[e.cards.length - 1]) : "",
          beans: Board.fieldText(e.cards),
          coins: e.coins,
        })
      );
    case "buy_field":
      if (e.cards && e.cards.length) return B.t("ev.buy_field_coins", { who, price: e.price, cards: e.cards.map((c) => Board.cardText(c, true)).join(" → ") });
      return B.t("ev.buy_field", { who, price: e.price });
    case "draw":
      return e.card !== undefined ? B.t("ev.draw_own", { who, card: Board.cardText(e.card, true) }) : B.t("ev.draw", { who });
    case "runout":
      return B.t(e.final ? "ev.runout_final" : "ev.runout", { n: e.count });
    case "reshuffle":
      return B.t("ev.reshuffle", { n: e.cards });
    case "discard_unplanted":
      return B.t("ev.discard_unplanted", { cards: Board.cardsText(e.cards) });
    case "game_over":
      return B.t("ev.game_over", { winners: (e.winners || []).map((s) => Board.seatName(table, s)).join(", ") });
    default:
      // A module's own event, worded by its module (ModuleInfo.event_labels); an event
      // named after a module's action, from the action's shape (actions.js).
      return Board.moduleEventText(table, e) || (window.Shapes && Shapes.eventText(table, e)) || e.type;
  }
};

// A module's event from the wordings its ModuleInfo gives (EventLabel): the first whose
// `when` keys are all set in the event, its placeholders filled ({who}, {card}, {cards},
// their _acc forms as objects, {field} from 1, any other key by value, a kind in words).
Board.moduleEventText = function (table, e) {
  return Board.worded(table, e, ((table && table.module_info && table.module_info.event_labels) || {})[e.type]);
};

// A base event's text with the words its module adds when the event carries the module's
// keys (ModuleInfo.event_notes: "and a free third field" after two Farmers, R-FARM-1).
Board.withNote = function (table, e, text) {
  const note = Board.worded(table, e, ((table && table.module_info && table.module_info.event_notes) || {})[e.type]);
  return note ? text + " " + note : text;
};

// The first of a module's wordings (EventLabel) that fits the event, filled in.
Board.worded = function (table, e, labels) {
  if (!labels) return null;
  const label = labels.find((l) => (l.when || []).every((k) => e[k]));
  if (!label) return null;
  const template = (B.lang === "pl" ? label.text[1] : label.text[0]) || label.text[0];
  return template.replace(/\{(\w+)\}/g, (all, key) => {
    if (key === "who") return Board.seatName(table, e.seat);
    if (key === "card" || key === "card_acc") return Board.cardText(e.card, key === "card_acc");
    if (key === "cards" || key === "cards_acc") return Board.cardsText(e.cards, key === "cards_acc");
    if (key === "field" && typeof e.field === "number") return String(e.field + 1);
    if (!(key in e)) return all;
    const value = e[key];
    return typeof value === "string" && B.kindInfo(value) ? B.kind(value) : String(value);
  });
};

Board.scores = function (table, view) {
  if (!view.scores) return null;
  const order = view.scores.map((s, i) => [s, i]).sort((a, b) => b[0] - a[0]);
  const rows = order.map(([score, seat]) =>
    B.el(
      "tr",
      { class: view.winners.includes(seat) ? "winner" : "" },
      B.el("td", { text: Board.seatName(table, seat) }),
      B.el("td", { class: "num", text: score }),
      B.el("td", { class: "num", text: view.seats[seat].hand_size }),
      B.el("td", { class: "trophy", text: view.winners.includes(seat) ? "★" : "" })
    )
  );
  return B.el(
    "table",
    { class: "scores", id: "scores" },
    B.el("thead", null, B.el("tr", null, B.el("th", { text: B.t("player") }), B.el("th", { text: B.t("coins") }), B.el("th", { text: B.t("hand_size") }), B.el("th"))),
    B.el("tbody", null, rows)
  );
};
