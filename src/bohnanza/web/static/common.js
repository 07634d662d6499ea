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
    for (const [k, v] of Object.entries(vars)) s = s.split("{" + k + "}").join(String(v));
  }
  return s;
};

// Elements with a data-t attribute get their text from the strings (and data-t-ph: placeholder).
B.translateStatic = function (root) {
  for (const el of (root || document).querySelectorAll("[data-t]")) el.textContent = B.t(el.dataset.t);
  for (const el of (root || document).querySelectorAll("[data-t-ph]")) el.placeholder = B.t(el.dataset.tPh);
  for (const el of (root || document).querySelectorAll("[data-t-title]")) el.title = B.t(el.dataset.tTitle);
  for (const el of document.querySelectorAll(".lang button")) {
    el.classList.toggle("on", el.dataset.lang === B.lang);
  }
};

B.bean = function (variety) {
  const b = B.strings && B.strings.beans[variety];
  if (!b) return variety;
  return B.lang === "pl" ? b.pl : b.en;
};

B.kind = function (kind) {
  return kind ? B.t("kind." + kind) : "";
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
B.card = function (card, opts) {
  opts = opts || {};
  const cls = ["card", "v-" + card.variety];
  if (opts.small) cls.push("small");
  if (opts.extra) cls.push(opts.extra);
  if (card.kind) cls.push("k-" + card.kind);
  const label = [B.el("span", { class: "name", text: B.bean(card.variety) })];
  if (card.kind) label.push(B.el("span", { class: "kind", text: B.kind(card.kind) }));
  if (card.declared && !card.kind) {
    label.push(B.el("span", { class: "kind declared", text: B.t("declared", { colour: B.kind(card.declared) }) }));
  } else if (card.declared && card.declared !== card.kind) {
    label.push(B.el("span", { class: "kind declared", text: B.t("declared", { colour: B.kind(card.declared) }) }));
  }
  const e = B.el("span", { class: cls.join(" "), title: B.cardTitle(card) }, label);
  if (card.id !== undefined && card.id !== null) e.dataset.card = card.id;
  e.dataset.variety = card.variety;
  return e;
};

B.cardTitle = function (card) {
  const b = B.strings && B.strings.beans[card.variety];
  let s = B.bean(card.variety);
  if (card.kind) s += " (" + B.kind(card.kind) + ")";
  if (b && b.beanometer) {
    const parts = b.beanometer
      .map((need, i) => (need ? need + "→" + (i + 1) : null))
      .filter(Boolean);
    if (parts.length) s += " · " + B.t("beanometer") + ": " + parts.join(", ");
  }
  return s;
};

B.tokenKey = (table) => "bohnanza.token." + table;
B.getToken = (table) => localStorage.getItem(B.tokenKey(table));
B.setToken = (table, token) => localStorage.setItem(B.tokenKey(table), token);
B.dropToken = (table) => localStorage.removeItem(B.tokenKey(table));

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
  if (!res.ok) throw new Error((data && data.error) || res.statusText);
  return data;
};

B.toast = function (text, kind) {
  let box = document.getElementById("toasts");
  if (!box) {
    box = B.el("div", { id: "toasts", role: "status", "aria-live": "polite" });
    document.body.append(box);
  }
  const t = B.el("div", { class: "toast " + (kind || "info"), text });
  box.append(t);
  setTimeout(() => t.classList.add("gone"), kind === "error" ? 7000 : 3500);
  setTimeout(() => t.remove(), kind === "error" ? 7600 : 4100);
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
