/* The one confirmed move. It is sent at most once per socket, with the version it was
   built on, so the server plays it at most once. Tapped while the connection is down,
   it waits (shown as pending) and goes out when the next socket shows the same
   version; if the game moved on meanwhile, or no socket comes back within HOLD_MOVE,
   the player is told it was not sent. */
(function (S) {
  "use strict";
  var HOLD_MOVE = S.TIMINGS.holdMove;  // ms a move tapped while disconnected waits to be sent
  var move = null;  // {action, version, sentOn (the socket it awaits an answer on), wasSent, at, timer}

  function send(action) {
    var h = S.hand();
    if (!h || move) return;
    move = { action: action, version: h.getAttribute("data-version"), sentOn: null, wasSent: false, at: Date.now() };
    move.timer = setTimeout(function () { if (move && !move.sentOn) giveUp(); }, HOLD_MOVE);
    showPending();
    S.sheets.close();
    trySend();
  }

  function trySend() {
    if (!move || move.sentOn || S.connection.state() !== "open") return;
    if (S.connection.send({ action: move.action, version: move.version })) {
      move.sentOn = S.connection.socket();
      move.wasSent = true;
    }
  }

  function showPending() {
    var h = S.hand();
    if (h) h.classList.toggle("pending", !!move);
  }

  function finish(message) {
    if (!move) return;
    clearTimeout(move.timer);
    move = null;
    showPending();
    if (message) S.sheets.flash(message);
  }

  // No answer and no socket to wait on: a move never sent was not played; one
  // sent on a socket that then died may or may not have been.
  function giveUp() {
    finish(move && move.wasSent ? S.text("msg-unsure") : S.text("msg-not-sent"));
  }

  // The socket the move was sent on died before answering.
  function socketLost() {
    if (!move || !move.sentOn) return;
    move.sentOn = null;
    if (Date.now() - move.at > HOLD_MOVE) giveUp();
  }

  // Any message after the move, on the socket it went out on, is the server's
  // answer to it (the new version, or a flash saying why not).
  function answered(socket) {
    if (move && move.sentOn === socket) finish("");
  }

  // A full view arrived after a reconnect: send the waiting move if the hand
  // did not change, else drop it (a move that went out before the socket died
  // and changed the game needs no word: the screen shows it).
  function afterView() {
    if (!move || move.sentOn) return;
    var h = S.hand();
    if (!h) return;
    if (document.getElementById("curtain")) {  // a shared phone comes back covered
      finish(move.wasSent ? "" : S.text("msg-covered"));
      return;
    }
    if (h.getAttribute("data-version") !== move.version) {
      finish(move.wasSent ? "" : S.text("msg-moved-on"));
      return;
    }
    trySend();
  }

  S.connection.lost = socketLost;
  S.move = { send: send, answered: answered, afterView: afterView, showPending: showPending };
})(window.Splendor);
