/* What the page's scripts share, in one object (window.Splendor): the game's words as
   base.html hands them over, and the few elements every part looks at. The scripts are
   plain files loaded in order with `defer` (no build step), each adding its part:
     page.js        this: the vocabulary, the page's elements, its events
     connection.js  the one live socket, as a small state machine
     move.js        the one confirmed move, sent at most once
     hand.js        the gem pickers and the "Suggest a move" button
     sheets.js      action sheets and the flash line
     app.js         what arrives from the server, and the taps
   Everything shown comes from the server as HTML regions (only the ones that changed);
   nothing here changes the game by itself. */
(function () {
  "use strict";
  // The game's words: the colours' notation letters in the engine's order, the phases a
  // hand's data-phase names, the connection's clock (game/screens/words.py, from
  // splendor_site/settings.py, "The live connection's clock": a test server runs the
  // same connection faster), the server's close codes by name, the heartbeat and its
  // answer (game/screens/wire.py).
  var VOCABULARY = JSON.parse(document.getElementById("splendor-vocabulary").textContent);

  function live() { return document.getElementById("live"); }
  function hand() { return document.getElementById("hand"); }

  window.Splendor = {
    LETTERS: VOCABULARY.letters,
    PHASE: VOCABULARY.phases,
    TIMINGS: VOCABULARY.timings,
    CLOSES: VOCABULARY.closes,
    HEARTBEAT: VOCABULARY.heartbeat,
    PONG: VOCABULARY.pong,
    live: live,
    hand: hand,
    // A text the page carries for the scripts (translated on the server): #live's data-<name>.
    text: function (name) {
      var el = live();
      return (el && el.getAttribute("data-" + name)) || "";
    },
    // What tests and cues.js listen to: splendor:open, :pong, :message, :swapped.
    fire: function (name, detail) {
      document.dispatchEvent(new CustomEvent(name, { detail: detail }));
    }
  };
})();
