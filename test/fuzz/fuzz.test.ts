// The CLI fuzz suite (issue #33): generated and mutated scenario, fio, device,
// cgroup, trace and Kubernetes inputs through `iosim`'s main(), asserting
// exit 0, 1 or 2, bounded time and memory, and that a rejected input changes
// nothing on disk (harness.ts). In `npm test` a short run (FUZZ_CASES,
// default 40; a fixed seed under CI, test/setup-fast-check.ts); `npm run fuzz
// -- --cases 100000` runs it long (scripts/fuzz.mjs). Every 25th case is
// spawned in its own process with a 1 GiB heap, where a V8 fatal error shows
// as its exit status. A failure is kept under test/fixtures/fuzz/found/ and
// replayed by found.test.ts.
import fc from "fast-check";
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { anyCase, type FuzzCase } from "./inputs.js";
import { count, keepFound, newStats, runCase } from "./harness.js";

const CASES = Number(process.env.FUZZ_CASES ?? 40);
const SPAWN_EVERY = Number(process.env.FUZZ_SPAWN_EVERY ?? 25);

describe("fuzzing the iosim command line", () => {
  it(`${CASES} generated and mutated inputs: exit 0, 1 or 2, bounded, nothing written on rejection`, async () => {
    const stats = newStats();
    let n = 0;
    const t0 = performance.now();
    await fc.assert(
      fc.asyncProperty(anyCase, async (c: FuzzCase) => {
        const o = await runCase(c, n++ % SPAWN_EVERY === SPAWN_EVERY - 1);
        count(stats, c, o);
        if (o.problem) {
          const kept = keepFound(c, o);
          throw new Error(`${c.kind}: ${o.problem}\n(kept in ${kept})`);
        }
      }),
      { numRuns: CASES, endOnFailure: true },
    );
    const report = { ...stats, maxMs: Math.round(stats.maxMs), maxRssMiB: Math.round(stats.maxRss / 2 ** 20), wallS: Math.round((performance.now() - t0) / 1000) };
    if (process.env.FUZZ_REPORT) writeFileSync(process.env.FUZZ_REPORT, JSON.stringify(report, null, 2) + "\n");
    else console.log(`fuzz: ${JSON.stringify(report)}`);
    expect(stats.problems).toBe(0);
    expect(stats.cases).toBe(CASES);
  }, Math.max(120_000, CASES * 5_000));
});
