import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { Simulation, simulate } from "../../bindings/engine/simulation.js";
import { jobDefaults, scenarioDefaults } from "../../bindings/scenario/defaults.js";
import { fixedDevice } from "./helpers.js";
import type { JobSpec, Scenario } from "../../bindings/scenario/types.js";
import { iomaxDemo } from "../../bindings/scenario/builtin/iomax-demo.js";
import { devicePreset } from "../../bindings/device/presets.js";

function one(job: Partial<JobSpec>, dev = fixedDevice(100_000), over: Partial<Scenario> = {}) {
  return simulate(scenarioDefaults({
    name: "t", devices: [dev], jobs: [jobDefaults({ name: "j", device: dev.name, ...job })], ...over,
  }));
}

describe("the event engine", () => {
  it("a QD1 job of 100 reads on a 100 us device takes exactly 10 ms", () => {
    const r = one({ count: 100 });
    expect(r.jobs[0]!.read.ios).toBe(100);
    expect(r.simulatedNs).toBe(10_000_000);
    expect(r.jobs[0]!.read.lat.min).toBe(100_000);
    expect(r.jobs[0]!.read.lat.max).toBe(100_000);
  });

  it("four in flight on two channels finish twice as fast as on one", () => {
    const a = one({ count: 400, iodepth: 4 }, fixedDevice(100_000, 1));
    const b = one({ count: 400, iodepth: 4 }, fixedDevice(100_000, 2));
    expect(a.simulatedNs).toBe(40_000_000);
    expect(b.simulatedNs).toBe(20_000_000);
    // on one channel each bio waits for the three ahead of it
    // on one channel each bio waits for the three ahead of it (the first three a little less)
    expect(a.jobs[0]!.read.lat.mean).toBe((400 * 400_000 - 600_000) / 400);
  });

  it("a mixed job with its own write sizes (fio bs=4k,64k): every read is 4 KiB, every write 64 KiB, the mix stays 70/30", () => {
    const r = one({ rw: "mix", mixReadPct: 70, random: true, count: 2000, iodepth: 4, bs: [{ size: 4096, weight: 1 }],
      bsWrite: [{ size: 65536, weight: 1 }] }, fixedDevice(100_000, 4), { record: true });
    const sizes = (dir: "R" | "W") => new Set(r.records!.filter((b) => b.dir === dir).map((b) => b.size));
    expect([...sizes("R")]).toEqual([4096]);
    expect([...sizes("W")]).toEqual([65536]);
    const reads = r.jobs[0]!.read.ios;
    expect(reads + r.jobs[0]!.write.ios).toBe(2000);
    expect(Math.abs(reads / 2000 - 0.7)).toBeLessThan(0.04);
    // and a write list of several sizes draws among them
    const s = one({ rw: "mix", mixReadPct: 50, random: true, count: 2000, bs: [{ size: 4096, weight: 1 }],
      bsWrite: [{ size: 8192, weight: 1 }, { size: 16384, weight: 3 }] }, fixedDevice(100_000, 4), { record: true });
    const w = s.records!.filter((b) => b.dir === "W");
    const big = w.filter((b) => b.size === 16384).length / w.length;
    expect(new Set(w.map((b) => b.size))).toEqual(new Set([8192, 16384]));
    expect(Math.abs(big - 0.75)).toBeLessThan(0.05);
    expect(new Set(s.records!.filter((b) => b.dir === "R").map((b) => b.size))).toEqual(new Set([4096]));
  });

  it("a 50/50 mix capped at 1 MiB/s of 4 KiB reads and 2 MiB/s of 64 KiB writes runs each direction at its cap (fio's rate_ddir)", () => {
    const r = one({ rw: "mix", mixReadPct: 50, random: true, iodepth: 4, runtimeNs: 4e9, timeBased: true,
      bs: [{ size: 4096, weight: 1 }], bsWrite: [{ size: 65536, weight: 1 }],
      pattern: { kind: "rate", read: { bps: 1 << 20 }, write: { bps: 2 << 20 } } }, fixedDevice(100_000, 4));
    const j = r.jobs[0]!;
    const mibs = (bytes: number) => bytes / (1 << 20) / (j.runtimeMs / 1e3);
    expect(Math.abs(mibs(j.read.bytes) - 1)).toBeLessThan(0.02);
    expect(Math.abs(mibs(j.write.bytes) - 2)).toBeLessThan(0.04);
    // the mix bends to the caps: 8 reads per write, not 1
    expect(j.read.ios / j.write.ios).toBeGreaterThan(7);
    // one direction capped, the other not: the uncapped one runs free
    const w = one({ rw: "mix", mixReadPct: 50, random: true, iodepth: 4, count: 4000,
      pattern: { kind: "rate", write: { iops: 100 } } }, fixedDevice(100_000, 4)).jobs[0]!;
    expect(w.write.ios / (w.runtimeMs / 1e3)).toBeLessThan(101);
    expect(w.read.ios).toBeGreaterThan(20 * w.write.ios);
  });

  it("a job in cgroup a/../b is b's, as the kernel resolves the path: b's io.max holds it (a literal cgroup 'a/..' ran it unthrottled)", () => {
    const r = one({ count: 50, cgroup: "a/../b/." }, fixedDevice(100_000), { cgroups: [{ path: "b", files: { "io.max": "8:0 riops=100" } }] });
    expect(r.cgroups.map((c) => c.path).sort()).toEqual(["", "b"]);
    expect(r.simulatedNs).toBeGreaterThan(0.4e9); // 50 IOs at 100 IOPS
  });

  it("bios beyond nr_requests wait for a request, FIFO", () => {
    const r = one({ count: 8, iodepth: 8 }, fixedDevice(100_000, 8, 2));
    // 2 at a time: 4 rounds of 100 us
    expect(r.simulatedNs).toBe(400_000);
  });

  it("a rate-limited job submits at its rate", () => {
    const r = one({ count: 50, pattern: { kind: "rate", iops: 1000 }, iodepth: 4 });
    // IO i at i ms, last at 49 ms + 100 us
    expect(r.simulatedNs).toBe(49_100_000);
    expect(r.jobs[0]!.read.lat.max).toBe(100_000);
  });

  it("bursts wait for the previous burst to complete, then the gap", () => {
    const r = one({ count: 6, pattern: { kind: "bursts", burst: 3, gapsNs: [1_000_000] } });
    // burst 1: 0..300 us; burst 2 starts at 1.3 ms and ends 1.6 ms
    expect(r.simulatedNs).toBe(1_600_000);
  });

  it("thinktime stalls after every thinktime_blocks IOs", () => {
    const r = one({ count: 4, thinktimeNs: 1_000_000, thinktimeBlocks: 2 });
    // 2 IOs (200 us), think 1 ms, 2 IOs
    expect(r.simulatedNs).toBe(1_400_000);
  });

  it("replayed IOs are submitted at their recorded times regardless of completions", () => {
    const ios = [0, 10_000, 20_000].map((t, i) => ({ tNs: t, off: i * 4096, size: 4096, dir: "R" as const }));
    const r = one({ pattern: { kind: "replay", ios }, iodepth: 1 << 20 }, fixedDevice(100_000, 4), { record: true });
    expect(r.records!.map((x) => x.submitNs)).toEqual([0, 10_000, 20_000]);
    expect(r.records!.map((x) => x.completeNs)).toEqual([100_000, 110_000, 120_000]);
  });

  it("runtime stops submission; time_based keeps going over the region", () => {
    const r = one({ runtimeNs: 1_000_000, timeBased: true, regionLen: 8192 });
    expect(r.jobs[0]!.read.ios).toBe(10);
  });

  it("a sequential stream is classed sequential and a random one is not", () => {
    const dev = fixedDevice(100_000);
    dev.curve.read.rand = [[512, 1000], [1 << 20, 1000]]; // 1 ms random
    const seq = one({ count: 10 }, dev);
    const rnd = one({ count: 10, random: true, regionLen: 1 << 30 }, dev);
    // the first bio has no predecessor to follow, so it is random (1 ms); nine follow
    expect(seq.simulatedNs).toBe(1_900_000);
    expect(rnd.simulatedNs).toBe(10_000_000);
  });

  it("interleaved read and write streams are each charged as sequential (the device keeps the last read's and the last write's end)", () => {
    const dev = fixedDevice(100_000);
    const slow = [[512, 1000], [1 << 20, 1000]] as Array<[number, number]>; // 1 ms random
    dev.curve.read.rand = slow;
    dev.curve.write.rand = slow.map(([s, i]) => [s, i] as [number, number]);
    // fio rw=rw's two streams (R W W R R W ...), then a read where the last write ended and
    // a read far from both streams; 2 ms apart, so each bio has the device to itself
    const shape: Array<["R" | "W", number]> = [
      ["R", 0], ["W", 0], ["W", 4096], ["R", 4096], ["R", 8192], ["W", 8192], ["W", 12288], ["R", 12288],
      ["R", 16384], ["W", 16384], ["R", 20480], ["R", 1 << 20],
    ];
    const ios = shape.map(([dir, off], i) => ({ tNs: i * 2_000_000, off, size: 4096, dir }));
    const r = one({ pattern: { kind: "replay", ios }, iodepth: 1 }, dev, { record: true });
    const service = r.records!.map((b) => b.completeNs - b.issueNs);
    // the first of each direction follows nothing; the read at 20480 starts where the last write
    // (16384 + 4 KiB) ended, as the device's previous bio: sequential as before; the last is random
    expect(service).toEqual([1e6, 1e6, 1e5, 1e5, 1e5, 1e5, 1e5, 1e5, 1e5, 1e5, 1e5, 1e6]);
  });

  it("a sequential mixed job (fio rw=rw) runs at the sequential rate: only its first read and first write are random", () => {
    const dev = fixedDevice(100_000);
    dev.curve.read.rand = [[512, 1000], [1 << 20, 1000]];
    dev.curve.write.rand = [[512, 1000], [1 << 20, 1000]];
    const r = one({ rw: "mix", mixReadPct: 50, count: 200, regionLen: 1 << 20 }, dev);
    expect(r.jobs[0]!.read.ios).toBeGreaterThan(50);
    expect(r.jobs[0]!.write.ios).toBeGreaterThan(50);
    expect(r.simulatedNs).toBe(2 * 1_000_000 + 198 * 100_000);
  });

  it("an alternating job (the oracle recorder's rw=alt) keeps one position for both directions, as run_scenario.py's expand_job()", () => {
    const r = one({ rw: "alt", count: 6, regionLen: 16384 }, fixedDevice(100_000), { record: true });
    expect(r.records!.map((b) => `${b.dir}@${b.off}`)).toEqual(["R@0", "W@4096", "R@8192", "W@12288", "R@0", "W@4096"]);
  });

  it("per-cgroup io.stat counts roll up to ancestors", () => {
    const dev = fixedDevice(10_000);
    const r = simulate(scenarioDefaults({
      name: "t", devices: [dev],
      jobs: [
        jobDefaults({ name: "a", device: "dev0", cgroup: "web/a", count: 10 }),
        jobDefaults({ name: "b", device: "dev0", cgroup: "web/b", rw: "write", count: 5, bs: [{ size: 8192, weight: 1 }] }),
      ],
    }));
    const web = r.cgroups.find((c) => c.path === "web")!;
    expect(web.total["8:0"]).toMatchObject({ rios: 10, rbytes: 40960, wios: 5, wbytes: 40960 });
    expect(web.own["8:0"]!.rios).toBe(0);
  });
});

describe("determinism", () => {
  const sc = (seed: number): Scenario => scenarioDefaults({
    name: "det", seed, seriesBinNs: 1e6, record: true,
    devices: [fixedDevice(50_000, 4, 16, { jitterSigma: 0.3 })],
    jobs: [
      jobDefaults({ name: "mix", device: "dev0", rw: "mix", mixReadPct: 70, random: true, iodepth: 8, count: 2000,
        bs: [{ size: 4096, weight: 3 }, { size: 65536, weight: 1 }] }),
    ],
  });
  const bytes = (r: ReturnType<typeof simulate>) => JSON.stringify({ ...r, wallMs: 0 }, (_k, v) =>
    v instanceof Uint32Array ? Array.from(v) : v);

  it("the same scenario and seed give byte-identical results", () => {
    expect(bytes(simulate(sc(7)))).toBe(bytes(simulate(sc(7))));
  });

  it("a different seed gives a different random run", () => {
    expect(bytes(simulate(sc(7)))).not.toBe(bytes(simulate(sc(8))));
  });
});

describe("the lane-0 fast path and the completion hand-over", () => {
  // One job at QD 8 on an ideal device (channels = nr_requests): every pending
  // event is a completion on lane 0, and each completion hands its slot and
  // worker to the job's next IO.
  const sc = (): Scenario => scenarioDefaults({
    name: "lane0", record: true, devices: [fixedDevice(8_000, 8, 8)],
    jobs: [jobDefaults({ name: "j", device: "dev0", iodepth: 8, count: 400, random: true })],
  });
  const bytes = (r: ReturnType<typeof simulate>) => JSON.stringify({ ...r, wallMs: 0 }, (_k, v) =>
    v instanceof Uint32Array ? Array.from(v) : v);

  it("in a saturated closed loop, IO s is submitted by the worker of IO s-8 at the moment it completes", () => {
    const recs = simulate(sc()).records!;
    const bySeq = new Map(recs.map((r) => [r.seq, r]));
    expect(recs.length).toBe(400);
    for (let s = 8; s < 400; s++) {
      const prev = bySeq.get(s - 8)!;
      expect(bySeq.get(s)!.submitNs).toBe(prev.completeNs);
      expect(bySeq.get(s)!.worker).toBe(prev.worker);
    }
    expect(simulate(sc()).simulatedNs).toBe(50 * 8_000);
  });

  it("stopping the loop every k events (any k) gives the same run as one call", () => {
    const whole = bytes(simulate(sc()));
    fc.assert(fc.property(fc.integer({ min: 1, max: 97 }), (k) => {
      const sim = new Simulation(sc());
      while (!sim.step(k));
      return bytes(sim.result()) === whole;
    }), { numRuns: 20 });
  });
});

describe("the lane-0 fast path with events waiting on the heap", () => {
  // Lane 0's head is popped directly whenever it comes before the heap's
  // least event (a throttle timer, a job wake-up, the stop mark). Two jobs
  // on one device: a closed loop under io.max riops (its waits put throttle
  // timers on the heap) and a rate-paced job (wake-ups on the heap), with
  // completions and timers at the same nanoseconds now and then.
  const sc = (seed: number, durationNs?: number): Scenario => scenarioDefaults({
    name: "lane0-heap", seed, record: true, devices: [fixedDevice(8_000, 4, 16)],
    cgroups: [{ path: "a", files: { "io.max": "8:0 riops=20000" } }, { path: "b" }],
    jobs: [
      jobDefaults({ name: "closed", device: "dev0", cgroup: "a", iodepth: 8, count: 3000, random: true }),
      jobDefaults({ name: "rate", device: "dev0", cgroup: "b", iodepth: 2, count: 1500, random: true,
        pattern: { kind: "rate", iops: 100_000 } }),
    ],
    ...(durationNs !== undefined ? { durationNs } : {}),
  });
  const bytes = (r: ReturnType<typeof simulate>) => JSON.stringify({ ...r, wallMs: 0, events: 0 }, (_k, v) =>
    v instanceof Uint32Array ? Array.from(v) : v);

  it("a stop mark beyond the last event changes nothing but the event count", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 1000 }), (seed) => {
      const untimed = simulate(sc(seed));
      const timed = simulate(sc(seed, 10e9));
      expect(untimed.records!.length).toBe(4500);
      expect(timed.events).toBe(untimed.events + 1);
      return bytes(timed) === bytes(untimed);
    }), { numRuns: 10 });
  });

  it("stopping the loop every k events (any k) gives the same timed run as one call", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 97 }), (seed, k) => {
      const whole = bytes(simulate(sc(seed, 30e6)));
      const sim = new Simulation(sc(seed, 30e6));
      while (!sim.step(k));
      return bytes(sim.result()) === whole;
    }), { numRuns: 10 });
  });
});

describe("event counting", () => {
  it("every popped event counts, the heap's last one too: k timed writes and the end of run are k + 1 events", async () => {
    const { devicePreset } = await import("../../bindings/device/presets.js");
    for (const k of [0, 1, 2, 5]) {
      const dev = devicePreset("ideal");
      const sc = scenarioDefaults({
        name: `k=${k}`, devices: [dev], cgroups: [{ path: "" }], jobs: [], durationNs: 1e9,
        writes: Array.from({ length: k }, (_, i) => ({ atNs: 1e8 * (i + 1), cgroup: "", file: "io.cost.qos", value: `${dev.devno} enable=0` })),
      });
      expect(new Simulation(sc).runToEnd().events).toBe(k + 1);
    }
  });
});

describe("a job's region", () => {
  it("smaller than a block is refused, naming the job and the field (8 << 30 is 0 in JavaScript: every bio went to offset 0)", () => {
    for (const regionLen of [0, 8 << 30, 2 << 30, 2048]) {
      expect(() => one({ count: 10, regionLen }), String(regionLen)).toThrow(/job "j": regionLen -?\d+ is smaller than its block size 4096/);
    }
    try { one({ count: 10, regionLen: 0 }); } catch (e) { expect((e as { field?: string }).field).toBe("regionLen"); }
  });

  it("the io.max demo reads 8 GiB at random, not one offset", () => {
    const s = iomaxDemo(devicePreset("ssd"));
    expect(s.jobs.map((j) => j.regionLen)).toEqual([8 * 2 ** 30, 8 * 2 ** 30]);
    const r = simulate({ ...s, jobs: s.jobs.map((j) => ({ ...j, runtimeNs: 1e7 })), durationNs: 2e7, record: true });
    expect(new Set(r.records!.slice(0, 200).map((b) => b.off)).size).toBeGreaterThan(150);
  });
});
