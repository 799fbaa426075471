// Runs the built model wheel in Node with the npm pyodide package, through the site's own lock file,
// and prints what CPython is compared with: the 864 outcomes, the full main trace, one protection setting
// against the explorer's whole space, and the trace of its smallest double-acceptance case, as JSON text.
//   node pyodide_model.mjs <site/pyodide directory>
import { pathToFileURL } from "node:url";
import { join, resolve } from "node:path";

const dir = resolve(process.argv[2]);
const { loadPyodide } = await import(pathToFileURL(join(dir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: dir + "/", lockFileURL: join(dir, "pyodide-lock.json"), stdout: () => {} });
await pyodide.loadPackage("durable-work-model", { messageCallback: () => {} });
const out = pyodide.runPython(`
import json, sys
from model import Switches, dumps, run, trace_dict
from model.analyses import fingerprint, sweep
from model.explore import explore_setting
from model.schedule import Schedule
row = explore_setting({"fencing": "off", "checkpoints": "every-step", "pins": "on",
                       "newsletter": "current-accepted", "post_key": "per-operation"})
case = Schedule().with_values(row["smallest"]["double-acceptance"]["schedule"])
json.dumps({"python": sys.version.split()[0], "sweep": dumps(sweep()), "main_trace": dumps(trace_dict(run(Switches()))),
            "fingerprint": fingerprint(), "explore_row": dumps(row),
            "case_trace": dumps(trace_dict(run(Switches(fencing="off"), schedule=case)))})
`);
process.stdout.write(out);
