// Runs the model in Pyodide, vendored on this site, and compares digests with CPython's build-time ones.
import { loadPyodide } from "../pyodide/pyodide.mjs";

const expected = JSON.parse(document.getElementById("expected").textContent);
const status = document.getElementById("selfcheck-status");
const say = (text) => { status.lastChild.textContent = ` ${text}`; };

const PROGRAM = `
import json, sys, time
from model.analyses import fingerprint, sweep, sweep_summary
start = time.perf_counter()
rows = sweep()  # the 864, run once: the digest and the summary both read them
json.dumps({
    **fingerprint(rows),
    "summary": sweep_summary(rows),
    "python": sys.version.split()[0],
    "seconds": round(time.perf_counter() - start, 3),
})
`;

function mark(id, same) {
  const cell = document.getElementById(id);
  cell.textContent = same ? "✔ same" : "✖ different";
  cell.className = same ? "same" : "different";
}

try {
  const started = performance.now();
  say("Loading Python (Pyodide) from this site…");
  const base = new URL("../pyodide/", import.meta.url).href;
  const pyodide = await loadPyodide({ indexURL: base, lockFileURL: base + "pyodide-lock.json" });
  say("Installing the model wheel…");
  await pyodide.loadPackage("durable-work-model");
  say(`Running all ${expected.runs} combinations…`);
  const got = JSON.parse(pyodide.runPython(PROGRAM));
  document.getElementById("sweep-digest").innerHTML = `<code>${got.sweep_digest.slice(0, 16)}</code>`;
  document.getElementById("trace-digest").innerHTML = `<code>${got.main_trace_digest.slice(0, 16)}</code>`;
  const sweepSame = got.sweep_digest === expected.sweep_digest;
  const traceSame = got.main_trace_digest === expected.main_trace_digest;
  mark("sweep-same", sweepSame);
  mark("trace-same", traceSame);
  const rows = Object.entries(got.summary.breaks).map(([id, n]) => `<li>${id}: broken in ${n}</li>`).join("");
  document.getElementById("summary").innerHTML =
    `<p>${got.summary.runs} combinations: ${got.summary.no_invariant_broken} break nothing, ` +
    `${got.summary.finished} finish.</p><ul>${rows}</ul>`;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const parity = sweepSame && traceSame;
  status.classList.add(parity ? "ok" : "bad");
  status.textContent = parity
    ? `✔ Parity: Python ${got.python} in this browser gives the same bytes as CPython ${expected.python} ` +
      `(the model ran in ${got.seconds} s; ${seconds} s in all).`
    : "✖ The browser's results differ from CPython's.";
  document.body.dataset.parity = parity ? "same" : "different";
  document.body.dataset.seconds = seconds;
} catch (error) {
  status.classList.add("bad");
  status.textContent = `✖ The self-check could not run: ${error}`;
  document.body.dataset.parity = "error";
}
