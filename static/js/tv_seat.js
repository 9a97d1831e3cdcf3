/* The host screen's seats played on the TV: the table's own cards and decks open the
   turn panel's action sheets, "Hold to look" at a card reserved from a deck, and the
   names last typed for players without a phone.
   The turn panel (#tv-turn) is the phone's hand, sheets included; while it is shown,
   each card and deck on the board opens its sheet there (as the phone's market buttons
   do, which the panel leaves out: the board is the market), with a mouse, a touch, or
   Tab and Enter.
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
    if (!b || e.button > 0) return;  // a finger, a pen or the main mouse button
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

  // ---- the board's cards and decks open the turn panel's sheets
  // An opener is named by what it shows, then by what is said of it (a hidden line): a
  // card's own description moves there while it is a button, and comes back after.
  function keep(el, name) {
    if (el.hasAttribute(name)) el.setAttribute("data-was-" + name, el.getAttribute(name));
    el.removeAttribute(name);
  }
  function giveBack(el, name) {
    if (el.hasAttribute("data-was-" + name)) el.setAttribute(name, el.getAttribute("data-was-" + name));
    el.removeAttribute("data-was-" + name);
  }
  function openable(el, sheetId, card, said) {
    if (!el.hasAttribute("data-tv-open")) {
      [el, card].forEach(function (part) { if (part) { keep(part, "role"); keep(part, "aria-label"); } });
      var line = document.createElement("span");
      line.className = "visually-hidden tv-said";
      line.textContent = " " + said;
      el.appendChild(line);
    }
    el.setAttribute("data-tv-open", sheetId);
    el.setAttribute("role", "button");
    el.tabIndex = 0;
  }
  function plain(el) {
    el.querySelectorAll(".tv-said").forEach(function (line) { line.remove(); });
    [el, el.querySelector(".card")].forEach(function (part) {
      if (part) { giveBack(part, "role"); giveBack(part, "aria-label"); }
    });
    ["data-tv-open", "tabindex"].forEach(function (name) { el.removeAttribute(name); });
    el.classList.remove("affordable");
  }
  function boardOpens() {
    document.querySelectorAll(".board [data-tv-open]").forEach(plain);
    if (!document.querySelector("#tv-turn #hand")) return;
    document.querySelectorAll('.board [id^="table-slot-"]').forEach(function (slot) {
      var card = slot.matches(".card[data-card]") ? slot : slot.querySelector(".card[data-card]");
      var sheetId = card && "sheet-card-" + card.getAttribute("data-card");
      if (!sheetId || !document.getElementById(sheetId)) return;
      openable(slot, sheetId, card === slot ? null : card, card.getAttribute("aria-label") || "");
      var own = document.querySelector('#tv-turn button[data-open="' + sheetId + '"]');
      slot.classList.toggle("affordable", !!own && own.classList.contains("affordable"));
    });
    document.querySelectorAll('.board [id^="table-deck-"]').forEach(function (deck) {
      var level = deck.id.split("-").pop();
      var own = document.getElementById("deck-" + level);
      if (!own || !own.hasAttribute("data-open")) return;
      var name = own.querySelector(".visually-hidden");  // "Level I deck:"
      openable(deck, own.getAttribute("data-open"), null, name ? name.textContent : "");
    });
  }
  // The sheet closed (a choice, Cancel, Escape): focus goes back to what opened it.
  var opened = null;
  function openFrom(opener) {
    opened = opener;
    S.sheets.open(opener.getAttribute("data-tv-open"));
  }
  function watchSheet() {
    var sheet = document.getElementById("sheet");
    if (!sheet || !window.MutationObserver) return;
    new MutationObserver(function () {
      if (!sheet.hidden || !opened) return;
      if (document.body.contains(opened) && opened.hasAttribute("data-tv-open")) opened.focus();
      opened = null;
    }).observe(sheet, { attributes: true, attributeFilter: ["hidden"] });
  }
  document.addEventListener("click", function (e) {
    var opener = e.target.closest && e.target.closest(".board [data-tv-open]");
    if (opener) openFrom(opener);
  });
  document.addEventListener("keydown", function (e) {
    var opener = e.target.closest && e.target.closest(".board [data-tv-open]");
    if (opener && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      openFrom(opener);
    }
  });
  document.addEventListener("DOMContentLoaded", watchSheet);
  document.addEventListener("splendor:swapped", boardOpens);
  document.addEventListener("DOMContentLoaded", boardOpens);

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
