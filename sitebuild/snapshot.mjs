// Pyodide's memory snapshot of an interpreter that has imported the model and app.light, made at site
// build time so that the light page's worker restores it instead of starting Python and importing them
// (about 2 s less before Python takes over). No JavaScript object may be held when the snapshot is
// taken, so the wheels are unpacked rather than loaded through the package manager.
//   node sitebuild/snapshot.mjs <site directory> <output file>
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const site = resolve(process.argv[2]);
const pyodideDir = join(site, "pyodide");
const { loadPyodide } = await import(pathToFileURL(join(pyodideDir, "pyodide.mjs")).href);
const lock = JSON.parse(readFileSync(join(pyodideDir, "pyodide-lock.json"), "utf8"));
const manifest = JSON.parse(readFileSync(join(site, "light", "manifest.json"), "utf8"));
const wheels = [
  join(pyodideDir, lock.packages["durable-work-model"].file_name),
  ...manifest.wheels.map((name) => join(site, "light", "wheels", name)),
];
const pyodide = await loadPyodide({ indexURL: pyodideDir + "/", _makeSnapshot: true, stdout: () => {} });
for (const wheel of wheels) pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel");
// Import and warm what the first call needs (the contents' parsed words are cached); keep no page.
pyodide.runPython("import app.light\napp.light.LightPage('?tick=1').parts()\nNone");
writeFileSync(process.argv[3], pyodide.makeMemorySnapshot());
