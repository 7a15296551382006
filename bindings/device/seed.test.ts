import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  seedBps,
  seedCurvePoints,
  seedIops,
  SSD_CURVE,
  SSD_EXACT_FIT,
  SSD_SEED_POINTS,
  tableIops,
} from "./seed.js";

const KiB = 1024;

describe("the seed's curves at 512 B, 4, 8, 16 and 64 KiB", () => {
  // hand-computed from the seed's formulas (x bytes, BPS bytes/s, M = 1e6)
  const ssdBpsAt = (x: number) => 70e6 + 57e3 * x - 2 * x * x;
  const rows: Array<[string, number, number]> = [
    // curve, size, expected IOPS
    ["ssd", 512, 80000], // < 4k: 80000 IOPS
    ["ssd", 4 * KiB, ssdBpsAt(4096) / 4096], // 269,917,568 B/s
    ["ssd", 8 * KiB, ssdBpsAt(8192) / 8192], // 402,726,272 B/s
    ["ssd", 16 * KiB, ssdBpsAt(16384) / 16384], // 467,017,088 B/s
    ["ssd", 64 * KiB, ssdBpsAt(16384) / 65536], // BPS(16k) beyond 16k
    ["nvme", 512, 150000],
    ["nvme", 4 * KiB, 150000],
    ["nvme", 8 * KiB, 150000],
    ["nvme", 16 * KiB, 150000],
    ["nvme", 64 * KiB, (150000 * 16384) / 65536], // constant bandwidth beyond 16k: 37,500
    ["hdd", 512, 100],
    ["hdd", 16 * KiB, 100],
    ["hdd", 64 * KiB, 25],
  ];
  for (const [name, size, iops] of rows) {
    it(`${name} at ${size} B: ${iops.toFixed(1)} IOPS`, () => {
      expect(seedIops(name as "ssd", size)).toBeCloseTo(iops, 6);
      expect(seedBps(name as "ssd", size)).toBeCloseTo(iops * size, 0);
    });
  }

  it("the SSD numbers in bytes/s: 269.9M, 402.7M, 467.0M", () => {
    expect(seedBps("ssd", 4096)).toBe(269_917_568);
    expect(seedBps("ssd", 8192)).toBe(402_726_272);
    expect(seedBps("ssd", 16384)).toBe(467_017_088);
    expect(seedBps("ssd", 65536)).toBe(467_017_088);
  });
});

describe("the SSD fit and its units", () => {
  it("the stated curve meets the seed's 270M / 400M / 460M within 1.6 % with M = 10^6", () => {
    for (const [x, y] of SSD_SEED_POINTS) expect(Math.abs(seedBps("ssd", x) / y - 1)).toBeLessThan(0.016);
  });

  it("reading M as 2^20 leaves the stated curve more than 3 % off at every point", () => {
    for (const [x, y] of SSD_SEED_POINTS) expect(Math.abs(seedBps("ssd", x) / (y * 1.048576) - 1)).toBeGreaterThan(0.03);
  });

  it("the exact fit goes through the three points: a = 73.33M, not the seed's 74M", () => {
    for (const [x, y] of SSD_SEED_POINTS) expect(seedBps("ssd", x, SSD_EXACT_FIT)).toBeCloseTo(y, 3);
    expect(SSD_EXACT_FIT.a).toBeCloseTo(220e6 / 3, 3);
    expect(SSD_EXACT_FIT.b).toBeCloseTo(230e6 / 4096, 6);
    expect(SSD_EXACT_FIT.c).toBeCloseTo(-200e6 / (3 * 2 ** 25), 9);
    expect(SSD_CURVE).toEqual({ a: 70e6, b: 57e3, c: -2 });
  });
});

describe("the device table built from a seed curve", () => {
  it("is exact at every 512-byte multiple from 512 B to 1 MiB", () => {
    for (const name of ["ssd", "nvme", "hdd"] as const) {
      const pts = seedCurvePoints(name);
      expect(pts.length).toBeLessThanOrEqual(32);
      for (let s = 512; s <= 1 << 20; s += 512) {
        expect(tableIops(pts, s) / seedIops(name, s)).toBeCloseTo(1, 9);
      }
    }
  });

  it("stays within 0.5 % of the SSD curve between sector multiples", () => {
    const pts = seedCurvePoints("ssd");
    fc.assert(
      fc.property(fc.integer({ min: 4096, max: 16384 }), (s) => {
        expect(Math.abs(tableIops(pts, s) / seedIops("ssd", s) - 1)).toBeLessThan(0.005);
      }),
    );
  });
});
