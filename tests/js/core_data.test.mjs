// app/views/js/core_data.js under Node's test runner: a WebAssembly binary's active data segments, and a
// snapshot XORed with them and made whole again.
import assert from "node:assert/strict";
import { test } from "node:test";

import { dataSegments, xorCoreData } from "../../app/views/js/core_data.js";

const bytes = (text) => [...text].map((c) => c.charCodeAt(0));
// A binary of two sections: a custom one (skipped) and the data section with an active segment at 16
// ("abc"), a passive one ("zz", not placed at start) and an active one of memory 0 at 200 ("de", whose
// offset takes two bytes of LEB128).
const data = [3, 0, 0x41, 16, 0x0b, 3, ...bytes("abc"), 1, 2, ...bytes("zz"), 2, 0, 0x41, 0xc8, 0x01, 0x0b, 2,
  ...bytes("de")];
const WASM = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0, 3, 1, 0x78, 9, 11, data.length, ...data]);

test("the core's active data segments are found where the binary places them", () => {
  const found = dataSegments(WASM);
  assert.deepEqual(found.map(({ at, length }) => [at, length]), [[16, 3], [200, 2]]);
  for (const [{ from, length }, text] of found.map((s, n) => [s, ["abc", "de"][n]])) {
    assert.equal(String.fromCharCode(...WASM.subarray(from, from + length)), text);
  }
});

test("a snapshot XORed with the data segments is made whole by the same XOR", () => {
  const image = new Uint8Array(8 + 256);
  new DataView(image.buffer).setUint32(4, 8, true); // the memory starts after an 8-byte header
  image.set(bytes("abc"), 8 + 16); // as the core wrote it: XORs to zeros
  image.set(bytes("dX"), 8 + 200); // changed since: kept as the difference
  const whole = image.slice();
  xorCoreData(image, WASM);
  assert.deepEqual([...image.subarray(24, 27)], [0, 0, 0]);
  assert.deepEqual([...image.subarray(208, 210)], [0, "X".charCodeAt(0) ^ "e".charCodeAt(0)]);
  assert.deepEqual(xorCoreData(image, WASM), whole);
});

test("a binary it cannot read is refused, not half made whole", () => {
  assert.throws(() => dataSegments(Uint8Array.from([1, 2, 3, 4, 1, 0, 0, 0])), /not a WebAssembly binary/);
  const placedByGlobal = [1, 0, 0x23, 0, 0x0b, 1, 7]; // an offset read from a global: unknown at build
  const wasm = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 11, placedByGlobal.length, ...placedByGlobal]);
  assert.throws(() => dataSegments(wasm), /other than a constant/);
  assert.throws(() => dataSegments(WASM.subarray(0, WASM.length - 3)), /ends early/);
  const small = new Uint8Array(8 + 100);
  new DataView(small.buffer).setUint32(4, 8, true);
  assert.throws(() => xorCoreData(small, WASM), /outside the snapshot/);
});
