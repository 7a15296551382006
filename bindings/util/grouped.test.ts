import { describe, expect, it } from "vitest";
import { grouped } from "./grouped.js";

describe("grouped", () => {
  it("writes what toLocaleString('en-US') writes", () => {
    const xs: number[] = [0, -0, 2 ** 31, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER, 2 ** 60, 1.5, 1234.5678, -0.25, NaN, Infinity];
    // each power of ten and its neighbours, up to 10^16
    for (let e = 0; e <= 16; e++) for (const d of [-1, 0, 1]) xs.push(10 ** e + d, 20000001 * 10 ** (e % 8) + d);
    for (let k = 0; k < 2000; k++) xs.push(Math.floor(Math.random() * 10 ** (k % 16)));
    for (const x of xs) for (const v of [x, -x]) expect(grouped(v)).toBe(v.toLocaleString("en-US"));
  });
});
