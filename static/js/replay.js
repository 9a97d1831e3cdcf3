/* The replay viewer's autoplay: press "Forward" every few seconds until the
   last turn. Each step comes from the server (htmx swaps #replay), so this
   only keeps time; stepping by hand works without it. */
(function () {
  "use strict";
  var timer = null;

  function button() { return document.getElementById("replay-play"); }
  function delay() { return parseInt(document.getElementById("replay-speed").value, 10) || 2000; }
  function atEnd() {
    var replay = document.getElementById("replay");
    return !replay || replay.getAttribute("data-step") === replay.getAttribute("data-last");
  }

  function show(playing) {
    var b = button();
    b.setAttribute("aria-pressed", playing ? "true" : "false");
    b.textContent = b.getAttribute(playing ? "data-pause" : "data-play");
  }

  function stop() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    show(false);
  }

  // The next step is asked for only after the previous one arrived.
  function schedule() {
    if (atEnd()) { stop(); return; }
    timer = setTimeout(function () {
      var next = document.getElementById("replay-next");
      if (next && !atEnd()) { next.click(); } else { stop(); }
    }, delay());
  }

  document.addEventListener("click", function (e) {
    if (e.target === button()) {
      if (timer !== null) { stop(); return; }
      if (atEnd()) document.getElementById("replay-first").click();
      show(true);
      schedule();
    } else if (e.target.closest && e.target.closest(".replay-steps") && e.isTrusted) {
      stop();  // stepping by hand takes over from autoplay
    }
  });

  // The chart of the game stays open (or closed) from one step to the next.
  var chartOpen = false;
  document.addEventListener("htmx:beforeSwap", function (e) {
    var chart = document.getElementById("replay-story");
    if (e.detail.target && e.detail.target.id === "replay") chartOpen = !!(chart && chart.open);
  });

  document.addEventListener("htmx:afterSwap", function (e) {
    var chart = document.getElementById("replay-story");
    if (chart && chartOpen) chart.open = true;
    if (timer !== null && e.detail.target && e.detail.target.id === "replay") schedule();
  });

  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    var id = { ArrowLeft: "replay-back", ArrowRight: "replay-next", Home: "replay-first", End: "replay-last" }[e.key];
    if (id) { stop(); document.getElementById(id).click(); e.preventDefault(); }
  });
})();
