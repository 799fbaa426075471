// Python in a worker (static/light-worker.js: the vendored Pyodide, the model, and the wheels the build's
// manifest lists, which the worker reads itself).
// onReady({restored}) says whether it came from the build's memory snapshot. startPython returns { ask, tell, shared }: ask(call, args) resolves with the JSON app.light's function
// returns; tell(call, args) expects no answer. Calls made before Python is ready wait for it, and are
// answered in the order they were made.
//
// Where the browser has SharedWorker, every page and frame of the site's origin talks to one worker,
// one Pyodide (``shared`` is true); elsewhere, and for work that would hold the others up (``shared:
// false``: the explore page's long search), each page starts its own. What another caller did to a page
// this one shows arrives as onPush(json).
//
// A browser may have SharedWorker and still refuse one: a frame in another site's article, where
// third-party storage is blocked, gets a worker that fails at once (new Worker works there). A shared
// worker that fails before it has answered anything is replaced by a page's own, which is sent every
// message the shared one was sent, so nothing the reader did is lost.
//
// ``answerWithin`` (ms; 0: no limit): once Python is ready, a call left unanswered that long means the
// worker has gone (killed, or its tab crashed out of memory: nothing else tells a port), and onFailure is
// told once, rather than every later move waiting in silence. A page that asks nothing meanwhile pings
// the worker (answered without Python), so a frame nobody touches notices too.
export function startPython({ onReady = () => {}, onFailure = () => {}, onPush = () => {}, shared = true, answerWithin = 0 } = {}) {
  const url = new URL("light-worker.js", import.meta.url);
  const waiting = new Map();
  const sent = []; // every message, until the worker has answered one: what a replacement is sent again
  let calls = 0;
  let answered = false;
  let readyAt = null; // when Python said it was ready: a call's wait is counted from then at the earliest
  let gone = false;
  let useShared = shared && typeof SharedWorker === "function";
  let port;

  const onmessage = (event) => {
    answered = true;
    sent.length = 0;
    const { id, json, error, ready, restored, push, at } = event.data;
    if (ready) {
      readyAt = performance.now();
      onReady({ restored });
    }
    if (push !== undefined) onPush({ ...JSON.parse(push), at });
    if (id === undefined) {
      if (error) onFailure(error);
      return;
    }
    const call = waiting.get(id);
    waiting.delete(id);
    if (error) call.reject(error);
    else call.resolve({ ...JSON.parse(json), at });
  };
  const ownWorker = () => {
    useShared = false;
    const worker = new Worker(url, { type: "module" });
    worker.onmessage = onmessage;
    worker.onerror = (event) => onFailure(event.message || "the worker stopped");
    port = worker;
    for (const message of sent) port.postMessage(message);
  };
  const sharedWorker = () => {
    const worker = new SharedWorker(url, { type: "module", name: "durable-work-explainer" });
    port = worker.port;
    port.onmessage = onmessage;
    worker.onerror = (event) => {
      if (!answered) ownWorker(); // refused here (third-party storage blocked): a page's own instead
      else onFailure(event.message || "the worker stopped");
    };
  };
  try {
    if (useShared) sharedWorker();
    else ownWorker();
  } catch {
    ownWorker(); // new SharedWorker itself may throw (a SecurityError in some browsers)
  }
  const post = (message) => {
    if (!answered) sent.push(message);
    port.postMessage(message);
  };
  post({ call: "hello" }); // every caller says it first: it is then told when Python is ready, or why not
  // ``at``: when the reader made the move a call carries (see light-worker.js); now, if not given.
  const ask = (call, args, at = Date.now()) =>
    new Promise((resolve, reject) => {
      calls += 1;
      waiting.set(calls, { resolve, reject, sent: performance.now() });
      post({ id: calls, call, args, at });
    });
  const tell = (call, args = []) => post({ call, args });
  let pinged = 0;
  if (answerWithin > 0) {
    const watch = setInterval(() => {
      if (readyAt === null || gone) return;
      const now = performance.now();
      if (waiting.size === 0 && now - pinged > answerWithin / 4) {
        pinged = now;
        ask("ping", []).catch(() => {});
      }
      const late = [...waiting.values()].some((c) => now - Math.max(c.sent, readyAt) > answerWithin);
      if (!late) return;
      gone = true;
      clearInterval(watch);
      const why = `Python stopped answering (nothing for ${answerWithin / 1000} s)`;
      for (const call of waiting.values()) call.reject(why);
      waiting.clear();
      onFailure(why);
    }, 1000);
  }
  return {
    ask,
    tell,
    get shared() {
      return useShared;
    },
  };
}
