// Zero what malloc holds free before Pyodide's memory is written as the snapshot. Freed blocks keep the
// bytes of what they held (the wheels as they were unpacked, the sources compiled, objects collected),
// and a gzipped snapshot carries them all: zeroed, the light page's snapshot came to 6.2 MB gzipped
// instead of 7.7. Only memory malloc already has is touched: the wasm memory must not grow (a grown
// snapshot cannot be restored), so the footprint is capped while the free blocks are taken.
export function zeroFreeMemory(module) {
  const limit = module._malloc_footprint_limit();
  module._malloc_set_footprint_limit(module._malloc_footprint());
  const taken = [];
  let zeroed = 0;
  try {
    // Largest first, so that big free blocks are taken whole and the small sizes find the crumbs.
    for (const size of [1 << 20, 1 << 16, 1 << 12, 512, 64, 16]) {
      for (let block = module._malloc(size); block; block = module._malloc(size)) {
        module.HEAPU8.fill(0, block, block + size);
        taken.push(block);
        zeroed += size;
      }
    }
  } finally {
    for (const block of taken) module._free(block);
    module._malloc_set_footprint_limit(limit);
  }
  return zeroed;
}
