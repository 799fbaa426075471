// MOVES: the light page's rules about moves, written once for static/light.js and static/light-worker.js
// (the build puts it beside them, as it does frame.js) and tested under Node's own runner
// (tests/js/moves.test.mjs). Nothing here touches a page or a worker: each rule takes what it needs and
// returns what to do. The rule for told ticks, a newer move wins, is frame.js's: the served app's
// components follow it too.
import { isNews, toldAt } from "./frame.js";

export { isNews, toldAt };

// What a page may ask of the light worker's app.light, and how much: a call's name, its arguments
// (strings: a link is at most 32 K characters, app.url.MAX_LINK), and calls a second from one page (a
// reader clicks a few; playback is timed in the worker itself). Anything else reached Python as it came:
// a page of the origin could destroy the interpreter, close a group's page, or send 20,000 calls and
// keep every other frame waiting.
export const CALLS = ["start", "act", "wider_count", "wider_search"];
const MOST_CHARACTERS = 65536;
const MOST_ARGUMENTS = 4;
export const MOST_CALLS_A_SECOND = 60;

// Calls waiting for Python, a queue a caller, taken in turn: one of each waiting caller's, then round
// again. A caller that sends many waits behind its own calls, not in front of everyone's: a page with
// twenty connections flooding the worker held another figure's switch for 26 s, since calls were
// answered in the order they came. A caller has at most MOST_WAITING calls waiting.
export const MOST_WAITING = 16;

export class Turns {
  constructor() {
    this.queues = new Map(); // caller -> [call, ...]
  }

  // Whether ``call`` now waits its turn (false: ``caller`` has too many waiting already).
  add(caller, call) {
    if (!this.queues.has(caller)) this.queues.set(caller, []);
    const queue = this.queues.get(caller);
    if (queue.length >= MOST_WAITING) return false;
    queue.push(call);
    return true;
  }

  // The next round: one call of each caller that has one waiting, in the order they first waited.
  round() {
    const taken = [];
    for (const [caller, queue] of [...this.queues]) {
      taken.push(queue.shift());
      if (!queue.length) this.queues.delete(caller);
    }
    return taken;
  }

  get waiting() {
    return this.queues.size > 0;
  }

  forget(caller) {
    this.queues.delete(caller);
  }
}

// Why a call may not be made ("" if it may): ``call`` and ``args`` as a page sent them.
export function refusal(call, args) {
  if (!CALLS.includes(call)) return `a page may call ${CALLS.join(", ")}, not ${String(call).slice(0, 40)}`;
  if (!Array.isArray(args) || args.length > MOST_ARGUMENTS
    || !args.every((a) => typeof a === "string" && a.length <= MOST_CHARACTERS)) {
    return `a call's arguments are at most ${MOST_ARGUMENTS} strings of ${MOST_CHARACTERS} characters`;
  }
  return "";
}

// A page's calls in the current second: [second, count] after one more call at ``now`` (ms), and
// whether that call is within MOST_CALLS_A_SECOND.
export function counted(record, now) {
  const second = Math.floor(now / 1000);
  const count = record && record[0] === second ? record[1] + 1 : 1;
  return [[second, count], count <= MOST_CALLS_A_SECOND];
}

// The player of the pre-render, as app.state's ReaderState.player_action moves the tick: the tick to
// show after ``action`` (first, back, forward, last; go with ``value`` a tick) from ``tick`` in a run
// whose last tick is ``last``, clamped to the run; null for anything else (play waits for Python).
// ``isTick`` says whether a value is a tick a link can name (the link grammar's pattern).
export function playerTick(action, value, tick, last, isTick) {
  const clamp = (t) => Math.max(0, Math.min(last, t));
  if (action === "first") return 0;
  if (action === "back") return clamp(tick - 1);
  if (action === "forward") return clamp(tick + 1);
  if (action === "last") return last;
  if (action === "go" && isTick(String(value))) return clamp(Number(value));
  return null;
}

// What a link's first picture is, before Python: a tour step's pre-render ({name: "tour-N", link, tick:
// null}), a chapter's at a tick ({name, link: "?preset=…", tick}), or null where the link names what only
// Python can draw (a switch off a chapter's values, a schedule) and waits for it. A link whose switches
// are exactly a chapter's (Python writes a chapter's run so: ?change=after-acceptance&tick=12) is that
// chapter. ``table`` is the link grammar's browser table (app.url.browser_table, in the build's
// manifest), ``chapters`` the chapters pre-rendered.
export function firstPicture(query, table, chapters) {
  const keys = [...query.keys()];
  const only = (allowed) => keys.every((k) => allowed.includes(k));
  if (query.has("tour")) {
    const step = query.get("tour");
    const number = Number(step);
    // A step's number as Python reads it: "2", never "02" (Python shows no step for that).
    return only(table.tour_plain) && /^[1-9]\d*$/.test(step) && number <= table.tour_steps
      ? { name: `tour-${number}`, link: `?tour=${number}`, tick: null }
      : null;
  }
  const named = keys.filter((k) => k !== "tick" && !table.page_flags.includes(k));
  const byValues = Object.entries(table.chapter_values).find(([, values]) => named.length > 0
    && named.length === Object.keys(values).length && named.every((k) => query.get(k) === values[k]))?.[0];
  const wanted = query.get("preset") || byValues || "main";
  if (!(only(table.plain) || byValues) || !chapters.includes(wanted)) return null;
  const tick = new RegExp(table.tick).test(query.get("tick") || "") ? Number(query.get("tick")) : 0;
  return { name: wanted, link: `?preset=${wanted}`, tick };
}

// A pre-render (light/<name>.json) in another layout: ``over`` (light/<name>.present.json, sitebuild's
// overlay) replaces the fixed parts, the tour's cards and each tick's parts it names; none, or one that
// does not fit the run (a file of another build), leaves the pre-render as it is.
export function overlaid(data, over) {
  if (!over || !Array.isArray(over.ticks) || over.ticks.length !== data.ticks.length) return data;
  return {
    ...data,
    ...(over.tour ? { tour: over.tour } : {}),
    fixed: { ...data.fixed, ...over.fixed },
    ticks: data.ticks.map((parts, t) => ({ ...parts, ...over.ticks[t] })),
  };
}

// The tour's own back and next buttons: the step they open from ``step`` of ``steps``, or null (none
// before the first or after the last, and any other action).
export function tourStepAfter(action, step, steps) {
  const next = step + (action === "next" ? 1 : action === "back" ? -1 : 0);
  return next !== step && next >= 1 && next <= steps ? next : null;
}

// What the reader did on the pre-render, for Python to do when it starts: only where the reader ends up
// counts, so a tick replaces any tick before it; other actions are kept in order.
export function remember(done, entry) {
  const kept = entry[0] === "go" ? done.filter(([action]) => action !== "go") : [...done];
  kept.push(entry);
  return kept;
}

// The queue of what waits for Python: remembered as above, and at most ``limit`` long (another page of
// the site cannot fill it): past that, the oldest goes.
export function enqueue(pending, entry, limit) {
  const kept = remember(pending, entry);
  return kept.length > limit ? kept.slice(kept.length - limit) : kept;
}

// The worker's record of the move that put a page on its tick: [tick, at]. A call that leaves the tick
// where it was keeps the earlier move's time (a switch is not a move of the tick); one that moves it is
// stamped with the call's ``at``. Returns the new record.
export function stamp(record, tick, at) {
  const [before, when] = record || [null, 0];
  return [tick, tick === before ? when : at];
}

// Whether a frame paints a page the worker pushed after another frame of its group acted: a push that
// only moved the tick (``moved``) is taken only if it is news to the frame (its own newer move is on its
// way); anything else (a switch, a chapter, the ending revealed) is the group's whatever the ticks, for
// its ``at`` is still the time of the group's last move of the tick, which a frame that painted later
// holds newer (issue 48: such frames kept the run before a switch for good).
export function takesPush(shownAt, push) {
  return !push.moved || !isNews(shownAt, push.at);
}

// A frame joining a page that exists (a ?group= another frame started): its own moves of the tick are
// kept only if they are news to the page (made after the page's last move), so a frame that loaded late
// cannot pull the group back. ``actions`` is the list the frame did on its pre-render.
export function joiningActions(actions, at, pageMovedAt) {
  if (pageMovedAt === null || isNews(at, pageMovedAt)) return actions;
  return actions.filter((entry) => !(Array.isArray(entry) && entry[0] === "go"));
}

// What went wrong, in one line for a page's status: the last line of the message (a Python traceback
// ends with the exception), whatever was thrown (Pyodide rejects with plain objects and events too:
// "[object Object]" was all a page said when python_stdlib.zip could not be fetched).
export function reason(error) {
  let said = error;
  if (error && typeof error === "object") {
    said = error.message || error.reason || (error.status && `${error.url || "a file"} answered ${error.status}`)
      || (error.type && `${error.type} event${error.target?.src ? ` for ${error.target.src}` : ""}`)
      || JSON.stringify(error, Object.getOwnPropertyNames(error));
  }
  const lines = String(said ?? "").trim().split("\n").map((line) => line.trim()).filter(Boolean);
  const last = lines.at(-1) || "no reason given";
  return last.length > 240 ? `${last.slice(0, 239)}…` : last;
}

// When Python takes over a page whose reader (or group) moved meanwhile: the tick to ask Python for, if
// the move shown here (made at ``movedAt``) is newer than the one Python's first answer stands for
// (``pythonAt``), else null (Python's answer is the newer: it is painted as it is).
export function takeoverTick(movedAt, pythonAt, shownTick) {
  return isNews(movedAt, pythonAt ?? 0) ? shownTick : null;
}
