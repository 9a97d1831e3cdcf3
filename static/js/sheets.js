/* A phone's action sheets (a card's or a deck's actions, opened from its button) and
   the flash line that says what became of a move. */
(function (S) {
  "use strict";
  var FLASH_FOR = 6000;  // ms a flash stays, counted again after each update

  function open(templateId) {
    var tpl = document.getElementById(templateId);
    var sheet = document.getElementById("sheet");
    if (!tpl || !sheet) return;
    var body = sheet.querySelector(".sheet-body");
    body.innerHTML = "";
    body.appendChild(tpl.content.cloneNode(true));
    // A card's sheet shows the card as drawn on the page (sent once, not per sheet).
    body.querySelectorAll("[data-card-of]").forEach(function (holder) {
      var card = document.querySelector('#hand .card[data-card="' + holder.getAttribute("data-card-of") + '"]');
      if (card) holder.appendChild(card.cloneNode(true));
    });
    // A sheet is the same on and off turn: its actions wait for this phone's turn
    // (the server refuses them at any other time anyway).
    // During this phone's own step of returning gems or choosing a noble, the note
    // says to finish that step (one text on the page, not one in every sheet):
    // "on your turn" would read as if it were not.
    var h = S.hand();
    var mine = !!h && h.getAttribute("data-my-turn") === "1";
    var ready = mine && h.getAttribute("data-phase") === S.PHASE.MAIN;
    body.querySelectorAll("[data-action]").forEach(function (b) { b.disabled = !ready; });
    body.querySelectorAll("[data-turn-note]").forEach(function (n) {
      n.hidden = ready;
      if (mine && !ready) n.textContent = sheet.getAttribute("data-step-note");
    });
    sheet.hidden = false;
    var first = body.querySelector("button:not([disabled])");
    if (first) first.focus();
  }

  function close() {
    var sheet = document.getElementById("sheet");
    if (sheet) sheet.hidden = true;
  }

  // Closed and emptied: a shared phone's curtain keeps nothing of the hand before it.
  function empty() {
    close();
    var body = document.querySelector("#sheet .sheet-body");
    if (body) body.innerHTML = "";
  }

  function hideFlashLater(flash) {
    clearTimeout(flash._timer);
    flash._timer = setTimeout(function () { flash.classList.remove("show"); }, FLASH_FOR);
  }

  function flash(message) {
    var el = document.getElementById("flash");
    if (!el) return;
    el.textContent = message;
    el.classList.add("show");
    hideFlashLater(el);
  }

  // After an update: a flash on screen stays its full time from now.
  function renewFlash() {
    var el = document.getElementById("flash");
    if (el && el.classList.contains("show")) hideFlashLater(el);
  }

  S.sheets = { open: open, close: close, empty: empty, flash: flash, renewFlash: renewFlash };
})(window.Splendor);
