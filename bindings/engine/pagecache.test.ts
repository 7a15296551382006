// Buffered reads through the page cache (assembly/pagecache): the readahead
// window ramp of mm/readahead.c, cache hits, fio's fadvise_hint and
// invalidate, memory.max reclaim, io.max acting on readahead bios, and the
// recorded 6.1 guest traces. Expected figures are worked out in each test
// from the kernel's formulas or from the run's own records.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { loadScenario } from "../scenario/load.js";
import { simulate } from "./simulation.js";
import type { BioRecord, RunResult } from "../scenario/types.js";
import { parseFioJobFile } from "../workload/fio-jobfile.js";
import { compareBufTrace, enterAtBioQueue, guestStalls, raRecordedTimes, readBufTrace, STALL_NS, BIO_BAR, READ_BAR } from "../oracle/bufread.js";
import { scenarioFromTrace } from "../oracle/replay.js";
import { Simulation } from "./simulation.js";
import { readIocostTrace } from "./modules/iocost.js";
import type { RecordedIo } from "../oracle/traces.js";

const run = (yaml: string): RunResult => simulate(loadScenario(yaml, "pagecache.yaml").scenario);

function scenario(jobs: string, opts: { cgroupFiles?: string; raKb?: number } = {}): string {
  return `
name: pc
kernel: "6.1"
record: true
devices:
  - preset: nvme
    read_ahead_kb: ${opts.raKb ?? 128}
cgroups:
  app:
${opts.cgroupFiles ?? '    io.weight: "default 100"'}
jobs:
${jobs}`;
}

const job = (name: string, extra: string) => `
  - name: ${name}
    cgroup: app
    ioengine: psync
    direct: 0
    bs: 4k
${extra.split("\n").filter((l) => l.trim()).map((l) => "    " + l.trim()).join("\n")}`;

const ra = (r: RunResult): BioRecord[] => (r.records ?? []).filter((b) => b.readahead).sort((a, b) => a.submitNs - b.submitNs || a.off - b.off);
const reads = (r: RunResult, jobName: string): BioRecord[] => (r.records ?? []).filter((b) => !b.readahead && b.job === jobName);

// mm/readahead.c (6.1)
const initSize = (req: number, max: number) => {
  let n = 1;
  while (n < req) n *= 2;
  return n <= max / 32 ? n * 4 : n <= max / 4 ? n * 2 : max;
};
const nextSize = (cur: number, max: number) => (cur < max / 16 ? 4 * cur : cur <= max / 2 ? 2 * cur : max);

describe("readahead of a sequential buffered reader", () => {
  it("ramps the window as get_init_ra_size / get_next_ra_size and reads ahead in bios of the window", () => {
    const r = run(scenario(job("seq", "rw: read\nsize: 4m\nfadvise_hint: 0")));
    const bios = ra(r);
    // the windows the kernel's formulas give for 4 KiB reads from offset 0, read_ahead_kb 128
    const max = 32;
    const want: number[] = [];
    let size = initSize(1, max);
    let start = 0;
    want.push(size);
    // the initial window marks page start + size - async_size (async = size - 1 page);
    // reading a marked page reads the next window, which is marked at its start
    // (async_size = size); the reader reads pages 0-1023
    let mark = start + size - (size - 1);
    while (mark <= 1023) {
      start += size;
      size = Math.max(size, nextSize(size, max));
      want.push(size);
      mark = start;
    }
    expect(bios.map((b) => b.size / 4096)).toEqual(want);
    // contiguous, from offset 0
    let off = 0;
    for (const b of bios) {
      expect(b.off).toBe(off);
      off += b.size;
    }
    // fio counts the application's reads; io.stat the bios (more: read ahead past 4 MiB)
    expect(reads(r, "seq").length).toBe(1024);
    const st = r.cgroups.find((c) => c.path === "app")!.own["259:0"]!;
    expect(st.rios).toBe(bios.length);
    expect(st.rbytes).toBe(bios.reduce((a, b) => a + b.size, 0));
    expect(st.rbytes).toBeGreaterThan(4 << 20);
  });

  it("fadvise_hint=1 (POSIX_FADV_SEQUENTIAL) doubles the window, read_ahead_kb sets it", () => {
    const steady = (r: RunResult) => Math.max(...ra(r).map((b) => b.size));
    expect(steady(run(scenario(job("seq", "rw: read\nsize: 8m"))))).toBe(256 << 10);
    expect(steady(run(scenario(job("seq", "rw: read\nsize: 8m\nfadvise_hint: 0"))))).toBe(128 << 10);
    expect(steady(run(scenario(job("seq", "rw: read\nsize: 8m\nfadvise_hint: 0"), { raKb: 512 })))).toBe(512 << 10);
  });
});

describe("cache hits", () => {
  it("a second pass over cached pages issues no bio and completes without device time; invalidate=1 drops them", () => {
    const two = (inv: number) => run(scenario(job("first", "rw: read\nsize: 2m\nfadvise_hint: 0") + job("again", `rw: read\nsize: 2m\nfadvise_hint: 0\nstartdelay: 2s\ninvalidate: ${inv}`)));
    const keep = two(0);
    const firstBios = ra(keep).filter((b) => b.submitNs < 2e9).length;
    expect(ra(keep).length).toBe(firstBios);
    const again = reads(keep, "again");
    expect(again.length).toBe(512);
    for (const x of again) expect(x.completeNs - x.submitNs).toBeLessThan(10_000);
    // invalidate=1 drops the job's 2 MiB (not what was read ahead past it): the
    // second pass reads its 2 MiB from the device again
    const drop = two(1);
    const inRange = (bs: BioRecord[]) => bs.reduce((a, b) => a + Math.max(0, Math.min(b.off + b.size, 2 << 20) - b.off), 0);
    expect(inRange(ra(drop).filter((b) => b.submitNs >= 2e9))).toBe(2 << 20);
  });

  it("POSIX_FADV_RANDOM (fio's fadvise_hint=1 on a random job) reads exactly the missed page, once", () => {
    const r = run(scenario(job("rand", "rw: randread\nsize: 1m\nnumber_ios: 600")));
    const seen = new Set<number>();
    let misses = 0;
    for (const x of reads(r, "rand").sort((a, b) => a.submitNs - b.submitNs)) {
      if (!seen.has(x.off)) misses++;
      seen.add(x.off);
    }
    const bios = ra(r);
    expect(bios.every((b) => b.size === 4096)).toBe(true);
    expect(bios.length).toBe(misses);
    expect(misses).toBeLessThan(600); // 600 reads over 256 pages: some hit
  });
});

describe("memory.max and io.max", () => {
  it("memory.max reclaims the cgroup's oldest pages: a re-read of the start reads it again", () => {
    const jobs = job("first", "rw: read\nsize: 8m\nfadvise_hint: 0") + job("again", "rw: read\nsize: 1m\nfadvise_hint: 0\nstartdelay: 2s\ninvalidate: 0");
    const free = run(scenario(jobs));
    const tight = run(scenario(jobs, { cgroupFiles: '    memory.max: "2097152"' }));
    expect(ra(free).filter((b) => b.submitNs >= 2e9).length).toBe(0);
    const reread = ra(tight).filter((b) => b.submitNs >= 2e9);
    expect(reread.reduce((a, b) => a + b.size, 0)).toBeGreaterThanOrEqual(1 << 20);
  });

  it("io.max rbps paces the readahead bios, not the application's reads", () => {
    const r = run(scenario(job("seq", "rw: read\nsize: 4m\nfadvise_hint: 0"), { cgroupFiles: '    io.max: "259:0 rbps=1048576"' }));
    const bytes = r.cgroups.find((c) => c.path === "app")!.own["259:0"]!.rbytes;
    const bios = ra(r);
    const lastBio = Math.max(...bios.map((b) => b.completeNs));
    // the bios charged pass at 1 MiB/s (less the first slice's allowance: one 100 ms slice of bytes)
    expect(lastBio / 1e9).toBeGreaterThan(bytes / 1048576 - 0.25);
    expect(lastBio / 1e9).toBeLessThan(bytes / 1048576 + 0.05);
    // and the application's reads end before the last readahead bio (read ahead past 4 MiB)
    expect(Math.max(...reads(r, "seq").map((x) => x.completeNs))).toBeLessThan(lastBio);
  });
});

describe("fio job files", () => {
  it("libaio on a buffered file runs at depth 1; fadvise_hint and invalidate are read", () => {
    const f = parseFioJobFile("[j]\nfilename=/dev/nvme0n1\nioengine=libaio\niodepth=32\nrw=read\nbs=4k\nsize=1m\nfadvise_hint=0\ninvalidate=0\n", "j.fio");
    expect(f.jobs[0]!.iodepth).toBe(1);
    expect(f.jobs[0]!.fadvise).toBe("none");
    expect(f.jobs[0]!.invalidate).toBe(false);
    expect(f.warnings.some((w) => /libaio without direct=1/.test(w))).toBe(true);
    const d = parseFioJobFile("[j]\nfilename=/dev/nvme0n1\nioengine=libaio\niodepth=32\nrw=read\nbs=4k\nsize=1m\ndirect=1\n", "j.fio");
    expect(d.jobs[0]!.iodepth).toBe(32);
    expect(d.jobs[0]!.fadvise).toBeUndefined();
  });
});

describe("oracle: Linux 6.1 guest buffered reads under io.max", () => {
  it("reads within 4 ms >= 95% pooled, readahead bios' count and sizes within 5% per trace", () => {
    let ios = 0;
    let matched = 0;
    for (const f of ["bufread.jsonl", "bufread.r2.jsonl", "bufread.r3.jsonl"]) {
      const file = `test/fixtures/oracle/bufread/${f}`;
      const s = compareBufTrace(readFileSync(file, "utf8"), file);
      ios += s.reads.ios;
      matched += s.reads.matched;
      expect(Math.abs(s.bios.countErr)).toBeLessThanOrEqual(BIO_BAR);
      expect(s.bios.sizeTv).toBeLessThanOrEqual(BIO_BAR);
    }
    expect(matched / ios).toBeGreaterThanOrEqual(READ_BAR);
  });
});

describe("a reader asleep in rq_qos_throttle (6.1 blk-iocost: the issuer is blocked on iocg->waitq)", () => {
  // io.cost with a linear model worth 200 sequential IOs/s, vrate pinned: each 128 KiB
  // readahead bio costs its cgroup vtime, and the reader that submits it sleeps until it goes
  const iocost = `    io.weight: "default 100"`;
  const root = `
  /:
    io.cost.model: "259:0 ctrl=user model=linear rbps=10485760 rseqiops=200 rrandiops=200 wbps=10485760 wseqiops=200 wrandiops=200"
    io.cost.qos: "259:0 enable=1 ctrl=user rpct=90 rlat=20000 wpct=90 wlat=20000 min=100 max=100"`;
  const yaml = scenario(job("seq", "rw: read\nsize: 8m\nfadvise_hint: 0"), { cgroupFiles: iocost }).replace("cgroups:", "cgroups:" + root);

  it("a read that submits a readahead bio io.cost holds completes only after io.cost lets the bio go", () => {
    const r = run(yaml);
    const bios = ra(r);
    const held = bios.filter((b) => b.issueNs > b.submitNs + 1e6);
    expect(held.length).toBeGreaterThan(10);
    for (const b of held) {
      // the read that submitted it: the job's last read submitted at or before it (QD 1)
      const rd = reads(r, "seq").filter((x) => x.submitNs <= b.submitNs).sort((x, y) => y.submitNs - x.submitNs || y.seq - x.seq)[0]!;
      expect(rd.completeNs).toBeGreaterThanOrEqual(b.issueNs);
    }
  });

  it("blk-throttle does not hold the submitter: under io.max a read of cached pages returns while its readahead bio waits", () => {
    const r = run(scenario(job("seq", "rw: read\nsize: 4m\nfadvise_hint: 0"), { cgroupFiles: '    io.max: "259:0 rbps=1048576"' }));
    const early = ra(r).filter((b) => b.releaseNs > b.submitNs + 1e6).some((b) =>
      reads(r, "seq").some((x) => x.submitNs <= b.submitNs && x.completeNs >= b.submitNs && x.completeNs < b.releaseNs));
    expect(early).toBe(true);
  });
});

describe("oracle: buffered reads under io.cost (6.1 guest, bufread_iocost)", () => {
  it("replays each readahead bio with its recorded driver time and keeps the recorded bios exactly", () => {
    const file = "test/fixtures/oracle/bufread/bufread_iocost.jsonl";
    const s = compareBufTrace(readFileSync(file, "utf8"), file);
    expect(s.bios.countErr).toBe(0);
    expect(s.bios.sizeTv).toBe(0);
    // with the fitted device instead, the reads that wait for a bio's completion miss
    const fitted = compareBufTrace(readFileSync(file, "utf8"), file, { bufreadDevice: "fitted" });
    expect(s.reads.share).toBeGreaterThan(fitted.reads.share + 0.05);
  });
});

describe("oracle: all buffered-read traces (6.1 guest, io.max and io.cost)", () => {
  it("reads within 4 ms >= 95% pooled over the io.max and io.cost recordings, bios exact under io.cost", () => {
    let ios = 0;
    let matched = 0;
    for (const f of ["bufread.jsonl", "bufread.r2.jsonl", "bufread.r3.jsonl", "bufread_iocost.jsonl", "bufread_iocost.r2.jsonl", "bufread_iocost.r3.jsonl"]) {
      const file = `test/fixtures/oracle/bufread/${f}`;
      const s = compareBufTrace(readFileSync(file, "utf8"), file);
      ios += s.reads.ios;
      matched += s.reads.matched;
      if (f.startsWith("bufread_iocost")) expect(s.bios.countErr).toBe(0);
    }
    expect(matched / ios).toBeGreaterThanOrEqual(READ_BAR);
  });
});

describe("io.cost buffered-read replay: the guest's own timing (enterAtBioQueue, guestStalls)", () => {
  const io = (cgroup: string, submitNs: number): RecordedIo =>
    ({ job: cgroup, seq: 0, thread: 0, cgroup, dir: "R", off: 0, size: 65536, submitNs, completeNs: submitNs + 1e6, line: 1 });
  it("a read enters the page cache at the block_bio_queue of the bio it submitted, if later", () => {
    const ios = [io("A", 0), io("A", 10e6), io("B", 0)];
    const bios = [{ cgroup: "A", tNs: 4e6, sectors: 256, sector: 0 }, { cgroup: "A", tNs: 10.2e6, sectors: 256, sector: 256 },
      { cgroup: "B", tNs: 3e6, sectors: 256, sector: 1 << 22 }];
    enterAtBioQueue(ios, bios, new Map([["A", { qd: 1 }], ["B", { qd: 4 }]]));
    expect(ios.map((x) => x.enterNs)).toEqual([4e6, 10.2e6, undefined]); // B: 4 threads, which read queued it is unknown
  });
  it("a readahead bio's driver time and dispatch delay run from its last piece's issue, to its last completion and its latest issue", () => {
    // two 128 KiB bios split into 124 + 4 KiB requests (sectors): the first's 124 KiB piece
    // dispatched 12.1 ms after its remainder (the guest's vCPU), the second's remainder held
    // by io.cost (no dispatch delay: the 124 KiB piece went first)
    const rq = (sector: number, nr: number, issue: number, complete: number) => [
      { type: "bio", event: "issue", t_ns: issue, sector, nr_sectors: nr }, { type: "bio", event: "complete", t_ns: complete, sector, nr_sectors: nr }];
    const recs = [
      ...rq(248, 8, 0.8e6, 11.6e6), ...rq(0, 248, 12.9e6, 16.5e6),
      ...rq(256, 248, 20.2e6, 22.9e6), ...rq(504, 8, 24.1e6, 26.2e6),
    ].map((obj, i) => ({ obj, line: i + 1 }));
    const bios = [{ cgroup: "A", tNs: 0, sectors: 256, sector: 0 }, { cgroup: "A", tNs: 20e6, sectors: 256, sector: 256 }];
    const { serviceNs, dispatchNs } = raRecordedTimes(recs, bios);
    expect(dispatchNs).toEqual([12.9e6 - 0.8e6, 0]);
    expect(serviceNs).toEqual([16.5e6 - 0.8e6, 26.2e6 - 24.1e6]);
  });

  it("a replayed readahead bio's dispatch delay holds the reader that submitted it after the bio went", () => {
    const file = "test/fixtures/oracle/bufread/bufread_iocost.jsonl";
    const [c] = readBufTrace(readFileSync(file, "utf8"), file);
    const pc = c!.trace.pageCache!;
    const runWith = (cpu: boolean) => {
      const t = { ...c!.trace, pageCache: { ...pc, raCpuNs: cpu ? pc.raCpuNs : undefined } };
      const { scenario } = scenarioFromTrace(t);
      return new Simulation(scenario).runToEnd().records!;
    };
    const [offAll, onAll] = [runWith(false), runWith(true)];
    const [off, on] = [offAll.filter((r) => r.readahead), onAll.filter((r) => r.readahead)];
    // the runs are the same up to the first bio whose delay outlasts its reader's wait without
    // it: that bio goes to the device as before, and the read that submitted it (QD 1: the
    // job's last read submitted by then) carries on no earlier than that long after
    const delay = (r: { job: string; seq: number }) => pc.raCpuNs![r.job]![r.seq] ?? 0;
    const reader = (all: typeof onAll, b: (typeof onAll)[number]) => all.filter((r) => !r.readahead && r.job === b.job && r.submitNs <= b.submitNs)
      .sort((x, y) => y.submitNs - x.submitNs || y.seq - x.seq)[0]!;
    const first = off.filter((r) => delay(r) > 0).sort((x, y) => x.submitNs - y.submitNs)
      .find((b) => reader(offAll, b).completeNs < b.issueNs + delay(b))!;
    const same = on.find((r) => r.job === first.job && r.seq === first.seq)!;
    expect([same.submitNs, same.issueNs]).toEqual([first.submitNs, first.issueNs]);
    expect(reader(onAll, same).completeNs).toBeGreaterThanOrEqual(first.issueNs + delay(first));
  });

  it("a stall is a quiet time of the whole guest longer than STALL_NS while reads are running", () => {
    const recs = [
      { type: "io", submit_ns: 0, complete_ns: 1e6 }, { type: "bio", t_ns: 0.5e6 }, { type: "io", submit_ns: 2e6, complete_ns: 40e6 },
      { type: "trace", t_ns: 3e6 }, { type: "bio", t_ns: 3e6 + STALL_NS + 1 }, { type: "bio", t_ns: 60e6 },
    ].map((obj, i) => ({ obj, line: i + 1 }));
    // 3 ms -> 13 ms + 1 ns: a stall; 13 ms -> 40 ms too; 40 -> 60 ms is after the last completion
    expect(guestStalls(recs, STALL_NS)).toEqual([[3e6, 3e6 + STALL_NS + 1], [3e6 + STALL_NS + 1, 40e6]]);
  });
  it("io.cost's period timer does not run inside a recorded stall of the guest (assembly/iocost thawed())", () => {
    const file = "test/fixtures/oracle/bufread/bufread_iocost.r2.jsonl";
    const [c] = readBufTrace(readFileSync(file, "utf8"), file);
    const stalls = c!.trace.pageCache!.guestStallsNs!;
    expect(stalls.length).toBeGreaterThan(20);
    const timerRuns = (withStalls: boolean) => {
      const t = { ...c!.trace, pageCache: { ...c!.trace.pageCache!, guestStallsNs: withStalls ? stalls : [] } };
      const { scenario, shiftNs } = scenarioFromTrace(t);
      const sim = new Simulation(scenario);
      sim.runToEnd();
      const ctx = sim.context();
      return readIocostTrace(sim.core, ctx.cgroupPaths(), ctx.devices().map((d) => d.spec.name))
        .filter((e) => e.event === "iocost_ioc_vrate_adj").map((e) => e.tNs + shiftNs);
    };
    const inside = (runs: number[]) => runs.filter((x) => stalls.some(([a, b]) => x > a && x < b)).length;
    expect(inside(timerRuns(false))).toBeGreaterThan(0);
    const runs = timerRuns(true);
    expect(runs.length).toBeGreaterThan(40);
    expect(inside(runs)).toBe(0);
  });
});

