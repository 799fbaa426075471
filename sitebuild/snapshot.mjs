// Pyodide's memory snapshot of an interpreter that has imported the model and param, made at site build
// time so that the light page's worker restores it instead of starting Python and importing them (about
// 1.6 s less before Python takes over). No JavaScript object may be held when the snapshot is taken, so
// the wheels are unpacked rather than loaded through the package manager.
//   node sitebuild/snapshot.mjs <site directory> <output file>
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { xorCoreData } from "../app/views/js/core_data.js";
import { zeroFreeMemory } from "./free_memory.mjs";

const site = resolve(process.argv[2]);
const pyodideDir = join(site, "pyodide");
const { loadPyodide } = await import(pathToFileURL(join(pyodideDir, "pyodide.mjs")).href);
const lock = JSON.parse(readFileSync(join(pyodideDir, "pyodide-lock.json"), "utf8"));
const manifest = JSON.parse(readFileSync(join(site, "light", "manifest.json"), "utf8"));
const wheels = [
  join(pyodideDir, lock.packages["durable-work-model"].file_name),
  ...manifest.wheels.map((name) => join(site, "light", "wheels", name)),
];
// A fixed hash seed: with a random one the same imports left anywhere from 1.5 MiB to nothing of the first
// memory free (dicts and sets grow at different moments), so a build failed now and then; with this one
// the imports leave the same 1.5 MiB every time.
const pyodide = await loadPyodide({
  indexURL: pyodideDir + "/", _makeSnapshot: true, stdout: () => {}, env: { PYTHONHASHSEED: "0" },
});
const MEMORY = pyodide._module.HEAP8.length;
// Where the worker will put them after restoring: the model where loadPackage installs it (site-packages),
// the others where its unpackArchive does (the working directory). The restored memory remembers where
// each package was imported from, and the files must be found there again.
const sitePackages = pyodide.runPython("import sysconfig\nsysconfig.get_path('purelib')");
pyodide.unpackArchive(new Uint8Array(readFileSync(wheels[0])), "wheel", { extractDir: sitePackages });
for (const wheel of wheels.slice(1)) pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel");
// Import what the first call needs, as far as Pyodide's first memory holds it: the wasm module fixes that
// memory (30 MiB), and a snapshot of a memory that had to grow cannot be restored ("offset is out of
// bounds"). The model and param fit; markdown-it-py and the app's renderers would not. Param first, and
// the garbage collected after each: the other way round the imports left about 1.3 MiB free, and
// compiling a module on top of that grew the memory in one build out of several (which one depended on
// the model's code to the byte); this way about 2.2 MiB is left, measured on both.
pyodide.runPython("import gc\nimport param\ngc.collect()\nimport model.explore\ngc.collect()\nNone");
zeroFreeMemory(pyodide._module);
if (pyodide._module.HEAP8.length > MEMORY) throw new Error("the snapshot's memory grew: it could not be restored");
// Stored as its XOR with the core's data segments (app/views/js/core_data.js), which the worker undoes.
const core = new Uint8Array(readFileSync(join(pyodideDir, "pyodide.asm.wasm")));
writeFileSync(process.argv[3], xorCoreData(pyodide.makeMemorySnapshot(), core));
