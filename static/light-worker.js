// The light explainer's Python, in a worker so the page answers clicks while Pyodide starts: it loads the
// vendored Pyodide, the model and the wheels the page names, says {ready: true}, then answers {id, call, args} with the JSON
// app.light returns. Calls are answered in the order they came.
import { loadPyodide } from "../pyodide/pyodide.mjs";

let light = null;
const started = (async (wheels) => {
  const base = new URL("../", import.meta.url);
  const pyodideURL = new URL("pyodide/", base).href;
  const pyodide = await loadPyodide({ indexURL: pyodideURL, lockFileURL: `${pyodideURL}pyodide-lock.json` });
  await pyodide.loadPackage("durable-work-model", { messageCallback: () => {} });
  for (const wheel of await wheels) {
    const response = await fetch(new URL(`light/wheels/${wheel}`, base));
    if (!response.ok) throw new Error(`the wheel ${wheel} could not be fetched (${response.status})`);
    pyodide.unpackArchive(await response.arrayBuffer(), "wheel");
  }
  light = pyodide.pyimport("app.light");
})(new Promise((resolve) => { self.wheels = resolve; }));
started.then(() => self.postMessage({ ready: true }), (error) => self.postMessage({ error: String(error) }));

self.onmessage = async (event) => {
  const { id, call, args } = event.data;
  if (call === "wheels") {
    self.wheels(args);
    return;
  }
  try {
    await started;
    self.postMessage({ id, json: light[call](...args) });
  } catch (error) {
    self.postMessage({ id, error: String(error) });
  }
};
