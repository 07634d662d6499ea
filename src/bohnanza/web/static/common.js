// Shared helpers: strings (English/Polish), bean names, cards, tokens, HTTP.
"use strict";

const B = (window.B = {
  strings: null,
  lang: "en",
  listeners: [],
});

B.load = async function () {
  const res = await fetch("/api/strings");
  B.strings = await res.json();
  const saved = localStorage.getItem("bohnanza.lang");
  const nav = (navigator.language || "en").toLowerCase();
  B.lang = saved || (nav.startsWith("pl") ? "pl" : "en");
  document.documentElement.lang = B.lang;
};

B.plural = function (n, forms) {
  if (forms.length === 2) return n === 1 ? forms[0] : forms[1];
  if (n === 1) return forms[0];
  const d = n % 10;
  const h = n % 100;
  return d >= 2 && d <= 4 && !(h >= 12 && h <= 14) ? forms[1] : forms[2];
};

B.setLang = function (lang) {
  B.lang = lang;
  localStorage.setItem("bohnanza.lang", lang);
  document.documentElement.lang = lang;
  B.translateStatic();
  for (const fn of B.listeners) fn();
};

// B.t(name, {n: 3}) -> the string in the current language, with {n} filled in.
B.t = function (key, vars) {
  const table = (B.strings && B.strings.ui[B.lang]) || {};
  let s = table[key];
  if (s === undefined) s = (B.strings && B.strings.ui.en[key]) || key;
  if (vars) {
    // Plurals first: {n|one|other} (English), {n|one|few|many} (Polish).
    s = s.replace(/\{(\w+)\|([^{}]*)\}/g, (all, k, forms) => (k in vars ? vars[k] + " " + B.plural(Number(vars[k]), forms.split("|")) : all));
    for (const [k, v] of Object.entries(vars)) s = s.split("{" + k + "}").join(String(v));
  }
  return s;
};

// Elements with a data-t attribute get their text from the strings (and data-t-ph: placeholder).
B.translateStatic = function (root) {
  for (const el of (root || document).querySelectorAll("[data-t]")) el.textContent = B.t(el.dataset.t);
  for (const el of (root || document).querySelectorAll("[data-t-ph]")) el.placeholder = B.t(el.dataset.tPh);
  for (const el of (root || document).querySelectorAll("[data-t-title]")) el.title = B.t(el.dataset.tTitle);
  for (const a of document.querySelectorAll("a.help")) a.href = "/rules?lang=" + B.lang;
  for (const el of document.querySelectorAll(".lang button")) {
    el.classList.toggle("on", el.dataset.lang === B.lang);
  }
};

// A variety's name as a sentence uses it; Polish declines it (English has one form).
// `form`: true or "acc" as the object of a verb or "za" ("Ola sadzi Śmierdzącą"), "gen"
// after "bez" ("bez Kawowej"), "few"/"many" after a number (B.beans); none: the name.
// The forms come from the card data (cards.toml name_pl_forms, served as pl_<form>).
B.bean = function (variety, form) {
  const b = B.strings && B.strings.beans[variety];
  if (!b) return variety;
  if (B.lang !== "pl") return b.en;
  const f = form === true ? "acc" : form;
  return (f && b["pl_" + f]) || b.pl;
};

// `n` cards of a variety: "2× Blue"; in Polish the form the number asks for ("3 Niebieskie",
// "5 Niebieskich", "2 Kowbojów"), one card as `acc` says (true: "1 Niebieską").
B.beans = function (variety, n, acc) {
  if (B.lang !== "pl") return n + "× " + B.bean(variety);
  return n + " " + B.bean(variety, B.plural(n, [acc ? "acc" : "", "few", "many"]));
};

// A card kind as its module declares it (ModuleInfo.kinds, sent in B.strings.kinds): its
// word, its mark on a big card, its own beanometers, whether a field topped by it pays.
B.kindInfo = function (kind) {
  return (kind && B.strings && B.strings.kinds && B.strings.kinds[kind]) || null;
};

B.kind = function (kind) {
  if (!kind) return "";
  const k = B.kindInfo(kind);
  if (!k) return kind;
  return (B.lang === "pl" ? k.label[1] : k.label[0]) || k.label[0];
};

B.rulesName = function (rules) {
  return B.t("rules." + rules);
};

B.el = function (tag, attrs, ...children) {
  const e = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(e.dataset, v);
      else e.setAttribute(k, v === true ? "" : v);
    }
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
};

// A card: {id?, variety, kind?, declared?}. Hidden facts are simply absent from the data.
// Big cards are drawn in SVG like a printed card (name, colour, count in the deck, the
// beanometer); small ones (fields, offers) are a coloured label, and a tap shows the big one.
B.card = function (card, opts) {
  opts = opts || {};
  const cls = ["card", "v-" + card.variety];
  if (opts.small) cls.push("small");
  else cls.push("big");
  if (opts.extra) cls.push(opts.extra);
  if (opts.drawn) cls.push("drawn-card");
  if (card.kind) cls.push("k-" + card.kind);
  const label = [];
  if (opts.small) {
    label.push(B.el("span", { class: "name", text: B.bean(card.variety) }));
    if (card.kind) label.push(B.el("span", { class: "kind", text: B.kind(card.kind) }));
  } else {
    label.push(B.cardSvg(card));
  }
  if (card.declared && (!card.kind || card.declared !== card.kind)) {
    label.push(B.el("span", { class: "kind declared", text: B.t("declared", { colour: B.kind(card.declared) }) }));
  }
  if (opts.drawn) label.push(B.el("span", { class: "drawn-mark", text: B.t("turned_up") }));
  const e = B.el("span", { class: cls.join(" "), title: B.cardTitle(card) }, label);
  if (card.id !== undefined && card.id !== null) e.dataset.card = card.id;
  e.dataset.variety = card.variety;
  return e;
};

const SVG_NS = "http://www.w3.org/2000/svg";
function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// The beanometer that pays for a card: its kind's own (a lady's, R-LADY-4), else the
// variety's.
B.beanometerOf = function (variety, kind) {
  const k = B.kindInfo(kind);
  if (k && k.beanometers && k.beanometers[variety]) return k.beanometers[variety];
  const b = B.strings && B.strings.beans[variety];
  return b ? b.beanometer : [];
};

B.cardSvg = function (card) {
  const b = (B.strings && B.strings.beans[card.variety]) || {};
  const svg = svgEl("svg", { viewBox: "0 0 64 88", class: "card-svg", role: "img", "aria-label": B.cardTitle(card) });
  svg.append(svgEl("rect", { x: 1, y: 1, width: 62, height: 86, rx: 6, class: "c-body" }));
  svg.append(svgEl("rect", { x: 1, y: 1, width: 62, height: 20, rx: 6, class: "c-band" }));
  svg.append(svgEl("circle", { cx: 11, cy: 11, r: 8, class: "c-count-bg" }));
  svg.append(svgEl("text", { x: 11, y: 14.5, class: "c-count", "text-anchor": "middle" }, b.count !== undefined ? String(b.count) : "?"));
  const mark = (B.kindInfo(card.kind) || {}).mark;
  if (mark) svg.append(svgEl("text", { x: 54, y: 15, class: "c-kind c-kind-" + card.kind, "text-anchor": "middle" }, mark));
  svg.append(svgEl("ellipse", { cx: 32, cy: 38, rx: 11, ry: 14, class: "c-bean" }));
  const name = B.bean(card.variety);
  const t = svgEl("text", { x: 32, y: 62, class: "c-name", "text-anchor": "middle" }, name);
  if (name.length > 9) {
    t.setAttribute("textLength", "58");
    t.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  svg.append(t);
  const meter = B.beanometerOf(card.variety, card.kind);
  if (meter && meter.some((x) => x)) {
    meter.forEach((need, i) => {
      const x = 9 + i * 15.3;
      svg.append(svgEl("text", { x, y: 74, class: "c-need", "text-anchor": "middle" }, need ? String(need) : "–"));
      svg.append(svgEl("circle", { cx: x, cy: 81, r: 4.2, class: "c-coin" }));
      svg.append(svgEl("text", { x, y: 83.2, class: "c-coins", "text-anchor": "middle" }, String(i + 1)));
    });
  } else {
    // What its module says it pays instead (ModuleInfo.variety_notes: a Farmer pair, a race).
    const note = B.strings && B.strings.variety_notes && B.strings.variety_notes[card.variety];
    svg.append(svgEl("text", { x: 32, y: 78, class: "c-special", "text-anchor": "middle" }, note ? (B.lang === "pl" ? note[1] : note[0]) : ""));
  }
  return svg;
};

// "1 more for 2 coins": the next beanometer step of a field (top card, count).
B.nextStep = function (cards) {
  if (!cards.length) return null;
  const top = cards[cards.length - 1];
  const meter = B.beanometerOf(top.variety, top.kind);
  const k = B.kindInfo(top.kind);
  if (!meter || !meter.some((x) => x) || (k && !k.pays_on_top)) return null;
  const n = cards.length;
  for (let i = 0; i < meter.length; i++) {
    if (meter[i] && meter[i] > n) return B.t("next_step", { more: meter[i] - n, coins: i + 1 });
  }
  return B.t("top_step");
};

B.cardTitle = function (card) {
  let s = B.bean(card.variety);
  if (card.kind) s += " (" + B.kind(card.kind) + ")";
  const meter = B.beanometerOf(card.variety, card.kind);
  if (meter) {
    const parts = meter.map((need, i) => (need ? need + "→" + (i + 1) : null)).filter(Boolean);
    if (parts.length) s += " · " + B.t("beanometer") + ": " + parts.join(", ");
  }
  return s;
};

// A tap on a small card shows it big (phones have no hover).
B.zoomCard = function (cardEl) {
  const id = cardEl.dataset.card;
  const card = id !== undefined && window.Board ? Board.cardById(Number(id)) : { variety: cardEl.dataset.variety };
  const dlg = B.el(
    "div",
    { class: "modal zoom", role: "dialog", "aria-modal": "true", id: "card-zoom" },
    B.el("div", { class: "modal-box" }, B.card(card), B.el("p", { text: B.cardTitle(card) }), B.el("div", { class: "buttons" }, B.el("button", { type: "button", class: "primary", id: "zoom-close", text: B.t("close"), onclick: () => dlg.remove() })))
  );
  document.body.append(dlg);
};
document.addEventListener("click", (ev) => {
  const c = ev.target.closest && ev.target.closest(".card.small");
  if (!c || c.classList.contains("pickable") || c.closest(".field.target") || c.closest(".modal")) return;
  B.zoomCard(c);
});

// A refusal from the server, in the page's language with 1-based numbers, and its rule.
// A refusal worded from its data (bohnanza.refusals): the engine's reason code, rule,
// 1-based numbers, the seat whose move it is and another seat the reason names (named as
// the table names them), a phase, varieties.
B.refusalText = function (msg, table) {
  const r = msg.refusal;
  if (!r) return B.t("not_allowed");
  const p = Object.assign({}, r.params || {});
  const seatName = (n) => (window.Board && table ? Board.seatName(table, n - 1) : B.t("seat_n", { n }));
  if (p.action) p.action = B.t("act." + p.action);
  if (p.active) p.who = seatName(p.active);
  if (p.partner) p.whom = seatName(p.partner);
  if (p.phase) p.phase = B.t("phase." + p.phase);
  if (p.top) p.top = B.bean(p.top);
  if (p.card) p.card = B.bean(p.card);
  return B.t("err." + r.code, p);
};
B.ruleLink = function (rule) {
  return B.el("a", { class: "rule-link", href: "/rules?lang=" + B.lang + "#" + rule, target: "_blank", rel: "noopener", text: B.t("rule_ref", { rule }) });
};

// A random id for a request or a message (crypto.getRandomValues works on plain http
// too, unlike crypto.randomUUID): the server answers a repeated id with its first answer.
B.clientId = function () {
  const bytes = new Uint8Array(9);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
};

B.tokenKey = (table) => "bohnanza.token." + table;
B.getToken = (table) => localStorage.getItem(B.tokenKey(table));
B.setToken = (table, token) => localStorage.setItem(B.tokenKey(table), token);
B.dropToken = (table) => localStorage.removeItem(B.tokenKey(table));

// A time in seconds as people say it: 43200 -> "12 h", 90 -> "90 s", 600 -> "10 min".
B.duration = function (seconds) {
  if (seconds >= 3600 && seconds % 3600 === 0) return B.t("dur.h", { n: seconds / 3600 });
  if (seconds >= 600 && seconds % 60 === 0) return B.t("dur.min", { n: seconds / 60 });
  return B.t("dur.s", { n: seconds });
};

B.api = async function (method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  let data = null;
  try {
    data = await res.json();
  } catch (e) {
    data = { error: res.statusText };
  }
  if (!res.ok) {
    const err = new Error((data && data.error) || res.statusText);
    err.code = data && data.code;
    throw err;
  }
  return data;
};

// A refused request in the page's language when the server named its reason (a code),
// else the server's own words (requests the pages never send).
B.errorText = function (e) {
  const key = e && e.code ? "lobby." + e.code : null;
  return key && B.strings && key in B.strings.ui.en ? B.t(key) : e.message;
};

B.toast = function (text, kind, opts) {
  let box = document.getElementById("toasts");
  if (!box) {
    box = B.el("div", { id: "toasts", role: "status", "aria-live": "polite" });
    document.body.append(box);
  }
  opts = opts || {};
  if (opts.rule) {
    // Refusals stay: at the top, where they cover no control at the bottom of a phone.
    box = document.getElementById("toasts-top");
    if (!box) {
      box = B.el("div", { id: "toasts-top", role: "alert" });
      document.body.append(box);
    }
  }
  const t = B.el("div", { class: "toast " + (kind || "info") + (opts.rule ? " refusal" : "") }, text);
  // A refusal's pop-up links to its rule and stays until it is dismissed (reading the
  // rule takes longer than a toast lasts).
  if (opts.rule) {
    t.append(" ", B.ruleLink(opts.rule), B.el("button", { type: "button", class: "link dismiss", "aria-label": B.t("close"), text: "×", onclick: () => (t.remove(), opts.onDismiss && opts.onDismiss()) }));
    box.append(t);
    return t;
  }
  box.append(t);
  setTimeout(() => t.classList.add("gone"), kind === "error" ? 7000 : 3500);
  setTimeout(() => t.remove(), kind === "error" ? 7600 : 4100);
  return t;
};

B.langSwitch = function () {
  const box = B.el("span", { class: "lang" });
  for (const lang of ["en", "pl"]) {
    box.append(
      B.el("button", {
        type: "button",
        "data-lang": lang,
        class: lang === B.lang ? "on" : "",
        text: lang.toUpperCase(),
        onclick: () => B.setLang(lang),
      })
    );
  }
  return box;
};

// A modal confirmation; resolves true or false.
B.confirm = function (title, body, okText) {
  return new Promise((resolve) => {
    const close = (v) => {
      dlg.remove();
      resolve(v);
    };
    const dlg = B.el(
      "div",
      { class: "modal", role: "dialog", "aria-modal": "true", id: "confirm" },
      B.el(
        "div",
        { class: "modal-box" },
        B.el("h3", { text: title }),
        B.el("div", { class: "modal-body" }, body),
        B.el(
          "div",
          { class: "buttons" },
          B.el("button", { type: "button", class: "secondary", id: "confirm-no", text: B.t("cancel"), onclick: () => close(false) }),
          B.el("button", { type: "button", class: "primary", id: "confirm-yes", text: okText || B.t("confirm"), onclick: () => close(true) })
        )
      )
    );
    document.body.append(dlg);
    dlg.querySelector("#confirm-yes").focus();
  });
};

// A coin, drawn by CSS (no emoji font needed).
B.coin = function () {
  return B.el("span", { class: "coin-icon", "aria-hidden": "true" });
};

// The coins a field of `n` cards of `variety` would pay by its printed beanometer.
B.payoutOf = function (variety, n) {
  const b = B.strings.beans[variety];
  if (!b) return 0;
  let coins = 0;
  b.beanometer.forEach((need, i) => {
    if (need && n >= need) coins = i + 1;
  });
  return coins;
};
