/* The host screen's seats played on the TV: "Hold to look" at a card reserved from a
   deck, and the names last typed for players without a phone.
   A look asks the server for the card ({"look": slot, "version": v}); its answer fills
   #tv-look, which is emptied again on release (pointer up or cancelled, key up, focus
   lost, page hidden) and after any message that arrives while nothing is held, so the
   card stays in the page only while it is held. */
(function (S) {
  "use strict";
  var held = null;  // the button held now
  var NAMES_KEY = "splendor-tv-names";
  var NAMES_KEPT = 8;

  function hide() {
    var look = document.getElementById("tv-look");
    if (look) {
      look.replaceChildren();
      look.removeAttribute("data-slot");
    }
  }

  function hold(button) {
    var h = S.hand();
    if (!h || held === button) return;
    held = button;
    button.classList.add("held");
    S.connection.send({ look: Number(button.getAttribute("data-look")), version: h.getAttribute("data-version") });
  }

  function release() {
    if (held) held.classList.remove("held");
    held = null;
    hide();
  }

  function lookButton(target) {
    return target && target.closest ? target.closest("[data-look]") : null;
  }

  document.addEventListener("pointerdown", function (e) {
    var b = lookButton(e.target);
    if (!b) return;
    e.preventDefault();  // no text selection or long-press menu while held
    if (b.setPointerCapture) { try { b.setPointerCapture(e.pointerId); } catch (err) { /* gone */ } }
    b.focus();
    hold(b);
  });
  ["pointerup", "pointercancel"].forEach(function (name) {
    document.addEventListener(name, function () { if (held) release(); });
  });
  document.addEventListener("contextmenu", function (e) { if (lookButton(e.target)) e.preventDefault(); });
  document.addEventListener("keydown", function (e) {
    var b = lookButton(e.target);
    if (b && (e.key === " " || e.key === "Enter")) {
      e.preventDefault();
      if (!e.repeat) hold(b);
    }
  });
  document.addEventListener("keyup", function (e) {
    if (held && (e.key === " " || e.key === "Enter")) release();
  });
  document.addEventListener("focusout", function (e) { if (held && lookButton(e.target) === held) release(); });
  window.addEventListener("blur", function () { if (held) release(); });
  document.addEventListener("visibilitychange", function () { if (document.hidden) release(); });
  // An answer that arrives after the release, or any other message: nothing stays shown.
  document.addEventListener("splendor:swapped", function () {
    if (!held || !document.body.contains(held)) release();
  });

  // ---- names typed for players without a phone, remembered on this screen
  function names() {
    try { return JSON.parse(localStorage.getItem(NAMES_KEY) || "[]").filter(function (n) { return typeof n === "string"; }); }
    catch (err) { return []; }
  }
  function offerNames() {
    var list = document.getElementById("tv-player-names");
    if (!list || list.children.length) return;
    names().forEach(function (name) {
      var option = document.createElement("option");
      option.value = name;
      list.appendChild(option);
    });
  }
  document.addEventListener("submit", function (e) {
    if (!e.target.hasAttribute || !e.target.hasAttribute("data-remember-names")) return;
    var name = (e.target.querySelector("[name=name]").value || "").trim();
    if (!name) return;
    var kept = [name].concat(names().filter(function (n) { return n !== name; })).slice(0, NAMES_KEPT);
    try { localStorage.setItem(NAMES_KEY, JSON.stringify(kept)); } catch (err) { /* private mode */ }
  });
  document.addEventListener("splendor:swapped", offerNames);
  document.addEventListener("DOMContentLoaded", offerNames);
})(window.Splendor);
