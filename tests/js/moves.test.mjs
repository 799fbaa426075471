// The light page's rules about moves (app/views/js/moves.js), under Node's own test runner:
// node --test tests/js/  (tests/app/test_browser_code.py runs it in the fast lane).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  MOST_CALLS_A_SECOND, MOST_WAITING, Turns, counted, enqueue, isNews, joiningActions, overlaid, playerTick, reason,
  takeoverTick,
  refusal, remember,
  stamp, takesPush, toldAt, tourStepAfter,
} from "../../app/views/js/moves.js";

const isTick = (v) => /^\d{1,6}$/.test(v);

// Until ``done()`` holds, checked every few milliseconds, for as long as a busy machine could need: a
// test waits for what it expects, never for a fixed time.
async function until(done, seconds = 20) {
  const deadline = Date.now() + seconds * 1000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done within ${seconds} s`);
    await new Promise((resolve) => { setTimeout(resolve, 5); });
  }
}

test("a move is news only if made after the one shown", () => {
  assert.equal(isNews(1001, 1000), true);
  assert.equal(isNews(1000, 1000), false); // the same move coming back
  assert.equal(isNews(999, 1000), false);
});

test("the pre-render's player moves the tick as Python's does, clamped to the run", () => {
  assert.equal(playerTick("first", "", 7, 14, isTick), 0);
  assert.equal(playerTick("back", "", 7, 14, isTick), 6);
  assert.equal(playerTick("back", "", 0, 14, isTick), 0);
  assert.equal(playerTick("forward", "", 7, 14, isTick), 8);
  assert.equal(playerTick("forward", "", 14, 14, isTick), 14);
  assert.equal(playerTick("last", "", 3, 14, isTick), 14);
  assert.equal(playerTick("go", "9", 3, 14, isTick), 9);
  assert.equal(playerTick("go", "500", 3, 14, isTick), 14);
  assert.equal(playerTick("go", "-1", 3, 14, isTick), null); // no tick: Python says so
  assert.equal(playerTick("go", "9x", 3, 14, isTick), null);
  assert.equal(playerTick("toggle", "", 3, 14, isTick), null); // play waits for Python
});

test("the tour's buttons open the step before or after, within the tour", () => {
  assert.equal(tourStepAfter("next", 1, 9), 2);
  assert.equal(tourStepAfter("back", 2, 9), 1);
  assert.equal(tourStepAfter("back", 1, 9), null);
  assert.equal(tourStepAfter("next", 9, 9), null);
  assert.equal(tourStepAfter("check", 4, 9), null);
});

test("only where the reader ends up counts: a tick replaces the ticks before it, other actions stay", () => {
  let done = [];
  done = remember(done, ["go", "3", ""]);
  done = remember(done, ["set", "fencing=off", ""]);
  done = remember(done, ["go", "5", ""]);
  assert.deepEqual(done, [["set", "fencing=off", ""], ["go", "5", ""]]);
  const before = [["go", "1", ""]];
  remember(before, ["go", "2", ""]);
  assert.deepEqual(before, [["go", "1", ""]]); // the list given is not changed
});

test("the queue for Python keeps the newest within its limit", () => {
  let pending = [];
  for (let n = 0; n < 5; n += 1) pending = enqueue(pending, ["set", `s=${n}`, ""], 3);
  assert.deepEqual(pending.map((e) => e[1]), ["s=2", "s=3", "s=4"]);
  pending = enqueue(pending, ["go", "4", ""], 3);
  assert.deepEqual(pending.map((e) => e[1]), ["s=3", "s=4", "4"]);
});

test("the worker stamps a move of the tick with its time, and keeps the time when the tick stays", () => {
  assert.deepEqual(stamp(undefined, 0, 50), [0, 50]); // a page's first answer puts it on its tick
  assert.deepEqual(stamp([0, 50], 3, 70), [3, 70]);
  assert.deepEqual(stamp([3, 70], 3, 90), [3, 70]); // a switch: the tick did not move
});

test("a frame joining a page keeps its own tick only if it moved after the page did", () => {
  const actions = [["go", "7", ""], ["set", "pins=off", ""]];
  assert.deepEqual(joiningActions(actions, 100, null), actions); // no page yet
  assert.deepEqual(joiningActions(actions, 100, 90), actions);
  assert.deepEqual(joiningActions(actions, 80, 90), [["set", "pins=off", ""]]);
  assert.deepEqual(joiningActions(actions, 90, 90), [["set", "pins=off", ""]]);
});

test("a frame of a group follows the ticks told after its own move, and declines older ones", async () => {
  const { joinGroup } = await import("../../app/views/js/frame.js");
  const went = [];
  const here = joinGroup("test-group", { isTick: (t) => t >= 0, now: () => 0, go: (tick, at) => went.push([tick, at]) });
  const there = joinGroup("test-group", { isTick: (t) => t >= 0, now: () => 0, go: () => {} });
  try {
    there.moved(3, 100);
    await until(() => went.length === 1);
    assert.deepEqual(went, [[3, 100]]);
    here.moved(5, 200); // the reader moves here
    there.moved(4, 150); // a late frame's move, made before it: declined
    there.moved(6, 250); // one sender's messages arrive in order: once this one is here, the 4 was seen
    await until(() => went.length === 2);
    assert.deepEqual(went, [[3, 100], [6, 250]]);
  } finally {
    here.close();
    there.close();
  }
});

test("a host page's ticks, told without a time, are each followed however fast they come", async () => {
  const { joinGroup } = await import("../../app/views/js/frame.js");
  const went = [];
  const here = joinGroup("host-group", { isTick: (t) => t >= 0, now: () => 0, go: (tick) => went.push(tick) });
  const host = new BroadcastChannel("durable-work-explainer:host-group");
  try {
    for (const tick of [4, 5, 6]) host.postMessage({ tick });
    await until(() => went.length === 3);
    assert.deepEqual(went, [4, 5, 6]);
  } finally {
    here.close();
    host.close();
  }
});

test("a pushed move of the tick is taken only if news; a switch is taken whatever the ticks", () => {
  assert.equal(takesPush(1000, { moved: true, at: 1001 }), true);
  assert.equal(takesPush(1000, { moved: true, at: 1000 }), true); // the frame's own move coming back
  assert.equal(takesPush(1002, { moved: true, at: 1001 }), false); // late: a newer move is on its way
  // A switch keeps the group's last move's time, older than a frame that painted later (issue 48).
  assert.equal(takesPush(1002, { moved: false, at: 1001 }), true);
  assert.equal(takesPush(1002, { at: 1001 }), true); // nothing said: not only a move
});

test("a told time is one this browser's clock could give, or none", () => {
  assert.equal(toldAt(1000, 5000), 1000);
  assert.equal(toldAt("1000", 5000), 1000);
  for (const odd of [1e308, Infinity, -Infinity, NaN, -5, 0, "x", null, undefined, 70001]) {
    assert.equal(toldAt(odd, 10000), 0, String(odd));
  }
  assert.equal(toldAt(69999, 10000), 69999); // a minute's skew between frames is allowed
});

test("a page may make the light calls only, with a few short strings", () => {
  assert.equal(refusal("act", ["group:g", "set", "fencing=off", ""]), "");
  assert.equal(refusal("start", ["?tick=8", "", "[]"]), "");
  for (const call of ["destroy", "close", "__call__", "toString", "", undefined]) {
    assert.match(refusal(call, []), /a page may call start, act/);
  }
  assert.match(refusal("act", ["k", 7, "", ""]), /at most 4 strings/);
  assert.match(refusal("act", "k"), /at most 4 strings/);
  assert.match(refusal("start", ["x".repeat(70000), "", "[]"]), /65536 characters/);
  assert.match(refusal("act", ["a", "b", "c", "d", "e"]), /at most 4 strings/);
});

test("a page's calls are counted by the second", () => {
  let record = null;
  let within;
  for (let n = 1; n <= MOST_CALLS_A_SECOND; n += 1) {
    [record, within] = counted(record, 5000 + n);
    assert.equal(within, true);
  }
  [record, within] = counted(record, 5999);
  assert.equal(within, false); // one too many in the same second
  [record, within] = counted(record, 6000);
  assert.equal(within, true); // the next second starts afresh
});

test("what went wrong is one line, whatever was thrown", () => {
  assert.equal(reason(new Error("no wheel")), "no wheel");
  const traceback = "PythonError: Traceback (most recent call last):\n  File \"x.py\", line 1\n"
    + "shutil.ReadError: /tmp/x is not a zip file\n";
  assert.equal(reason({ message: traceback }), "shutil.ReadError: /tmp/x is not a zip file");
  assert.equal(reason({ status: 404, url: "python_stdlib.zip" }), "python_stdlib.zip answered 404");
  assert.equal(reason({ type: "error", target: { src: "a.js" } }), "error event for a.js");
  assert.equal(reason("plain words"), "plain words");
  assert.equal(reason(undefined), "no reason given");
  assert.equal(reason({}), "{}");
  assert.equal(reason("x".repeat(500)).length, 240);
});

test("a group is its name within a host of another origin, and its name within the site's own", async () => {
  const { hostOf, scopedGroup } = await import("../../app/views/js/frame.js");
  const own = "https://explainer.example";
  assert.equal(scopedGroup("g", own, own), "g"); // a host of the site's origin may tell the group itself
  const there = scopedGroup("g", "https://blog.example", own);
  assert.match(there, /^g-[0-9a-f]{8}$/);
  assert.notEqual(there, scopedGroup("g", "https://other.example", own));
  assert.equal(there, scopedGroup("g", "https://blog.example", own)); // the same host, the same group
  assert.match(scopedGroup("x".repeat(40), "https://blog.example", own), /^x{31}-[0-9a-f]{8}$/);
  const framed = { location: { origin: own, ancestorOrigins: ["https://a.example", "https://top.example"] } };
  framed.top = {};
  assert.equal(hostOf(framed), "https://top.example");
  const alone = { location: { origin: own } };
  alone.top = alone;
  assert.equal(hostOf(alone), own);
  assert.equal(hostOf({ top: {}, location: { origin: own }, document: { referrer: "https://r.example/p" } }),
    "https://r.example");
  assert.equal(hostOf(undefined), "");
});

test("presenter mode's overlay replaces the parts it names, tick by tick, and only a fitting one is used", () => {
  const data = { start: 2, fixed: { header: "h", legend: "l" }, ticks: [{ figure: "a0", lead: "x0" }, { figure: "a1", lead: "x1" }] };
  const over = { fixed: { legend: "L" }, ticks: [{ figure: "A0" }, {}] };
  assert.deepEqual(overlaid(data, over), {
    start: 2, fixed: { header: "h", legend: "L" }, ticks: [{ figure: "A0", lead: "x0" }, { figure: "a1", lead: "x1" }],
  });
  assert.deepEqual(overlaid({ ...data, tour: { step: 1 } }, { ...over, tour: { step: 1, big: true } }).tour,
    { step: 1, big: true });
  assert.equal(overlaid(data, null), data); // no overlay fetched: the plain pre-render
  assert.equal(overlaid(data, { fixed: {}, ticks: [{}] }), data); // another build's: not this run's ticks
  assert.equal(overlaid(data, { fixed: {} }), data);
});

test("calls wait their turn: a flood from twenty callers delays another caller's one call by a round", () => {
  const turns = new Turns();
  const done = [];
  for (let caller = 0; caller < 20; caller += 1) {
    for (let n = 0; n < MOST_WAITING + 5; n += 1) {
      const added = turns.add(`flood-${caller}`, () => done.push(`flood-${caller}`));
      assert.equal(added, n < MOST_WAITING); // a caller has at most MOST_WAITING waiting
    }
  }
  turns.add("victim", () => done.push("victim"));
  for (const call of turns.round()) call();
  assert.equal(done.length, 21); // one of each caller's
  assert.ok(done.includes("victim"));
  let rounds = 1;
  while (turns.waiting) {
    for (const call of turns.round()) call();
    rounds += 1;
  }
  assert.equal(rounds, MOST_WAITING); // the flood's own calls, one a round, in the order they came
  assert.equal(done.length, 20 * MOST_WAITING + 1);
  turns.add("gone", () => done.push("gone"));
  turns.forget("gone");
  assert.equal(turns.waiting, false);
});

test("at takeover a reader's newer move wins over Python's first answer, an older one does not", () => {
  assert.equal(takeoverTick(2000, 1000, "7"), "7"); // the reader stepped after Python's page was made
  assert.equal(takeoverTick(1000, 2000, "7"), null); // Python's answer is newer: painted as it is
  assert.equal(takeoverTick(1000, 1000, "7"), null); // the same move: nothing to redo
  assert.equal(takeoverTick(1, undefined, "3"), "3"); // Python said no time: any move of the reader's is newer
  assert.equal(takeoverTick(0, undefined, "3"), null); // nor did the reader move
});

test("the host page's embed.js sizes a frame only from the explainer's own origin, and only to a height", async () => {
  const { readFileSync } = await import("node:fs");
  const vm = await import("node:vm");
  const code = readFileSync(new URL("../../static/embed.js", import.meta.url), "utf8");
  const frame = { contentWindow: {}, style: {} };
  let heard = null;
  vm.runInNewContext(code, {
    URL,
    Number,
    Math,
    document: { currentScript: { src: "https://explainer.example/static/embed.js" }, querySelectorAll: () => [frame] },
    window: { addEventListener: (type, handler) => { heard = handler; } },
  });
  const say = (origin, height, source = frame.contentWindow) =>
    heard({ origin, source, data: { type: "durable-work-explainer:height", height } });
  say("https://elsewhere.example", 400);
  assert.equal(frame.style.height, undefined); // another origin's message: not heeded
  say("https://explainer.example", 612.2);
  assert.equal(frame.style.height, "613px");
  for (const odd of [-5, 0, Infinity, NaN, 1e9, "700"]) say("https://explainer.example", odd);
  assert.equal(frame.style.height, "613px"); // no height a page could not have
  say("https://explainer.example", 500, {}); // from a window that is not this frame's
  assert.equal(frame.style.height, "613px");
});
