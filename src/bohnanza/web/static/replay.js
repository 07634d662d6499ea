// The replay of a finished game: every step of its record, with everything revealed.
"use strict";

const R = {
  id: decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || ""),
  frame: null,
  step: 0,
  total: 0,
  timer: null,
  loading: false,
};
const $ = (sel) => document.querySelector(sel);
const el = (...a) => B.el(...a);
const t = (...a) => B.t(...a);

async function load(step) {
  if (R.loading) return;
  R.loading = true;
  try {
    const f = await B.api("GET", `/api/tables/${encodeURIComponent(R.id)}/replay?step=${step}`);
    if (f.cards) Board.cards = f.cards;
    R.frame = f;
    R.step = f.step;
    R.total = f.total;
    render();
  } catch (e) {
    $("#board").replaceChildren(el("p", { class: "error", text: B.errorText(e) }), el("a", { href: "/", text: t("back_to_lobby") }));
    stop();
  } finally {
    R.loading = false;
  }
}

function render() {
  const f = R.frame;
  if (!f) return;
  const v = f.view;
  const tb = f.table;
  document.body.dataset.step = f.step;
  $("#table-title").textContent = B.rulesName(tb.rules) + " · " + t("players_n", { n: tb.players }) + " · " + t("replay");
  $("#r-slider").max = f.total;
  $("#r-slider").value = f.step;
  $("#r-step").textContent = t("step_of", { n: f.step, of: f.total });
  $("#r-turn").max = (f.turn_steps || [0]).length;
  const parts = [Board.statusLine(tb, v)];
  if (v.drawn.length) parts.push(el("div", { class: "drawn" }, el("span", { class: "label", text: t("drawn_cards") }), v.drawn.map((c) => B.card(c))));
  const pub = v.public || {};
  // The module's public piles (ModuleInfo.public and pile_labels, sent with the table).
  for (const key of (tb.module_info && tb.module_info.public) || []) {
    if (pub[key] && pub[key].length) parts.push(el("div", { class: "pile pile-" + key }, el("span", { class: "label", text: Shapes.pileLabel(tb, key) }), pub[key].map((c) => B.card(c))));
  }
  if (f.offers.length) {
    parts.push(
      el(
        "section",
        { class: "trading" },
        el("h3", { text: t("trading") }),
        f.offers.map((o) =>
          el(
            "div",
            { class: "offer other" },
            el("div", { class: "offer-from", text: Board.seatName(tb, o.proposer) + " → " + Board.seatName(tb, o.to) }),
            el(
              "div",
              { class: "offer-what" },
              el("span", { class: "give" }, t("gives"), " ", o.give.map((c, i) => B.card(Object.assign({}, c, o.declared[i] ? { declared: o.declared[i] } : {}), { small: true }))),
              el("span", { class: "want" }, o.want.length ? t("wants") + " " + Board.wantText(o.want, true) : t("as_gift"))
            )
          )
        )
      )
    );
  }
  if (v.scores) parts.push(el("section", { class: "game-over" }, el("h2", { text: t("final_scores") }), Board.scores(tb, v)));
  parts.push(el("section", { class: "players all" }, v.seats.map((s) => Board.seatPanel(tb, v, s, { hand: f.hands[s.seat], presence: false }))));
  $("#board").replaceChildren(...parts);
  const items = [];
  for (const e of f.events) items.push(el("li", { class: "ev ev-" + e.type, text: Board.eventText(tb, e) }));
  if (!items.length) items.push(el("li", { class: "muted", text: t("replay_start") }));
  $("#log").replaceChildren(...items);
}

function go(step) {
  step = Math.max(0, Math.min(R.total, step));
  if (step !== R.step || !R.frame) load(step);
}

function stop() {
  if (R.timer) clearInterval(R.timer);
  R.timer = null;
  $("#r-play").textContent = t("play");
}

function play() {
  if (R.timer) return stop();
  $("#r-play").textContent = t("pause");
  R.timer = setInterval(() => {
    if (R.step >= R.total) return stop();
    go(R.step + 1);
  }, 600);
}

(async function main() {
  await B.load();
  $("#lang-slot").replaceWith(B.langSwitch());
  B.translateStatic();
  B.listeners.push(render);
  $("#r-first").addEventListener("click", () => go(0));
  $("#r-prev").addEventListener("click", () => go(R.step - 1));
  $("#r-next").addEventListener("click", () => go(R.step + 1));
  $("#r-last").addEventListener("click", () => go(R.total));
  $("#r-play").addEventListener("click", play);
  $("#r-slider").addEventListener("change", (ev) => go(Number(ev.target.value)));
  // Jump to the start of a turn (turn_steps: the step at which each turn begins).
  $("#r-turn-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const starts = (R.frame && R.frame.turn_steps) || [0];
    const n = Math.max(1, Math.min(starts.length, Number($("#r-turn").value) || 1));
    $("#r-turn").value = n;
    go(starts[n - 1]);
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowRight") go(R.step + 1);
    if (ev.key === "ArrowLeft") go(R.step - 1);
  });
  await load(0);
})();
