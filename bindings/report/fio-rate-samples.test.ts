// fio's bandwidth and IOPS samples (assembly/stats/stats.ts: one per 500 ms
// window with IO, closed when the job's next completion comes after the
// window or when its thread ends), and how fio's JSON and normal output
// report them (bw_min ... iops_samples; the "bw (  KiB/s):" and "iops :"
// lines). The expected samples are worked out here from the run's per-bio
// records by fio's own arithmetic, not read back from the core.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadScenario } from "../scenario/load.js";
import { simulate } from "../engine/simulation.js";
import { parseFioJobFile } from "../workload/fio-jobfile.js";
import { scenarioDefaults } from "../scenario/defaults.js";
import { devicePreset } from "../device/presets.js";
import type { BioRecord, RateSamples, RunResult } from "../scenario/types.js";
import { toFioJson } from "./fio-json.js";
import { toFioText } from "./fio-text.js";

const WINDOW_NS = 500e6;

/** add_stat_sample() over `values`, as fio does it */
function welford(values: number[]): RateSamples {
  const s: RateSamples = { samples: 0, min: 0, max: 0, mean: 0, S: 0 };
  for (const v of values) {
    if (s.samples === 0 || v > s.max) s.max = v;
    if (s.samples === 0 || v < s.min) s.min = v;
    const delta = v - s.mean;
    if (delta) {
      s.mean += delta / (s.samples + 1);
      s.S += delta * (v - s.mean);
    }
    s.samples++;
  }
  return s;
}

/** A job's samples from its records: each 500 ms window from its start, ended by `endNs`, with IO in it */
function expectedSamples(recs: BioRecord[], startNs: number, endNs: number, dir: "R" | "W"): { bw: RateSamples; iops: RateSamples } {
  const bytes = new Map<number, number>();
  const ios = new Map<number, number>();
  for (const r of recs) {
    if (r.dir !== dir) continue;
    const k = Math.ceil((r.completeNs - startNs) / WINDOW_NS); // window k ends at start + k * 500 ms
    bytes.set(k, (bytes.get(k) ?? 0) + r.size);
    ios.set(k, (ios.get(k) ?? 0) + 1);
  }
  const ks = [...bytes.keys()].filter((k) => startNs + k * WINDOW_NS <= endNs).sort((a, b) => a - b);
  return {
    bw: welford(ks.map((k) => Math.floor(Math.floor((bytes.get(k)! * 1000) / 500) / 1024))),
    iops: welford(ks.map((k) => Math.floor((ios.get(k)! * 1000) / 500))),
  };
}

const run = (yaml: string): RunResult => simulate(loadScenario(yaml, "rates.yaml").scenario);

describe("fio's bw and iops samples", () => {
  it("a job at rate_iops=2000 for 2 s: four windows of 1000 4 KiB reads, 8000 KiB/s and 2000 IOPS each", () => {
    const r = run(`name: r
devices: [{preset: nvme}]
jobs:
  - {name: a, filename: /dev/nvme0n1, rw: randread, bs: 4k, direct: 1, ioengine: libaio, iodepth: 4, rate_iops: 2000, runtime: 2s, time_based: 1}
`);
    const d = r.jobs[0]!.read;
    expect(d.bwSamples).toEqual({ samples: 4, min: 8000, max: 8000, mean: 8000, S: 0 });
    expect(d.iopsSamples).toEqual({ samples: 4, min: 2000, max: 2000, mean: 2000, S: 0 });
  });

  it("bursts and idle windows (thinktime), both directions, a job that starts late: the samples fio's arithmetic gives over the records", () => {
    const r = run(`name: r
duration: 10s
record: true
devices: [{preset: ssd, jitter: 0.2}]
jobs:
  - {name: a, filename: /dev/sda, rw: randrw, rwmixread: 70, bs: 4k, direct: 1, ioengine: libaio, iodepth: 2, thinktime: 700ms, thinktime_blocks: 3000, number_ios: 20000}
  - {name: b, filename: /dev/sda, rw: write, bs: 64k, direct: 1, ioengine: psync, rate: 5m, startdelay: 1300ms, number_ios: 300}
`);
    for (const job of r.jobs) {
      const recs = r.records!.filter((x) => x.job === job.name);
      for (const [dir, d] of [["R", job.read], ["W", job.write]] as const) {
        const want = expectedSamples(recs, job.startNs, job.lastDoneNs, dir);
        expect({ job: job.name, dir, bw: d.bwSamples!.samples }).toEqual({ job: job.name, dir, bw: want.bw.samples });
        if (want.bw.samples === 0) continue;
        for (const k of ["min", "max"] as const) {
          expect(d.bwSamples![k]).toBe(want.bw[k]);
          expect(d.iopsSamples![k]).toBe(want.iops[k]);
        }
        expect(d.bwSamples!.mean).toBeCloseTo(want.bw.mean, 9);
        expect(d.bwSamples!.S).toBeCloseTo(want.bw.S, 3);
        expect(d.iopsSamples!.mean).toBeCloseTo(want.iops.mean, 9);
      }
    }
    // the thinking job's read samples skip its idle windows: fewer than its span has windows
    const a = r.jobs.find((j) => j.name === "a")!;
    expect(a.read.bwSamples!.samples).toBeGreaterThan(2);
    expect(a.read.bwSamples!.samples).toBeLessThan(Math.floor((a.lastDoneNs - a.startNs) / WINDOW_NS));
  });

  it("a job shorter than one window has no samples, and fio's JSON then prints zeros", () => {
    const r = run(`name: r
devices: [{preset: nvme}]
jobs:
  - {name: a, filename: /dev/nvme0n1, rw: randread, bs: 4k, direct: 1, number_ios: 100}
`);
    expect(r.jobs[0]!.read.bwSamples!.samples).toBe(0);
    const j = toFioJson(r).jobs[0]!.read;
    expect([j.bw_min, j.bw_max, j.bw_agg, j.bw_mean, j.bw_dev, j.bw_samples, j.iops_samples]).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(toFioText(r)).not.toContain("   bw (");
  });
});

describe("fio's report of the samples", () => {
  const dir = join(__dirname, "..", "..", "test", "fixtures", "fio", "rates");
  const text = readFileSync(join(dir, "rate-iops-2000.fio"), "utf8");
  const parsed = parseFioJobFile(text, "rate-iops-2000.fio", { defaultDevice: "nvme0n1" });
  const r = simulate(scenarioDefaults({ name: "t", devices: [devicePreset("nvme")], jobs: parsed.jobs }));

  it("JSON: bw_min/max/mean/dev/samples and iops_*, bw_agg the mean's share of the group's bandwidth", () => {
    const j = toFioJson(r, { jobs: parsed.meta }).jobs[0]!.read;
    expect([j.bw_min, j.bw_max, j.bw_mean, j.bw_dev, j.bw_samples]).toEqual([8000, 8000, 8000, 0, 4]);
    expect([j.iops_min, j.iops_max, j.iops_mean, j.iops_stddev, j.iops_samples]).toEqual([2000, 2000, 2000, 0, 4]);
    // group aggregate: io_bytes * 1000 / runtime, in KiB/s
    expect(j.bw_agg).toBeCloseTo(Math.min(100, (8000 * 100) / (Math.floor((j.io_bytes * 1000) / j.runtime) / 1024)), 9);
  });

  it("text: the same two lines as fio 3.39 prints them (its values were from a real disk: only the shape is compared)", () => {
    // (%5llu and %5.02f pad a number to 5 characters: " 0.00" against "22.63")
    const shape = (s: string) => s.replace(/= *\d+(\.\d+)?/g, "=N");
    const want = readFileSync(join(dir, "rate-iops-2000.fio39.txt"), "utf8").split("\n").filter(Boolean);
    const got = toFioText(r, { jobs: parsed.meta }).split("\n").filter((l) => l.startsWith("   bw (") || l.startsWith("   iops "));
    expect(got.map(shape)).toEqual(want.map(shape));
    expect(got[0]).toBe("   bw (  KiB/s): min= 8000, max= 8000, per=" + got[0]!.split("per=")[1]!.split("%")[0] + "%, avg=8000.00, stdev= 0.00, samples=4");
  });

  it("a time_based job's runtime is at least its runtime option: the rate-limited job's last read completes 0.4 ms before 2 s, fio's thread runs on to 2 s", () => {
    expect(r.jobs[0]!.lastDoneNs - r.jobs[0]!.startNs).toBeLessThan(2000e6);
    const j = toFioJson(r, { jobs: parsed.meta }).jobs[0]!.read;
    expect([j.runtime, j.iops, j.total_ios]).toEqual([2000, 2000, 4000]);
  });

  it("group_reporting adds the members' samples up (fio's sum_stat pure_sum): two such jobs read as min=max=16000, samples=8", () => {
    const two = parseFioJobFile(text.replace("[reader]", "[reader]\nnumjobs=2\ngroup_reporting"), "two.fio", { defaultDevice: "nvme0n1" });
    const r2 = simulate(scenarioDefaults({ name: "t", devices: [devicePreset("nvme")], jobs: two.jobs }));
    const j = toFioJson(r2, { jobs: two.meta }).jobs[0]!.read;
    expect([j.bw_min, j.bw_max, j.bw_mean, j.bw_samples, j.iops_mean]).toEqual([16000, 16000, 16000, 8, 4000]);
  });
});
