/* The page's one live connection to the server, as a small state machine.

   It is this file's own WebSocket, not the htmx ws extension's: the extension
   reconnects by itself after some closes (and its reconnect() closes an open socket,
   which fires its close handler again), it does not give up on a handshake that never
   answers, and it queues every message sent while the socket is down and sends them
   all on the next open. A page that must never hold two sockets, never reconnect twice
   for one outage and send a move at most once needs to decide all of that in one
   place: here, through transition() and its table of moves.

     idle --> connecting --> open <--> silent
                  |            |          |
                  +------------+----------+--> reconnecting --> connecting ...
                  +------------+----------+--> parked --> connecting (a tap, shown again)
                  +------------+----------+--> gone
     any state --> idle: the page is left (it may come back from the back/forward cache)

   open: a socket that answers. silent: nothing heard for SILENT_AFTER (shown as
   "reconnecting"); after DEAD_AFTER the socket is dropped and the page is reconnecting:
   a new socket is tried after backoff(), with jitter and a cap. A page at rest (its
   browser says it is offline, or it is hidden) tries at most every REST_RETRY and
   reconnects at once when the network or the page comes back. A socket the page lets go
   of itself (leaving the page, replacing a dead one) starts nothing by its close: what
   comes next is decided where it is let go.
   The server's close codes come with the vocabulary (game/screens/wire.py): NO_SEAT
   (this phone's seat is taken or gone: the join page; gone), NO_GAME (the game is gone:
   reload once; gone), REPLACED (too many sockets from this phone: wait for a tap or for
   the page to be shown again; parked); any other close is retried. */
(function (S) {
  "use strict";
  // The connection's clock comes from the server's settings (page.js), so a test server
  // runs this same machine faster.
  var TIMINGS = S.TIMINGS;
  var CLOCK = TIMINGS.clock;              // scales the small steps below too
  var PING_EVERY = TIMINGS.heartbeat;     // ms between heartbeats; the server answers PONG
  var SILENT_AFTER = TIMINGS.silentAfter; // ms without any message: say "reconnecting"
  var DEAD_AFTER = TIMINGS.deadAfter;     // ms without any message: the socket is dead, replace it
  var OPEN_WITHIN = TIMINGS.openWithin;   // ms a handshake may take (a paused server never answers)
  var CHECK_WITHIN = TIMINGS.checkWithin; // ms for an answer when the page is shown again
  // ms, the longest wait between attempts (1-2 s with jitter): a screen is current
  // within 3 s of its server coming back, however long it was away. An attempt at a
  // server that is not there is refused at once and costs next to nothing.
  var BACKOFF_CAP = TIMINGS.backoffCap;
  // ms, the longest wait between attempts while the page rests (offline or hidden): a
  // phone without a network does not knock every 2 s for minutes; its "online" or
  // "visibilitychange" brings it back at once.
  var REST_RETRY = TIMINGS.restRetry;
  var CLOSES = S.CLOSES;                  // the server's close codes, by name
  var TICK = 500 * CLOCK;                 // ms between two looks at the connection
  // The heartbeat and its answer, as the server reads and writes them (game/screens/wire.py).
  var HEARTBEAT = S.HEARTBEAT;
  var PONG = S.PONG;

  // ---------------------------------------------------------------- states
  // Where each state may go next; any other move is a bug: refused, and logged as an
  // error (which fails every browser test).
  var MOVES = {
    idle: ["connecting"],
    connecting: ["open", "reconnecting", "parked", "gone", "idle"],
    open: ["silent", "reconnecting", "parked", "gone", "idle"],
    silent: ["open", "reconnecting", "parked", "gone", "idle"],
    reconnecting: ["connecting", "idle"],
    parked: ["connecting", "idle"],  // another tab of this phone holds the seat
    gone: ["idle"]                   // no seat or no game here: the page goes elsewhere
  };
  // The states the indicator shows as "offline" as soon as they are entered.
  var SHOWN_OFFLINE = { silent: true, reconnecting: true, parked: true };
  var state = "idle";

  function transition(to) {
    if (to !== state && MOVES[state].indexOf(to) < 0) {
      if (window.console) console.error("splendor: the connection cannot go from " + state + " to " + to);
      return false;
    }
    state = to;
    if (SHOWN_OFFLINE[to]) showIndicator(false);
    return true;
  }

  // ms to wait before attempt number `attempt` (0 after a good connection), given a
  // roll in [0, 1): the first retry is quick, then exponential, capped, with jitter so
  // that every screen of a restarted server does not come back at the same moment.
  function backoff(attempt, roll) {
    if (attempt === 0) return 300 * CLOCK * (1 + 2 * roll);
    return Math.min(BACKOFF_CAP, 500 * CLOCK * Math.pow(2, attempt)) * (0.5 + 0.5 * roll);
  }

  // ---------------------------------------------------------------- timers
  // retry: the pending reconnect; handshake: the handshake's deadline; check: the
  // deadline of a visibility check (pending while it runs). Plus the heartbeat's tick.
  var timers = { retry: null, handshake: null, check: null };
  function after(name, ms, job) {
    stop(name);
    timers[name] = setTimeout(function () { timers[name] = null; job(); }, ms);
  }
  function stop(name) {
    clearTimeout(timers[name]);
    timers[name] = null;
  }

  // ---------------------------------------------------------------- the socket
  var ws = null;        // the one socket this page holds, or null
  var attempt = 0;      // failed attempts since the last good connection
  var lastMessageAt = 0;
  var lastPingAt = 0;
  var pingedAt = 0;     // the first ping sent since the last message

  function showIndicator(on) {
    var el = S.live();
    if (!el) return;
    el.classList.toggle("offline", !on);
    el.classList.toggle("parked", state === "parked");
    var label = el.querySelector(".connection span");
    if (label) {
      if (!label.hasAttribute("data-default")) label.setAttribute("data-default", label.textContent);
      label.textContent = state === "parked" ? S.text("msg-other-tab") : label.getAttribute("data-default");
    }
  }

  function socketUrl() {
    var path = S.live().getAttribute("data-ws");
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
  }

  function isOpen() { return !!ws && ws.readyState === WebSocket.OPEN; }

  // The page lets go of a socket itself: its handlers go first, so its close
  // can never start anything.
  function drop() {
    var old = ws;
    ws = null;
    stop("handshake");
    stop("check");
    if (!old) return;
    old.onopen = old.onmessage = old.onclose = old.onerror = null;
    try { old.close(); } catch (err) { /* already closing */ }
    connection.lost();
  }

  function connect() {
    if (!S.live() || !transition("connecting")) return;
    drop();
    stop("retry");
    var socket;
    try {
      socket = new WebSocket(socketUrl());
    } catch (err) {
      retryLater();
      return;
    }
    ws = socket;
    // A handshake that hangs (a paused server accepts the connection but never
    // answers) is given up and tried again soon: its wait was the backoff, and
    // with one socket at a time a screen never has more than one handshake in
    // flight, so a server that resumes is reached at once.
    after("handshake", OPEN_WITHIN, function () {
      if (ws === socket && socket.readyState !== WebSocket.OPEN) {
        drop();
        retryLater(CLOCK * (250 + 750 * Math.random()));
      }
    });
    socket.onopen = function () {
      stop("handshake");
      transition("open");
      lastMessageAt = lastPingAt = Date.now();
      pingedAt = 0;
      S.fire("splendor:open", { socket: api });
    };
    socket.onmessage = function (e) {
      lastMessageAt = Date.now();
      transition("open");
      showIndicator(true);
      received(socket, e.data);
    };
    socket.onclose = function (e) {
      ws = null;
      stop("handshake");
      connection.lost();
      closed(e.code);
    };
  }

  function received(socket, message) {
    if (message === PONG) { S.fire("splendor:pong", {}); return; }
    attempt = 0;  // a good connection again
    connection.heard(socket, message);
  }

  // At rest: the browser says the network is gone, or nobody sees the page (a locked
  // phone, a tab in the background). An attempt then would fail or help nobody.
  function resting() {
    return navigator.onLine === false || document.visibilityState === "hidden";
  }

  function retryLater(delay) {
    if (!transition("reconnecting")) return;
    if (delay === undefined) delay = backoff(attempt, Math.random());
    // A page at rest waits for the network or for being shown (check() then tries at
    // once), and meanwhile tries at most every REST_RETRY, in case it never hears.
    if (resting()) delay = Math.max(delay, REST_RETRY);
    attempt += 1;
    after("retry", delay, connect);
  }

  // The socket is dead (it stays silent): the page lets it go and tries a new one now.
  function replace() {
    drop();
    retryLater(0);
  }

  function closed(code) {
    if (code === CLOSES.NO_SEAT) {  // this phone's seat was taken or removed: join again
      transition("gone");
      location.href = S.text("join") || "/";
      return;
    }
    if (code === CLOSES.NO_GAME) {  // the game is gone: reload once (the page says what is left)
      transition("gone");
      reloadOnce();
      return;
    }
    if (code === CLOSES.REPLACED) {  // this phone has the game open elsewhere too
      transition("parked");
      return;
    }
    retryLater();  // a blip, a restart, CLOSES.FLOOD: try again, backing off
  }

  function reloadOnce() {
    var key = "splendor-reloaded:" + location.pathname;
    var last = 0;
    try { last = Number(sessionStorage.getItem(key) || 0); } catch (err) { last = Date.now(); }
    if (Date.now() - last > 60000) {
      try { sessionStorage.setItem(key, String(Date.now())); } catch (err) { /* reload once anyway */ }
      location.reload();
    } else {
      showIndicator(false);
    }
  }

  function sendText(text) {
    if (!isOpen()) return false;
    try { ws.send(text); return true; } catch (err) { return false; }
  }

  function send(message) { return sendText(JSON.stringify(message)); }

  // ---------------------------------------------------------------- heartbeat
  // Every TICK: heartbeat, and notice a connection that went quiet (a phone whose
  // network went away gets no close event for a long while).
  // Silence is counted from the first ping left unanswered, not from the last
  // message: a hidden tab whose timers the browser slows down to once a minute
  // hears nothing for a minute without its connection being dead.
  // A tick that comes late means this page itself stood still (an old phone or a busy
  // laptop, a throttled tab): answers may be waiting behind it, so that silence is not
  // judged; the next tick on time judges it.
  var tickedAt = 0;
  function tick() {
    var now = Date.now();
    var late = now - tickedAt > 2 * TICK;
    tickedAt = now;
    if (!isOpen()) return;
    var unanswered = pingedAt > lastMessageAt && !late ? now - pingedAt : 0;
    if (unanswered > DEAD_AFTER - PING_EVERY) { replace(); return; }
    if (unanswered > SILENT_AFTER - PING_EVERY && state === "open") transition("silent");
    if (now - lastPingAt >= PING_EVERY) {
      lastPingAt = now;
      if (!(pingedAt > lastMessageAt)) pingedAt = now;
      sendText(HEARTBEAT);
    }
  }

  // ---------------------------------------------------------------- coming back
  // The page was shown again, restored from the back/forward cache, or the
  // network came back: one check, never a second one while it runs.
  function check() {
    if (!S.live()) return;
    if (state === "parked" || state === "idle") { attempt = 0; connect(); return; }
    if (state === "reconnecting") { connect(); return; }  // try now, not after the backoff
    if (state === "connecting" || state === "gone" || timers.check) return;
    var asked = Date.now();
    sendText(HEARTBEAT);
    after("check", CHECK_WITHIN, function () {
      if (lastMessageAt < asked && ws) replace();
    });
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") check();
  });
  window.addEventListener("pageshow", function (e) { if (e.persisted) check(); });
  window.addEventListener("online", check);
  // Leaving the page closes its socket without a reconnect (and lets the
  // browser keep the page in its back/forward cache).
  window.addEventListener("pagehide", function () {
    stop("retry");
    drop();
    transition("idle");
  });
  // A tap anywhere on a page that gave way to another tab takes the game back.
  document.addEventListener("click", function () { if (state === "parked") check(); });

  function start() {
    if (!S.live()) return;
    tickedAt = Date.now();
    setInterval(tick, TICK);
    connect();
  }

  // What tests and cues.js see of the connection (splendor:open hands it over too).
  var api = {
    send: function (message) { if (isOpen()) ws.send(message); },
    state: function () { return state; }
  };
  window.splendorLive = api;

  // What the page's other parts use. heard(socket, message): a message other than the
  // heartbeat's answer (app.js); lost(): a socket this page held is gone (move.js).
  var connection = {
    start: start,
    state: function () { return state; },
    socket: function () { return ws; },
    send: send,          // a message as JSON on the open socket: whether it went out
    backoff: backoff,
    heard: function () {},
    lost: function () {}
  };
  S.connection = connection;
})(window.Splendor);
