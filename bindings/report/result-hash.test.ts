import { describe, expect, it } from "vitest";
import { canonicalJson } from "./result-hash.js";

/** canonicalJson as it was written first: JSON.stringify with a replacer (the definition) */
const byReplacer = (value: unknown): string =>
  JSON.stringify(value, (key, v) => {
    if (key === "wallMs") return undefined;
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>);
    if (typeof v === "bigint") return v.toString();
    return v;
  });

describe("canonicalJson", () => {
  it("writes what JSON.stringify with its replacer writes, for plain values and for the ones it hands to that", () => {
    const proto = JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as unknown;
    const sparse: unknown[] = [1];
    sparse[3] = 4;
    const values: unknown[] = [
      0,
      -0,
      NaN,
      Infinity,
      "s",
      true,
      null,
      undefined,
      12n,
      [1, undefined, () => 1, Symbol("s"), NaN],
      sparse,
      proto,
      { a: 1, wallMs: 5, b: { wallMs: 6, c: [{ wallMs: 7, d: 8 }] }, 2: "two", 1: "one", f: () => 1, u: undefined, s: Symbol("s") },
      { h: new Uint32Array([1, 2, 3]), f: new Float64Array([0.5, -0, NaN]), b: new BigInt64Array([1n, -2n]), u: new BigUint64Array([3n]), n: 2n ** 70n },
      [new Int8Array([-1]), new Uint8ClampedArray([255]), { x: new Uint16Array(0) }],
      // handed to the replacer's stringify: a Date, a DataView, a Map, a class instance, a boxed number, an object with toJSON
      { t: new Date(0) },
      { d: new DataView(new ArrayBuffer(4)) },
      { m: new Map([[1, 2]]) },
      [
        new (class {
          a = 1;
          wallMs = 2;
        })(),
      ],
      { n: Object(3) },
      { j: { toJSON: () => ({ wallMs: 1, k: 2n }) } },
    ];
    for (const v of values) expect(canonicalJson(v)).toBe(byReplacer(v));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
  });
});
