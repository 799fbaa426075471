// A student's phone in a class (classroom/channel.py serves this page and its websocket).
//
// The page keeps nothing of the class but what the server last sent: the class as every phone sees it
// (the teacher's run at the teacher's tick, drawn by the server once for all phones, and the question of
// the round), and this student's own answer once it is recorded. It names this browser to the class
// with a random id kept in the browser (no name, nothing else), sends a tap as an answer, and connects
// again by itself when the server goes away: at once when the connection closes, and after three silent
// beats when a network dropped it without a word. The last answer tapped while the server was away is
// sent again when it is back, changed or not.
const words = JSON.parse(document.getElementById("phone-words").textContent);
const say = (name, values = {}) => (words[name] || name).replace(/\{(\w+)\}/g, (_, k) => String(values[k] ?? ""));
const $ = (id) => document.getElementById(id);
const root = $("phone");
const LETTERS = "ABCDEFGH";
const ID_KEY = "durable-work-class-student";
const PENDING_KEY = "durable-work-class-pending";
const QUIET_MS = 32000; // three beats (classroom/hub.py BEAT) and a little: the connection is gone
const FINAL = new Set(["unknown", "expired", "one-student", "too-many"]); // no use connecting again
const RETRY_MS = 2000; // a database that could not answer is asked again this much later

function studentId() {
  let id = null;
  try {
    id = window.localStorage.getItem(ID_KEY);
  } catch {
    // no storage here (a private window that refuses it): an id for this page only
  }
  if (!id || !/^[A-Za-z0-9-]{8,64}$/.test(id)) {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    try {
      window.localStorage.setItem(ID_KEY, id);
    } catch {
      // kept in this page only
    }
  }
  return id;
}

// The answer tapped and not yet acknowledged, kept in the tab: sent again once the server is back.
const pending = {
  get() {
    try {
      return JSON.parse(window.sessionStorage.getItem(PENDING_KEY) || "null");
    } catch {
      return null;
    }
  },
  set(value) {
    try {
      if (value) window.sessionStorage.setItem(PENDING_KEY, JSON.stringify(value));
      else window.sessionStorage.removeItem(PENDING_KEY);
    } catch {
      // no storage: the tap is sent once
    }
  },
};

const code = decodeURIComponent(window.location.pathname.replace(/^\/join\/?/, "").replace(/\/$/, ""))
  .replace(/\s+/g, "").toUpperCase();
let view = null; // the class as the server last sent it
let mine = {}; // "step:round" -> the choice recorded for this student
let own = null; // the frame on show while exploring (the room's otherwise)
let socket = null;
let heard = Date.now();
let closedForGood = false;
let shownQuestion = ""; // what the question's card was drawn for: redrawn only when that changes

function status(text, tone = "") {
  $("phone-status").textContent = text;
  $("phone-status").className = `phone-status ${tone}`;
}

// --- a code typed by hand ------------------------------------------------------------------------------

if (!/^[A-Z0-9]{5}$/.test(code)) {
  const form = $("phone-code");
  form.querySelector("label").textContent = say("code label");
  form.querySelector("button").textContent = say("code button");
  form.hidden = false;
  root.removeAttribute("aria-busy");
  if (code) status(say("code odd"), "bad");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const typed = form.code.value.replace(/\s+/g, "").toUpperCase();
    if (/^[A-Z0-9]{5}$/.test(typed)) window.location.assign(`/join/${typed}`);
    else status(say("code odd"), "bad");
  });
} else {
  $("phone-class").textContent = say("phone class", { code });
  connect();
  setInterval(() => {
    if (!closedForGood && socket && Date.now() - heard > QUIET_MS) socket.close();
  }, 4000);
}

// --- the channel --------------------------------------------------------------------------------------

function connect() {
  status(view ? say("reconnecting") : say("connecting"));
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${window.location.host}/class/socket/${encodeURIComponent(code)}`);
  socket.addEventListener("open", () => {
    heard = Date.now();
    socket.send(JSON.stringify({ hello: studentId(), pending: pending.get() }));
  });
  socket.addEventListener("message", (event) => {
    heard = Date.now();
    let message = null;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    received(message);
  });
  socket.addEventListener("close", () => {
    socket = null;
    if (closedForGood) return;
    status(say("reconnecting"));
    setTimeout(connect, view ? 400 : 1000); // a restarted server listens again within seconds
  });
}

// After "unreachable": name this phone again if it never got in, else send its last tap again.
function retry() {
  if (!view) send({ hello: studentId(), pending: pending.get() });
  else if (pending.get()) {
    const [step, round] = pending.get().asked.split(":").map(Number);
    send({ answer: { step, round, choice: pending.get().choice } });
  }
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function received(message) {
  if (message.t === "view") {
    const before = view;
    view = message;
    status("");
    root.removeAttribute("aria-busy");
    if (message.changed && (!before || before.changed !== message.changed || before.frame?.run !== message.frame?.run)) {
      $("phone-changed").textContent = message.changed;
    }
    if (own && (view.class.pacing !== "free" || own.run !== view.frame?.run || beyond(own.tick))) own = null;
    draw();
  } else if (message.t === "frame") {
    own = message.frame;
    drawFrame();
  } else if (message.t === "you") {
    mine[`${message.step}:${message.round}`] = message.choice;
    const kept = pending.get();
    if (kept && kept.asked === `${message.step}:${message.round}` && kept.choice === message.choice) pending.set(null);
    drawQuestion(true);
  } else if (message.t === "error") {
    if (message.code === "unreachable") { // the class's records cannot be read just now: try again shortly
      status(message.words, "bad");
      setTimeout(retry, RETRY_MS);
      return;
    }
    if (FINAL.has(message.code)) {
      closedForGood = true;
      root.removeAttribute("aria-busy");
    }
    status(message.words, "bad");
  }
}

// While the question waits the room may not go past ``view.last``; exploring, nor past the run's end.
const beyond = (tick) => view.last !== null && tick > view.last;

// --- drawing ------------------------------------------------------------------------------------------

function draw() {
  const paused = Boolean(view.class.paused);
  root.classList.toggle("paused", paused);
  $("phone-paused").hidden = !paused;
  $("phone-paused").textContent = paused ? say("paused") : "";
  const exploring = view.class.pacing === "free";
  $("phone-class").textContent = say(exploring ? "phone class free" : "phone class", { code: view.class.code });
  drawQuestion(false);
  drawFrame();
}

function drawFrame() {
  const frame = view.class.paused ? null : (own ?? view.frame);
  $("phone-player").hidden = !frame || view.class.pacing !== "free";
  if (!frame) {
    $("phone-figure").innerHTML = "";
    $("phone-badges").innerHTML = "";
    $("phone-tick").textContent = "";
    return;
  }
  $("phone-tick").textContent = `t${frame.tick}`;
  $("phone-figure").innerHTML = frame.figure;
  $("phone-badges").innerHTML = frame.badges;
  const last = view.last ?? frame.end;
  $("phone-player").querySelector('[data-see="back"]').disabled = frame.tick <= 0;
  $("phone-player").querySelector('[data-see="forward"]').disabled = frame.tick >= last;
  root.dataset.tick = String(frame.tick); // for the tests: the tick and the run on show
  root.dataset.run = frame.run;
  const strip = root.querySelector(".follow-now");
  const now = strip?.querySelector(".now-column");
  if (strip && now) strip.scrollLeft = Math.max(0, now.getBBox().x - 40);
}

$("phone-player").addEventListener("click", (event) => {
  const button = event.target.closest("[data-see]");
  const frame = own ?? view?.frame;
  if (!button || !frame) return;
  const tick = frame.tick + (button.dataset.see === "forward" ? 1 : -1);
  if (tick < 0 || beyond(tick) || tick > frame.end) return;
  send({ see: tick });
});

function drawQuestion(answered) {
  const card = $("phone-question");
  const asked = view?.question;
  if (!asked || view.class.paused) {
    card.hidden = true;
    card.innerHTML = "";
    shownQuestion = "";
    if (view && !view.class.paused) {
      card.hidden = false;
      card.innerHTML = `<p class="phone-waiting">${escapeHtml(say(view.class.pacing === "free" ? "exploring" : "following"))}</p>`;
    }
    return;
  }
  const key = `${asked.step}:${asked.round}`;
  const chosen = mine[key] ?? null;
  const drawnFor = `${key}:${asked.phase}`;
  if (drawnFor !== shownQuestion) {
    shownQuestion = drawnFor;
    const answers = asked.answers.map((text, n) => {
      const right = asked.right?.includes(n) ? ` <strong class="class-right">${escapeHtml(say("right"))}</strong>` : "";
      return `<label class="tour-answer"><input type="radio" name="class-answer" data-key="class-answer-${n}" `
        + `value="${n}"${asked.phase === "open" ? "" : " disabled"}> ${LETTERS[n]}. ${escapeHtml(text)}${right}</label>`;
    }).join("");
    card.innerHTML = `<h2>${escapeHtml(say("question round", { n: asked.step, round: asked.round }))}</h2>`
      + `<fieldset class="tour-answers"><legend>${escapeHtml(asked.text)}</legend>${answers}</fieldset>`
      + '<p class="class-sent" role="status"></p><div class="tour-verdict" role="status" aria-live="polite"></div>';
  }
  card.hidden = false;
  for (const input of card.querySelectorAll("input[name=class-answer]")) input.checked = input.value === chosen;
  let note;
  if (asked.phase === "open") note = chosen !== null ? say("in", { letter: LETTERS[chosen] }) : say("choose");
  else if (asked.phase === "closed") {
    note = chosen !== null ? say(asked.round === 1 ? "discuss" : "in closed", { letter: LETTERS[chosen] }) : say("missed");
  } else note = chosen !== null ? say("in closed", { letter: LETTERS[chosen] }) : say("missed");
  card.querySelector(".class-sent").textContent = note;
  const verdict = asked.phase === "revealed" ? (asked.verdicts?.[chosen ?? ""] ?? "") : "";
  const box = card.querySelector(".tour-verdict");
  if (box.innerHTML !== verdict) box.innerHTML = verdict; // the model's own words, drawn by the server
  if (answered) card.querySelector(".class-sent").classList.add("acknowledged");
}

$("phone-question").addEventListener("change", (event) => {
  const input = event.target.closest("input[name=class-answer]");
  const asked = view?.question;
  if (!input || !asked || asked.phase !== "open") return;
  const tapped = { step: asked.step, round: asked.round, choice: input.value };
  pending.set({ asked: `${asked.step}:${asked.round}`, choice: input.value });
  $("phone-question").querySelector(".class-sent").textContent = say("sending", { letter: LETTERS[input.value] });
  send({ answer: tapped });
});

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
