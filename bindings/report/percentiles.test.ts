import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  FIO_DEFAULT_PERCENTILE_LIST, FIO_IO_U_PLAT_NR, percentileFromPairs, percentileKey, percentilesFromPlat, platIdxToVal, platValToIdx,
  reachesX87, leastReachingSumForTest, leastReachingRefForTest,
} from "./percentiles.js";

const FIX = fileURLToPath(new URL("../../test/fixtures/fio/", import.meta.url));

function hist(entries: Array<[idx: number, count: number]>): Uint32Array {
  const h = new Uint32Array(FIO_IO_U_PLAT_NR);
  for (const [i, c] of entries) h[i] = c;
  return h;
}

describe("fio plat buckets", () => {
  it("1,000,000 ns lands in bucket 954 and reads back as its midpoint 1,003,520 ns", () => {
    expect(platValToIdx(1_000_000)).toBe(954);
    expect(platIdxToVal(954)).toBe(1_003_520);
  });

  it("values below 128 are exact; the last bucket catches everything above the range", () => {
    for (const v of [0, 1, 63, 64, 127]) expect(platIdxToVal(platValToIdx(v))).toBe(v);
    expect(platValToIdx(2 ** 40)).toBe(FIO_IO_U_PLAT_NR - 1);
  });

  it("any value reads back within 1/128 of itself (half a bucket of 1/64), and buckets are monotone", () => {
    fc.assert(fc.property(fc.integer({ min: 128, max: 2 ** 33 }), fc.integer({ min: 0, max: 2 ** 20 }), (v, d) => {
      const back = platIdxToVal(platValToIdx(v));
      expect(Math.abs(back - v) / v).toBeLessThanOrEqual(1 / 128);
      expect(platValToIdx(v + d)).toBeGreaterThanOrEqual(platValToIdx(v));
    }));
  });
});

describe("fio calc_clat_percentiles", () => {
  it("990 fast IOs and 10 slow ones: p99 is the fast bucket, p99.5 the slow one", () => {
    const ps = percentilesFromPlat(hist([[100, 990], [954, 10]]));
    const byKey = Object.fromEntries(ps.map((p) => [percentileKey(p.pct), p.ns]));
    expect(Object.keys(byKey)).toEqual(FIO_DEFAULT_PERCENTILE_LIST.map(percentileKey));
    expect(byKey["99.000000"]).toBe(100);
    expect(byKey["99.500000"]).toBe(1_003_520);
    expect(byKey["1.000000"]).toBe(100);
    expect(byKey["99.990000"]).toBe(1_003_520);
  });

  it("p30 of 100 samples with exactly 30 in the first bucket is the NEXT bucket: fio's long double 0.3 is above 0.3", () => {
    // (long double)30/100 rounds up in the 64-bit significand, so 30/100*100 > 30 and sum = 30 does not reach it.
    // A double evaluation gives exactly 30 and would answer 10.
    const ps = percentilesFromPlat(hist([[10, 30], [20, 70]]), [30]);
    expect(ps).toEqual([{ pct: 30, ns: 20 }]);
    expect((30 / 100) * 100 >= 30).toBe(true); // the naive comparison that would be wrong
  });

  it("matches C long double comparisons computed by gcc on x86-64 (fixture)", () => {
    const lines = readFileSync(FIX + "x87-thresholds.txt", "utf8").split("\n").filter((l) => l && !l.startsWith("#"));
    expect(lines.length).toBeGreaterThan(1000);
    let naiveWrong = 0;
    for (const l of lines) {
      const [p, nr, sum, r] = l.split(" ").map(Number) as [number, number, number, number];
      expect(reachesX87(sum, p, nr), l).toBe(r === 1);
      if ((sum >= (p / 100) * nr) !== (r === 1)) naiveWrong++;
    }
    expect(naiveWrong).toBe(385); // the fixture keeps every case where double arithmetic disagrees
  });

  it("the percentile list is sorted, capped at 20 entries, and stops at a 0 as fio's does", () => {
    const h = hist([[5, 1], [6, 1], [7, 1], [8, 1]]);
    expect(percentilesFromPlat(h, [75, 25, 0, 50]).map((p) => [p.pct, p.ns])).toEqual([[25, 5], [75, 7]]);
    const many = Array.from({ length: 25 }, (_, i) => i + 1);
    expect(percentilesFromPlat(h, many)).toHaveLength(20);
  });

  it("percentile keys print like C's %f", () => {
    expect([1, 99.5, 99.95, 99.99].map(percentileKey)).toEqual(["1.000000", "99.500000", "99.950000", "99.990000"]);
  });

  it("every percentile is a bucket value at or above the previous one (property)", () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: FIO_IO_U_PLAT_NR - 1 }), fc.integer({ min: 1, max: 50 })), { minLength: 1, maxLength: 30 }), (entries) => {
      const h = new Uint32Array(FIO_IO_U_PLAT_NR);
      for (const [i, c] of entries) h[i]! += c;
      const ps = percentilesFromPlat(h);
      expect(ps).toHaveLength(FIO_DEFAULT_PERCENTILE_LIST.length);
      for (let i = 1; i < ps.length; i++) expect(ps[i]!.ns).toBeGreaterThanOrEqual(ps[i - 1]!.ns);
      const maxIdx = Math.max(...entries.map(([i]) => i));
      expect(ps[ps.length - 1]!.ns).toBeLessThanOrEqual(platIdxToVal(maxIdx));
    }));
  });

  it("the integer fast path picks the same buckets as comparing with the x87 threshold at every bucket (property)", () => {
    const list = fc.array(fc.oneof(fc.constantFrom(...FIO_DEFAULT_PERCENTILE_LIST), fc.double({ min: 0.001, max: 100, noNaN: true })), { minLength: 1, maxLength: 20 });
    const entries = fc.array(fc.tuple(fc.integer({ min: 0, max: FIO_IO_U_PLAT_NR - 1 }), fc.integer({ min: 0, max: 2 ** 31 })), { minLength: 1, maxLength: 40 });
    fc.assert(fc.property(entries, list, fc.option(fc.integer({ min: 1, max: 2 ** 40 })), (es, ps, nr) => {
      const h = hist(es);
      const total = nr ?? h.reduce((a, b) => a + b, 0);
      const sorted = [...ps].sort((a, b) => a - b);
      const want: Array<{ pct: number; ns: number }> = [];
      let sum = 0;
      let j = 0;
      for (let i = 0; i < h.length && j < sorted.length; i++) {
        sum += h[i]!;
        while (j < sorted.length && total > 0 && reachesX87(sum, sorted[j]!, total)) want.push({ pct: sorted[j++]!, ns: platIdxToVal(i) });
      }
      expect(percentilesFromPlat(h, ps, nr ?? undefined)).toEqual(want);
    }));
  });

  it("the least reaching sum from doubles and one multiply equals the x87 reference, near integers too (property)", () => {
    const p = fc.oneof(fc.constantFrom(...FIO_DEFAULT_PERCENTILE_LIST), fc.double({ min: 0.001, max: 100, noNaN: true }), fc.integer({ min: 1, max: 100 }));
    const nr = fc.oneof(fc.integer({ min: 1, max: 10_000 }).map((x) => x * 100), fc.integer({ min: 1, max: 2 ** 40 }), fc.constantFrom(1, 3, 7, 100, 1000, 2 ** 53 - 1));
    fc.assert(fc.property(p, nr, (pp, n) => {
      expect(leastReachingSumForTest(pp, n)).toBe(leastReachingRefForTest(pp, n));
    }), { numRuns: 3000 });
  });
});

describe("percentileFromPairs (a histogram as (bucket, count) pairs)", () => {
  it("gives what percentilesFromPlat gives for the same histogram as a dense array", () => {
    // the time series' histograms: SERIES_PLAT_BITS = 3, 272 buckets; and fio's
    fc.assert(fc.property(
      fc.constantFrom<[number, number]>([3, 272], [6, FIO_IO_U_PLAT_NR]),
      fc.uniqueArray(fc.integer({ min: 0, max: 271 }), { minLength: 1, maxLength: 12 }),
      fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 12, maxLength: 12 }),
      fc.constantFrom(1, 50, 90, 99, 99.5, 99.9, 99.99, 100),
      fc.integer({ min: 0, max: 3 }),
      ([bits, nr], buckets, counts, p, pad) => {
        const idx = [...buckets].sort((a, b) => a - b);
        const cnt = idx.map((_, k) => counts[k]!);
        const dense = new Uint32Array(nr);
        idx.forEach((i, k) => (dense[i] = cnt[k]!));
        const n = cnt.reduce((a, b) => a + b, 0);
        // (the pairs sit inside longer columns, as a record's do)
        const I = [...Array(pad).fill(7), ...idx, 5];
        const C = [...Array(pad).fill(9), ...cnt, 3];
        expect(percentileFromPairs(I, C, pad, pad + idx.length, p, n, bits)).toBe(percentilesFromPlat(dense, [p], n, bits)[0]?.ns);
      },
    ), { numRuns: 300 });
  });
});
