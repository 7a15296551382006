// The decisions the throttle bench times must be the kernel's: the WASM
// core's batch (pass window, repeated-verdict memo and all) agrees with the
// plain BigInt port of 6.12 on how many bios pass and on the sum of the
// waits of those that do not, over random limits, arrival rates and two
// interleaved bio sizes (fast-check).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { instantiateCore } from "../bindings/index.js";
import { BigIntThrottle } from "./bigint-throttle.js";

interface BenchCore {
  throtlBenchDecisionsSized(n: number, profile: number, perJiffy: number, iops: bigint, bps: bigint, sizeA: number, sizeB: number, everyB: number): number;
  throtlBenchWaitSum(): bigint;
}

const J0 = 0x100000000n - 75000n + 2500n; // the batch's first jiffy (JIFFIES_AT_ZERO)

function port(n: number, perJiffy: number, iops: bigint, bps: bigint, sizeA: number, sizeB: number, everyB: number) {
  const t = new BigIntThrottle(bps, iops, J0);
  let passed = 0;
  let waits = 0n;
  let j = 0n;
  let k = 0;
  let b = 0;
  for (let i = 0; i < n; i++) {
    let size = sizeA;
    if (everyB > 0 && ++b === everyB) {
      size = sizeB;
      b = 0;
    }
    if (t.decide(J0 + j, BigInt(size))) passed++;
    else waits += t.lastWait;
    if (++k === perJiffy) {
      k = 0;
      j++;
    }
  }
  return { passed, waits };
}

describe("the throttle bench's decisions", () => {
  const core = instantiateCore() as unknown as BenchCore;

  it("WASM batch and BigInt port of 6.12 pass the same bios and compute the same waits", () => {
    fc.assert(fc.property(
      fc.integer({ min: 10, max: 200_000 }),
      fc.integer({ min: 1 << 16, max: 1 << 30 }),
      fc.integer({ min: 1, max: 120 }),
      fc.constantFrom(512, 4096, 65536),
      fc.constantFrom(4096, 131072, 1 << 20),
      fc.integer({ min: 0, max: 7 }),
      fc.integer({ min: 1, max: 6000 }),
      (iops, bps, perJiffy, sizeA, sizeB, everyB, n) => {
        const want = port(n, perJiffy, BigInt(iops), BigInt(bps), sizeA, sizeB, everyB);
        const passed = core.throtlBenchDecisionsSized(n, 1, perJiffy, BigInt(iops), BigInt(bps), sizeA, sizeB, everyB);
        expect(passed).toBe(want.passed);
        expect(core.throtlBenchWaitSum()).toBe(want.waits);
      }), { numRuns: 150 });
  });

  it("the timed setting (riops=5000, rbps=100 MiB/s, 40 per jiffy): half of 100,000 decisions pass, as in the port", () => {
    const want = port(100_000, 40, 5000n, 100n << 20n, 4096, 4096, 0);
    expect(want.passed).toBe(50_000);
    expect(core.throtlBenchDecisionsSized(100_000, 1, 40, 5000n, 100n << 20n, 4096, 4096, 0)).toBe(50_000);
    expect(core.throtlBenchWaitSum()).toBe(want.waits);
  });

  it("a repeated verdict is not reused once a smaller bio passed in between (rbps=943050: 94305 bytes per slice)", () => {
    // 16 KiB and 4 KiB reads alternate in the first jiffy: 4 + 4 pass (81920
    // bytes), the 16 KiB one is 3999 bytes over (wait 1 + 25 jiffies, slice
    // end unchanged), a 4 KiB one still fits (86016), and the next 16 KiB one
    // is 8095 over: wait 2 + 25, not the 26 of the same question before.
    const args = [40, 40, 1_000_000n, 943_050n, 16384, 4096, 2] as const;
    const want = port(args[0], args[1], args[2], args[3], args[4], args[5], args[6]);
    expect(core.throtlBenchDecisionsSized(args[0], 1, args[1], args[2], args[3], args[4], args[5], args[6])).toBe(want.passed);
    expect(core.throtlBenchWaitSum()).toBe(want.waits);
    expect(want.passed).toBeGreaterThanOrEqual(10);
  });
});

