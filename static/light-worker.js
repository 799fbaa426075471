// The light explainer's Python: one Pyodide for every page and frame of the site's origin in one browser
// (a SharedWorker; where the browser has none, static/python.js starts this as a dedicated worker, one
// a page). Once a caller says hello ({call: "hello"}), it loads the vendored Pyodide, the model and the wheels
// the build's manifest lists, says {ready: true} to every caller, then answers {id, call, args} with the
// JSON app.light returns: only the calls a page may make, so many a second (moves.js's refusal, counted).
//
// A page of app.light has a key: one a frame, or one a ?group= (a group is one state). What a caller
// does to a key is pushed ({push: json, at}) to the other callers of that key, so every frame of a group
// redraws, and a key's playback is timed here, once, however many frames show it. ``at`` is when the
// move to the tick shown was made, in the frame where the reader made it: news is what is newer.
import { loadPyodide } from "../pyodide/pyodide.mjs";
import { xorCoreData } from "./core_data.js";
import { Turns, counted, isNews, joiningActions, reason, refusal, stamp, toldAt } from "./moves.js";

let light = null;
let restored = false; // whether Python came from the build's snapshot
let askStart = null;
const startAsked = new Promise((resolve) => { askStart = resolve; });
// How long Python may take to start before the callers are told it failed: a core that never arrives
// whole (a truncated pyodide.asm.wasm, a 404 for it) left pages loading for minutes without a word.
const START_LIMIT_MS = 90000;
let starting = null; // the start under way or done; after a failure, the next caller tries afresh

// Python, started once (a failed download is not remembered: one 503 broke every page of the site until
// every tab was closed, since a shared worker outlives the page that started it).
function started() {
  if (!starting) {
    let timer;
    const limit = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Python did not start within ${START_LIMIT_MS / 1000} s`)),
        START_LIMIT_MS);
    });
    starting = Promise.race([start(), limit]).finally(() => clearTimeout(timer));
    starting.catch(() => { starting = null; });
  }
  return starting;
}

async function start() {
  await startAsked;
  const base = new URL("../", import.meta.url);
  // The wheels the build made, by the site's own list: not by a page's word (a page of the origin that
  // named none left every page without the app).
  const listed = await fetch(new URL("light/manifest.json", base));
  if (!listed.ok) throw new Error(`light/manifest.json could not be fetched (${listed.status})`);
  const { wheels } = await listed.json();
  const pyodideURL = new URL("pyodide/", base).href;
  const options = { indexURL: pyodideURL, lockFileURL: `${pyodideURL}pyodide-lock.json` };
  // The files a memory does not hold (the model's, the app's words, the other wheels), then app.light.
  const boot = async (pyodide) => {
    await pyodide.loadPackage("durable-work-model", { messageCallback: () => {} });
    for (const wheel of wheels) {
      const response = await fetch(new URL(`light/wheels/${wheel}`, base));
      if (!response.ok) throw new Error(`the wheel ${wheel} could not be fetched (${response.status})`);
      try {
        pyodide.unpackArchive(await response.arrayBuffer(), "wheel");
      } catch (error) {
        throw new Error(`the wheel ${wheel} could not be unpacked (${reason(error)})`);
      }
    }
    const app = pyodide.pyimport("app.light");
    app.warm(); // a switch's code run once before the reader's first: see app.light.warm
    return app;
  };
  const snapshot = await restore(options, new URL("light/snapshot.bin.gz", base));
  if (snapshot) {
    try {
      light = await boot(snapshot);
      restored = true;
      return;
    } catch {
      // A snapshot that restored but does not match its files: start Python the usual way instead.
    }
  }
  try {
    light = await boot(await loadPyodide(options));
  } catch (error) {
    throw new Error(await whyNot(pyodideURL, error));
  }
}

// Why Python could not start: a core file the server would not give (Pyodide itself says only "Program
// terminated with exit(1)" when python_stdlib.zip is missing), else what was thrown, in a line.
async function whyNot(pyodideURL, error) {
  for (const name of ["pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]) {
    const answer = await fetch(new URL(name, pyodideURL)).catch(() => null);
    answer?.body?.cancel(); // only whether it is there counts
    if (!answer?.ok) return `${name} could not be fetched (${answer ? answer.status : "no answer"})`;
  }
  return reason(error);
}

// The build's memory snapshot of a Python that has imported the model and param (about 1.6 s sooner
// than starting one and importing them, for 8 MB more), fetched while Pyodide's core is; null where it
// cannot be had or restored, or where the reader's browser asks to save data. (Not the connection's
// estimated type: Chromium guessed "3g" on a loaded machine fetching from localhost.)
async function restore(options, url) {
  if (self.navigator.connection?.saveData) return null;
  if (typeof DecompressionStream !== "function") return null;
  const core = readCoreOnce(new URL("pyodide.asm.wasm", options.indexURL).href);
  try {
    // Only the answer's headers are awaited: its body comes in while Pyodide's core does.
    const response = await fetch(url);
    if (!response.ok) return null;
    const stored = new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
    // Stored as its XOR with the core's data segments (core_data.js): made whole from the core's bytes.
    const image = Promise.all([stored, core.bytes]).then(([s, c]) => xorCoreData(new Uint8Array(s), c));
    return await loadPyodide({ ...options, _loadSnapshot: image });
  } catch {
    return null;
  } finally {
    core.release();
  }
}

// Pyodide's own request for its core (pyodide.asm.wasm), read for two: Pyodide compiles the answer, and
// ``bytes`` gets the same bytes, so the core is downloaded once. Pyodide asks for it before it waits for
// the snapshot, and compiles it only after, so nothing waits on anything that waits on it.
function readCoreOnce(coreURL) {
  const plain = self.fetch;
  let settle;
  const bytes = new Promise((resolve, reject) => { settle = { resolve, reject }; });
  bytes.catch(() => {}); // a failure is the snapshot's, which falls back; never an unhandled rejection
  self.fetch = async (resource, init) => {
    if (String(resource?.url ?? resource) !== coreURL) return plain.call(self, resource, init);
    self.fetch = plain;
    try {
      const answer = await plain.call(self, resource, init);
      if (!answer.ok || !answer.body) throw new Error(`pyodide.asm.wasm could not be fetched (${answer.status})`);
      const [forPyodide, forSnapshot] = answer.body.tee();
      new Response(forSnapshot).arrayBuffer().then((b) => settle.resolve(new Uint8Array(b)), settle.reject);
      return new Response(forPyodide, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
    } catch (error) {
      settle.reject(error);
      throw error;
    }
  };
  return { bytes, release: () => { if (self.fetch !== plain) self.fetch = plain; settle.reject(new Error("not asked")); } };
}

const members = new Map(); // key -> the callers (ports) showing it
const players = new Map(); // key -> the timer of its next tick while it plays
// key -> [tick, when the move to it was made (Date.now() of the frame where the reader made it)]: so a
// frame can tell a late told tick from news, and a frame joining a group its own older ticks.
const moves = new Map();

function join(key, port) {
  if (!members.has(key)) members.set(key, new Set());
  members.get(key).add(port);
}

function leave(key, port) {
  const ports = members.get(key);
  if (!ports) return;
  ports.delete(port);
  if (ports.size) return;
  members.delete(key);
  moves.delete(key);
  clearTimeout(players.get(key));
  players.delete(key);
  light.close(key);
}


// While the reader reads, the runs a click on a row of the diagram would ask for are made, one a task
// (app.light.prepare), from a quarter second after the last call on: a call that comes meanwhile waits
// for one run at most, and a reader clicking on and on is not made to wait at all.
let preparing = null;
function prepareSoon(key) {
  clearTimeout(preparing);
  const step = () => {
    let more = false;
    try {
      more = members.has(key) && light.prepare(key);
    } catch {
      // Only time is lost: the click makes its run itself.
    }
    preparing = more ? setTimeout(step, 0) : null;
  };
  preparing = setTimeout(step, 250);
}

// After every call on a key: the other callers of the key are told, and the key plays on, or stops.
function after(key, json, from, at) {
  const { tick, playing, period } = JSON.parse(json);
  moves.set(key, stamp(moves.get(key), tick, at));
  const moved = moves.get(key)[1]; // when the move that put the key on its tick was made
  for (const port of members.get(key) || []) if (port !== from) port.postMessage({ push: json, at: moved });
  clearTimeout(players.get(key));
  prepareSoon(key);
  if (playing && members.has(key)) {
    players.set(key, setTimeout(() => after(key, light.act(key, "advance", "", ""), null, Date.now()), period));
  } else {
    players.delete(key);
  }
  return moved;
}

// A frame joining a page that exists: its own tick moves are kept only if newer than the page's last.
function joining(key, args, at) {
  const actions = JSON.parse(args[2] || "[]");
  return [args[0], args[1], JSON.stringify(joiningActions(actions, at, moves.get(key)?.[1] ?? null))];
}

// The calls waiting for Python, taken a round at a time (moves.js's Turns): a flood from some callers
// costs another caller one call of each of them at most, not all of theirs.
const turns = new Turns();
let taking = false;
function take() {
  for (const call of turns.round()) call();
  if (turns.waiting) setTimeout(take, 0); // what arrived meanwhile joins the queues before the next round
  else taking = false;
}
function wait(port, call) {
  if (!turns.add(port, call)) return false;
  if (!taking) {
    taking = true;
    setTimeout(take, 0);
  }
  return true;
}

function serve(port) {
  let greeted = false;
  let calls = null; // this caller's calls in the current second (moves.counted)
  const keys = new Set(); // what this caller showed, left when it says goodbye
  // Every caller says hello first: then it is told when Python is ready, or why it is not.
  const answer = () => started().then(
    () => port.postMessage({ ready: true, restored }),
    (error) => port.postMessage({ error: reason(error) }),
  );
  port.onmessage = async (event) => {
    const { id, call, args } = event.data || {};
    // When the move a call carries was made: 0 for none (a page's link as it opened), and a time no clock
    // gives is taken as none too; a caller that does not say is taken as moving now.
    const at = event.data?.at === undefined ? Date.now() : toldAt(event.data.at);
    if (call === "hello") {
      if (askStart) {
        askStart(); // the first caller starts Python for every caller
        askStart = null;
      }
      if (!greeted) {
        port.postMessage({ hello: true }); // at once: the caller knows this worker runs (python.js)
        answer();
      }
      greeted = true;
      return;
    }
    if (call === "connect") { // a frame that runs Python for others (python.js's Relay): a caller's port
      if (event.ports?.[0]) serve(event.ports[0]);
      return;
    }
    if (call === "ping") { // a page making sure its worker still answers: Python is not asked
      port.postMessage({ id, json: "{}" });
      return;
    }
    if (call === "bye") {
      await started().catch(() => {});
      turns.forget(port);
      for (const key of keys) leave(key, port);
      keys.clear();
      return;
    }
    const refused = refusal(call, args);
    let within;
    [calls, within] = counted(calls, Date.now());
    if (refused || !within) {
      port.postMessage({ id, error: refused || "too many calls from this page: one second's wait" });
      return;
    }
    try {
      await started();
    } catch (error) {
      port.postMessage({ id, error: reason(error) });
      return;
    }
    if (!wait(port, () => answerCall(port, keys, { id, call, args, at }))) {
      port.postMessage({ id, error: "too many calls waiting from this page: one second's wait" });
    }
  };
}

// One call, in its turn: app.light's answer to the caller, and to the other callers of its page.
function answerCall(port, keys, { id, call, args, at }) {
  try {
    const group = call === "start" && args[1] ? `group:${args[1]}` : null;
    if (call === "act" && args[1] === "go" && moves.has(args[0]) && isNews(moves.get(args[0])[1], at)) {
      args[1] = ""; // a told tick older than the page's last move: answered with the page as it is
    }
    // A search says how far it has come as it goes: posted now, read by the page while Python works on.
    const told = call === "wider_search" ? [(...now) => port.postMessage({ id, progress: now })] : [];
    const json = light[call](...(group ? joining(group, args, at) : args), ...told);
    if (call === "start" || call === "act") {
      const { key } = JSON.parse(json);
      if (!keys.has(key)) { keys.add(key); join(key, port); }
      const moved = after(key, json, port, at);
      port.postMessage({ id, json, at: moved });
    } else {
      port.postMessage({ id, json });
    }
  } catch (error) {
    port.postMessage({ id, error: reason(error) });
  }
}

if (typeof SharedWorkerGlobalScope !== "undefined" && self instanceof SharedWorkerGlobalScope) {
  self.onconnect = (event) => serve(event.ports[0]);
} else {
  serve(self);
}
