/* The little JavaScript a screen needs: keep the socket alive (a heartbeat
   every 2 s; no answer for 4 s shows "reconnecting" and reconnects), pick gems,
   open action sheets and send the one confirmed action. Everything shown comes
   from the server as HTML regions (only the ones that changed); nothing here
   changes the game by itself. */
(function () {
  "use strict";
  var ORDER = "wugrky";
  var socket = null;
  var lastMessageAt = 0;
  var wasMyTurn = null;
  var lastPhase = "";
  var PING_EVERY = 2000;  // ms between heartbeats
  var DEAD_AFTER = 4000;  // ms without any answer: the connection is gone
  var PONG = "pong";

  if (window.htmx) {
    // Reconnect quickly: a phone that wakes up should be current within seconds.
    htmx.config.wsReconnectDelay = function (retry) { return Math.min(400 * (retry + 1), 2000); };
  }

  function live() { return document.getElementById("live"); }
  function hand() { return document.getElementById("hand"); }
  function setConnected(on) {
    var el = live();
    if (el) el.classList.toggle("offline", !on);
  }

  var reconnecting = false;
  document.addEventListener("htmx:wsOpen", function (e) {
    socket = e.detail.socketWrapper;
    lastMessageAt = Date.now();
    reconnecting = false;
    setConnected(true);
  });

  // The heartbeat's answer is not a region: note it and swap nothing.
  document.addEventListener("htmx:wsBeforeMessage", function (e) {
    lastMessageAt = Date.now();
    if (e.detail.message === PONG) {
      setConnected(true);
      e.preventDefault();
    }
  });

  // A phone whose network went away has no close event for a long while:
  // ping, and if nothing at all comes back, say so and open a new socket
  // (it gets the whole view on connect, so the screen catches up by itself).
  // Checked twice a second, so silence is noticed within DEAD_AFTER + 0.5 s.
  var lastPingAt = 0;
  setInterval(function () {
    if (!live() || !socket) return;
    var now = Date.now();
    if (now - lastMessageAt > DEAD_AFTER) {
      setConnected(false);
      if (!reconnecting) {
        reconnecting = true;
        try { socket.reconnect(); } catch (err) { /* retried at the next check */ }
        setTimeout(function () { reconnecting = false; }, DEAD_AFTER);
      }
      return;
    }
    if (now - lastPingAt < PING_EVERY) return;
    lastPingAt = now;
    try { socket.send(JSON.stringify({ ping: true })); } catch (err) { /* closed: wsClose reconnects */ }
  }, 500);

  document.addEventListener("htmx:wsClose", function (e) {
    setConnected(false);
    var code = e.detail.event && e.detail.event.code;
    if (code === 4403 || code === 4404) { location.reload(); return; }
    // htmx retries only abnormal closes; a server restart may close "normally".
    if ([1006, 1011, 1012, 1013].indexOf(code) < 0 && socket) {
      setTimeout(function () { if (socket) socket.reconnect(); }, 1000);
    }
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    lastMessageAt = Date.now();
    setConnected(true);
    afterUpdate();
  });

  // Update frames carry only the regions that changed, plus a small meta
  // element with what the whole screen's attributes should now say.
  function copyMeta(targetId, metaId) {
    var target = document.getElementById(targetId);
    var meta = document.getElementById(metaId);
    if (!target || !meta) return;
    ["data-version", "data-my-turn", "data-status"].forEach(function (name) {
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

  function afterUpdate() {
    copyMeta("screen", "screen-meta");
    copyMeta("hand", "hand-meta");
    var redirect = document.querySelector("[data-redirect]");
    if (redirect) { location.href = redirect.getAttribute("data-redirect"); return; }
    var h = hand();
    if (h) {
      h.classList.remove("pending");
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
      var phase = (h.className.match(/phase-(\w+)/) || [])[1] || "";
      if (mine && wasMyTurn && phase !== lastPhase && phase !== "main") {
        window.scrollTo({ top: 0, behavior: "smooth" });
      }
      lastPhase = phase;
      if (h.classList.contains("phase-over") && !h._shownResult) {
        h._shownResult = true;
        window.scrollTo({ top: 0 });
      }
      wasMyTurn = mine;
      // A mark in the tab title, for a phone that shows other tabs.
      var base = document.title.replace(/^\u25cf /, "");
      document.title = mine ? "\u25cf " + base : base;
    }
    closeSheet();
    document.querySelectorAll("[data-picker]").forEach(refreshPicker);
    var flash = document.getElementById("flash");
    if (flash && flash.classList.contains("show")) {
      clearTimeout(flash._timer);
      flash._timer = setTimeout(function () { flash.classList.remove("show"); }, 6000);
    }
  }

  // A phone that slept may hold a dead socket: ask for the full view and
  // reconnect (then reload) if no answer comes quickly.
  function resync() {
    if (!live()) return;
    var asked = Date.now();
    if (socket) socket.send(JSON.stringify({ sync: true }));
    setTimeout(function () {
      if (lastMessageAt >= asked) return;
      if (socket) socket.reconnect();
      setTimeout(function () { if (lastMessageAt < asked) location.reload(); }, 2500);
    }, 1500);
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") resync();
  });
  window.addEventListener("pageshow", function (e) { if (e.persisted) resync(); });

  function send(action) {
    var h = hand();
    if (!socket || !h) return;
    h.classList.add("pending");
    socket.send(JSON.stringify({ action: action, version: h.getAttribute("data-version") }));
    closeSheet();
  }

  // ---- gem pickers: only selections that can still become a legal action
  function legalOf(picker) {
    // On the picker, or on its own small element (the take picker's, updated alone).
    var holder = picker.hasAttribute("data-legal") ? picker : picker.querySelector("[data-legal]");
    var raw = (holder && holder.getAttribute("data-legal")) || "";
    return raw ? raw.split(",").map(function (n) { return n.split(":")[1]; }) : [];
  }
  function sorted(letters) {
    return letters.slice().sort(function (a, b) { return ORDER.indexOf(a) - ORDER.indexOf(b); }).join("");
  }
  function within(selection, target) {
    var left = target.split("");
    return selection.every(function (l) {
      var i = left.indexOf(l);
      if (i < 0) return false;
      left.splice(i, 1);
      return true;
    });
  }
  function refreshPicker(picker) {
    var legal = legalOf(picker);
    var sel = picker._selection || (picker._selection = []);
    var sign = picker.getAttribute("data-picker") === "return" ? "\u2212" : "+";
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
    refreshPicker(picker);
  }

  // ---- "Suggest a move": the answer arrives as its own region (game/hinting.py)
  function askHint(button) {
    var h = hand();
    if (!socket || !h) return;
    button.disabled = true;  // the new hint panel of the next version enables it again
    button.textContent = button.getAttribute("data-thinking") || button.textContent;
    socket.send(JSON.stringify({ hint: true, version: h.getAttribute("data-version") }));
  }
  // Put the hinted gems into their picker; the player still confirms them.
  function preselect(notation) {
    var parts = notation.split(":");
    var picker = document.querySelector('[data-picker="' + parts[0] + '"]');
    if (!picker) return;
    picker._selection = (parts[1] || "").split("");
    refreshPicker(picker);
    picker.scrollIntoView({ behavior: "smooth", block: "center" });
  }

  // ---- action sheets
  function openSheet(templateId) {
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
    var h = hand();
    var mine = !!h && h.classList.contains("my-turn");
    var ready = mine && h.classList.contains("phase-main");
    body.querySelectorAll("[data-action]").forEach(function (b) { b.disabled = !ready; });
    body.querySelectorAll("[data-turn-note]").forEach(function (n) {
      n.hidden = ready;
      if (mine && !ready) n.textContent = sheet.getAttribute("data-step-note");
    });
    sheet.hidden = false;
    var first = body.querySelector("button:not([disabled])");
    if (first) first.focus();
  }
  function closeSheet() {
    var sheet = document.getElementById("sheet");
    if (sheet) sheet.hidden = true;
  }

  document.addEventListener("click", function (e) {
    if (e.target.id === "sheet") { closeSheet(); return; }  // tap on the backdrop
    var t = e.target.closest("button");
    if (!t || t.disabled) return;
    if (t.hasAttribute("data-pick")) { pick(t); return; }
    if (t.hasAttribute("data-clear")) {
      var p = t.closest("[data-picker]");
      p._selection = [];
      refreshPicker(p);
      return;
    }
    if (t.hasAttribute("data-confirm")) {
      var picker = t.closest("[data-picker]");
      send(picker.getAttribute("data-picker") + ":" + sorted(picker._selection || []));
      picker._selection = [];
      return;
    }
    if (t.hasAttribute("data-hint")) { askHint(t); return; }
    if (t.hasAttribute("data-preselect")) { preselect(t.getAttribute("data-preselect")); return; }
    if (t.hasAttribute("data-open")) { openSheet(t.getAttribute("data-open")); return; }
    if (t.hasAttribute("data-close")) { closeSheet(); return; }
    if (t.hasAttribute("data-action")) {
      var question = t.getAttribute("data-confirm-text");
      if (question && !window.confirm(question)) return;
      send(t.getAttribute("data-action"));
    }
  });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") closeSheet(); });

  document.addEventListener("DOMContentLoaded", afterUpdate);
})();
