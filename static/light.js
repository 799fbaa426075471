// The light explainer's browser side. Python (app/light.py on the vendored Pyodide, in a worker that
// every frame of the site shares: static/light-worker.js) decides everything; this paints the HTML parts
// it returns and passes back clicks and keys. Until Python is ready, a pre-render (light/<chapter>.json,
// light/tour-<step>.json, written by the same Python at build time) is painted and stepped through, and
// a tour step's answers are judged from it; anything else (a switch) waits for Python and is then done
// in order. Python starts where the reader has got to: the pre-render's link and what was done on it.

import { controlKeeps, follow, holdStill, joinGroup, scopedGroup, watchHeight } from "./frame.js";
import {
  enqueue, firstPicture, overlaid, playerTick, remember, takeoverTick, takesPush, tourStepAfter,
} from "./moves.js";
import { startPython } from "./python.js";

const PARTS = ["header", "tour", "player", "lead", "figure", "badges", "outcome", "legend", "lifecycles", "records",
  "switches"];
// What only moves the tick or plays: shared in a group as a tick, not as an action.
const MOVES = new Set(["first", "back", "forward", "last", "go", "advance", "toggle"]);
const INTERACTIVE = "input, textarea, select, button, summary, [role=button], a";
const base = new URL("../", import.meta.url);
// What the link's grammar says the browser must know (app.url.browser_table, written by the build into
// the manifest): the tick's and the group's patterns, the figures, the flags a page keeps, the keys.
// Without it nothing here can work (a file missing or cut short on the host): the page says so and stops,
// rather than leaving buttons that do nothing.
async function readManifest() {
  try {
    const response = await fetch(new URL("light/manifest.json", base));
    if (!response.ok) throw new Error(`answered ${response.status}`);
    const read = await response.json();
    if (!read?.browser || !Array.isArray(read.wheels) || !Array.isArray(read.chapters)) {
      throw new Error("incomplete");
    }
    return read;
  } catch (error) {
    const words = `This page cannot work: a file of the site, light/manifest.json, could not be read `
      + `(${error.message}). Reload the page; if this stays, the site was published incompletely.`;
    const said = document.getElementById("light-status");
    Object.assign(said, { textContent: words, title: words, className: "status stalled", hidden: false });
    document.getElementById("light").dataset.python = "failed";
    return null;
  }
}
const manifest = await readManifest();
if (!manifest) await new Promise(() => {}); // nothing below can work without it: the module stops here
const { figures: FIGURES, keys: KEYS, page_flags: PAGE_FLAGS } = manifest.browser;
const TICK = new RegExp(manifest.browser.tick);
const GROUP = new RegExp(manifest.browser.group);
const root = document.getElementById("light");
const status = document.getElementById("light-status");
const asked = window.location.search; // the link as given: Python reads it, odd values and all
const query = new URLSearchParams(asked);
const pending = []; // what waits for Python: the reader's own actions, and at most one told tick
const MAX_PENDING = 64;
let prerender = null; // the pre-render on show while Python loads: {link, data, done: [actions], chosen, verdict}
let readerMoved = false; // the reader (or the group) moved before Python started
let python = null; // {ask, tell, shared}, once Python has started
let key = ""; // the page Python keeps for this frame (or its group)
const shown = new Map(); // each part's HTML as last painted
// When the move to the tick shown here was made, by Date.now() (the clock every frame of a browser
// shares), in whichever frame the reader made it: a told tick is news only if its move is newer.
let movedAt = 0;

// ?view=NAME shows one figure with the player (the CSS hides the rest); ?group=NAME makes the figures of
// one article one run: through the shared worker once Python is there, and before it (or where each
// page has its own worker) over frame.js's joinGroup, by ticks and, without the shared worker, actions.
const view = query.get("view");
if (FIGURES.includes(view)) {
  root.classList.add(`figure-${view}`);
  if (view === "lifecycles") root.querySelector("details.fold[data-in~=lifecycles]").open = true;
}
// ?present=1: a projector's layout (site.css): large type, the lesson alone, the folds out of the way. The
// chapters' line goes under the diagram, as in the served presenter mode: a 720 px high screen has no
// line to spare above a chapter's tallest tick.
if (query.get("present") === "1") {
  root.classList.add("present");
  root.querySelector("#part-figure").after(root.querySelector("#part-header"));
}
const pageFlags = () => PAGE_FLAGS.filter((k) => query.has(k)).map((k) => `&${k}=${encodeURIComponent(query.get(k))}`).join("");
const groupName = query.get("group") || "";
const group = GROUP.test(groupName) ? joinGroup(groupName, {
  isTick: (tick) => TICK.test(String(tick)),
  now: () => Number(root.dataset.tick),
  // Done as told, so not told back. A told tick whose move was made before the one shown here is late
  // news (it would pull the whole group back).
  go: (tick, at) => act("go", String(tick), "", { told: true, at }),
  shownAt: () => movedAt, // a tick the worker pushed is a move shown here too
  acted: (entry) => act(...entry, { told: true }),
}) : null;

// Inside an article (an iframe): say how tall the content is, so the host can size the frame. Told after
// every paint as well as on a resize: a frame off screen may not be laid out until it is scrolled to.
const tellHeight = watchHeight(root);

// The status has space of its own, two lines (site.css), so words in it never change the page's height.
let unsay = null;
// A class's join link on this site was answered before anything loaded (the page's inline script): its
// words stay, whatever else is said meanwhile.
const classNote = status.classList.contains("class-note");
const say = (words, tone = "", seconds = 0) => {
  if (classNote) return;
  status.textContent = words;
  status.title = words;
  status.className = `status ${tone}`;
  status.hidden = !words;
  clearTimeout(unsay);
  if (words && seconds) unsay = setTimeout(() => say(""), seconds * 1000);
};

// A part in a closed fold (the lifecycles, the records, the switches) is painted when its fold opens:
// a switch paints what is on show first (the folds' HTML was half of what a switch sent).
const folded = new Map(); // a part's name -> its HTML, not painted yet
const paintPart = (slot, name, html) => {
  slot.innerHTML = html;
  shown.set(name, html);
  folded.delete(name);
};
root.addEventListener("toggle", (event) => { // a fold's toggle does not bubble: caught on its way down
  if (!event.target.open) return;
  for (const [name, html] of folded) {
    const slot = document.getElementById(`part-${name}`);
    if (event.target.contains(slot)) paintPart(slot, name, html);
  }
}, true);

// ``told``: what another frame did (not told back); ``opening``: the page's own link, first painted,
// which is no move of its reader (a frame opened later would pull its group back to its link's tick).
function paint(parts, { told = false, opening = false } = {}) {
  // The control that had the focus (a button pressed with the keyboard) has it again after the repaint.
  const focused = document.activeElement && root.contains(document.activeElement)
    ? document.activeElement.dataset.key : null;
  for (const name of PARTS) {
    const slot = document.getElementById(`part-${name}`);
    if (!slot || typeof parts[name] !== "string") continue;
    // Only a part that changed is painted again, and one in a closed fold once it opens.
    if (shown.get(name) === parts[name]) folded.delete(name);
    else if (slot.closest("details:not([open])")) folded.set(name, parts[name]);
    else paintPart(slot, name, parts[name]);
  }
  if (focused) root.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  requestAnimationFrame(() => follow(root));
  const moved = root.dataset.tick !== String(parts.tick);
  root.dataset.tick = String(parts.tick);
  if (moved && !opening) movedAt = parts.at ?? Date.now();
  if (group && moved && !told && !opening) group.moved(parts.tick, movedAt);
  root.dataset.painted = String(performance.now()); // for benchmarks/site_bench.py
  root.classList.remove("pending");
  // The link says where the reader is (Python's query), with this page's own layout flags kept.
  const link = new URLSearchParams(parts.query.replace(/^\?/, ""));
  for (const flag of PAGE_FLAGS) {
    if (query.has(flag)) link.set(flag, query.get(flag));
    else link.delete(flag); // another frame of the group opened its page with its own layout
  }
  const search = link.toString();
  window.history.replaceState(null, "", window.location.pathname + (search ? `?${search}` : ""));
  // The embed code names a chapter's run by the chapter (Python's embed query), with this page's flags.
  const embed = new URLSearchParams((parts.embed ?? parts.query).replace(/^\?/, ""));
  for (const flag of PAGE_FLAGS) if (query.has(flag)) embed.set(flag, query.get(flag));
  writeEmbedCode(embed.toString());
  holdAgain();
  tellHeight();
}

// --- before Python: the pre-render -----------------------------------------------------------------

function frame(tick) {
  const { data } = prerender;
  const t = Math.max(0, Math.min(data.ticks.length - 1, tick));
  const parts = { ...data.fixed, ...data.ticks[t] };
  if (prerender.verdict !== null) {
    parts.tour = prerender.verdict;
    parts.player = data.tour?.answered?.[t] ?? parts.player; // answered: every key moment again
  }
  return parts;
}

// A chapter (name) or a tour step (tour-N), at a tick (or, for a tour step, where the step starts);
// ``opening``: the page's link, as it loads.
async function open(name, link, tick = null, opening = false) {
  // A projector's page draws what presenter mode draws (the large diagram) from the start, so nothing
  // changes when Python takes over: the pre-render's overlay, fetched beside it.
  const large = query.get("present") === "1"
    ? fetch(new URL(`light/${name}.present.json`, base)).then((r) => (r.ok ? r.json() : null)).catch(() => null)
    : null;
  const response = await fetch(new URL(`light/${name}.json`, base));
  if (!response.ok) throw new Error(`no pre-render for ${name}`);
  const data = overlaid(await response.json(), await large);
  // The tick the link (or a chapter's opening) asked for is where the reader is: Python, taking over
  // from a reader who clicked before it was ready, starts there too.
  const done = tick ? [["go", String(tick), ""]] : [];
  prerender = { link: link + pageFlags(), data, done, chosen: "", verdict: null };
  paint(frame(tick ?? data.start), { opening });
}

// What the pre-render can do itself: step, open a chapter or a tour step, pick and check a tour answer.
// Returns whether it did; what it did is remembered, for Python to do the same when it starts.
function actLocally(action, value, part, at, told = false) {
  if (!prerender) return false;
  const tick = Number(root.dataset.tick || 0);
  const last = prerender.data.ticks.length - 1;
  const tour = prerender.data.tour;
  const to = (t) => {
    prerender.done = remember(prerender.done, ["go", String(t), ""]);
    paint({ ...frame(t), at }, { told });
    return true;
  };
  if (part === "tour" && tour) {
    if (action === "answer" && /^\d$/.test(value) && Object.hasOwn(tour.verdicts, value)) {
      prerender.chosen = value;
      prerender.done.push([action, value, part]);
      return true;
    }
    if (action === "check") {
      prerender.verdict = tour.verdicts[prerender.chosen];
      prerender.done.push([action, value, part]);
      return to(tour.ask);
    }
    const step = tourStepAfter(action, tour.step, manifest.browser.tour_steps);
    if (step !== null) {
      open(`tour-${step}`, `?tour=${step}`).catch(() => wait([action, value, part]));
      return true;
    }
    return false;
  }
  const moved = playerTick(action, value, tick, last, (v) => TICK.test(v));
  if (moved !== null) return to(moved);
  if (action === "preset" && manifest.chapters.includes(value)) {
    open(value, `?preset=${value}`, 0).catch(() => wait([action, value, part]));
    return true;
  }
  return false;
}

// ``told``: another frame of the group did this, and this frame does it too (nothing is told back);
// ``own``: the reader did it here (which clears a note of what another frame did).
function act(action, value, part = "", { told = false, own = !told, at = Date.now() } = {}) {
  if (python) {
    const caller = python;
    caller.ask("act", [key, action, value, part], at).then((parts) => {
      key = parts.key;
      paint(parts, { told });
      if (told && parts.changed) say(parts.changed, "group", 8);
      else if (own && status.classList.contains("group")) say("");
      // Where each page has its own Python, the others of the group are told what to do as well.
      if (group && !told && !python.shared && !MOVES.has(action)) group.acted([action, value, part]);
    }, failedIn(caller));
    return;
  }
  readerMoved = true;
  const done = actLocally(action, value, part, at, told);
  if (done) return;
  if (root.dataset.python === "failed") {
    say("The switches need Python, which stopped or could not start in this browser; reload the page.", "stalled");
    return;
  }
  wait([action, value, part]);
  say("Python is still loading in your browser; this will be done as soon as it is ready.");
}

// Queue an action for Python (moves.js's enqueue: a tick replaces an earlier one, and the queue has a
// limit, so another page of the site cannot fill it).
function wait(entry) {
  pending.splice(0, pending.length, ...enqueue(pending, entry, MAX_PENDING));
  root.dataset.queued = String(pending.length); // for the tests: what Python will be handed
}

// --- the reader's clicks and keys --------------------------------------------------------------------

// A row's name clicked stays under the pointer when the page is redrawn: now, and again when Python
// paints what waited for it (seconds later, on a click made before Python was ready).
let held = null; // {key, top} of a row switch clicked while Python was loading
function hold(target) {
  holdStill(root, target);
  if (!python) held = { key: target.dataset.key, top: target.getBoundingClientRect().top };
}
// Called after each of Python's paints: the first may come back before the one that answers the click
// (a tick asked first), so every paint for a few seconds keeps the row where the reader clicked it.
function holdAgain() {
  if (!held || !python) return;
  const again = root.querySelector(`[data-key="${CSS.escape(held.key)}"]`);
  if (again) holdStill(root, again, held.top);
  if (!held.ending) {
    held.ending = true;
    setTimeout(() => { held = null; }, 4000);
  }
}

// Clicks and keys, from any part: the renderers mark what can be done with data-action / data-value.
root.addEventListener("click", (event) => {
  if (event.target.closest(".copy-embed")) {
    copyEmbedCode();
    return;
  }
  const target = event.target.closest("[data-action]");
  if (!target || target.matches("input[type=range], select")) return;
  if (!target.matches("input")) event.preventDefault(); // a radio (a tour answer) shows its choice at once
  if (target.matches(".row-switch")) hold(target);
  act(target.dataset.action, target.dataset.value || "", partOf(target));
});
const partOf = (element) => (element.closest(".part")?.id || "").replace(/^part-/, "");
root.addEventListener("keydown", (event) => {
  const target = event.target.closest("[role=button][data-action]");
  if (target && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    if (target.matches(".row-switch")) hold(target);
    act(target.dataset.action, target.dataset.value || "", partOf(target));
  }
});
root.addEventListener("change", (event) => {
  if (event.target.matches("input[type=range][data-action]")) act("go", event.target.value);
  // A menu (the chapters, the speed) asks when the reader has chosen.
  else if (event.target.matches("select[data-action]")) {
    act(event.target.dataset.action, event.target.value, partOf(event.target));
  }
});
document.addEventListener("keydown", (event) => {
  const action = KEYS[event.key];
  if (!action || event.altKey || event.ctrlKey || event.metaKey) return;
  if (controlKeeps(event.target, event.key, INTERACTIVE)) return;
  event.preventDefault();
  act(action, "");
});

new ResizeObserver(() => follow(root)).observe(root);

// --- the embed code: the one iframe line and the script that sizes it (static/embed.js) ------------------

function writeEmbedCode(search) {
  const box = root.querySelector(".embed-code textarea");
  if (!box) return;
  const frame = new URL(`embed.html${search ? `?${search}` : ""}`, base);
  box.value = `<iframe src="${frame.href.replace(/&/g, "&amp;")}" title="Durable work, tick by tick" `
    + 'style="width: 100%; border: 0"></iframe>\n'
    + `<script src="${new URL("static/embed.js", base).href}" async></script>`;
}

async function copyEmbedCode() {
  const box = root.querySelector(".embed-code textarea");
  try {
    await navigator.clipboard.writeText(box.value);
    say("The embed code is copied: paste it into the article's HTML.", "ok", 4);
  } catch {
    box.select(); // no clipboard here (a page without the permission): the code is selected to copy by hand
    say("Copying is not allowed here; the code is selected, so press Ctrl+C (⌘C).", "", 6);
  }
}

// --- the first picture, then Python ------------------------------------------------------------------

// A link that only names a chapter and a tick, or a tour step, is shown from the pre-render at once; any
// other (a switch, a schedule) waits for Python, which reads every link the served app reads.
const first = firstPicture(query, manifest.browser, manifest.chapters);
try {
  if (first) await open(first.name, first.link, first.tick, true);
  else say("Loading Python in your browser to draw this link…");
} catch (error) {
  say(`Loading Python in your browser to draw this link (${error})…`);
}
// Before any picture, the link as given; once the pre-render painted, its embed code (the chapter by its
// name) is the one offered, as Python's will be.
if (!prerender) writeEmbedCode(window.location.search.replace(/^\?/, ""));

let restarted = false; // Python is started again once, in a worker of this page's own, if it stops

// A failure of a worker that is no longer this page's (one that stopped and has been replaced: its calls
// still waiting fail one by one) says nothing: the page is restarting, and says so.
const failedIn = (source) => (error, how) => {
  if (source === worker) failed(error, how);
};

function failed(error, { leaderGone = false } = {}) {
  if (root.dataset.python === "failed") return; // said once (a stopped worker fails every waiting call too)
  const wasReady = root.dataset.python === "ready";
  python = null;
  if (leaderGone) {
    // The frame that ran Python for this article's frames went (python.js's Relay): the next one runs
    // it, and this page starts again there, where the reader is, however often that happens.
    root.dataset.python = "restarting";
    say("Python is starting again in another figure of this page…", "stalled");
    begin({ shared: true, link: window.location.search });
    return;
  }
  if (wasReady && !restarted) {
    // A worker that stopped (killed, or its tab crashed): one of this page's own takes over where the
    // reader is (the link Python last wrote), and rejoins the group by actions, as a page without a
    // shared worker does. Meanwhile the pre-render plays, and a switch waits for the new Python.
    restarted = true;
    root.dataset.python = "restarting";
    say(`Python stopped in this browser (${error}); starting it again…`, "stalled");
    begin({ shared: false, link: window.location.search });
    return;
  }
  root.dataset.python = "failed";
  say(
    (wasReady ? `Python stopped in this browser again (${error}); reload the page to start it again. `
      : `Python could not start in this browser (${error}). `) +
      "The chapters and the player still work; the switches need Python.",
    "stalled",
  );
}

// Python starts in the shared worker (its first call waits for it) and takes over where the reader is:
// the pre-render's link and what the reader did on it, then what waited. A reader who has not moved gets
// the link as given, so an odd value (tick=-1, tick=500) is said in the notice the served app gives, not
// silently corrected by the pre-render. A frame of a group joins the group's page if another frame has
// started it.
// After a worker stopped, a page's own takes over at ``link`` (nothing waits from the pre-render then).
let worker = null;
let restartAt = null;
function begin({ shared = true, link = null } = {}) {
  restartAt = link;
  const own = startPython({
    shared,
    onReady: ({ restored }) => {
      root.dataset.start = restored ? "snapshot" : "fresh"; // for the tests and benchmarks/site_bench.py
      root.dataset.worker = worker.how; // shared, relayed or own: a refused shared worker is replaced
      started();
    },
    onFailure: (error, how) => failedIn(own)(error, how),
    answerWithin: 20000, // a light call takes well under a second; twenty without an answer is a dead worker
    onPush: (parts) => {
      // A push of a move older than one shown here is late: this frame's newer move is on its way.
      if (!python || parts.key !== key || !takesPush(movedAt, parts)) return;
      paint(parts, { told: true });
      if (parts.changed) say(parts.changed, "group", 8);
    },
  });
  worker = own;
  root.dataset.worker = worker.how;
}
const started = () => {
  const fromPrerender = restartAt === null && readerMoved && prerender;
  const link = restartAt ?? (fromPrerender ? prerender.link : asked);
  const done = fromPrerender ? prerender.done : [];
  const actions = JSON.stringify([...done, ...pending.splice(0)]);
  const caller = worker;
  caller.ask("start", [link, group ? scopedGroup(groupName) : "", actions], movedAt)
    .then((first) => {
      python = worker;
      key = first.key;
      // What the reader (or the group) did here while Python was starting is done now, in order: a
      // newer tick first (painting Python's older one would jump back), then what waited.
      const newer = takeoverTick(movedAt, first.at, root.dataset.tick);
      if (newer === null) paint(first);
      else act("go", newer, "", { own: false, at: movedAt });
      for (const [action, value, part] of pending.splice(0)) act(action, value, part);
      root.dataset.queued = "0";
      root.dataset.python = "ready";
      if (!status.classList.contains("group")) say("");
    })
    .catch(failedIn(caller));
};
begin();
// Leaving the page: the worker forgets this frame (and a group's page once its last frame has gone).
window.addEventListener("pagehide", () => worker.tell("bye"));
