// The pass window (assembly/throttle/throttle.ts, "THE PASS WINDOW") is a
// shortcut: a bio whose check at a level would only compare and charge is
// charged without the long way. It must never change a result. With the
// decision trace on, the core takes the long way at every level of every
// bio, so a run with the trace and the same run without it must release,
// issue and complete every bio at the same nanosecond - over random
// hierarchies, limits, limit writes mid-run, mixed directions, split bios,
// cgroup v1 and v2 and the three kernel profiles (fast-check).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { Simulation, scenarioDefaults, jobDefaults, type KernelVersion, type Scenario, type BioRecord } from "../../index.js";
import { idealDevice } from "../../oracle/device.js";

const DEV = "7:1";

interface Lim {
  riops?: number;
  wiops?: number;
  rbps?: number;
  wbps?: number;
}

interface Case {
  kernel: KernelVersion;
  v1: boolean;
  limits: Lim[]; // per group below
  later: Array<{ atMs: number; group: number; lim: Lim }>;
  jobs: Array<{ group: number; rw: "read" | "write" | "mix"; bs: number; iodepth: number; startMs: number }>;
  runtimeMs: number;
}

// v2: a parent with two children and a sibling; v1 is flat
const GROUPS_V2 = ["p", "p/a", "p/b", "c"];
const GROUPS_V1 = ["a", "b", "c", "d"];

function ioMax(l: Lim): string {
  const k = (name: string, v?: number) => `${name}=${v ?? "max"}`;
  return `${DEV} ${k("riops", l.riops)} ${k("wiops", l.wiops)} ${k("rbps", l.rbps)} ${k("wbps", l.wbps)}`;
}

function files(l: Lim, v1: boolean): Record<string, string> {
  if (!v1) return { "io.max": ioMax(l) };
  // v1: 0 removes a limit
  return {
    "blkio.throttle.read_iops_device": `${DEV} ${l.riops ?? 0}`,
    "blkio.throttle.write_iops_device": `${DEV} ${l.wiops ?? 0}`,
    "blkio.throttle.read_bps_device": `${DEV} ${l.rbps ?? 0}`,
    "blkio.throttle.write_bps_device": `${DEV} ${l.wbps ?? 0}`,
  };
}

function scenario(c: Case, trace: boolean): Scenario & { throttle: { trace: boolean } } {
  const names = c.v1 ? GROUPS_V1 : GROUPS_V2;
  const writes = c.later.flatMap((w) =>
    Object.entries(files(w.lim, c.v1)).map(([file, value]) => ({ atNs: w.atMs * 1e6, cgroup: names[w.group]!, file, value })));
  return {
    ...scenarioDefaults({
      name: "pass-window", kernel: c.kernel, cgroupVersion: c.v1 ? 1 : 2, record: true,
      devices: [idealDevice("loop1", DEV, { maxSectorsKb: 128 })],
      cgroups: names.map((path, k) => ({ path, files: files(c.limits[k]!, c.v1) })),
      writes,
      jobs: c.jobs.map((j, k) => jobDefaults({
        name: `j${k}`, device: "loop1", cgroup: names[j.group]!, rw: j.rw, bs: [{ size: j.bs, weight: 1 }], iodepth: j.iodepth,
        random: true, startNs: j.startMs * 1e6, runtimeNs: c.runtimeMs * 1e6, timeBased: true,
      })),
      durationNs: (c.runtimeMs + 1500) * 1e6, // time for the bios over a limit to go
    }),
    throttle: { trace },
  };
}

function run(s: Scenario): BioRecord[] {
  return new Simulation(s).runToEnd().records!;
}

/** What a run promises: every bio's times, io.stat and the throttle waits, the event count, the end. */
function outcome(s: Scenario) {
  const r = new Simulation(s).runToEnd();
  return { records: r.records, cgroups: r.cgroups, events: r.events, simulatedNs: r.simulatedNs, jobs: r.jobs.map((j) => [j.read.ios, j.write.ios]) };
}

const limArb: fc.Arbitrary<Lim> = fc.record({
  riops: fc.option(fc.integer({ min: 20, max: 20_000 }), { nil: undefined }),
  wiops: fc.option(fc.integer({ min: 20, max: 20_000 }), { nil: undefined }),
  rbps: fc.option(fc.integer({ min: 1 << 20, max: 400 << 20 }), { nil: undefined }),
  wbps: fc.option(fc.integer({ min: 1 << 20, max: 400 << 20 }), { nil: undefined }),
});

const caseArb: fc.Arbitrary<Case> = fc.record({
  kernel: fc.constantFrom<KernelVersion>("6.1", "6.12", "6.18"),
  v1: fc.boolean(),
  limits: fc.array(limArb, { minLength: 4, maxLength: 4 }),
  later: fc.array(fc.record({ atMs: fc.integer({ min: 1, max: 400 }), group: fc.integer({ min: 0, max: 3 }), lim: limArb }), { maxLength: 3 }),
  jobs: fc.array(fc.record({
    group: fc.integer({ min: 0, max: 3 }),
    rw: fc.constantFrom<"read" | "write" | "mix">("read", "write", "mix"),
    // 256 KiB bios split at max_sectors_kb = 128: each remainder passes blk-throttle again
    bs: fc.constantFrom(4096, 16384, 262144),
    iodepth: fc.integer({ min: 1, max: 16 }),
    startMs: fc.integer({ min: 0, max: 150 }),
  }), { minLength: 1, maxLength: 4 }),
  runtimeMs: fc.integer({ min: 100, max: 450 }),
});

describe("the pass window changes no result", () => {
  it("every bio is released, issued and completed at the same ns with and without the long way at every level", () => {
    fc.assert(fc.property(caseArb, (c) => {
      // (bios completing after a job's runtime are not in its records: a
      // slow limit may leave a case with none, then io.stat still counts them)
      expect(outcome(scenario(c, false))).toEqual(outcome(scenario(c, true)));
    }), { numRuns: 40 });
  });

  it("a limited group at 20,000 riops with 16 bios in flight: bios wait, and none is released sooner or later than the long way", () => {
    const c: Case = {
      kernel: "6.18", v1: false, limits: [{}, { riops: 20_000 }, {}, {}], later: [],
      jobs: [{ group: 1, rw: "read", bs: 4096, iodepth: 16, startMs: 0 }], runtimeMs: 300,
    };
    const fast = run(scenario(c, false));
    const slow = run(scenario(c, true));
    // at 20,000 riops the 100 ms slice allows 2,000 IOs: the ideal device would do far more, so bios wait
    expect(fast.some((r) => r.releaseNs > r.submitNs)).toBe(true);
    expect(fast.length).toBeGreaterThan(5_000);
    expect(fast).toEqual(slow);
  });
});

interface WindowCore {
  throtlPassWindow(cg: number, dev: number, dir: number, what: number): bigint;
}

describe("the worked example of the pass window (6.18, riops=2000 rbps=209715200, 4 KiB reads)", () => {
  const J0 = 4295000003n;
  function example(n: number): { sim: Simulation; recs: BioRecord[] } {
    const s = scenarioDefaults({
      name: "pass-window-example", kernel: "6.18", record: true,
      clock: { hz: 250, jiffiesAtZero: J0, zeroAfterTickNs: 0 },
      devices: [idealDevice("loop1", DEV)],
      cgroups: [{ path: "a", files: { "io.max": `${DEV} riops=2000 rbps=209715200` } }],
      jobs: [jobDefaults({
        name: "j", device: "loop1", cgroup: "a", iodepth: n,
        pattern: { kind: "replay", ios: Array.from({ length: n }, (_, k) => ({ tNs: 1000 * k, off: k * 4096, size: 4096, dir: "R" as const })) },
      })],
    });
    const sim = new Simulation(s);
    return { sim, recs: sim.runToEnd().records! };
  }
  const win = (sim: Simulation, what: number) => (sim.core as unknown as WindowCore).throtlPassWindow(1, 0, 0, what);

  it("the first bio at jiffy 4295000003 opens a 23-jiffy window allowing 200 IOs and 20971520 bytes", () => {
    const { sim, recs } = example(1);
    expect(recs[0]!.releaseNs).toBe(recs[0]!.submitNs);
    expect(win(sim, 0)).toBe(J0);
    expect(win(sim, 1)).toBe(23n); // slice_end 4295000050 - 25 - 4295000003 = 22, so jiffies J0 .. J0 + 22
    expect(win(sim, 2)).toBe(200n);
    expect(win(sim, 3)).toBe(20971520n);
  });

  it("a check the window leaves out compares with an allowance no counter exceeds (riops only: bytes never bind)", () => {
    for (const [kernel, noCheck] of [["6.18", (1n << 63n) - 1n], ["6.12", -1n], ["6.1", -1n]] as const) {
      const s = scenarioDefaults({
        name: "pass-window-no-bps", kernel, record: true,
        clock: { hz: 250, jiffiesAtZero: J0, zeroAfterTickNs: 0 },
        devices: [idealDevice("loop1", DEV)],
        cgroups: [{ path: "a", files: { "io.max": `${DEV} riops=2000` } }],
        jobs: [jobDefaults({ name: "j", device: "loop1", cgroup: "a", iodepth: 1, pattern: { kind: "replay", ios: [{ tNs: 0, off: 0, size: 4096, dir: "R" }] } })],
      });
      const sim = new Simulation(s);
      sim.runToEnd();
      expect(win(sim, 1)).toBe(23n);
      expect(win(sim, 2)).toBe(200n);
      expect(win(sim, 3)).toBe(noCheck); // -1: U64_MAX in the unsigned compare of 6.1 and 6.12
    }
  });

  it("bios 2..200 pass on it; the 201st does not fit, waits for the next slice and closes it", () => {
    const { sim, recs } = example(201);
    const byArrival = [...recs].sort((a, b) => a.submitNs - b.submitNs);
    for (const r of byArrival.slice(0, 200)) expect(r.releaseNs).toBe(r.submitNs);
    const last = byArrival[200]!;
    // the next slice boundary (J0 + 25, fired by the timer at the tick of J0 + 26, then kthrotld)
    expect(last.releaseNs).toBeGreaterThanOrEqual(26 * 4_000_000);
    expect(win(sim, 1)).toBe(0n); // closed by the queued bio (and the slice moves on)
  });
});
