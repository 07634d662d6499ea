// Actions drawn from their shapes (issue 27): every rule declares its action's shape
// (bohnanza.shapes: parameters with kinds, the Action field each fills, EN/PL labels and
// help), and the server sends the shapes of the table's rule set with the table
// (table.module_info.actions). The page draws the base game's actions by hand (planting
// on a field, the trading panel, harvest, a third field: BESPOKE below); every other
// action, a module's, is drawn from its shape alone, so a module whose action takes a
// hand card and a field needs no edit here:
//   - a card that some legal action takes (in the hand, the drawn cards, a public pile,
//     the trade area or on a field) is pickable: a click sends the action when it is the
//     only one that card allows, else selects the card;
//   - a field is a target when a legal action puts the selected card there (or takes no
//     card to pick: the card of a pending decision);
//   - coins are picked in paying order in a dialog;
//   - every legal action is also a button of the "your choices" list, grouped by shape,
//     worded with all its arguments (a seat by name, an optional "none" by its label), so
//     two different choices never read the same.
// The JSON sent is built from the shape: {type} plus each parameter's Action field.
// Loaded after common.js and board.js, before table.js, whose globals (T, legal, act,
// render, me, myTurn, moduleInfo) it reads when called.
"use strict";

const Shapes = (window.Shapes = {});

// The base game's actions the page draws with its own controls (fields, trading panel,
// harvest and buy buttons); knowing the base game is the page's job, a module's is not.
Shapes.BESPOKE = new Set(["plant", "stop_planting", "propose", "accept", "decline", "withdraw", "end_trading", "plant_traded", "harvest", "buy_field"]);

// Parameter kinds whose value is a card the player clicks where it lies.
Shapes.CLICKED_CARDS = new Set(["hand_card", "pile_card", "trade_card", "card", "field_card"]);

Shapes.all = function () {
  return (T.table && T.table.module_info && T.table.module_info.actions) || [];
};

Shapes.of = function (type) {
  return Shapes.all().find((s) => s.type === type) || null;
};

// One of a shape's [EN, PL] pairs in the page's language.
Shapes.word = function (pair) {
  if (!pair) return "";
  return (B.lang === "pl" ? pair[1] : pair[0]) || pair[0] || "";
};

// The action's name: the ModuleInfo's label for it wins, else its shape's.
Shapes.label = function (shape) {
  const own = (T.table && T.table.module_info && T.table.module_info.action_labels) || {};
  return Shapes.word(own[shape.type] || shape.label) || shape.type.replace(/_/g, " ");
};

// The parameter of a shape that the player picks by clicking a card, or null.
Shapes.cardParam = function (shape) {
  return (shape && shape.params.find((p) => Shapes.CLICKED_CARDS.has(p.kind))) || null;
};

// The JSON form of an action of `shape` with `values` (Action field -> value): the type,
// then every parameter's Action field that has a value.
Shapes.build = function (shape, values) {
  const out = { type: shape.type };
  for (const p of shape.params) {
    const v = values[p.fills];
    if (v !== null && v !== undefined) out[p.fills] = v;
  }
  return out;
};

// The values of a legal action, read through its shape's parameters.
Shapes.values = function (shape, a) {
  const out = {};
  for (const p of shape.params) out[p.fills] = a[p.fills] === undefined ? null : a[p.fills];
  return out;
};

// Send a legal action, rebuilt from its shape (the legal list and the shape agree on
// its fields; a type without a shape goes as the server listed it).
Shapes.send = function (a) {
  const shape = Shapes.of(a.type);
  return act(shape ? Shapes.build(shape, Shapes.values(shape, a)) : a);
};

// The legal actions the page draws from shapes (a module's): not the bespoke ones.
Shapes.legal = function () {
  return legal().filter((a) => !Shapes.BESPOKE.has(a.type));
};

// Where a card lies, in words, so that equal cards in different places read apart.
Shapes.where = function (kind, id) {
  const v = T.state.view;
  const hand = v.hand || [];
  const i = hand.findIndex((c) => c.id === id);
  if (i >= 0 && (kind === "hand_card" || kind === "card")) return t("arg.hand", { n: i + 1 });
  const mine = me();
  if (kind === "field_card" && mine) {
    for (let f = 0; f < mine.fields.length; f++) {
      const k = mine.fields[f].findIndex((c) => c.id === id);
      if (k >= 0) return t("arg.field_card", { field: f + 1, n: k + 1 });
    }
  }
  if (kind === "trade_card") return t("trade_area");
  for (const key of (T.table.module_info || {}).public || []) {
    if (((v.public || {})[key] || []).some((c) => c.id === id)) return Shapes.pileLabel(T.table, key);
  }
  if ((v.drawn || []).some((c) => c.id === id)) return t("drawn_cards");
  return "";
};

// A public pile's heading: the module's own label (ModuleInfo.pile_labels), else its key.
Shapes.pileLabel = function (table, key) {
  const labels = (table && table.module_info && table.module_info.pile_labels) || {};
  return Shapes.word(labels[key]) || key;
};

// One argument in words.
Shapes.argText = function (p, value) {
  switch (p.kind) {
    case "field":
      return t("arg.field", { n: value + 1 });
    case "seat":
      return Board.seatName(T.table, value);
    case "offer_id":
      return "#" + value;
    case "coins":
    case "payment":
      return (value || []).map((c) => Board.cardText(c, true)).join(" → ");
    default: {
      const where = Shapes.where(p.kind, value);
      return Board.cardText(value, true) + (where ? " (" + where + ")" : "");
    }
  }
};

// A legal action in words: its label, then every argument (an optional one left out
// reads as its "none" label), so that two different actions never read the same.
Shapes.describe = function (a) {
  const shape = Shapes.of(a.type);
  if (!shape) return a.type;
  let words = [Shapes.label(shape)];
  for (const p of shape.params) {
    const value = a[p.fills];
    if (value === null || value === undefined || (Array.isArray(value) && !value.length)) {
      if (p.optional) words = shape.params.length === 1 ? [Shapes.word(p.none_label)] : [...words, Shapes.word(p.none_label)];
      continue;
    }
    words.push(Shapes.argText(p, value));
  }
  return words.join(" · ");
};

// The legal actions (of the shaped kind) that take card `id` by a clicked parameter.
Shapes.byCard = function (id) {
  return Shapes.legal().filter((a) => {
    const p = Shapes.cardParam(Shapes.of(a.type));
    return p && a[p.fills] === id;
  });
};

// Make a rendered card pickable when a legal action takes it: a click sends the one
// action it allows, or selects it (the fields it may go to light up, the list marks its
// actions). Returns whether it was made pickable.
Shapes.decorate = function (e, id) {
  const options = Shapes.byCard(id);
  if (!options.length) return false;
  e.classList.add("pickable", "shaped");
  if (T.ui.selected === id) e.classList.add("selected");
  e.title = [e.title, ...options.map(Shapes.describe)].filter(Boolean).join("\n");
  e.addEventListener("click", (ev) => {
    ev.stopPropagation();
    const now = Shapes.byCard(id);
    if (now.length === 1 && !Shapes.needsMore(now[0])) {
      Shapes.send(now[0]); // the card is marked pending meanwhile (table.js: T.clicked)
      return;
    }
    T.ui.selected = T.ui.selected === id ? null : id;
    render();
  });
  return true;
};

// Whether an action still asks for something when sent (coins to order).
Shapes.needsMore = function (a) {
  const shape = Shapes.of(a.type);
  return !!shape && shape.params.some((p) => p.kind === "coins");
};

// Field -> action for a click on my field: the shaped actions with a field parameter
// whose clicked card is the selected one, or which have no card to click.
Shapes.fieldTargets = function () {
  const out = new Map();
  const sel = T.ui.selected;
  for (const a of Shapes.legal()) {
    const shape = Shapes.of(a.type);
    const fp = shape && shape.params.find((p) => p.kind === "field");
    if (!fp || a[fp.fills] === null || a[fp.fills] === undefined) continue;
    const cp = Shapes.cardParam(shape);
    if (cp && a[cp.fills] !== sel) continue;
    if (!out.has(a[fp.fills])) out.set(a[fp.fills], a);
  }
  return out;
};

// The "your choices" list: every shaped legal action, grouped by shape (its label as the
// group's name, its help as the tooltip), each a button worded with its arguments.
Shapes.choices = function () {
  const actions = Shapes.legal();
  if (!actions.length) return null;
  const groups = new Map();
  for (const a of actions) {
    if (!groups.has(a.type)) groups.set(a.type, []);
    groups.get(a.type).push(a);
  }
  const sel = T.ui.selected;
  const box = el("div", { class: "choices", id: "choices" }, el("span", { class: "label", text: t("your_choices") }));
  for (const [type, list] of groups) {
    const shape = Shapes.of(type);
    const group = el("div", { class: "choice-group", dataset: { type } });
    if (shape) group.title = Shapes.word(shape.help);
    for (const a of list) {
      const cp = shape && Shapes.cardParam(shape);
      const match = sel !== null && cp && a[cp.fills] === sel;
      const b = el("button", {
        type: "button",
        class: "choice " + type + (match ? " match" : ""),
        text: Shapes.describe(a),
        onclick: () => (Shapes.needsMore(a) ? Shapes.askCoins(a) : Shapes.send(a)),
      });
      for (const p of (shape && shape.params) || []) {
        const v = a[p.fills];
        if (v !== null && v !== undefined && !Array.isArray(v)) b.dataset[p.fills === "offer_id" ? "offerId" : p.fills] = v;
      }
      group.append(b);
    }
    box.append(group);
  }
  return box;
};

// Pick `n` of my coins (treasury cards) in paying order, the last on top: resolves to
// the ids, or null when cancelled. `n` null: any number, at least one.
Shapes.pickCoins = async function (title, question, n, okLabel) {
  const v = T.state.view;
  const picked = [];
  const pick = el("div", { class: "coin-pick", id: "coin-pick" });
  const order = el("p", { class: "coin-order", id: "coin-order" });
  const body = el("div", null, question, el("p", { text: t("buy_pick_coins", { n: n === null ? "…" : n }) }), pick, order);
  const answer = B.confirm(title, body, okLabel);
  const ok = document.querySelector("#confirm-yes");
  const draw = () => {
    pick.replaceChildren(
      ...(v.treasury || []).map((c) => {
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
          else if (n === null || picked.length < n) picked.push(c.id);
          draw();
        });
        return e;
      })
    );
    order.textContent = picked.length ? t("coin_order", { cards: picked.map((id) => Board.cardText(id)).join(" → ") }) : "";
    ok.disabled = n === null ? !picked.length : picked.length !== n;
  };
  draw();
  return (await answer) ? picked.slice() : null;
};

// A shaped action with a coins parameter: its coins are picked, then it is sent.
Shapes.askCoins = async function (a) {
  const shape = Shapes.of(a.type);
  const p = shape.params.find((q) => q.kind === "coins");
  const n = a[p.fills] && a[p.fills].length ? a[p.fills].length : null;
  const coins = await Shapes.pickCoins(Shapes.label(shape), el("p", { text: Shapes.word(shape.help) }), n, Shapes.label(shape));
  if (coins === null) return;
  const values = Shapes.values(shape, a);
  values[p.fills] = coins;
  act(Shapes.build(shape, values));
};

// A sentence from a shape's help, which starts in lower case (it also follows words).
Shapes.sentence = function (text) {
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : "";
};

// The hint while a card a module's action takes is selected: what the action does, and
// to click a field when it goes onto one. Empty when no such card is selected.
Shapes.selectedHint = function () {
  const sel = T.ui.selected;
  if (sel === null) return "";
  const a = Shapes.byCard(sel)[0];
  const shape = a && Shapes.of(a.type);
  if (!shape) return "";
  const what = Shapes.sentence(Shapes.word(shape.help) || Shapes.label(shape));
  return shape.params.some((p) => p.kind === "field") ? t("hint.pick_field", { what }) : what;
};

// What a pending decision asks of me, in words: the help of the action that answers it
// (a pending decision is named after its action type). Empty when no shape fits.
Shapes.pendingHint = function (kind) {
  const shape = Shapes.of(kind);
  return shape ? Shapes.sentence(Shapes.word(shape.help) || Shapes.label(shape)) : "";
};

// An event named after a shaped action (a module's), in words: who, the action's label,
// then the event's card and field. Null for other events.
Shapes.eventText = function (table, e) {
  const actions = (table && table.module_info && table.module_info.actions) || [];
  const shape = actions.find((s) => s.type === e.type);
  if (!shape || Shapes.BESPOKE.has(e.type)) return null;
  const own = (table.module_info.action_labels || {})[shape.type];
  let label = Shapes.word(own || shape.label);
  const optional = shape.params.find((p) => p.optional);
  if ((e.card === null || e.card === undefined) && optional) label = Shapes.word(optional.none_label);
  const args = [];
  if (typeof e.card === "number") args.push(Board.cardText(e.card, true));
  if (typeof e.field === "number") args.push(B.t("arg.field", { n: e.field + 1 }));
  if (typeof e.target === "number") args.push(Board.seatName(table, e.target));
  return B.t("ev.shaped", { who: Board.seatName(table, e.seat), what: [label, ...args].join(" · ") });
};
