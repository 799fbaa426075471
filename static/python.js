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
// third-party storage is blocked, gets a worker that fails at once (new Worker works there). Its frames
// then still share one Python (``Relay``): one of them, chosen with a Web Lock, runs it in a worker of its
// own, and the others speak to it over a BroadcastChannel (both work in such a frame, within the
// article's page); when that frame goes, the next takes over, and every frame starts its page again in
// the new Python where its reader was. Where neither is to be had, a page starts its own worker. Either
// way the replacement is sent every message the shared one was sent, so nothing the reader did is lost.
//
// ``answerWithin`` (ms; 0: no limit): once Python is ready, a call left unanswered that long means the
// worker has gone (killed, or its tab crashed out of memory: nothing else tells a port), and onFailure is
// told once, rather than every later move waiting in silence. A page that asks nothing meanwhile pings
// the worker (answered without Python), so a frame nobody touches notices too.
// How long a shared worker may take to answer a hello (it does so before starting Python) before it is
// taken as refused.
const HELLO_WITHIN = 3000;

export function startPython({ onReady = () => {}, onFailure = () => {}, onPush = () => {}, shared = true, answerWithin = 0 } = {}) {
  const url = new URL("light-worker.js", import.meta.url);
  const waiting = new Map();
  const sent = []; // every message, until the worker has answered one: what a replacement is sent again
  let calls = 0;
  let answered = false;
  let readyAt = null; // when Python said it was ready: a call's wait is counted from then at the earliest
  let gone = false;
  let useShared = shared && typeof SharedWorker === "function";
  let how = useShared ? "shared" : "own"; // or "relayed": another frame of the page runs Python
  let port;

  const onmessage = (event) => {
    answered = true;
    sent.length = 0;
    const { id, json, error, ready, restored, push, at, hello, progress } = event.data;
    if (hello) return; // the worker runs: nothing else to do
    if (progress) {
      waiting.get(id)?.onProgress?.(...progress); // how far a long call has come: it is still to answer
      return;
    }
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
  const relayed = () => {
    how = "relayed";
    port = theRelay(url).connect(onmessage, (why) => {
      for (const call of waiting.values()) call.reject(why);
      waiting.clear();
      onFailure(why, { leaderGone: true }); // the frame that ran Python went: a page starts again, no reload
    });
    for (const message of sent) port.postMessage(message);
  };
  const ownWorker = () => {
    if (useShared && Relay.possible()) {
      relayed();
      return;
    }
    useShared = false;
    how = "own";
    const worker = new Worker(url, { type: "module" });
    worker.onmessage = onmessage;
    worker.onerror = (event) => onFailure(event.message || "the worker stopped");
    port = worker;
    for (const message of sent) port.postMessage(message);
  };
  const sharedWorker = () => {
    const worker = new SharedWorker(url, { type: "module", name: "durable-work-explainer" });
    const shared = worker.port;
    port = shared;
    shared.onmessage = onmessage;
    // Refused here (a frame in another site's article whose browser blocks third-party storage): the
    // worker fails at once, or never runs at all (it answers a hello at once when it does).
    const refused = () => {
      if (answered || port !== shared) return;
      shared.onmessage = null;
      shared.close();
      ownWorker();
    };
    worker.onerror = (event) => {
      if (!answered) refused();
      else onFailure(event.message || "the worker stopped");
    };
    setTimeout(refused, HELLO_WITHIN);
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
  // ``onProgress(...)``: told as a long call goes (the explore page's search: done, in all, in words).
  const ask = (call, args, at = Date.now(), onProgress = null) =>
    new Promise((resolve, reject) => {
      calls += 1;
      waiting.set(calls, { resolve, reject, onProgress, sent: performance.now() });
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
    get how() {
      return how;
    },
  };
}

// --- one Python for the frames of a page that refuses them a shared worker ---------------------------------

const ELECTION = "durable-work-python"; // the BroadcastChannel's name
const SETTLE_MS = 400; // how long a frame listens for a leader, then for a better claim, before it leads
const BEAT_MS = 1000; // the leader says so this often; a follower that hears nothing for four beats elects
let relay = null;

function theRelay(url) {
  if (!relay) {
    relay = new Relay(url);
    globalThis.durableWorkRelay = relay; // what a test asks: which frame leads
  }
  return relay;
}

// The frames of one page (an article on another site, whose browser refuses them a shared worker and the
// Web Locks that would elect one of them) around one Python, over a BroadcastChannel, which such a frame
// still has: a frame asks who leads; hearing no one, it claims, and leads unless a frame with a smaller id
// claimed meanwhile. The leader runs light-worker.js in a worker of its own and connects each caller (its
// own and the other frames', told apart by an id) as a port of its own, as a shared worker would, and says
// it leads every second; the others send their callers' messages up to it and hear the answers come down.
// Messages sent while no frame leads wait, and go once one does. When the leader goes (it says so, or
// falls silent), the frames elect another, and each caller is told, to start its page again there.
class Relay {
  static possible() {
    return typeof BroadcastChannel === "function";
  }

  constructor(url) {
    this.url = url;
    this.me = `${Date.now().toString(36)}-${crypto.randomUUID()}`; // the earlier frame wins a tie
    this.leader = null; // the frame that leads (this.me when this one does)
    this.claim = null; // this frame's claim while it waits to lead
    this.callers = new Map(); // this frame's callers: id -> { onmessage, onclose, queue }
    this.ports = new Map(); // when leading: every caller's id -> its port to the worker
    this.count = 0;
    this.heardAt = 0;
    this.channel = new BroadcastChannel(ELECTION);
    this.channel.onmessage = (event) => this.heard(event.data || {});
    addEventListener("pagehide", () => {
      if (this.leader === this.me) this.channel.postMessage({ gone: this.me });
    });
    setInterval(() => this.beat(), BEAT_MS);
    this.elect();
  }

  // A caller of this frame: its messages go to Python, Python's answers to ``onmessage``; ``onclose`` is
  // told if the frame that runs Python goes.
  connect(onmessage, onclose) {
    this.count += 1;
    const id = `${this.me}/${this.count}`;
    this.callers.set(id, { onmessage, onclose, queue: [] });
    return { postMessage: (message) => this.up(id, message) };
  }

  up(id, message) {
    if (this.leader === this.me) this.portOf(id).postMessage(message);
    else if (this.leader) this.channel.postMessage({ up: id, to: this.leader, message });
    else this.callers.get(id)?.queue.push(message);
  }

  heard(said) {
    if (said.down) {
      this.callers.get(said.down)?.onmessage({ data: said.data });
    } else if (said.up) {
      if (said.to === this.me && this.leader === this.me) this.portOf(said.up).postMessage(said.message);
    } else if (said.who || said.claim) {
      if (this.leader === this.me) this.channel.postMessage({ leader: this.me });
      else if (said.claim && this.claim && said.claim < this.claim) this.claim = null; // it goes first
    } else if (said.leader) {
      this.heardLeader(said.leader);
    } else if (said.gone && said.gone === this.leader) {
      this.lost();
      this.elect();
    }
  }

  heardLeader(leader) {
    this.heardAt = performance.now();
    this.claim = null;
    if (leader === this.leader) return;
    if (this.leader === this.me) {
      if (leader > this.me) { // two leaders (each missed the other's claim): the earlier keeps leading
        this.channel.postMessage({ leader: this.me });
        return;
      }
      this.worker.terminate();
      this.ports.clear();
    }
    if (this.leader) this.lost();
    this.leader = leader;
    this.flush();
  }

  // Ask who leads; if no one answers, claim; if no earlier frame claims meanwhile, lead.
  elect() {
    this.channel.postMessage({ who: this.me });
    setTimeout(() => {
      if (this.leader) return;
      this.claim = this.me;
      this.channel.postMessage({ claim: this.me });
      setTimeout(() => {
        if (this.claim === this.me && !this.leader) this.lead();
      }, SETTLE_MS);
    }, SETTLE_MS);
  }

  beat() {
    if (this.leader === this.me) this.channel.postMessage({ leader: this.me });
    else if (this.leader && performance.now() - this.heardAt > 4 * BEAT_MS) { // it went without a word
      this.lost();
      this.elect();
    }
  }

  // The frame that ran Python went: every caller here is told, and starts again (connecting anew).
  lost() {
    this.leader = null;
    const callers = [...this.callers.values()];
    this.callers.clear();
    for (const caller of callers) caller.onclose("the figure that ran Python has gone; starting it again");
  }

  lead() {
    this.worker = new Worker(this.url, { type: "module" });
    this.leader = this.me;
    this.claim = null;
    this.channel.postMessage({ leader: this.me });
    this.flush();
  }

  flush() {
    for (const [id, caller] of this.callers) for (const message of caller.queue.splice(0)) this.up(id, message);
  }

  // When leading: a caller's own port to the worker (connected the first time it speaks).
  portOf(id) {
    if (!this.ports.has(id)) {
      const pipe = new MessageChannel();
      this.worker.postMessage({ call: "connect" }, [pipe.port2]);
      pipe.port1.onmessage = (event) => {
        if (this.callers.has(id)) this.callers.get(id).onmessage(event);
        else this.channel.postMessage({ down: id, data: event.data });
      };
      this.ports.set(id, pipe.port1);
    }
    return this.ports.get(id);
  }
}
