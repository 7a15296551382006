// blk-iolatency and wbt in the simulated rq-qos chain: the worked examples of
// assembly/iolatency/iolatency.ts and assembly/wbt/wbt.ts, and properties.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { simulate } from "../simulation.js";
import { loadScenario } from "../../scenario/load.js";
import type { BioRecord, RunResult } from "../../scenario/types.js";

const run = (yaml: string): RunResult => simulate(loadScenario(yaml, "t.yaml").scenario);

const iolatYaml = (kernel: string, extra = "") => `name: iolat
kernel: "${kernel}"
duration: 6s
blkcg_debug_stats: true
devices:
  - {preset: nullb, nr_requests: 8, channels: 8, latency: 20ms${extra}}
cgroups:
  A: {io.latency: "251:0 target=40000"}
  B: {io.latency: "251:0 target=150000"}
  C: {}
jobs:
  - {name: a, cgroup: A, rw: randread, bs: 4k, iodepth: 4, direct: 1, ioengine: libaio, runtime: 6s, time_based: 1}
  - {name: b, cgroup: B, rw: randread, bs: 4k, iodepth: 4, direct: 1, ioengine: libaio, runtime: 6s, time_based: 1}
  - {name: c, cgroup: C, rw: randread, bs: 4k, iodepth: 16, direct: 1, ioengine: libaio, runtime: 6s, time_based: 1}
record: true
`;

/** Mean latency (submit to completion) of a cgroup's IOs, from the run's records. */
function meanLat(r: RunResult, cg: string): number {
  const l = r.records!.filter((b) => b.cgroup === cg);
  return l.reduce((a, b) => a + b.completeNs - b.submitNs, 0) / l.length;
}

describe("blk-iolatency: the worked example (8 tags, 20 ms, A 40 ms, B 150 ms, C none)", () => {
  const r = run(iolatYaml("6.1"));
  const tl = r.rqos!.iolatency;

  it("A's first window (16 x 40 ms = 640 ms) misses: C is halved from nr_requests, 500 ms apart, down to 1", () => {
    const c = tl["C"]!["251:0"]!.filter((p) => p.depth !== null);
    const depths = c.map((p) => p.depth);
    expect(depths.slice(0, 3)).toEqual([4, 2, 1]);
    expect(c[0]!.tNs).toBeGreaterThanOrEqual(640e6);
    expect(c[1]!.tNs - c[0]!.tNs).toBeGreaterThanOrEqual(500e6);
    // each scale-down is one cookie step of nr_requests >> 2 = 2
    expect(c[0]!.cookieDown).toBe(2);
  });

  it("the protected group itself is never throttled; B (target above A's) is", () => {
    expect((tl["A"]?.["251:0"] ?? []).every((p) => p.depth === null)).toBe(true);
    expect(tl["B"]!["251:0"]!.some((p) => p.depth !== null && p.depth < 8)).toBe(true);
  });

  it("throttling C lowers A's latency against the same run without io.latency", () => {
    const none = run(iolatYaml("6.1").replace(/io\.latency: "[^"]*"/g, "io.weight: \"default 100\"").replace("blkcg_debug_stats: true\n", ""));
    expect(meanLat(r, "A")).toBeLessThan(meanLat(none, "A") * 0.8);
    expect(meanLat(r, "C")).toBeGreaterThan(meanLat(none, "C"));
    expect(none.rqos).toBeUndefined();
  });

  it("io.stat shows the ssd fields with blkcg_debug_stats (missed= total= depth=)", () => {
    const c = r.cgroups.find((x) => x.path === "C")!;
    const e = c.ioStatExtra?.["251:0"] ?? {};
    expect(Object.keys(e).filter((k) => ["missed", "total", "depth"].includes(k))).toEqual(["missed", "total", "depth"]);
    expect(r.cgroups.find((x) => x.path === "A")!.ioStatExtra?.["251:0"]?.depth).toBe("max");
  });

  it("a rotational disk uses the mean and prints depth= avg_lat= win=", () => {
    const rot = run(iolatYaml("6.1", ", rotational: 1"));
    const e = rot.cgroups.find((x) => x.path === "A")!.ioStatExtra?.["251:0"] ?? {};
    expect(Object.keys(e)).toEqual(["depth", "avg_lat", "win"]);
    expect(e.win).toBe(640);
  });

  it("every profile runs the same policy (6.2+ only moves it before wbt in the chain)", () => {
    const a = run(iolatYaml("6.12"));
    expect(a.rqos!.iolatency["C"]!["251:0"]!.filter((p) => p.depth !== null).map((p) => p.depth).slice(0, 3)).toEqual([4, 2, 1]);
  });
});

const wbtYaml = (lat: string, nr = 4, kernel = "6.1") => `name: wbt
kernel: "${kernel}"
duration: 8s
devices:
  - {preset: nullb, nr_requests: ${nr}, channels: ${nr}, latency: 40ms${lat === "" ? "" : `, wbt_lat_usec: "${lat}"`}}
cgroups:
  /: {vm.dirty_background_bytes: "4194304", vm.dirty_bytes: "16777216", wb.memory: 256m}
jobs:
  - {name: w, rw: write, bs: 64k, iodepth: 1, direct: 0, size: 256m, runtime: 8s, time_based: 1}
  - {name: r, rw: randread, bs: 4k, iodepth: 2, ioengine: libaio, direct: 1, runtime: 8s, time_based: 1}
record: true
`;

/** Most writeback bios in flight at the device at once (from the run's records). */
function maxWritebackInFlight(recs: BioRecord[]): number {
  const ev: Array<[number, number]> = [];
  for (const b of recs) if (b.job === "(writeback)") ev.push([b.issueNs, 1], [b.completeNs, -1]);
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let max = 0;
  for (const [, d] of ev) {
    cur += d;
    max = Math.max(max, cur);
  }
  return max;
}

describe("wbt", () => {
  it("calc_wb_limits at scale_step 0: max_depth = min(16, nr_requests), normal (d+1)/2, background (d+3)/4; <= 2: d and 1", () => {
    // [nr_requests, max_depth, wb_normal, wb_background] as rq_depth_calc_max_depth / calc_wb_limits compute them
    const rows: Array<[number, number, number, number]> = [[1, 2, 2, 1], [2, 2, 2, 1], [4, 4, 2, 1], [8, 8, 4, 2], [64, 16, 8, 4]];
    for (const [nr, d, n, b] of rows) {
      const r = run(wbtYaml("-1", nr).replace("duration: 8s", "duration: 1ms"));
      const first = r.rqos!.wbt["251:0"]![0]!;
      expect([first.maxDepth, first.normal, first.background, first.step]).toEqual([d, n, b, 0]);
    }
  });

  it("writeback in flight stays within max_depth (a root-cgroup writer's dirty sleeps make wb_recent_wait true: max_depth, not wb_background)", () => {
    const on = run(wbtYaml("100000"));
    const off = run(wbtYaml(""));
    expect(maxWritebackInFlight(on.records!)).toBeLessThanOrEqual(on.rqos!.wbt["251:0"]!.reduce((m, p) => Math.max(m, p.maxDepth), 0));
    expect(maxWritebackInFlight(off.records!)).toBeGreaterThanOrEqual(maxWritebackInFlight(on.records!));
  });

  it("a target below the device's read latency is exceeded and scales down more often than one above it", () => {
    const downs = (lat: string) => {
      const tl = run(wbtYaml(lat)).rqos!.wbt["251:0"]!;
      return tl.filter((p, i) => i > 0 && p.step > tl[i - 1]!.step).length;
    };
    // above the target only five windows without a sample in a row move a negative step back to 0
    expect(downs("2000")).toBeGreaterThan(downs("100000"));
  });

  it("wbt_lat_usec 0 turns it off: writeback as without wbt", () => {
    const zero = run(wbtYaml("0"));
    const none = run(wbtYaml(""));
    expect(zero.jobs.map((j) => j.read.ios + j.write.ios)).toEqual(none.jobs.map((j) => j.read.ios + j.write.ios));
  });

  it("property: writeback in flight never exceeds max_depth of any state wbt was in", () => {
    fc.assert(fc.property(fc.integer({ min: 2, max: 32 }), fc.constantFrom("-1", "100000", "500"), (nr, lat) => {
      const r = run(wbtYaml(lat, nr));
      const maxD = Math.max(...r.rqos!.wbt["251:0"]!.map((p) => p.maxDepth));
      return maxWritebackInFlight(r.records!) <= Math.max(maxD, 1);
    }), { numRuns: 4 });
  });
});

describe("blk-iolatency's stamps are ktime (time since boot), as 6.1's are", () => {
  // A's 10 ms target is below the device's 20 ms: its first window (160 ms after its write)
  // misses. last_scale_event starts at 0 in ktime, long past at boot + 10 s (defaultClock), so
  // the first scale event comes then, not after BLKIOLATENCY_MIN_ADJUST_TIME of simulated time.
  const yaml = `name: iolat-ktime
kernel: "6.1"
duration: 2s
devices:
  - {preset: nullb, nr_requests: 32, channels: 32, latency: 20ms}
cgroups:
  A: {io.latency: "251:0 target=10000"}
  C: {}
jobs:
  - {name: a, cgroup: A, rw: randread, bs: 4k, iodepth: 4, direct: 1, ioengine: libaio, runtime: 2s, time_based: 1}
  - {name: c, cgroup: C, rw: randread, bs: 4k, iodepth: 16, direct: 1, ioengine: libaio, runtime: 2s, time_based: 1}
`;
  it("C is cut at A's first window, then one step per 500 ms at A's next window after it", () => {
    const c = run(yaml).rqos!.iolatency["C"]!["251:0"]!.filter((p) => p.depth !== null);
    // A's completions come every 20 ms; its window of 16 x 10 ms = 160 ms ends at its completion at 160 ms
    // (window_start = its io.latency write at 0); C's next bio then sees the cookie: 32 -> 16
    expect(c[0]!.depth).toBe(16);
    expect(c[0]!.tNs).toBeGreaterThanOrEqual(160e6);
    expect(c[0]!.tNs).toBeLessThan(200e6);
    // the next: A's first window end 500 ms or more after 160 ms (its windows end at 320, 480, 640:
    // 480 ms after, too soon; then 800)
    expect(c[1]!.depth).toBe(8);
    expect(c[1]!.tNs).toBeGreaterThanOrEqual(800e6);
    expect(c[1]!.tNs).toBeLessThan(840e6);
  });
});
