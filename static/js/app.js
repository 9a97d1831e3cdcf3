/* What arrives from the server, and the taps. A message is HTML regions (only the ones
   that changed), swapped in by htmx (htmx.swap, its public API: the out-of-band swaps
   the ws extension also does); then the page's own attributes, the turn's cues and the
   player's half-made choices are brought up to date. The socket is connection.js's, the
   move move.js's, the pickers hand.js's, the sheets sheets.js's (page.js says more). */
(function (S) {
  "use strict";
  var PHASE = S.PHASE;

  function received(socket, message) {
    var before = inProgress();
    S.fire("splendor:message", { message: message });
    htmx.swap(S.live(), message, { swapStyle: "none", swapDelay: 0, settleDelay: 0, ignoreTitle: true });
    S.move.answered(socket);
    afterUpdate(before);
    S.fire("splendor:swapped", { message: message });
  }
  S.connection.heard = received;

  // Update frames carry only the regions that changed, plus a small meta
  // element with what the whole screen's attributes should now say.
  function copyMeta(targetId, metaId) {
    var target = document.getElementById(targetId);
    var meta = document.getElementById(metaId);
    if (!target || !meta) return;
    ["data-version", "data-my-turn", "data-phase", "data-status"].forEach(function (name) {
      if (meta.hasAttribute(name)) target.setAttribute(name, meta.getAttribute(name));
    });
    var cls = meta.getAttribute("data-class");
    if (cls && target.className !== cls) target.className = cls;
    // The TV's player panels: whose turn it is, who acted last.
    var current = meta.getAttribute("data-current");
    var actedLast = meta.getAttribute("data-acted-last");
    if (current === null) return;
    target.querySelectorAll(".player[data-seat]").forEach(function (panel) {
      var seat = panel.getAttribute("data-seat");
      panel.classList.toggle("current", seat === current);
      panel.classList.toggle("acted-last", seat === actedLast);
    });
  }

  // What the player was in the middle of, to keep it across a swap that did
  // not change the hand (a reconnect sends the whole view again).
  function inProgress() {
    var h = S.hand();
    return { version: h ? h.getAttribute("data-version") : null, picks: S.pickers.picked() };
  }

  var wasMyTurn = null;
  var lastPhase = "";

  // A turn of this phone's begins, or a new step of it: bring it into view.
  function turnCues(h) {
    var mine = h.getAttribute("data-my-turn") === "1";
    if (mine && wasMyTurn === false) {
      // The turn panel is at the top: bring it into view, and buzz where phones can.
      window.scrollTo({ top: 0, behavior: "smooth" });
      if (navigator.vibrate) {
        try { navigator.vibrate([120, 60, 120]); } catch (err) { /* not allowed yet */ }
      }
    }
    // A new step of my own turn (give back tokens, choose a noble) appears at
    // the top; the player may have tapped far down the page.
    var phase = h.getAttribute("data-phase") || "";
    if (mine && wasMyTurn && phase !== lastPhase && phase !== PHASE.MAIN) {
      window.scrollTo({ top: 0, behavior: "smooth" });
    }
    lastPhase = phase;
    if (phase === PHASE.OVER && !h._shownResult) {
      h._shownResult = true;
      window.scrollTo({ top: 0 });
    }
    wasMyTurn = mine;
    // A mark in the tab title, for a phone that shows other tabs.
    var base = document.title.replace(/^\u25cf /, "");
    document.title = mine ? "\u25cf " + base : base;
  }

  function afterUpdate(before) {
    copyMeta("screen", "screen-meta");
    copyMeta("hand", "hand-meta");
    S.hint.answered();
    var redirect = document.querySelector("[data-redirect]");
    if (redirect) { location.href = redirect.getAttribute("data-redirect"); return; }
    var h = S.hand();
    var same = !!before && !!h && before.version !== null && h.getAttribute("data-version") === before.version;
    if (h) turnCues(h);
    // An open sheet and picked gems stay while the hand is the same.
    if (!same) S.sheets.close();
    // A shared phone's curtain: nothing of the hand before it stays in the page.
    if (document.getElementById("curtain")) S.sheets.empty();
    S.pickers.restore(same ? before.picks : null);
    S.sheets.renewFlash();
    S.move.afterView();
    S.move.showPending();
  }

  // ---------------------------------------------------------------- taps
  document.addEventListener("click", function (e) {
    if (e.target.id === "sheet") { S.sheets.close(); return; }  // tap on the backdrop
    var t = e.target.closest("button");
    if (!t || t.disabled) return;
    if (t.hasAttribute("data-pick")) { S.pickers.pick(t); return; }
    if (t.hasAttribute("data-clear")) { S.pickers.clear(t.closest("[data-picker]")); return; }
    if (t.hasAttribute("data-confirm")) { S.move.send(S.pickers.confirmed(t.closest("[data-picker]"))); return; }
    if (t.hasAttribute("data-hint")) { S.hint.ask(t); return; }
    // A shared phone's curtain: show the hand it asks for, or pass the phone on.
    if (t.hasAttribute("data-uncover")) { S.connection.send({ uncover: +t.getAttribute("data-uncover") }); return; }
    if (t.hasAttribute("data-cover")) { S.connection.send({ cover: +t.getAttribute("data-cover") }); return; }
    if (t.hasAttribute("data-preselect")) { S.pickers.preselect(t.getAttribute("data-preselect")); return; }
    if (t.hasAttribute("data-open")) { S.sheets.open(t.getAttribute("data-open")); return; }
    if (t.hasAttribute("data-close")) { S.sheets.close(); return; }
    if (t.hasAttribute("data-action")) {
      var question = t.getAttribute("data-confirm-text");
      if (question && !window.confirm(question)) return;
      S.move.send(t.getAttribute("data-action"));
    }
  });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") S.sheets.close(); });

  document.addEventListener("DOMContentLoaded", function () {
    afterUpdate(null);
    S.connection.start();
  });
})(window.Splendor);
