/* A phone's hand: the gem pickers, which offer only selections that can still become a
   legal action, and the "Suggest a move" button. A picker's selection lives on its
   element (picker._selection, a list of colour letters). */
(function (S) {
  "use strict";
  var ORDER = S.LETTERS;  // the colours' letters in the engine's order

  // ---- gem pickers
  // A picker's legal selections, as letter strings ("wuk"): on the picker, or on its own
  // small element (the take picker's, updated alone), as notations ("take:wuk,...").
  function legalOf(picker) {
    var holder = picker.hasAttribute("data-legal") ? picker : picker.querySelector("[data-legal]");
    var raw = (holder && holder.getAttribute("data-legal")) || "";
    return raw ? raw.split(",").map(function (n) { return n.split(":")[1]; }) : [];
  }
  function sorted(letters) {
    return letters.slice().sort(function (a, b) { return ORDER.indexOf(a) - ORDER.indexOf(b); }).join("");
  }
  // Whether a selection can still grow into the letters of target.
  function within(selection, target) {
    var left = target.split("");
    return selection.every(function (l) {
      var i = left.indexOf(l);
      if (i < 0) return false;
      left.splice(i, 1);
      return true;
    });
  }
  function refresh(picker) {
    var legal = legalOf(picker);
    var sel = picker._selection || (picker._selection = []);
    var sign = picker.getAttribute("data-picker") === S.PHASE.RETURN ? "\u2212" : "+";
    picker.querySelectorAll("[data-pick]").forEach(function (b) {
      var l = b.getAttribute("data-pick");
      var n = sel.filter(function (x) { return x === l; }).length;
      var canAdd = legal.some(function (t) { return within(sel.concat([l]), t); });
      b.classList.toggle("selected", n > 0);
      b.querySelector(".picked").textContent = n ? sign + n : "";
      if (!b.hasAttribute("data-off")) b.disabled = !(canAdd || n > 0);
    });
    var complete = legal.indexOf(sorted(sel)) >= 0;
    var confirm = picker.querySelector("[data-confirm]");
    if (confirm) confirm.disabled = !complete;
  }
  function pick(button) {
    var picker = button.closest("[data-picker]");
    var legal = legalOf(picker);
    var sel = picker._selection || (picker._selection = []);
    var l = button.getAttribute("data-pick");
    if (legal.some(function (t) { return within(sel.concat([l]), t); })) sel.push(l);
    else picker._selection = sel.filter(function (x) { return x !== l; });
    refresh(picker);
  }
  function clear(picker) {
    picker._selection = [];
    refresh(picker);
  }
  // The picker's confirmed action as notation ("take:wuk"); the picker starts empty again.
  function confirmed(picker) {
    var notation = picker.getAttribute("data-picker") + ":" + sorted(picker._selection || []);
    picker._selection = [];
    return notation;
  }

  // What the player has picked, picker by picker, to keep across a swap that did not
  // change the hand (a reconnect sends the whole view again).
  function picked() {
    var picks = {};
    document.querySelectorAll("[data-picker]").forEach(function (p) {
      if (p._selection && p._selection.length) picks[p.getAttribute("data-picker")] = p._selection.slice();
    });
    return picks;
  }
  // After a swap: a picker the server sent anew keeps the picks `kept` had for it
  // (or none) if they can still become a legal action; every picker is shown again.
  function restore(kept) {
    document.querySelectorAll("[data-picker]").forEach(function (picker) {
      if (!picker._selection) {
        var mine = kept && kept[picker.getAttribute("data-picker")];
        var legal = legalOf(picker);
        picker._selection = mine && legal.some(function (t) { return within(mine, t); }) ? mine : [];
      }
      refresh(picker);
    });
  }

  // ---- "Suggest a move": the answer arrives as its own region (game/screens/hint_answers.py)
  function askHint(button) {
    var h = S.hand();
    if (!h || S.connection.state() !== "open") return;
    if (!S.connection.send({ hint: true, version: h.getAttribute("data-version") })) return;
    button.disabled = true;  // until the answer is shown (or the next version's panel comes)
    if (!button.hasAttribute("data-label")) button.setAttribute("data-label", button.textContent);
    button.textContent = button.getAttribute("data-thinking") || button.textContent;
  }
  // The answer is on screen: the button says what it does again, and may be asked again.
  function hintAnswered() {
    var button = document.querySelector("#hint [data-hint][data-label]");
    if (!button || !document.querySelector("#hint [data-hint-action]")) return;
    button.textContent = button.getAttribute("data-label");
    button.removeAttribute("data-label");
    button.disabled = false;
  }
  // Put the hinted gems into their picker; the player still confirms them.
  function preselect(notation) {
    var parts = notation.split(":");
    var picker = document.querySelector('[data-picker="' + parts[0] + '"]');
    if (!picker) return;
    picker._selection = (parts[1] || "").split("");
    refresh(picker);
    picker.scrollIntoView({ behavior: "smooth", block: "center" });
  }

  S.pickers = { pick: pick, clear: clear, confirmed: confirmed, picked: picked, restore: restore, preselect: preselect };
  S.hint = { ask: askHint, answered: hintAnswered };
})(window.Splendor);
