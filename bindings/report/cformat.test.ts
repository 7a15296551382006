import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { N2S_BYTE, N2S_BYTEPERSEC, N2S_NONE, cFixed, num2str } from "./cformat.js";

describe("C %f formatting", () => {
  it("rounds exact binary ties to even like glibc, and decides by the exact double value", () => {
    expect(cFixed(0.25, 1)).toBe("0.2");
    expect(cFixed(0.75, 1)).toBe("0.8");
    expect(cFixed(2.5, 0)).toBe("2");
    expect(cFixed(0.015, 2)).toBe("0.01"); // 0.01499999999999999944...
    expect(cFixed(1000000, 2)).toBe("1000000.00");
    expect(cFixed(-1.5, 0)).toBe("-2");
  });

  it("agrees with toFixed whenever the value is not within an ulp of a tie (property)", () => {
    fc.assert(fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), fc.integer({ min: 0, max: 6 }), (x, d) => {
      const scaled = x * 10 ** d;
      const frac = scaled - Math.floor(scaled);
      fc.pre(Math.abs(frac - 0.5) > 1e-6 && scaled < 1e15);
      expect(cFixed(x, d)).toBe(x.toFixed(d));
    }));
  });
});

describe("fio num2str", () => {
  it("shows at most 4 significant digits with IEC or SI prefixes, as fio's bandwidth lines do", () => {
    expect(num2str(20_480_000, 4, 1, true, N2S_BYTEPERSEC)).toBe("19.5MiB/s");
    expect(num2str(20_480_000, 4, 1, false, N2S_BYTEPERSEC)).toBe("20.5MB/s");
    expect(num2str(40_960_000, 4, 1, true, N2S_BYTE)).toBe("39.1MiB");
    expect(num2str(5000, 4, 1, false, N2S_NONE)).toBe("5000");
    expect(num2str(4096, 4, 1, true, N2S_BYTE)).toBe("4096B");
    expect(num2str(1_000_000, 6, 1, false, N2S_NONE)).toBe("1000.0k");
  });

  it("carries a fraction that rounds to 1.0 into the integer part", () => {
    // 40,960,000 B in SI: 40 M remainder 960 -> 0.96 prints as "1.0" -> 41.0MB
    expect(num2str(40_960_000, 4, 1, false, N2S_BYTE)).toBe("41.0MB");
  });
});
