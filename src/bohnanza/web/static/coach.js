// Coach mode (issue 36, web/coaching.py): at a table whose host chose the coach, a
// "Hint" button for a person's seat shows the search's three best actions with the coins
// it expects of each and why; on the replay of such a table, the decisions that cost
// each person the most, with a jump to each. Kept apart from table.js and replay.js.
"use strict";

(function () {
  const parts = location.pathname.split("/").filter(Boolean);
  const page = parts[0];
  const id = decodeURIComponent(parts[1] || "");
  if (!id || (page !== "t" && page !== "replay")) return;
  const url = (tail) => "/api/tables/" + encodeURIComponent(id) + tail;
  const ready = () => new Promise((done) => {
    const wait = () => (B.strings ? done() : setTimeout(wait, 100));
    wait();
  });

  function command(a) {
    return (B.lang === "pl" ? a.command.pl : a.command.en) || "";
  }

  function hintBox() {
    let box = document.getElementById("hint-box");
    if (!box) {
      box = B.el("aside", { id: "hint-box", class: "hint-box", role: "status" });
      document.body.append(box);
    }
    return box;
  }

  async function showHint(button) {
    const token = B.getToken(id);
    if (!token) return;
    button.disabled = true;
    try {
      const res = await B.api("POST", url("/hint"), { token });
      const box = hintBox();
      // Options the search cannot tell apart share a rank, shown as "1=" (coach.py, ranks).
      const lines = res.hints.map((h) => B.el("li", { class: h.tied ? "hint tied" : "hint", "data-rank": String(h.rank) },
        B.el("span", { class: "hint-rank", text: String(h.rank) + (h.tied ? "=" : "") + ". " }),
        B.el("b", { class: "hint-command", text: command(h) }),
        B.el("span", { class: "hint-margin", text: " " + (h.margin >= 0 ? "+" : "") + h.margin.toFixed(1) + " " + B.t("coach.coins") + " " }),
        B.el("span", { class: "hint-reason", text: "- " + (B.lang === "pl" ? h.reason.pl : h.reason.en) })));
      box.replaceChildren(B.el("ul", { class: "hints" }, ...lines));
      box.hidden = false;
    } catch (e) {
      B.toast(B.errorText(e), "error");
    } finally {
      setTimeout(() => { button.disabled = false; }, 1000);
    }
  }

  async function table() {
    await ready();
    const res = await fetch(url(""));
    if (!res.ok) return;
    const info = await res.json();
    if (!info.coach || !B.getToken(id) || info.status === "over") return;
    const button = B.el("button", { type: "button", id: "btn-hint", class: "toggle", text: B.t("coach.hint") });
    button.addEventListener("click", () => showHint(button));
    const rules = document.getElementById("rules-link"); // the header's help link
    rules.parentNode.insertBefore(button, rules);
    B.listeners.push(() => { button.textContent = B.t("coach.hint"); });
  }

  async function replay() {
    await ready();
    const res = await fetch(url("/review"));
    if (!res.ok) return; // not a coach table, or not over
    const review = await res.json();
    const slider = document.getElementById("r-slider");
    const items = review.marks.map((m) => {
      const go = B.el("button", { type: "button", class: "secondary mark-go", text: B.t("turn_n", { n: m.turn }) });
      go.addEventListener("click", () => {
        slider.value = String(m.step);
        slider.dispatchEvent(new Event("input", { bubbles: true }));
        slider.dispatchEvent(new Event("change", { bubbles: true }));
      });
      return B.el("li", { class: "mark", "data-step": String(m.step) }, go,
        B.el("span", { text: " " + B.t("seat_n", { n: m.seat + 1 }) + ": " + m.played.type + (m.best ? ", " + B.t("coach.best") + ": " + m.best.type : "") + ", " + B.t("coach.lost") + " " + m.loss.toFixed(1) + " " + B.t("coach.coins") }));
    });
    const box = B.el("section", { id: "review", class: "card-box review" },
      B.el("h2", { text: B.t("coach.review") }), B.el("ol", { class: "marks" }, ...items));
    const controls = document.getElementById("controls");
    controls.parentNode.insertBefore(box, controls.nextSibling);
  }

  (page === "t" ? table : replay)().catch(() => {});
})();
