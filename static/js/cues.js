/* Cues: what tells people that something happened, besides the picture.
   The TV plays a short sound for each action and a fanfare for the final round
   and the end (WebAudio tones, no files; a mute switch in its corner). A phone
   shows a large "Your turn" flash, beeps where the browser allows and buzzes
   where it can (app.js) when a turn starts. A tap on a greyed-out button says
   why it is greyed out. The end screen can be put aside to look at the table. */
(function () {
  "use strict";
  var MUTE_KEY = "splendor-muted";
  var audio = null;
  var seen = { version: null, finalRound: false, over: false, myTurn: null };

  // ---- sound: a few sine tones, made on the spot
  function context() {
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    if (!audio) audio = new Ctx();
    return audio;
  }
  function muted() {
    try { return localStorage.getItem(MUTE_KEY) === "1"; } catch (err) { return false; }
  }
  function tones(notes) {
    if (muted()) return;
    var ctx = context();
    if (!ctx || ctx.state !== "running") return;  // browsers allow sound only after a tap
    var start = ctx.currentTime + 0.02;
    notes.forEach(function (note) {
      var osc = ctx.createOscillator();
      var gain = ctx.createGain();
      osc.type = "sine";
      osc.frequency.value = note[0];
      gain.gain.setValueAtTime(0.0001, start);
      gain.gain.exponentialRampToValueAtTime(0.25, start + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + note[1]);
      osc.connect(gain).connect(ctx.destination);
      osc.start(start);
      osc.stop(start + note[1] + 0.05);
      start += note[1] * 0.8;
    });
    document.documentElement.setAttribute("data-last-cue", String(Date.now()));
  }
  var SOUNDS = {
    action: [[660, 0.12]],
    finalRound: [[523, 0.18], [659, 0.18], [784, 0.35]],
    over: [[784, 0.2], [659, 0.2], [523, 0.2], [1047, 0.5]],
    yourTurn: [[880, 0.12], [1175, 0.2]]
  };
  function unlock() {
    var ctx = context();
    if (ctx && ctx.state === "suspended") ctx.resume().then(refreshMute, refreshMute);
  }
  document.addEventListener("pointerdown", unlock, true);
  document.addEventListener("keydown", unlock, true);

  // ---- the TV's mute switch
  function refreshMute() {
    var button = document.getElementById("mute");
    if (!button) return;
    var ctx = context();
    var blocked = !muted() && ctx && ctx.state !== "running";
    var label = muted() ? "data-sound-off" : blocked ? "data-sound-blocked" : "data-sound-on";
    button.textContent = button.getAttribute(label) || "";
    button.setAttribute("aria-pressed", muted() ? "true" : "false");
  }
  function toggleMute() {
    var ctx = context();
    if (!muted() && ctx && ctx.state !== "running") {  // "Tap for sound": just allow it
      ctx.resume().then(function () { refreshMute(); tones(SOUNDS.action); }, refreshMute);
      return;
    }
    try { localStorage.setItem(MUTE_KEY, muted() ? "0" : "1"); } catch (err) { /* private mode */ }
    unlock();
    refreshMute();
    if (!muted()) tones(SOUNDS.action);
  }

  // ---- the end screen: put aside, and back
  function endKey() { return "splendor-end-closed:" + location.pathname; }
  function applyEnd() {
    var end = document.getElementById("end-screen");
    var open = document.getElementById("show-results");
    if (!end || !open) return;
    var closed = sessionStorage.getItem(endKey()) === "1";
    end.hidden = closed;
    open.hidden = !closed;
  }
  function setEnd(closed) {
    sessionStorage.setItem(endKey(), closed ? "1" : "0");
    applyEnd();
    var focus = document.getElementById(closed ? "show-results" : "end-close");
    if (focus) focus.focus();
  }

  // ---- a phone's turn
  function flashTurn() {
    var hand = document.getElementById("hand");
    var title = hand && hand.querySelector(".your-turn h1");
    var cue = document.getElementById("turn-cue");
    if (!cue) {
      cue = document.createElement("div");
      cue.id = "turn-cue";
      cue.className = "turn-cue";
      cue.setAttribute("aria-hidden", "true");
      document.body.appendChild(cue);
    }
    cue.textContent = title ? title.textContent : "";
    cue.classList.remove("show");
    void cue.offsetWidth;  // restart the animation
    cue.classList.add("show");
    clearTimeout(cue._timer);
    cue._timer = setTimeout(function () { cue.classList.remove("show"); }, 1800);
    tones(SOUNDS.yourTurn);
  }

  // ---- after every update from the server
  function afterUpdate() {
    refreshMute();
    applyEnd();
    var screen = document.getElementById("screen");
    if (screen) {
      var version = Number(screen.getAttribute("data-version"));
      var playing = screen.getAttribute("data-status") !== "lobby";
      var finalRound = !!screen.querySelector(".final-round");
      var over = !!screen.querySelector(".end-screen");
      if (seen.version !== null && playing && version > seen.version) {
        if (over && !seen.over) tones(SOUNDS.over);
        else if (finalRound && !seen.finalRound) tones(SOUNDS.finalRound);
        else tones(SOUNDS.action);
      }
      seen.version = version;
      seen.finalRound = finalRound;
      seen.over = over;
    }
    var hand = document.getElementById("hand");
    if (hand) {
      var mine = hand.getAttribute("data-my-turn") === "1";
      if (mine && seen.myTurn === false) flashTurn();
      seen.myTurn = mine;
    }
  }
  document.addEventListener("splendor:swapped", afterUpdate);
  document.addEventListener("DOMContentLoaded", afterUpdate);

  // ---- taps
  document.addEventListener("click", function (e) {
    var t = e.target.closest && e.target.closest("button");
    if (!t) {
      explainDisabled(e);
      return;
    }
    if (t.id === "mute") toggleMute();
    else if (t.hasAttribute("data-log-url")) openLog(t);
    else if (t.hasAttribute("data-end-close")) setEnd(true);
    else if (t.hasAttribute("data-end-open")) setEnd(false);
  });

  // ---- the game log: fetched when asked for, so updates stay small
  function openLog(button) {
    var sheet = document.getElementById("sheet");
    if (!sheet) return;
    fetch(button.getAttribute("data-log-url"), { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var body = sheet.querySelector(".sheet-body");
        body.innerHTML = html;
        var close = document.createElement("button");
        close.type = "button";
        close.setAttribute("data-close", "");
        close.textContent = button.getAttribute("data-close-label") || "\u00d7";
        body.appendChild(close);
        sheet.hidden = false;
        close.focus();
      })
      .catch(function () { /* offline: the banner already says so */ });
  }

  // A disabled button gets no taps (pointer-events: none in the CSS), so the
  // tap lands on what is under it: find the button there and say why.
  function explainDisabled(e) {
    var x = e.clientX, y = e.clientY;
    var found = null;
    document.querySelectorAll("button:disabled").forEach(function (b) {
      var r = b.getBoundingClientRect();
      if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) found = b;
    });
    if (!found) return;
    var why = found.getAttribute("data-why") ||
      (found.closest("[data-why]") || { getAttribute: function () { return ""; } }).getAttribute("data-why");
    if (!why) return;
    var flash = document.getElementById("flash");
    if (!flash) return;
    flash.textContent = why;
    flash.classList.add("show", "why");
    clearTimeout(flash._timer);
    flash._timer = setTimeout(function () { flash.classList.remove("show", "why"); }, 4000);
  }
})();
