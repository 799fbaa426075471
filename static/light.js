// The light explainer's browser side. Python (app/light.py on the vendored Pyodide, in a worker:
// static/light-worker.js) decides everything; this paints the HTML parts it returns and passes back
// clicks and keys. Until Python is ready, the chapter's pre-render (light/<chapter>.json, written by the
// same Python at build time) is painted and stepped through; anything that needs Python (a switch) waits
// for it and is then done in order.

import { follow, holdStill, joinGroup, watchHeight } from "./frame.js";
import { startPython } from "./python.js";

const PARTS = ["header", "tour", "player", "figure", "badges", "outcome", "lifecycles", "records", "switches"];
const STEPS = { first: () => 0, back: (t) => t - 1, forward: (t) => t + 1 };
const INTERACTIVE = "input, textarea, select, button, summary, [role=button], a";
const base = new URL("../", import.meta.url);
// What the link's grammar says the browser must know (app.url.browser_table, written by the build into
// the manifest): the tick's and the group's patterns, the figures, the flags a page keeps, the keys.
const manifest = await (await fetch(new URL("light/manifest.json", base))).json();
const { figures: FIGURES, keys: KEYS, plain: PLAIN, page_flags: PAGE_FLAGS } = manifest.browser;
const TICK = new RegExp(manifest.browser.tick);
const GROUP = new RegExp(manifest.browser.group);
const root = document.getElementById("light");
const status = document.getElementById("light-status");
const asked = window.location.search; // the link as given: Python reads it, odd values and all
const query = new URLSearchParams(asked);
const pending = []; // what waits for Python: the reader's own actions, and at most one told tick
const MAX_PENDING = 64;
let readerMoved = false; // the reader (or the group) moved before Python started: Python starts there instead
let chapter = null; // the pre-rendered chapter on show while Python loads
let python = null; // app.light's act(action, value), answered by the worker, once it has started
let timer = null;
const shown = new Map(); // each part's HTML as last painted

// ?view=NAME shows one figure with the player (the CSS hides the rest); ?group=NAME keeps the figures of
// one article on one tick (frame.js's joinGroup: what a told tick causes is not told back).
const view = query.get("view");
if (FIGURES.includes(view)) {
  root.classList.add(`figure-${view}`);
  if (view === "lifecycles") root.querySelector("details.fold[data-in~=lifecycles]").open = true;
}
const groupName = query.get("group") || "";
const group = GROUP.test(groupName) ? joinGroup(groupName, {
  isTick: (tick) => TICK.test(String(tick)),
  now: () => Number(root.dataset.tick),
  go: (tick) => act("go", String(tick), ""),
}) : null;

// Inside an article (an iframe): say how tall the content is, so the host can size the frame.
const tellHeight = watchHeight(root);

const say = (words, tone = "") => {
  status.textContent = words;
  status.className = `status ${tone}`;
  status.hidden = !words;
};

function paint(parts) {
  // The control that had the focus (a button pressed with the keyboard) has it again after the repaint.
  const focused = document.activeElement && root.contains(document.activeElement)
    ? document.activeElement.dataset.key : null;
  for (const name of PARTS) {
    const slot = document.getElementById(`part-${name}`);
    if (slot && typeof parts[name] === "string" && shown.get(name) !== parts[name]) {
      slot.innerHTML = parts[name]; // only a part that changed is painted again
      shown.set(name, parts[name]);
    }
  }
  if (focused) root.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  requestAnimationFrame(() => follow(root));
  const moved = root.dataset.tick !== String(parts.tick);
  root.dataset.tick = String(parts.tick);
  if (group && moved) group.moved(parts.tick);
  root.dataset.painted = String(performance.now()); // for benchmarks/site_bench.py
  root.classList.remove("pending");
  // The link says where the reader is (Python's query), with this page's own layout flags kept.
  const link = new URLSearchParams(parts.query.replace(/^\?/, ""));
  for (const key of PAGE_FLAGS) if (query.has(key)) link.set(key, query.get(key));
  const search = link.toString();
  window.history.replaceState(null, "", window.location.pathname + (search ? `?${search}` : ""));
  clearTimeout(timer);
  if (parts.playing) timer = setTimeout(() => act("advance", ""), parts.period);
  tellHeight();
}

function frame(tick) {
  const t = Math.max(0, Math.min(chapter.ticks.length - 1, tick));
  return { ...chapter.fixed, ...chapter.ticks[t] };
}

async function openChapter(name, tick) {
  const response = await fetch(new URL(`light/${name}.json`, base));
  if (!response.ok) throw new Error(`no pre-render for the chapter ${name}`);
  chapter = await response.json();
  paint(frame(tick));
}

function act(action, value, part = "") {
  if (python) {
    python("act", [action, value, part]).then(paint, failed);
    return;
  }
  // Before Python: the pre-rendered chapter's player and chapters; the rest (a switch, the tour's card)
  // waits for Python.
  readerMoved = true;
  const tick = Number(root.dataset.tick || 0);
  const local = chapter && part !== "tour";
  if (local && Object.hasOwn(STEPS, action)) paint(frame(STEPS[action](tick)));
  else if (local && action === "last") paint(frame(chapter.ticks.length - 1));
  else if (local && action === "go" && TICK.test(value)) paint(frame(Number(value)));
  else if (local && action === "preset") openChapter(value, 0).catch(() => wait([action, value, part]));
  else {
    wait([action, value, part]);
    say("Python is still loading in your browser; this will be done as soon as it is ready.");
  }
}

// Queue an action for Python. A tick asked for replaces any tick asked for before it (only where the
// reader ends up counts), and the queue has a limit: another page of the site cannot fill it.
function wait(entry) {
  if (entry[0] === "go") {
    for (let i = pending.length - 1; i >= 0; i -= 1) if (pending[i][0] === "go") pending.splice(i, 1);
  }
  pending.push(entry);
  if (pending.length > MAX_PENDING) pending.shift();
  root.dataset.queued = String(pending.length); // for the tests: what Python will be handed
}

// Clicks and keys, from any part: the renderers mark what can be done with data-action / data-value.
root.addEventListener("click", (event) => {
  const target = event.target.closest("[data-action]");
  if (!target || target.matches("input[type=range]")) return;
  if (!target.matches("input")) event.preventDefault(); // a radio (a tour answer) shows its choice at once
  if (target.matches(".row-switch")) holdStill(root, target);
  act(target.dataset.action, target.dataset.value || "", partOf(target));
});
const partOf = (element) => (element.closest(".part")?.id || "").replace(/^part-/, "");
root.addEventListener("keydown", (event) => {
  const target = event.target.closest("[role=button][data-action]");
  if (target && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    if (target.matches(".row-switch")) holdStill(root, target);
    act(target.dataset.action, target.dataset.value || "", partOf(target));
  }
});
root.addEventListener("change", (event) => {
  if (event.target.matches("input[type=range][data-action]")) act("go", event.target.value);
});
document.addEventListener("keydown", (event) => {
  const action = KEYS[event.key];
  if (!action || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target.closest && event.target.closest(INTERACTIVE)) return;
  event.preventDefault();
  act(action, "");
});

new ResizeObserver(() => follow(root)).observe(root);

// A link that only names a chapter and a tick is shown from the pre-render at once; any other (a
// switch, a schedule, a tour) waits for Python, which reads every link the served app reads.
const plain = [...query.keys()].every((k) => PLAIN.includes(k));
const wanted = query.get("preset") || "main";
const tick = TICK.test(query.get("tick") || "") ? Number(query.get("tick")) : 0;
if (plain && manifest.chapters.includes(wanted)) {
  await openChapter(wanted, tick);
  say("");
} else {
  say("Loading Python in your browser to draw this link…");
}

function failed(error) {
  root.dataset.python = "failed";
  python = null;
  say(
    `Python could not start in this browser (${error}). The chapters and the player still work; the ` +
      "switches need Python.",
    "stalled",
  );
}

// Python starts in a worker; the first call waits for it. Answers come back in order.
const ask = startPython(manifest.wheels, { onReady: () => started(), onFailure: failed });
const noWord = setTimeout(() => {
  if (!python) say("Python is taking long to start in this browser; the chapters and the player work meanwhile.");
}, 10000);
// Python starts where the reader is by then (the pre-render may have moved on), and takes over. A reader
// who has not moved gets the link as given, so an odd value (tick=-1, tick=500) is said in the notice
// the served app gives, not silently corrected by the pre-render's address.
const started = () =>
  ask("start", [readerMoved ? window.location.search : asked])
    .then((first) => {
      clearTimeout(noWord);
      python = ask;
      paint(first);
      for (const [action, value, part] of pending.splice(0)) act(action, value, part);
      root.dataset.queued = "0";
      root.dataset.python = "ready";
      say("");
    })
    .catch(failed);
