// Python in a worker (static/light-worker.js: the vendored Pyodide, the model, and the wheels named).
// onReady({restored}) says whether it came from the build's memory snapshot. startPython returns { ask, tell, shared }: ask(call, args) resolves with the JSON app.light's function
// returns; tell(call, args) expects no answer. Calls made before Python is ready wait for it, and are
// answered in the order they were made.
//
// Where the browser has SharedWorker, every page and frame of the site's origin talks to one worker,
// one Pyodide (``shared`` is true); elsewhere, and for work that would hold the others up (``shared:
// false``: the explore page's long search), each page starts its own. What another caller did to a page
// this one shows arrives as onPush(json).
export function startPython(wheels, { onReady = () => {}, onFailure = () => {}, onPush = () => {}, shared = true } = {}) {
  const url = new URL("light-worker.js", import.meta.url);
  const useShared = shared && typeof SharedWorker === "function";
  const worker = useShared
    ? new SharedWorker(url, { type: "module", name: "durable-work-explainer" })
    : new Worker(url, { type: "module" });
  const port = useShared ? worker.port : worker;
  const waiting = new Map();
  let calls = 0;
  port.onmessage = (event) => {
    const { id, json, error, ready, restored, push, at } = event.data;
    if (ready) onReady({ restored });
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
  worker.onerror = (event) => onFailure(event.message || "the worker stopped");
  port.postMessage({ call: "wheels", args: wheels });
  // ``at``: when the reader made the move a call carries (see light-worker.js); now, if not given.
  const ask = (call, args, at = Date.now()) =>
    new Promise((resolve, reject) => {
      calls += 1;
      waiting.set(calls, { resolve, reject });
      port.postMessage({ id: calls, call, args, at });
    });
  const tell = (call, args = []) => port.postMessage({ call, args });
  return { ask, tell, shared: useShared };
}
