// Python in a worker (static/light-worker.js: the vendored Pyodide, the model, and the wheels named):
// startPython returns ask(call, args), which resolves with the JSON app.light's function returns. Calls
// made before Python is ready wait for it, and are answered in the order they were made.
export function startPython(wheels, { onReady = () => {}, onFailure = () => {} } = {}) {
  const worker = new Worker(new URL("light-worker.js", import.meta.url), { type: "module" });
  const waiting = new Map();
  let calls = 0;
  worker.onmessage = (event) => {
    const { id, json, error, ready } = event.data;
    if (ready) onReady();
    if (id === undefined) {
      if (error) onFailure(error);
      return;
    }
    const call = waiting.get(id);
    waiting.delete(id);
    if (error) call.reject(error);
    else call.resolve(JSON.parse(json));
  };
  worker.onerror = (event) => onFailure(event.message || "the worker stopped");
  worker.postMessage({ call: "wheels", args: wheels });
  return (call, args) =>
    new Promise((resolve, reject) => {
      calls += 1;
      waiting.set(calls, { resolve, reject });
      worker.postMessage({ id: calls, call, args });
    });
}
