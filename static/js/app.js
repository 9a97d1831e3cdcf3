/* The little JavaScript a screen needs: keep one live connection to the server,
   pick gems, open action sheets and send the one confirmed action. Everything
   shown comes from the server as HTML regions (only the ones that changed);
   nothing here changes the game by itself.

   The connection is this file's own WebSocket, not the htmx ws extension's: the
   extension reconnects by itself after some closes (and its reconnect() closes
   an open socket, which fires its close handler again), it does not give up on
   a handshake that never answers, and it queues every message sent while the
   socket is down and sends them all on the next open. A page that must never
   hold two sockets, never reconnect twice for one outage and send a move at
   most once needs to decide all of that in one place. What arrives is still
   swapped by htmx (htmx.swap, its public API: the out-of-band swaps the ws
   extension also does).

   States: connecting -> open -> silent (nothing heard for SILENT_AFTER: shown
   as "reconnecting") -> reconnecting (the socket is dropped after DEAD_AFTER,
   a new one is tried with backoff and jitter) -> connecting ... A page at rest
   (its browser says it is offline, or it is hidden) tries at most every
   REST_RETRY and reconnects at once when the network or the page comes back.
   The server's close codes come with the vocabulary (game/screens/wire.py):
   NO_SEAT (this phone's seat is taken or gone: the join page), NO_GAME (the
   game is gone: reload once), REPLACED (too many sockets from this phone: wait
   for a tap or for the page to be shown again); any other close is retried. */
(function () {
  "use strict";
  // The game's words as base.html hands them over: the colours' notation letters in the
  // engine's order, and the phases a hand's data-phase names.
  var VOCABULARY = JSON.parse(document.getElementById("splendor-vocabulary").textContent);
  var ORDER = VOCABULARY.letters;
  var PHASE = VOCABULARY.phases;
  // The connection's clock comes from the server's settings (splendor_site/settings.py,
  // "The live connection's clock"), so a test server runs this same machine faster.
  var TIMINGS = VOCABULARY.timings;
  var CLOCK = TIMINGS.clock;              // scales the small steps below too
  var PING_EVERY = TIMINGS.heartbeat;     // ms between heartbeats; the server answers "pong"
  var SILENT_AFTER = TIMINGS.silentAfter; // ms without any message: say "reconnecting"
  var DEAD_AFTER = TIMINGS.deadAfter;     // ms without any message: the socket is dead, replace it
  var OPEN_WITHIN = TIMINGS.openWithin;   // ms a handshake may take (a paused server never answers)
  var CHECK_WITHIN = TIMINGS.checkWithin; // ms for an answer when the page is shown again
  // ms, the longest wait between attempts (1-2 s with jitter): a screen is current
  // within 3 s of its server coming back, however long it was away. An attempt at a
  // server that is not there is refused at once and costs next to nothing.
  var BACKOFF_CAP = TIMINGS.backoffCap;
  var HOLD_MOVE = TIMINGS.holdMove;       // ms a move tapped while disconnected waits to be sent
  // ms, the longest wait between attempts while the page rests (offline or hidden): a
  // phone without a network does not knock every 2 s for minutes; its "online" or
  // "visibilitychange" brings it back at once.
  var REST_RETRY = TIMINGS.restRetry;
  var CLOSES = VOCABULARY.closes;         // the server's close codes, by name
  var TICK = 500 * CLOCK;                 // ms between two looks at the connection
  var PONG = "pong";

  function live() { return document.getElementById("live"); }
  function hand() { return document.getElementById("hand"); }
  function text(name) {
    var el = live();
    return (el && el.getAttribute("data-" + name)) || "";
  }

  // ---------------------------------------------------------------- connection
  var conn = {
    state: "idle",      // idle, connecting, open, silent, reconnecting, parked, gone
    ws: null,           // the one socket this page holds, or null
    attempt: 0,         // failed attempts since the last good connection
    timer: null,        // the pending reconnect
    openTimer: null,    // the handshake's deadline
    checkTimer: null,   // the deadline of a visibility check
    lastMessageAt: 0,
    lastPingAt: 0,
    pingedAt: 0         // the first ping sent since the last message
  };

  function setIndicator(on) {
    var el = live();
    if (!el) return;
    el.classList.toggle("offline", !on);
    el.classList.toggle("parked", conn.state === "parked");
    var label = el.querySelector(".connection span");
    if (label) {
      if (!label.hasAttribute("data-default")) label.setAttribute("data-default", label.textContent);
      label.textContent = conn.state === "parked"
        ? text("msg-other-tab") : label.getAttribute("data-default");
    }
  }

  function fire(name, detail) {
    document.dispatchEvent(new CustomEvent(name, { detail: detail }));
  }

  function socketUrl() {
    var path = live().getAttribute("data-ws");
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
  }

  // The page lets go of a socket itself: its handlers go first, so its close
  // can never start anything.
  function drop() {
    var ws = conn.ws;
    conn.ws = null;
    clearTimeout(conn.openTimer);
    clearTimeout(conn.checkTimer);
    conn.checkTimer = null;
    if (!ws) return;
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
    try { ws.close(); } catch (err) { /* already closing */ }
    socketLost();
  }

  function connect() {
    if (!live()) return;
    drop();
    clearTimeout(conn.timer);
    conn.timer = null;
    conn.state = "connecting";
    var ws;
    try {
      ws = new WebSocket(socketUrl());
    } catch (err) {
      retryLater();
      return;
    }
    conn.ws = ws;
    // A handshake that hangs (a paused server accepts the connection but never
    // answers) is given up and tried again soon: its wait was the backoff, and
    // with one socket at a time a screen never has more than one handshake in
    // flight, so a server that resumes is reached at once.
    conn.openTimer = setTimeout(function () {
      if (conn.ws === ws && ws.readyState !== WebSocket.OPEN) { drop(); retryLater(CLOCK * (250 + 750 * Math.random())); }
    }, OPEN_WITHIN);
    ws.onopen = function () {
      clearTimeout(conn.openTimer);
      conn.state = "open";
      conn.lastMessageAt = conn.lastPingAt = Date.now();
      conn.pingedAt = 0;
      fire("splendor:open", { socket: api });
    };
    ws.onmessage = function (e) {
      conn.lastMessageAt = Date.now();
      if (conn.state !== "open") { conn.state = "open"; }
      setIndicator(true);
      received(ws, e.data);
    };
    ws.onclose = function (e) {
      conn.ws = null;
      clearTimeout(conn.openTimer);
      socketLost();
      closed(e.code);
    };
  }

  // At rest: the browser says the network is gone, or nobody sees the page (a locked
  // phone, a tab in the background). An attempt then would fail or help nobody.
  function resting() {
    return navigator.onLine === false || document.visibilityState === "hidden";
  }

  function retryLater(delay) {
    conn.state = "reconnecting";
    setIndicator(false);
    clearTimeout(conn.timer);
    if (delay === undefined) {
      // The first retry is quick; then exponential, capped, with jitter so that
      // every screen of a restarted server does not come back at the same moment.
      var base = conn.attempt === 0 ? 300 * CLOCK : Math.min(BACKOFF_CAP, 500 * CLOCK * Math.pow(2, conn.attempt));
      delay = base * (conn.attempt === 0 ? 1 + 2 * Math.random() : 0.5 + 0.5 * Math.random());
    }
    // A page at rest waits for the network or for being shown (check() then tries at
    // once), and meanwhile tries at most every REST_RETRY, in case it never hears.
    if (resting()) delay = Math.max(delay, REST_RETRY);
    conn.attempt += 1;
    conn.timer = setTimeout(connect, delay);
  }

  function closed(code) {
    if (code === CLOSES.NO_SEAT) {  // this phone's seat was taken or removed: join again
      conn.state = "gone";
      location.href = text("join") || "/";
      return;
    }
    if (code === CLOSES.NO_GAME) {  // the game is gone: reload once (the page says what is left)
      conn.state = "gone";
      var key = "splendor-reloaded:" + location.pathname;
      var last = 0;
      try { last = Number(sessionStorage.getItem(key) || 0); } catch (err) { last = Date.now(); }
      if (Date.now() - last > 60000) {
        try { sessionStorage.setItem(key, String(Date.now())); } catch (err) { /* reload once anyway */ }
        location.reload();
      } else {
        setIndicator(false);
      }
      return;
    }
    if (code === CLOSES.REPLACED) {  // this phone has the game open elsewhere too
      conn.state = "parked";
      setIndicator(false);
      return;
    }
    retryLater();  // a blip, a restart, CLOSES.FLOOD: try again, backing off
  }

  // Once every half second: heartbeat, and notice a connection that went quiet
  // (a phone whose network went away gets no close event for a long while).
  // Silence is counted from the first ping left unanswered, not from the last
  // message: a hidden tab whose timers the browser slows down to once a minute
  // hears nothing for a minute without its connection being dead.
  // A tick that comes late means this page itself stood still (an old phone or a busy
  // laptop, a throttled tab): answers may be waiting behind it, so that silence is not
  // judged; the next tick on time judges it.
  var tickedAt = Date.now();
  setInterval(function () {
    var now = Date.now();
    var late = now - tickedAt > 2 * TICK;
    tickedAt = now;
    if (!conn.ws || conn.ws.readyState !== WebSocket.OPEN) return;
    var unanswered = conn.pingedAt > conn.lastMessageAt && !late ? now - conn.pingedAt : 0;
    if (unanswered > DEAD_AFTER - PING_EVERY) { drop(); retryLater(0); return; }
    if (unanswered > SILENT_AFTER - PING_EVERY && conn.state === "open") {
      conn.state = "silent";
      setIndicator(false);
    }
    if (now - conn.lastPingAt >= PING_EVERY) {
      conn.lastPingAt = now;
      if (!(conn.pingedAt > conn.lastMessageAt)) conn.pingedAt = now;
      rawSend({ ping: true });
    }
  }, TICK);

  function rawSend(message) {
    if (!conn.ws || conn.ws.readyState !== WebSocket.OPEN) return false;
    try { conn.ws.send(JSON.stringify(message)); return true; } catch (err) { return false; }
  }

  // The page was shown again, restored from the back/forward cache, or the
  // network came back: one check, never a second one while it runs.
  function check() {
    if (!live()) return;
    if (conn.state === "parked" || conn.state === "idle") { conn.attempt = 0; connect(); return; }
    if (conn.state === "reconnecting") { connect(); return; }  // try now, not after the backoff
    if (conn.state === "connecting" || conn.state === "gone" || conn.checkTimer) return;
    var asked = Date.now();
    rawSend({ ping: true });
    conn.checkTimer = setTimeout(function () {
      conn.checkTimer = null;
      if (conn.lastMessageAt < asked && conn.ws) { drop(); retryLater(0); }
    }, CHECK_WITHIN);
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") check();
  });
  window.addEventListener("pageshow", function (e) { if (e.persisted) check(); });
  window.addEventListener("online", check);
  // Leaving the page closes its socket without a reconnect (and lets the
  // browser keep the page in its back/forward cache).
  window.addEventListener("pagehide", function () {
    clearTimeout(conn.timer);
    drop();
    conn.state = "idle";
  });

  // What tests and cues.js see of the connection.
  var api = {
    send: function (message) {
      if (conn.ws && conn.ws.readyState === WebSocket.OPEN) conn.ws.send(message);
    },
    state: function () { return conn.state; }
  };
  window.splendorLive = api;

  function received(ws, message) {
    if (message === PONG) { fire("splendor:pong", {}); return; }
    var before = snapshot();
    fire("splendor:message", { message: message });
    htmx.swap(live(), message, { swapStyle: "none", swapDelay: 0, settleDelay: 0, ignoreTitle: true });
    conn.attempt = 0;  // a good connection again
    moveAnswered(ws);
    afterUpdate(before);
    fire("splendor:swapped", { message: message });
  }

  // ---------------------------------------------------------------- moves
  // A confirmed move is sent at most once per socket, with the version it was
  // built on, so the server plays it at most once. Tapped while the connection
  // is down, it waits (shown as pending) and goes out when the next socket
  // shows the same version; if the game moved on meanwhile, or no socket comes
  // back within HOLD_MOVE, the player is told it was not sent.
  var move = null;  // {action, version, sentOn (the socket it awaits an answer on), wasSent, at, timer}

  function send(action) {
    var h = hand();
    if (!h || move) return;
    move = { action: action, version: h.getAttribute("data-version"), sentOn: null, wasSent: false, at: Date.now() };
    move.timer = setTimeout(function () { if (move && !move.sentOn) giveUp(); }, HOLD_MOVE);
    showPending();
    closeSheet();
    trySend();
  }

  function trySend() {
    if (!move || move.sentOn || conn.state !== "open") return;
    if (rawSend({ action: move.action, version: move.version })) {
      move.sentOn = conn.ws;
      move.wasSent = true;
    }
  }

  function showPending() {
    var h = hand();
    if (h) h.classList.toggle("pending", !!move);
  }

  function finish(message) {
    if (!move) return;
    clearTimeout(move.timer);
    move = null;
    showPending();
    if (message) showFlash(message);
  }

  // No answer and no socket to wait on: a move never sent was not played; one
  // sent on a socket that then died may or may not have been.
  function giveUp() {
    finish(move && move.wasSent ? text("msg-unsure") : text("msg-not-sent"));
  }

  // The socket the move was sent on died before answering.
  function socketLost() {
    if (!move || !move.sentOn) return;
    move.sentOn = null;
    if (Date.now() - move.at > HOLD_MOVE) giveUp();
  }

  // Any message after the move, on the socket it went out on, is the server's
  // answer to it (the new version, or a flash saying why not).
  function moveAnswered(ws) {
    if (move && move.sentOn === ws) finish("");
  }

  // A full view arrived after a reconnect: send the waiting move if the hand
  // did not change, else drop it (a move that went out before the socket died
  // and changed the game needs no word: the screen shows it).
  function moveAfterView() {
    if (!move || move.sentOn) return;
    var h = hand();
    if (!h) return;
    if (h.getAttribute("data-version") !== move.version) {
      finish(move.wasSent ? "" : text("msg-moved-on"));
      return;
    }
    trySend();
  }

  function showFlash(message) {
    var flash = document.getElementById("flash");
    if (!flash) return;
    flash.textContent = message;
    flash.classList.add("show");
    clearTimeout(flash._timer);
    flash._timer = setTimeout(function () { flash.classList.remove("show"); }, 6000);
  }

  // ---------------------------------------------------------------- updates
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
  function snapshot() {
    var h = hand();
    var picks = {};
    document.querySelectorAll("[data-picker]").forEach(function (p) {
      if (p._selection && p._selection.length) picks[p.getAttribute("data-picker")] = p._selection.slice();
    });
    return { version: h ? h.getAttribute("data-version") : null, picks: picks };
  }

  function afterUpdate(before) {
    copyMeta("screen", "screen-meta");
    copyMeta("hand", "hand-meta");
    hintAnswered();
    var redirect = document.querySelector("[data-redirect]");
    if (redirect) { location.href = redirect.getAttribute("data-redirect"); return; }
    var h = hand();
    var same = !!before && !!h && before.version !== null && h.getAttribute("data-version") === before.version;
    if (h) {
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
    // An open sheet and picked gems stay while the hand is the same.
    if (!same) closeSheet();
    document.querySelectorAll("[data-picker]").forEach(function (picker) {
      if (!picker._selection) {
        var kept = same && before.picks[picker.getAttribute("data-picker")];
        var legal = legalOf(picker);
        picker._selection = kept && legal.some(function (t) { return within(kept, t); }) ? kept : [];
      }
      refreshPicker(picker);
    });
    var flash = document.getElementById("flash");
    if (flash && flash.classList.contains("show")) {
      clearTimeout(flash._timer);
      flash._timer = setTimeout(function () { flash.classList.remove("show"); }, 6000);
    }
    moveAfterView();
    showPending();
  }
  var wasMyTurn = null;
  var lastPhase = "";

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
    var sign = picker.getAttribute("data-picker") === PHASE.RETURN ? "\u2212" : "+";
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
    if (!h || conn.state !== "open") return;
    if (!rawSend({ hint: true, version: h.getAttribute("data-version") })) return;
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
    var mine = !!h && h.getAttribute("data-my-turn") === "1";
    var ready = mine && h.getAttribute("data-phase") === PHASE.MAIN;
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

  // A tap anywhere on a page that gave way to another tab takes the game back.
  document.addEventListener("click", function () { if (conn.state === "parked") check(); });

  document.addEventListener("DOMContentLoaded", function () {
    afterUpdate(null);
    if (live()) connect();
  });
})();
