// A mixed fio job's directions, IO by IO, against fio's rwmix rule
// (io_u.c get_rw_ddir() / set_rwmix_bytes(); see "Mixed directions" at the
// top of assembly/workload/jobs.ts).
import { describe, expect, it } from "vitest";
import { parseFioJobFile } from "../bindings/workload/index.js";
import { simulate } from "../bindings/engine/simulation.js";
import { scenarioDefaults } from "../bindings/scenario/defaults.js";
import type { DeviceSpec } from "../bindings/scenario/types.js";

const dev: DeviceSpec = {
  name: "nvme0n1", devno: "259:0", kind: "ideal", channels: 4, nrRequests: 64, latencyNs: 0, jitterSigma: 0,
  maxSectorsKb: 1280, rotational: false,
  curve: { read: { seq: [[4096, 100_000]], rand: [[4096, 100_000]] }, write: { seq: [[4096, 100_000]], rand: [[4096, 100_000]] } },
};

/** The directions (0 = read) of a one-job fio file's IOs, in the order the job issued them. */
async function directions(lines: string[], seed = 1): Promise<number[]> {
  const text = ["[mix]", "filename=/dev/nvme0n1", "ioengine=libaio", "direct=1", "bs=4k", ...lines, ""].join("\n");
  const parsed = parseFioJobFile(text, "mix.fio", { deviceSizes: { nvme0n1: 2 ** 30 } });
  const result = await simulate(scenarioDefaults({ name: "rwmix", seed, devices: [dev], jobs: parsed.jobs, record: true }));
  return [...result.records!].sort((a, b) => a.seq - b.seq).map((b) => (b.dir === "W" ? 1 : 0));
}

/**
 * Walks fio's state (rwmix_ddir, rwmix_issues, io_issues[]) along the issued
 * directions. At an IO where io_issues[rwmix_ddir] < rwmix_issues fio does not
 * draw: the IO must keep rwmix_ddir ("held"). Elsewhere it draws, and a change
 * of direction sets rwmix_issues = io_issues[old] * rwmix[new] / 100.
 * Returns the IOs that broke the rule and those that were held.
 */
function checkRule(dirs: number[], readPct: number): { broken: number[]; held: number[] } {
  const mix = [readPct, 100 - readPct];
  const issues = [0, 0];
  let ddir = 0; // thread_data starts zeroed: DDIR_READ
  let thresh = 0;
  const broken: number[] = [];
  const held: number[] = [];
  dirs.forEach((d, i) => {
    if (issues[ddir]! < thresh) {
      held.push(i);
      if (d !== ddir) broken.push(i);
    } else if (d !== ddir) {
      thresh = Math.floor((issues[ddir]! * mix[d]!) / 100);
    }
    ddir = d;
    issues[d]!++;
  });
  return { broken, held };
}

describe("fio rw=randrw / rw=rw directions follow get_rw_ddir()'s rwmix rule", () => {
  it.each([90, 95])("rwmixread=%i: after a switch to writes, fio holds them until io_issues[W] >= io_issues[R] * rwmix[W] / 100", async (pct) => {
    let held = 0;
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const dirs = await directions(["rw=randrw", `rwmixread=${pct}`, "iodepth=4", "number_ios=3000"], seed);
      expect(dirs).toHaveLength(3000);
      const r = checkRule(dirs, pct);
      // a direction drawn per IO (iosim before) went to reads at held IOs: 104 of 118 on seed 4 at 90%
      expect(r.broken).toEqual([]);
      // every held IO is a write catching up (a switch to reads sets rwmix_issues = w * pct / 100 <= r)
      expect(r.held.every((i) => dirs[i] === 1)).toBe(true);
      held += r.held.length;
    }
    // the rule did bind (19 held IOs at 90%, 20 at 95% over the eight seeds)
    expect(held).toBeGreaterThanOrEqual(10);
  });

  it("rwmixread=50, rw=rw (sequential): the rule holds IO by IO on several seeds", async () => {
    let held = 0;
    for (const seed of [1, 2, 3, 4]) {
      const dirs = await directions(["rw=rw", "rwmixread=50", "number_ios=2000"], seed);
      const r = checkRule(dirs, 50);
      expect(r.broken).toEqual([]);
      held += r.held.length;
    }
    // at 50/50 a direction must fall to half its partner's count to be held: rare, but not never
    expect(held).toBeGreaterThan(0);
  });

  it.each([
    [50, 0.5],
    [70, 0.7],
    [90, 0.9],
  ])("rwmixread=%i: the read share converges to it over 20000 IOs", async (pct, share) => {
    const dirs = await directions(["rw=randrw", `rwmixread=${pct}`, "iodepth=8", "number_ios=20000"]);
    const reads = dirs.filter((d) => d === 0).length;
    // binomial sd at 20000 IOs is <= 0.36 percentage points; allow ~3 sd
    expect(Math.abs(reads / dirs.length - share)).toBeLessThan(0.011);
  });

  it("rwmixwrite=100 and rwmixread=100 never leave their direction", async () => {
    expect(new Set(await directions(["rw=randrw", "rwmixwrite=100", "number_ios=500"]))).toEqual(new Set([1]));
    expect(new Set(await directions(["rw=randrw", "rwmixread=100", "number_ios=500"]))).toEqual(new Set([0]));
  });
});
