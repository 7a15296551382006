// The steady closed loop (assembly/engine/path.ts runSteady) takes the
// common step of a closed-loop job - a completion on lane 0 and the hand-over
// of its slot to the job's next IO - with its state in locals and its
// counters added once per run of steps. It must give the run the general
// path gives, bit for bit. Here random scenarios (devices with one or many
// channels, few or many requests, a completion latency, small max_sectors,
// several devices; jobs reading, writing or mixing, sequential or random, of
// one or several block sizes, bounded by count, bytes or runtime, with
// think times, start delays, ramps, cgroups; time series on or off; runs with
// and without a stop time) run twice on fresh cores, with the steady loop on
// and off: the results are the same bytes. The cases are sized so that the
// loop does take most steps in many of them (counted by the core).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { Simulation } from "../../bindings/engine/simulation.js";
import { jobDefaults, scenarioDefaults } from "../../bindings/scenario/defaults.js";
import { devicePreset } from "../../bindings/device/index.js";
import type { DeviceSpec, JobSpec, RunResult, Scenario } from "../../bindings/scenario/types.js";
import { fixedDevice } from "./helpers.js";

const bytes = (r: RunResult) => JSON.stringify({ ...r, wallMs: 0 });

interface Core {
  steadyLoop(on: number): void;
  steadySteps(): bigint;
}

function run(sc: Scenario, steady: boolean): { r: RunResult; steps: number } {
  const sim = new Simulation(sc);
  const core = sim.core as unknown as Core;
  core.steadyLoop(steady ? 1 : 0);
  const r = sim.runToEnd(undefined, 997); // batches that end anywhere in a run of steps
  return { r, steps: Number(core.steadySteps()) };
}

const arbDevice = (name: string, devno: string): fc.Arbitrary<DeviceSpec> =>
  fc.oneof(
    fc
      .record({
        serviceNs: fc.integer({ min: 200, max: 40_000 }),
        channels: fc.constantFrom(1, 1, 2, 3, 8, 64),
        nrRequests: fc.constantFrom(1, 8, 32, 128, 128, 256),
        latencyNs: fc.constantFrom(0, 0, 1_500, 2_000_000),
        maxSectorsKb: fc.constantFrom(1280, 1280, 4, 127),
        seqFaster: fc.boolean(),
      })
      .map((d) => {
        const dev = fixedDevice(d.serviceNs, d.channels, d.nrRequests, { name, devno, latencyNs: d.latencyNs, maxSectorsKb: d.maxSectorsKb });
        // sequential bios served faster: the service-time memo changes between bios
        if (d.seqFaster) {
          const iops = (d.channels * 1e9) / d.serviceNs;
          dev.curve = {
            ...dev.curve,
            read: {
              ...dev.curve.read,
              seq: [
                [512, 3 * iops],
                [1 << 20, 2 * iops],
              ],
            },
          };
        }
        return dev;
      }),
    fc.constantFrom("ideal", "nullb", "nvme", "ssd").map((p) => ({ ...devicePreset(p as "ideal"), name, devno })),
  );

const arbJob = (k: number, devices: number): fc.Arbitrary<JobSpec> =>
  fc
    .record({
      rw: fc.constantFrom("read", "read", "write", "write", "mix"),
      random: fc.boolean(),
      bs: fc.constantFrom([4096], [4096], [512], [65536], [1 << 20], [4096, 65536]),
      bsWrite: fc.constantFrom(undefined, undefined, [8192]),
      iodepth: fc.constantFrom(1, 2, 4, 7, 32, 64),
      limit: fc.oneof(
        fc.record({ count: fc.integer({ min: 1, max: 2500 }) }),
        fc.record({ bytes: fc.integer({ min: 1, max: 2500 }).map((n) => n * 4096) }),
        fc.record({ runtimeNs: fc.integer({ min: 1, max: 30 }).map((n) => n * 1e6), timeBased: fc.boolean() }),
      ),
      regionLen: fc.constantFrom(1 << 30, 64 << 20, 1 << 20, 65536),
      startNs: fc.constantFrom(0, 0, 0, 3e6),
      thinktimeNs: fc.constantFrom(0, 0, 0, 0, 0, 0, 50_000),
      rampNs: fc.constantFrom(undefined, undefined, undefined, undefined, undefined, undefined, undefined, 2e6),
      cgroup: fc.constantFrom("", "a", "a/b"),
      device: fc.integer({ min: 0, max: devices - 1 }),
    })
    .map((j) =>
      jobDefaults({
        name: `j${k}`,
        device: `dev${j.device}`,
        rw: j.rw as JobSpec["rw"],
        random: j.random,
        bs: j.bs.map((size) => ({ size, weight: 1 })),
        ...(j.bsWrite ? { bsWrite: j.bsWrite.map((size) => ({ size, weight: 1 })) } : {}),
        iodepth: j.iodepth,
        regionLen: Math.max(j.regionLen, 1 << 21),
        startNs: j.startNs,
        thinktimeNs: j.thinktimeNs,
        cgroup: j.cgroup,
        ...(j.rampNs ? { rampNs: j.rampNs } : {}),
        ...j.limit,
      }),
    );

const arbScenario: fc.Arbitrary<Scenario> = fc
  .constantFrom(1, 1, 1, 2)
  .chain((nDev) =>
    fc.record({
      devices: fc.tuple(...Array.from({ length: nDev }, (_, i) => arbDevice(`dev${i}`, `8:${16 * i}`))),
      jobs: fc.constantFrom(1, 1, 1, 2, 3).chain((nJobs) => fc.tuple(...Array.from({ length: nJobs }, (_, k) => arbJob(k, nDev)))),
      seriesBinNs: fc.constantFrom(0, 1e6, 100e6),
      durationNs: fc.constantFrom(undefined, undefined, 5e6),
      seed: fc.integer({ min: 1, max: 1 << 30 }),
    }),
  )
  .map((s) =>
    scenarioDefaults({
      name: "steady",
      seed: s.seed,
      devices: s.devices,
      jobs: s.jobs,
      seriesBinNs: s.seriesBinNs,
      cgroups: [{ path: "a" }, { path: "a/b" }],
      ...(s.durationNs ? { durationNs: s.durationNs } : {}),
    }),
  );

describe("the steady closed loop", () => {
  it("gives random scenarios the bytes the general path gives", () => {
    let stepped = 0;
    let mostly = 0;
    fc.assert(
      fc.property(arbScenario, (sc) => {
        const off = run(sc, false);
        const on = run(sc, true);
        expect(off.steps).toBe(0);
        if (on.steps > 0) stepped++;
        if (on.steps > 0.5 * on.r.events) mostly++;
        expect(bytes(on.r)).toBe(bytes(off.r));
      }),
      { numRuns: 200 },
    );
    // the loop ran in many cases, and took most of the steps in some
    expect(stepped).toBeGreaterThan(30);
    expect(mostly).toBeGreaterThan(10);
  });

  it("takes nearly every step of bench/engine-20m.fio's workload, with the same result", () => {
    const sc = scenarioDefaults({
      name: "engine",
      devices: [devicePreset("ideal")],
      seriesBinNs: 100e6,
      jobs: [jobDefaults({ name: "engine", device: "loop1", random: true, iodepth: 32, regionLen: 64 << 20, count: 300_000 })],
    });
    const off = run(sc, false);
    const on = run(sc, true);
    expect(bytes(on.r)).toBe(bytes(off.r));
    expect(on.r.jobs[0]!.read.ios).toBe(300_000);
    // it stops for one general step in each jiffy (4 ms: ~660 bios) and at the run's start and end
    expect(on.steps).toBeGreaterThan(0.99 * on.r.events);
  });
});
