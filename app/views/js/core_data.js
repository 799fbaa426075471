// Pyodide's memory snapshot is stored as its XOR with what Pyodide's core (pyodide.asm.wasm) writes into
// memory when it starts: its active data segments. Most of those bytes are still as the core wrote them
// when the snapshot is taken, so they XOR to zeros and the gzipped snapshot loses them (6.1 -> 4.6 MB):
// a reader downloads the core anyway. sitebuild/snapshot.mjs stores the snapshot so, and
// static/light-worker.js makes it whole again from the core's own bytes (XOR is its own inverse).

// The active data segments of a WebAssembly binary (``wasm``, a Uint8Array): [{at, from, length}], where
// ``at`` is the memory address, ``from`` where the bytes are in the binary. Throws on a binary it cannot
// read (a segment placed by anything but a constant: the snapshot would not be made whole).
export function dataSegments(wasm) {
  let i = 0;
  const byte = () => {
    if (i >= wasm.length) throw new Error("the core's binary ends early");
    return wasm[i++];
  };
  const leb = (signed = false) => {
    let value = 0, shift = 0, b;
    do {
      b = byte();
      value += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return signed && b & 0x40 ? value - 2 ** shift : value;
  };
  if (wasm[0] !== 0 || wasm[1] !== 0x61 || wasm[2] !== 0x73 || wasm[3] !== 0x6d) {
    throw new Error("not a WebAssembly binary");
  }
  i = 8;
  const segments = [];
  while (i < wasm.length) {
    const section = byte();
    const size = leb();
    const end = i + size;
    if (section === 11) {
      for (let count = leb(); count > 0; count--) {
        const flags = leb();
        if (flags === 1) { // passive: copied by the program, not at start
          const length = leb();
          i += length;
          continue;
        }
        if (flags === 2) leb(); // the memory's index
        if (flags !== 0 && flags !== 2) throw new Error(`a data segment of kind ${flags}`);
        if (byte() !== 0x41) throw new Error("a data segment placed by other than a constant");
        const at = leb(true);
        if (byte() !== 0x0b) throw new Error("a data segment's offset is not one constant");
        const length = leb();
        segments.push({ at, from: i, length });
        i += length;
      }
    }
    i = end;
  }
  return segments;
}

// XOR a snapshot (``image``, a Uint8Array, as Pyodide's makeMemorySnapshot writes it: a header whose
// second 32-bit word is where the memory starts) in place with the core's data segments; returns it.
export function xorCoreData(image, wasm) {
  const memory = new DataView(image.buffer, image.byteOffset, image.byteLength).getUint32(4, true);
  for (const { at, from, length } of dataSegments(wasm)) {
    const start = memory + at;
    if (start + length > image.length) throw new Error("a data segment lies outside the snapshot");
    for (let k = 0; k < length; k++) image[start + k] ^= wasm[from + k];
  }
  return image;
}
