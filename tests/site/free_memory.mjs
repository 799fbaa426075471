// sitebuild/free_memory.mjs on a Pyodide of the built site: a freed block full of bytes comes out zeroed,
// the memory does not grow and malloc's footprint limit is as it was. Prints what it saw, as JSON.
//   node tests/site/free_memory.mjs <the site's pyodide folder> <sitebuild/free_memory.mjs>
import { pathToFileURL } from "node:url";

const [pyodideDir, helper] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const { zeroFreeMemory } = await import(pathToFileURL(helper).href);
const pyodide = await loadPyodide({ indexURL: `${pyodideDir}/` });
const module = pyodide._module;
const size = 1 << 14;
const block = module._malloc(size);
const guard = module._malloc(64); // so the block stays a free block of its own rather than the heap's top
module.HEAPU8.fill(0x55, block, block + size);
module._free(block);
const memory = module.HEAPU8.length;
const limit = module._malloc_footprint_limit();
const zeroed = zeroFreeMemory(module);
// The free block's first and last words are malloc's own (its links and size), the rest is the bytes.
const inside = module.HEAPU8.subarray(block + 16, block + size - 16);
console.log(JSON.stringify({
  zeroed,
  left: inside.filter((b) => b === 0x55).length,
  grew: module.HEAPU8.length !== memory,
  limitKept: module._malloc_footprint_limit() === limit,
  pythonWorks: pyodide.runPython("sum(range(10**4))") === 49995000,
}));
module._free(guard);
