import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fioJsonText, latencyDistribution, statCalcDist, toFioJson } from "./fio-json.js";
import { FIO_IO_U_PLAT_NR, platValToIdx } from "./percentiles.js";
import { dirStats, job, runResult } from "../../test/helpers/run-result.js";

const FIX = fileURLToPath(new URL("../../test/fixtures/fio/", import.meta.url));
const shape = JSON.parse(readFileSync(FIX + "fio-json-shape.json", "utf8"));

/** Every key of `want` is in `got` with the same JSON type (recursively); data-keyed maps compare keys. */
function sameShape(got: unknown, want: unknown, path: string): void {
  const t = (v: unknown) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);
  expect(t(got), path).toBe(t(want));
  if (t(want) === "object") {
    const g = got as Record<string, unknown>;
    const w = want as Record<string, unknown>;
    if (path.endsWith("options")) return; // option names are the user's
    for (const k of Object.keys(w)) {
      expect(g, `${path} lacks "${k}"`).toHaveProperty([k]);
      sameShape(g[k], w[k], `${path}.${k}`);
    }
    if (path.endsWith("percentile") || /latency_|iodepth_/.test(path)) expect(Object.keys(g)).toEqual(Object.keys(w));
  } else if (t(want) === "array" && (want as unknown[]).length > 0) {
    sameShape((got as unknown[])[0], (want as unknown[])[0], `${path}[0]`);
  }
}

// 10,000 reads of 4 KiB: 9,900 at 150 us, 100 at 3 ms; runtime 2000.7 ms -> fio's 2000
const fast = new Array(9900).fill(150_000);
const slow = new Array(100).fill(3_000_000);
const readJob = job("randread-4k", dirStats([...fast, ...slow]), dirStats([]), 2000.7);

describe("fio JSON", () => {
  const out = toFioJson(runResult([readJob]), {
    jobs: [{ spec: "randread-4k", jobname: "randread-4k", groupid: 0, options: { rw: "randread" } }],
    globalOptions: { ioengine: "libaio" },
  });

  it("has every key and JSON type of fio's output (shape reconstructed from stat.c)", () => {
    sameShape(out, shape, "$");
    expect(Object.keys(out)).toEqual(["fio version", "timestamp", "timestamp_ms", "time", "global options", "jobs", "disk_util"]);
    expect(out.disk_util).toEqual([]);
  });

  it("a job's keys come in fio 3.39's order, ending with latency_depth/target/percentile/window (a reader of job['latency_depth'] found nothing)", () => {
    // the key order of one job in fio 3.39's own --output-format=json (psync job on a file)
    expect(Object.keys(out.jobs[0]!)).toEqual(["jobname", "groupid", "job_start", "error", "eta", "elapsed", "job options",
      "read", "write", "trim", "sync", "job_runtime", "usr_cpu", "sys_cpu", "ctx", "majf", "minf", "iodepth_level",
      "iodepth_submit", "iodepth_complete", "latency_ns", "latency_us", "latency_ms", "latency_depth", "latency_target",
      "latency_percentile", "latency_window"]);
    expect(out.jobs[0]).toMatchObject({ latency_depth: 1, latency_target: 0, latency_percentile: 100, latency_window: 0 });
  });

  it("latency_depth is the iodepth option as written (fio 3.39: psync with iodepth=8 prints 8), else the job's depth; a group takes its last job's", () => {
    const a = job("g.0", dirStats([1000]), dirStats([]), 10);
    const b = job("g.1", dirStats([1000]), dirStats([]), 10);
    const info = (spec: string, iodepth: number) => ({ spec, jobname: "g", groupid: 0, groupReporting: true, iodepth });
    expect(toFioJson(runResult([a, b]), { jobs: [info("g.0", 4), info("g.1", 8)] }).jobs[0]!.latency_depth).toBe(8);
    expect(toFioJson(runResult([{ ...a, iodepth: 32 }])).jobs[0]!.latency_depth).toBe(32);
  });

  it("computes bandwidth and IOPS with fio's integer arithmetic over whole milliseconds", () => {
    const r = out.jobs[0]!.read;
    expect(r.runtime).toBe(2000);
    expect(r.io_bytes).toBe(40_960_000);
    expect(r.io_kbytes).toBe(40_000);
    expect(r.bw_bytes).toBe(20_480_000);
    expect(r.bw).toBe(20_000);
    expect(r.iops).toBe(5000);
    expect(r.total_ios).toBe(10_000);
    expect(out.jobs[0]!.write.runtime).toBe(0);
  });

  it("reports clat percentiles from the histogram: p99 is the 150 us bucket, p99.5 the 3 ms one", () => {
    const c = out.jobs[0]!.read.clat_ns;
    // 150,000 ns: msb 17, error bits 11, offset (150000 >> 11) & 63 = 9 -> 131072 + 9.5 * 2048
    expect(c.percentile!["99.000000"]).toBe(150_528);
    // 3,000,000 ns: msb 21, error bits 15, offset 27 -> 2097152 + 27.5 * 32768
    expect(c.percentile!["99.500000"]).toBe(2_998_272);
    expect(c.N).toBe(10_000);
    expect(c.min).toBe(150_000);
    expect(c.max).toBe(3_000_000);
    expect(c.mean).toBeCloseTo(178_500, 6);
    expect(out.jobs[0]!.read.lat_ns.percentile).toBeUndefined(); // fio: lat_percentiles off by default
    expect(out.jobs[0]!.read.slat_ns.N).toBe(0);
  });

  it("latency_us/ms are fio's io_u_lat buckets as percentages of all IOs", () => {
    const j = out.jobs[0]!;
    expect(j.latency_us["250"]).toBeCloseTo(99, 10); // 150 us is in "250" (100..249 us)
    expect(j.latency_ms["4"]).toBeCloseTo(1, 10); // 3 ms is in "4" (2..3 ms)
    const sum = [j.latency_ns, j.latency_us, j.latency_ms].flatMap((o) => Object.values(o)).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(100, 9);
  });

  it("a tiny non-zero share is shown as 0.01%, as fio's stat_calc_lat does", () => {
    const h = new Uint32Array(FIO_IO_U_PLAT_NR);
    h[platValToIdx(5)] = 1;
    h[platValToIdx(500_000)] = 99_999;
    expect(latencyDistribution(h, 100_000).ns["10"]).toBe(0.01);
  });

  it("group_reporting sums a group's jobs: counts add, runtime is the longest, means and variances merge", () => {
    const a = job("t.0", dirStats(new Array(100).fill(1000)), dirStats([]), 1000);
    const b = job("t.1", dirStats(new Array(300).fill(2000)), dirStats([]), 1500);
    const info = (spec: string) => ({ spec, jobname: "t", groupid: 0, groupReporting: true });
    const g = toFioJson(runResult([a, b]), { jobs: [info("t.0"), info("t.1")] });
    expect(g.jobs).toHaveLength(1);
    const r = g.jobs[0]!.read;
    expect(r.total_ios).toBe(400);
    expect(r.runtime).toBe(1500);
    expect(r.clat_ns.mean).toBe(1750);
    // sample stddev of 100 x 1000 and 300 x 2000: sqrt((100*750^2 + 300*250^2) / 399)
    expect(r.clat_ns.stddev).toBeCloseTo(Math.sqrt(75e6 / 399), 9);
    expect(r.clat_ns.percentile!["50.000000"]).toBe(2008); // 2000 ns: msb 10, offset 61 -> 1024 + 61.5 * 16
    const solo = toFioJson(runResult([a, b]));
    expect(solo.jobs.map((j) => j.jobname)).toEqual(["t.0", "t.1"]);
  });

  it("prints like fio's json.c: ' : ' separators, 2-space indent, floats as %f, and parses back to the same report", () => {
    const text = fioJsonText(out);
    expect(text).toContain('  "fio version" : "iosim (fio-3.39 json)",\n');
    expect(text).toContain('      "latency_percentile" : 100.000000,\n');
    expect(text).toMatch(/"iops" : 5000\.000000,/);
    expect(text).toMatch(/"bw" : 20000,/);
    expect(text).toMatch(/"99\.500000" : \d+/);
    const round6 = (v: unknown): unknown => (typeof v === "number" ? Math.round(v * 1e6) / 1e6
      : Array.isArray(v) ? v.map(round6) : v && typeof v === "object"
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, round6(x)])) : v);
    expect(round6(JSON.parse(text))).toEqual(round6(JSON.parse(JSON.stringify(out))));
  });

  it("json+ adds the histogram as bins keyed by bucket value", () => {
    const plus = toFioJson(runResult([readJob]), { plus: true });
    const bins = plus.jobs[0]!.read.clat_ns.bins!;
    expect(Object.values(bins).reduce((x, y) => x + y, 0)).toBe(10_000);
    expect(Object.keys(bins)).toHaveLength(2);
  });

  it("the same run gives the same bytes (no wall clock unless asked)", () => {
    const r = runResult([readJob]);
    expect(fioJsonText(toFioJson(r))).toBe(fioJsonText(toFioJson(r)));
    expect(toFioJson(r, { nowMs: 1_700_000_000_123 }).time).toBe("Tue Nov 14 22:13:20 2023");
  });
});

describe("fio IO depth distribution (iodepth_level / iodepth_submit / iodepth_complete)", () => {
  it("stat_calc_dist: 100 * n / total, a nonzero bucket under 0.1 % shown as 0.1, all 0 without a total", () => {
    expect(statCalcDist([1, 2, 4, 4089, 0, 0, 0], 4096)).toEqual([0.1, 0.1, 0.1, (100 * 4089) / 4096, 0, 0, 0]);
    expect(statCalcDist([1, 999, 0, 0, 0, 0, 0], 1000)).toEqual([0.1, 99.9, 0, 0, 0, 0, 0]);
    expect(statCalcDist([0, 0, 0, 0, 0, 0, 0], 0)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it("a reporting group adds its members' depth maps (sum_thread_stats); submit and complete are one IO per call", () => {
    const a = { ...job("a", dirStats([1000, 1000]), dirStats([]), 1), depth: [2, 0, 0, 0, 0, 0, 0] };
    const b = { ...job("b", dirStats([1000, 1000]), dirStats([]), 1), depth: [0, 0, 2, 0, 0, 0, 0] };
    const info = (spec: string) => ({ spec, jobname: "g", groupid: 0, groupReporting: true });
    const j = toFioJson(runResult([a, b]), { jobs: [info("a"), info("b")] }).jobs;
    expect(j).toHaveLength(1);
    expect(j[0]!.iodepth_level).toEqual({ "1": 50, "2": 0, "4": 50, "8": 0, "16": 0, "32": 0, ">=64": 0 });
    expect(j[0]!.iodepth_submit).toEqual({ "0": 0, "4": 100, "8": 0, "16": 0, "32": 0, "64": 0, ">=64": 0 });
    expect(j[0]!.iodepth_complete).toEqual(j[0]!.iodepth_submit);
  });

  it("a JobResult without a depth map keeps fio's zeros", () => {
    const j = toFioJson(runResult([job("a", dirStats([1000]), dirStats([]), 1)])).jobs[0]!;
    expect(Object.values(j.iodepth_level).every((v) => v === 0)).toBe(true);
    expect(Object.values(j.iodepth_submit).every((v) => v === 0)).toBe(true);
  });
});
