// A Simulation: one scenario loaded into a fresh instance of the WASM core.
//
// Life of a run:
//   1. configure: cgroups (parents first), devices (service tables), jobs
//      (bulk arrival lists through the staging buffer), control modules
//      (io.max, io.weight, ...: files at t = 0 and timed writes);
//   2. run in batches: `step(maxEvents)` processes at most that many events
//      and returns, so a CLI can draw a progress bar and a browser worker
//      can stay responsive; `runToEnd()` loops until the queue is empty;
//   3. read results: counters, histograms, series and (if asked) one record
//      per bio, copied out of WASM memory in one pass.
//
// Same scenario and seed -> the same events in the same order -> the same
// bytes out, on any host (the core is integer time and a seeded
// xoshiro256** stream per job and device).

import { budgetError, checkBudgets, checkScenario, DEFAULT_LIMITS, type RunLimits } from "../scenario/limits.js";
import { CoreAbort, instantiateCore, type CoreExports } from "../core/core.js";
import { COL, DS, RATE_FIELDS, colF64, colI32, colI64, colU32, colU32NoCopy, colU64, colU8, FIO_IO_U_MAP_NR, FIO_PLAT_NR, SERIES_PLAT_BITS, SERIES_PLAT_NR } from "../core/columns.js";
import type { RqosTimelines,
  BioRecord, CgroupResult, ConfigWrite, DeviceResult, DeviceSpec, IoStatCounts, JobResult, JobSpec, RateSamples, RunResult, Scenario, SeriesBin,
} from "../scenario/types.js";
import { InputError } from "../scenario/errors.js";
import { quantileUs } from "../scenario/types.js";
import { lognormalBins } from "../device/lognormal.js";

const lnCache = new Map<number, number[]>();
/** lognormalBins(sigma), computed once per sigma per process */
function lognormalBinsCached(sigma: number): number[] {
  let b = lnCache.get(sigma);
  if (!b) lnCache.set(sigma, (b = lognormalBins(sigma)));
  return b;
}
import { normCgroupPath, withAncestors } from "../cgroup/path.js";
import { scanDevno } from "../cgroup/kstr.js";
import { devnoToDev, mkdev } from "../cgroup/write.js";
import { controlModules, type ControlContext, type ControlModule } from "./control.js";
import "./modules/index.js"; // io.max, blkio.throttle.*, io.weight, io.cost.*, writeback
import { rqosTimelines } from "./modules/iolatency.js";
import { latencyStats } from "./latency.js";
import { percentileFromPairs, percentilesFromPlat } from "../report/percentiles.js";

const RW = { read: 0, write: 1, mix: 2, alt: 3 } as const;
const PAT = { closed: 0, rate: 1, times: 2, bursts: 3, replay: 4 } as const;
const MAX_TABLE_POINTS = 32;
const I64_MAX = 0x7fffffffffffffffn;
/** IOs the scenario's jobs list (replayed traces, read_iologs, submit-time lists) */
function listedIos(s: Scenario): number {
  let n = 0;
  for (const j of s.jobs) n += j.pattern.kind === "replay" ? j.pattern.ios.length : j.pattern.kind === "times" ? j.pattern.timesNs.length : 0;
  return n;
}
/** events one core.run() call processes at most (step() checks the budgets between calls) */
const MAX_BATCH = 1 << 17;
/** the first batch, and the smallest (a batch's cost is one call into the core and the checks after it) */
const MIN_BATCH = 1 << 10;

export interface Progress {
  simulatedNs: number;
  events: number;
  /** fraction of the run done if it can be known (duration or IO counts), else undefined */
  fraction?: number;
}

export class Simulation {
  readonly core: CoreExports;
  readonly scenario: Scenario;
  private readonly cgIds = new Map<string, number>();
  private readonly cgPathsById: string[] = [];
  private readonly devs: Array<{ id: number; spec: DeviceSpec }> = [];
  private readonly jobIds: number[] = [];
  private readonly warnings: string[] = [];
  /** warnings the scenario's set-up gave so far (its writes at t = 0), before any run */
  setupWarnings(): readonly string[] {
    return this.warnings;
  }
  private readonly ctx: ControlContext;
  private finished = false;
  /** config writes that create blkgs (blkg_conf_prep): cgroup, devno, time, in the order applied */
  private readonly confBlkgs: Array<{ cgroup: string; devno: string; atNs: number }> = [];
  private wallMs = 0;
  private pagecache = false;
  private totalIos = 0;
  /** when every job bounded by time (runtime) has ended: the progress of a run without duration: */
  private timeEndNs = 0;
  private countedJobs = 0;
  private timedJobs = 0;

  private readonly limits: RunLimits;

  constructor(scenario: Scenario, core: CoreExports = instantiateCore(), limits: Partial<RunLimits> = {}) {
    // the last edge before the core: a value no loader checked is an input error here, not a trap (scenario/limits.ts)
    checkScenario(scenario);
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    // IOs listed in an input (a replayed trace, a read_iolog) are bounded by that input's size cap:
    // recording them all (compare, replay, explain record every bio) is not a runaway
    if (limits.maxRecords === undefined) this.limits.maxRecords = Math.max(this.limits.maxRecords, 4 * listedIos(scenario));
    // and the core's memory they need (~390 B an IO measured at 200k IOs, records included) is
    // predictable from them: 1 KiB an IO on top of the default, up to the core's 4 GiB
    if (limits.maxMemoryMiB === undefined) this.limits.maxMemoryMiB = Math.min(4096, this.limits.maxMemoryMiB + Math.ceil(listedIos(scenario) / 1024));
    checkBudgets(scenario, this.limits);
    this.core = core;
    this.scenario = scenario;
    const self = this;
    this.ctx = {
      core,
      scenario,
      kernel: scenario.kernel,
      cgroupId: (p) => self.cgIds.get(normPath(p)),
      cgroupPaths: () => [...self.cgPathsById],
      device: (devno) => self.devs.find((d) => d.spec.devno === devno || d.spec.name === devno),
      devices: () => self.devs,
      warn: (m) => self.warnings.push(m),
      state: new Map(),
    };
    this.configure();
  }

  private readonly flowIds: number[] = [];

  private configure(): void {
    const s = this.scenario;
    const c = this.core;
    c.reset(BigInt(s.seed >>> 0) | (BigInt(Math.floor(s.seed / 2 ** 32)) << 32n), s.clock.hz, s.clock.jiffiesAtZero,
      BigInt(Math.round(s.clock.zeroAfterTickNs)), s.cgroupVersion === 2 ? 1 : 0);

    // cgroups: every path named anywhere, with its ancestors, parents first
    const paths = withAncestors([...s.cgroups.map((g) => g.path), ...s.jobs.map((j) => j.cgroup), ...s.writes.map((w) => w.cgroup)]);
    const sorted = [...paths].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
    this.cgIds.set("", 0);
    this.cgPathsById.push("");
    for (const p of sorted) {
      if (p === "") continue;
      const parent = this.cgIds.get(p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "")!;
      const id = c.cgroupAdd(parent);
      this.cgIds.set(p, id);
      this.cgPathsById[id] = p;
    }

    // devices
    if (s.devices.length === 0) throw new InputError("the scenario has no device", s.source?.file ?? "scenario", undefined, "devices");
    for (const d of s.devices) {
      const id = c.deviceAdd(d.channels, d.nrRequests, BigInt(Math.round(d.latencyNs)), d.jitterSigma,
        Math.round(d.maxSectorsKb * 1024), d.rotational ? 1 : 0);
      this.loadCurve(id, d);
      if (d.stallsNs?.length) {
        // recorded guest stalls (assembly/device/device.ts setDevicePauses)
        const n = d.stallsNs.length;
        const sp = c.stagingAlloc(n * 16) >>> 0;
        const sv = new BigInt64Array(c.memory.buffer, sp, 2 * n);
        d.stallsNs.forEach(([a, b], k) => { sv[2 * k] = BigInt(Math.round(a)); sv[2 * k + 1] = BigInt(Math.round(b)); });
        (c as unknown as { deviceLoadPauses(dev: number, n: number): void }).deviceLoadPauses(id, n);
      }
      this.devs.push({ id, spec: d });
    }

    // jobs
    for (const j of s.jobs) this.jobIds.push(this.addJob(j));

    // the page cache, when a job reads buffered (assembly/pagecache)
    if (s.jobs.some((j) => !j.direct && j.rw !== "write")) {
      this.pagecache = true;
      c.pagecacheEnable(s.kernel === "6.1" ? 0 : s.kernel === "6.12" ? 1 : 2);
      for (const d of this.devs) {
        const ra = d.spec.readAheadKb ?? 128;
        if (!(Number.isInteger(ra) && ra >= 0)) throw new InputError(`device ${d.spec.name}: readAheadKb must be an integer >= 0, not ${ra}`, s.source?.file ?? "scenario", undefined, "readAheadKb");
        c.pagecacheDevice(d.id, ra, Math.floor(d.spec.maxSectorsKb), BigInt(Math.round(d.spec.sizeBytes ?? 0)));
      }
      s.jobs.forEach((j, k) => {
        if (j.direct) return;
        const dev = this.devs.find((d) => d.spec.name === j.device || d.spec.devno === j.device)!;
        const f = j.fadvise ?? "none";
        const adv = f === "sequential" || (f === "type" && !j.random) ? 1 : f === "random" || (f === "type" && j.random) ? 2 : 0;
        c.pagecacheJob(this.jobIds[k]!, dev.id, adv, j.invalidate ? 1 : 0);
      });
      for (const g of s.cgroups) {
        const v = g.files?.["memory.max"];
        if (v === undefined) continue;
        const t = v.trim();
        const n = t === "max" ? 0 : Number(t);
        if (!(Number.isSafeInteger(n) && n >= 0)) {
          throw new InputError(`memory.max of "${g.path}": "${v}" is not a byte count or "max"`, g.source?.file ?? s.source?.file ?? "scenario", g.fileLines?.["memory.max"] ?? g.source?.line, "memory.max");
        }
        c.pagecacheMemoryMax(this.cgIds.get(normPath(g.path))!, BigInt(n));
      }
    }

    c.statsSetup(BigInt(Math.round(s.seriesBinNs)), s.record ? 1 : 0);

    // control modules: initial files, then timed writes in time order
    const mods = controlModules();
    for (const m of mods) m.setup?.(this.ctx);
    const initial: ConfigWrite[] = [];
    for (const g of s.cgroups) {
      for (const [file, value] of Object.entries(g.files ?? {})) {
        const source = g.source ? { ...g.source, line: g.fileLines?.[file] ?? g.source.line, field: file } : undefined;
        initial.push({ atNs: 0, cgroup: normPath(g.path), file, value, source });
      }
    }
    const timed = [...s.writes].sort((a, b) => a.atNs - b.atNs);
    for (const w of [...initial, ...timed]) {
      if (w.file === "memory.max" && w.atNs === 0) continue; // the page cache's (above)
      this.routeWrite(mods, w);
      this.noteConfBlkgs(w);
    }
    for (const m of mods) m.finish?.(this.ctx);

    if (s.durationNs !== undefined) c.stopAt(BigInt(Math.round(s.durationNs)));
    c.start();
  }

  /** Timed writes after the run's end: the run never reached them (said once each). */
  private lateWrites(endNs: number): string[] {
    if (!this.finished) return [];
    return this.scenario.writes.filter((w) => w.atNs > endNs).map((w) =>
      `${w.source ? `${w.source.file}:${w.source.line}: ` : ""}the change of ${w.cgroup ? w.cgroup + "/" : ""}${w.file} at ` +
      `${(w.atNs / 1e9).toFixed(3)} s was not applied: the run ended at ${(endNs / 1e9).toFixed(3)} s`);
  }

  /**
   * Which blkgs a config write creates. io.max, blkio.throttle.*_device and
   * io.weight's "MAJ:MIN ..." lines go through blkg_conf_prep() (block/blk-cgroup.c,
   * 6.1-6.18), which creates the cgroup's blkg on that disk and its
   * ancestors'; io.weight's "default N" and the root's io.cost.* do not.
   */
  private noteConfBlkgs(w: ConfigWrite): void {
    if (!(w.file === "io.max" || w.file === "io.weight" || w.file.startsWith("blkio.throttle."))) return;
    for (const line of w.value.split("\n")) {
      // MAJ:MIN as blkg_conf_open_bdev scans it, compared as dev_t
      const d = scanDevno(line);
      if (!d) continue;
      const dev = this.devs.find((x) => devnoToDev(x.spec.devno) === mkdev(d.major, d.minor));
      if (dev) this.confBlkgs.push({ cgroup: normPath(w.cgroup), devno: dev.spec.devno, atNs: w.atNs });
    }
  }

  /**
   * Each cgroup's io.stat devices in blkg_list order. blkg_create() puts a new
   * blkg at the head of the cgroup's list (hlist_add_head_rcu), so the newest
   * is printed first (blkcg_print_stat(), 6.1-6.18). A blkg is created for a
   * cgroup and all its ancestors at its first bio to a disk (bio_associate_blkg
   * -> blkg_lookup_create) or at a config write naming the disk. Times: a
   * direct job's first submission, a write's time; a device a cgroup's subtree
   * did IO on without such a time (writeback charged to it) counts as newest.
   * The root has a blkg per disk from the disk's creation (blkcg_init_disk):
   * taken as the scenario's device order, so the last device is listed first.
   */
  private subtreeIndex?: { writes: Map<string, number[]>; jobs: Map<string, number[]> };

  /** For each path: the indices (in order) of the blkg-creating writes and of the jobs whose cgroup is it or below it (isWithin). */
  private buildSubtreeIndex(jobs: JobResult[]): { writes: Map<string, number[]>; jobs: Map<string, number[]> } {
    const under = (p: string, i: number, m: Map<string, number[]>) => {
      // p itself and every q with p.startsWith(q + "/"), as isWithin reads them
      for (let q = p; ; ) {
        let l = m.get(q);
        if (!l) m.set(q, (l = []));
        l.push(i);
        const cut = q.lastIndexOf("/");
        if (cut < 0) break;
        q = q.slice(0, cut);
      }
    };
    const writes = new Map<string, number[]>();
    this.confBlkgs.forEach((w, i) => under(w.cgroup, i, writes));
    const js = new Map<string, number[]>();
    jobs.forEach((r, k) => under(r.cgroup, k, js));
    return { writes, jobs: js };
  }

  private ioStatDevices(path: string, jobs: JobResult[], total: Record<string, IoStatCounts>, endNs: number): string[] {
    const devnos = this.devs.map((d) => d.spec.devno);
    if (path === "") return [...devnos].reverse();
    const nameToDevno = new Map(this.devs.map((d) => [d.spec.name, d.spec.devno]));
    // per device: (time, sequence) of the blkg's creation; later sorts first
    const born = new Map<string, [number, number]>();
    let seq = 0;
    const note = (devno: string, t: number) => {
      const s = seq++;
      const cur = born.get(devno);
      if (!cur || t < cur[0]) born.set(devno, [t, s]);
    };
    // (the writes and jobs in each cgroup's subtree, indexed once: a scan of all of them
    // per cgroup was quadratic in a scenario of 10,000 cgroups)
    const idx = (this.subtreeIndex ??= this.buildSubtreeIndex(jobs));
    for (const i of idx.writes.get(path) ?? []) {
      const w = this.confBlkgs[i]!;
      if (w.atNs <= endNs) note(w.devno, w.atNs);
    }
    for (const k of idx.jobs.get(path) ?? []) {
      const j = this.scenario.jobs[k]!;
      const r = jobs[k]!;
      const devno = nameToDevno.get(j.device);
      if (devno !== undefined && j.direct && r.firstSubmitNs >= 0) note(devno, r.firstSubmitNs);
    }
    for (const devno of devnos) {
      const t = total[devno];
      if (t && (t.rios || t.wios || t.rbytes || t.wbytes) && !born.has(devno)) note(devno, Infinity);
    }
    const cmp = (x: number, y: number) => (x < y ? -1 : x > y ? 1 : 0);
    return [...born.entries()].sort((a, b) => cmp(b[1][0], a[1][0]) || cmp(b[1][1], a[1][1])).map(([d]) => d);
  }

  private routeWrite(mods: readonly ControlModule[], w: ConfigWrite): void {
    const m = mods.find((x) => x.handles(w.file));
    if (!m) {
      throw new InputError(`unknown or unsupported cgroup interface file "${w.file}"`,
        w.source?.file ?? this.scenario.source?.file ?? "scenario", w.source?.line, w.source?.field ?? w.file);
    }
    m.write(this.ctx, w);
  }

  private loadCurve(id: number, d: DeviceSpec): void {
    const tables: Array<[number, number, Array<[number, number]>]> = [
      [0, 0, d.curve.read.seq], [0, 1, d.curve.read.rand], [1, 0, d.curve.write.seq], [1, 1, d.curve.write.rand],
    ];
    const loaded: Array<Array<[number, number]>> = [];
    for (const [dir, rand, pts0] of tables) {
      let pts = [...pts0].sort((a, b) => a[0] - b[0]);
      if (pts.length === 0) throw new InputError(`device ${d.name} has an empty ${dir ? "write" : "read"} ${rand ? "rand" : "seq"} curve`, "device", undefined, "curve");
      if (pts.length > MAX_TABLE_POINTS) {
        const step = (pts.length - 1) / (MAX_TABLE_POINTS - 1);
        pts = Array.from({ length: MAX_TABLE_POINTS }, (_, i) => pts[Math.round(i * step)]!);
      }
      pts.forEach(([size, iops], k) => {
        if (!(iops > 0)) throw new InputError(`device ${d.name}: IOPS must be > 0 at size ${size}`, "device", undefined, "curve");
        this.core.devicePoint(id, dir, rand, k, size, iops);
      });
      loaded.push(pts);
    }
    const shape = d.shape;
    if (!shape) return;
    const names = [["read", "seq"], ["read", "rand"], ["write", "seq"], ["write", "rand"]] as const;
    names.forEach(([dir, pat], t) => {
      const sg = shape.sigma?.[dir][pat];
      // (a shape's sigma as the tabulated log-normal, device/lognormal.ts; sigma 0: fixed)
      if (sg !== undefined && sg !== d.jitterSigma) {
        this.core.deviceSigma(id, t, 0);
        if (sg > 0) lognormalBinsCached(sg).forEach((f, k) => this.core.deviceLnBin(id, t, k, f));
      }
      // a point's rows one after another (the core keeps them together), by depth
      const rows = [...(shape.quantiles?.[dir][pat] ?? [])].sort((a, b) => a.size - b.size || (a.depth ?? 1) - (b.depth ?? 1));
      for (const row of rows) {
        const p = loaded[t]!.findIndex(([size]) => size === row.size);
        if (p < 0) throw new InputError(`device ${d.name}: a ${dir} ${pat} latency distribution is at ${row.size} bytes, which is not a point of its curve`, "device", undefined, "quantiles");
        const us = quantileUs(row);
        this.core.deviceQuantileRow(id, t, p, row.depth ?? 1);
        row.factors.forEach((f, q) => this.core.deviceQuantilePoint(id, us[q]!, f));
      }
    });
    if (shape.depth?.length) {
      const table = depthTable(shape.depth);
      table.forEach((v, k) => this.core.deviceDepthScale(id, k, table.length, v));
    }
    const m = shape.mechanics;
    if (m) {
      this.core.deviceMechanics(id, m.settleNs, m.fullStrokeNs - m.settleNs, 60e9 / m.rpm, 1e9 / m.mediaBytesPerSec, d.sizeBytes ?? 4e12);
    }
  }

  private addJob(j: JobSpec): number {
    const c = this.core;
    const cg = this.cgIds.get(normPath(j.cgroup))!;
    const dev = this.devs.find((d) => d.spec.name === j.device || d.spec.devno === j.device);
    if (!dev) {
      throw new InputError(`job "${j.name}" names device "${j.device}", which the scenario does not define`,
        j.source?.file ?? "scenario", j.source?.line, "device");
    }
    const p = j.pattern;
    // the core picks offsets in [offset, offset + regionLen - bs]: a region smaller than a block
    // (0, or negative from a 32-bit shift such as 8 << 30) silently put every bio at one offset
    const maxBs = Math.max(...j.bs.map((b) => b.size), ...(j.bsWrite ?? []).map((b) => b.size));
    if (p.kind !== "replay" && !(Number.isSafeInteger(j.regionLen) && j.regionLen >= maxBs)) {
      throw new InputError(`job "${j.name}": regionLen ${j.regionLen} is smaller than its block size ${maxBs} (fio: size must be >= bs)`,
        j.source?.file ?? "scenario", j.source?.line, "regionLen");
    }
    const rateIops = p.kind === "rate" ? (p.iops ?? 0) : 0;
    const rateBps = p.kind === "rate" ? (p.bps ?? 0) : 0;
    const burst = p.kind === "bursts" ? p.burst : 0;
    const big = (x: number | undefined) => (x === undefined ? -1n : BigInt(Math.round(x)));
    const id = c.jobAdd(cg, dev.id, RW[j.rw], j.mixReadPct, j.random ? 1 : 0, j.direct ? 1 : 0, BigInt(j.offset),
      BigInt(j.regionLen), BigInt(j.align), j.iodepth, PAT[p.kind], rateIops, rateBps, burst,
      BigInt(Math.round(j.thinktimeNs)), j.thinktimeBlocks, BigInt(Math.round(j.startNs)), big(j.count), big(j.bytes),
      big(j.runtimeNs === undefined ? undefined : j.runtimeNs + (j.rampNs ?? 0)), j.timeBased ? 1 : 0);
    if (j.rampNs) c.jobRamp(id, BigInt(Math.round(j.rampNs)));
    if (j.flow && j.flow.weight > 0) {
      // flow groups: fio's flow_id values, numbered in order of first use
      let g = this.flowIds.indexOf(j.flow.id);
      if (g < 0) g = this.flowIds.push(j.flow.id) - 1;
      c.jobFlow(id, g, j.flow.weight, BigInt(Math.round(j.flow.sleepNs)));
    }
    for (const b of j.bs) c.jobBs(id, b.size, b.weight);
    // a replayed writeback request: a buffered write as wbt sees it (BIO_BUFWRITE), from background
    // writeback (BIO_BACKGROUND) or a sync (REQ_SYNC: BIO_SYNC); assembly/engine/bios.ts
    if (j.replayWriteback) {
      (c as unknown as { jobSetBioFlags(job: number, f: number): void }).jobSetBioFlags(id,
        (1 << 11) | (j.replayWriteback === "sync" ? 1 << 4 : 1 << 12));
    }
    for (const b of j.bsWrite ?? []) c.jobBsWrite(id, b.size, b.weight);
    if (p.kind === "bursts") for (const g of p.gapsNs) c.jobGap(id, BigInt(Math.round(g)));
    if (j.thinktimeIotimeNs) c.jobThinkIotime(id, BigInt(Math.round(j.thinktimeIotimeNs)), j.thinktimeBlocksSet ? 1 : 0);
    if (p.kind === "rate" && p.poissonIops) {
      if (p.read || p.write) throw new InputError(`job "${j.name}": a poisson rate paces a job of one direction`, j.source?.file ?? "scenario", j.source?.line, "rate_process");
      c.jobPoisson(id, BigInt(Math.floor(1e6 / Math.floor(p.poissonIops))));
    }
    if (p.kind === "rate" && (p.read || p.write)) {
      c.jobRateDir(id, 0, p.read?.iops ?? 0, p.read?.bps ?? 0);
      c.jobRateDir(id, 1, p.write?.iops ?? 0, p.write?.bps ?? 0);
    }
    if (p.kind === "times") {
      const n = p.timesNs.length;
      const ptr = c.stagingAlloc(n * 8) >>> 0;
      const v = new BigInt64Array(c.memory.buffer, ptr, n);
      for (let i = 0; i < n; i++) v[i] = BigInt(Math.round(p.timesNs[i]!));
      c.jobLoadTimes(id, n);
      this.totalIos += n;
    } else if (p.kind === "replay") {
      const n = p.ios.length;
      const ptr = c.stagingAlloc(n * 21 + 8) >>> 0;
      const buf = c.memory.buffer;
      const t = new BigInt64Array(buf, ptr, n);
      const o = new BigInt64Array(buf, ptr + n * 8, n);
      const sz = new Uint32Array(buf, ptr + n * 16, n);
      const dr = new Uint8Array(buf, ptr + n * 20, n);
      p.ios.forEach((io, i) => {
        t[i] = BigInt(Math.round(io.tNs));
        o[i] = BigInt(io.off);
        sz[i] = io.size;
        dr[i] = io.dir === "W" ? 1 : 0;
      });
      c.jobLoadReplay(id, n);
      if (p.ios.some((io) => io.serviceNs !== undefined)) {
        // recorded driver times (assembly/device/device.ts svcReplay)
        const sp = c.stagingAlloc(n * 8) >>> 0;
        const sv = new BigInt64Array(c.memory.buffer, sp, n);
        p.ios.forEach((io, i) => { sv[i] = io.serviceNs === undefined ? -1n : BigInt(Math.round(io.serviceNs)); });
        (c as unknown as { jobLoadService(job: number, n: number): void }).jobLoadService(id, n);
      }
      if (p.ios.some((io) => io.cpuNs)) {
        // recorded CPU time before the tag (assembly/device/device.ts cpuReplay)
        const sp = c.stagingAlloc(n * 8) >>> 0;
        const sv = new BigInt64Array(c.memory.buffer, sp, n);
        p.ios.forEach((io, i) => { sv[i] = BigInt(Math.max(0, Math.round(io.cpuNs ?? 0))); });
        (c as unknown as { jobLoadCpu(job: number, n: number): void }).jobLoadCpu(id, n);
      }
      if (p.ios.some((io) => io.tagWakeNs)) {
        // recorded time the request left a free tag untaken (assembly/device/device.ts tagWakeReplay)
        const sp = c.stagingAlloc(n * 8) >>> 0;
        const sv = new BigInt64Array(c.memory.buffer, sp, n);
        p.ios.forEach((io, i) => { sv[i] = BigInt(Math.max(0, Math.round(io.tagWakeNs ?? 0))); });
        (c as unknown as { jobLoadTagWake(job: number, n: number): void }).jobLoadTagWake(id, n);
      }
      this.totalIos += n;
    } else if (j.count !== undefined) {
      this.totalIos += j.count;
    } else if (j.bytes !== undefined && !j.timeBased) {
      // size / io_size: about this many IOs of the job's mean block size
      const w = j.bs.reduce((a, b) => a + b.weight, 0);
      const mean = j.bs.reduce((a, b) => a + b.size * b.weight, 0) / (w || 1);
      this.totalIos += Math.ceil(j.bytes / (mean || 4096));
    }
    if (j.readaheadServiceNs?.length && !(p.kind === "replay" && p.ios.some((io) => io.serviceNs !== undefined))) {
      // buffered reads never reach the device; the job's readahead bios (seq = their own
      // order) take the recorded driver times (assembly/device/device.ts svcReplay)
      const m = j.readaheadServiceNs.length;
      const sp = c.stagingAlloc(m * 8) >>> 0;
      const sv = new BigInt64Array(c.memory.buffer, sp, m);
      j.readaheadServiceNs.forEach((x, k) => { sv[k] = x < 0 ? -1n : BigInt(Math.round(x)); });
      (c as unknown as { jobLoadService(job: number, n: number): void }).jobLoadService(id, m);
    }
    if (j.readaheadCpuNs?.some((x) => x > 0)) {
      // the readahead bios' recorded dispatch delays (assembly/device/device.ts raCpuReplay)
      const m = j.readaheadCpuNs.length;
      const sp = c.stagingAlloc(m * 8) >>> 0;
      const sv = new BigInt64Array(c.memory.buffer, sp, m);
      j.readaheadCpuNs.forEach((x, k) => { sv[k] = BigInt(Math.max(0, Math.round(x))); });
      (c as unknown as { jobLoadRaCpu(job: number, n: number): void }).jobLoadRaCpu(id, m);
    }
    // progress: a job ends by its runtime, or by its IOs
    if (j.runtimeNs !== undefined) {
      this.timedJobs++;
      this.timeEndNs = Math.max(this.timeEndNs, j.startNs + j.runtimeNs);
    } else this.countedJobs++;
    return id;
  }

  /** Process up to `maxEvents` events (in batches the memory budget sizes, memoryBatch); true when the run has finished. */
  step(maxEvents = 1 << 20): boolean {
    if (this.finished) return true;
    const t0 = now();
    // (a batch stops where a budget would be passed, so the check below sees it exactly;
    // where the core stops a batch changes nothing else: assembly/engine/path.ts run)
    const l = this.limits;
    let n = Math.min(maxEvents, l.maxEvents - Number(this.core.eventCount()) + 1);
    if (this.scenario.record) n = Math.min(n, l.maxRecords - this.core.columnLength(COL.REC_JOB) + 1);
    // the batch adapts to how fast the core's memory grows (see memoryBatch): a run whose events each
    // add much (16 MiB buffered reads cache 4,096 pages a read) passed 1 GiB within one 2^17 batch
    n = Math.min(n, this.memoryBatch());
    let status: number;
    try {
      status = this.core.run(I64_MAX, Math.max(1, n));
    } catch (e) {
      // the core aborts when its memory cannot grow (4 GiB) or one table passes the largest block it
      // allocates (1 GiB): the memory budget, passed within one batch
      if (e instanceof CoreAbort && e.outOfMemory) throw budgetError(this.scenario, "maxMemoryMiB", l, Number(this.core.simNow()), e.what);
      throw e;
    }
    this.wallMs += now() - t0;
    if (status === 0) this.finished = true;
    else this.checkBudget();
    return this.finished;
  }

  private batch = MIN_BATCH;
  private batchMem = 0;
  private batchEvents = 0;

  /**
   * Events the next batch may hold so that the core's memory cannot pass its
   * budget by much before the check between batches: from MIN_BATCH, doubling
   * up to MAX_BATCH while the memory stays put, and at most half the room
   * left at the growth per event the last growing batch showed (the core's
   * memory grows by doubling, so that estimate is high, never low).
   */
  private memoryBatch(): number {
    const mem = this.core.memory.buffer.byteLength;
    const events = Number(this.core.eventCount());
    const ran = events - this.batchEvents;
    if (ran > 0) {
      const grew = mem - this.batchMem;
      if (grew > 0) {
        const room = Math.max(0, this.limits.maxMemoryMiB * 2 ** 20 - mem);
        this.batch = Math.max(MIN_BATCH, Math.min(MAX_BATCH, Math.floor(room / 2 / (grew / ran))));
      } else this.batch = Math.min(MAX_BATCH, this.batch * 2);
    }
    this.batchMem = mem;
    this.batchEvents = events;
    return this.batch;
  }

  /** Between batches: a budget passed (events, series bins, records) ends the run with an input error naming its option. */
  private checkBudget(): void {
    const c = this.core;
    const l = this.limits;
    const at = () => Number(c.simNow());
    if (Number(c.eventCount()) > l.maxEvents) throw budgetError(this.scenario, "maxEvents", l, at());
    if (this.scenario.seriesBinNs > 0 && Number(c.seriesOpenBin()) > l.maxSeriesBins) throw budgetError(this.scenario, "maxSeriesBins", l, at());
    if (this.scenario.record && c.columnLength(COL.REC_JOB) > l.maxRecords) throw budgetError(this.scenario, "maxRecords", l, at());
    if (c.memory.buffer.byteLength > l.maxMemoryMiB * 2 ** 20) throw budgetError(this.scenario, "maxMemoryMiB", l, at());
  }

  progress(): Progress {
    const simulatedNs = Number(this.core.simNow());
    const events = Number(this.core.eventCount());
    let fraction: number | undefined;
    if (this.finished) fraction = 1;
    else if (this.scenario.durationNs) fraction = Math.min(1, simulatedNs / this.scenario.durationNs);
    else {
      // jobs bounded by time are done at timeEndNs, the others after their IOs: the run is as far as the slower
      const byTime = this.timedJobs > 0 && this.timeEndNs > 0 ? Math.min(1, simulatedNs / this.timeEndNs) : undefined;
      let byIos: number | undefined;
      if (this.countedJobs > 0 && this.totalIos > 0) {
        let done = 0;
        this.jobIds.forEach((id) => (done += Number(this.core.jobCompleted(id))));
        byIos = Math.min(1, done / this.totalIos);
      }
      fraction = byTime === undefined ? byIos : byIos === undefined ? byTime : Math.min(byTime, byIos);
    }
    return { simulatedNs, events, fraction };
  }

  /** Run to the end (batches of `batch` events), reporting progress between batches. */
  /**
   * With `record: true`, after the run: each bio's cgroup (an index into
   * `cgroupPaths`), direction (1 = write) and its times into and out of
   * blk-throttle, as columns copied out of the core, without an object per
   * bio (what series.csv's throttle columns need of a run of millions of bios).
   */
  recordTimes(): { cgroup: Int32Array; write: Uint8Array; submitNs: BigInt64Array; releaseNs: BigInt64Array; cgroupPaths: readonly string[] } | undefined {
    if (!this.scenario.record) return undefined;
    const c = this.core;
    return { cgroup: colI32(c, COL.REC_CG), write: colU8(c, COL.REC_DIR), submitNs: colI64(c, COL.REC_SUBMIT), releaseNs: colI64(c, COL.REC_RELEASE),
      cgroupPaths: [...this.cgPathsById] };
  }

  runToEnd(onProgress?: (p: Progress) => void, batch = 1 << 20): RunResult {
    while (!this.step(batch)) onProgress?.(this.progress());
    onProgress?.(this.progress());
    return this.result();
  }

  /** Control-module context (for modules' own result readers). */
  context(): ControlContext {
    return this.ctx;
  }

  result(): RunResult {
    const c = this.core;
    const s = this.scenario;
    const jobs: JobResult[] = [];
    const ios = colU64(c, COL.JOB_IOS);
    const bytes = colU64(c, COL.JOB_BYTES);
    const latSum = colF64(c, COL.JOB_LAT_SUM);
    const latSq = colF64(c, COL.JOB_LAT_SQ);
    const latMin = colI64(c, COL.JOB_LAT_MIN);
    const latMax = colI64(c, COL.JOB_LAT_MAX);
    const first = colI64(c, COL.JOB_FIRST_SUBMIT);
    const last = colI64(c, COL.JOB_LAST_DONE);
    // each job's histogram copied out of the core's column (no core call in this loop)
    const depth = colU64(c, COL.JOB_DEPTH); // fio's io_u_map, FIO_IO_U_MAP_NR per job
    const hist = colU32NoCopy(c, COL.JOB_HIST);
    c.finishRateSamples();
    const rate = colF64(c, COL.JOB_RATE_STAT); // (job*2+dir)*2 + {bw, iops}, RATE_FIELDS each
    const rateOf = (k: number): RateSamples => {
      const b = k * RATE_FIELDS;
      return { samples: rate[b]!, min: rate[b + 1]!, max: rate[b + 2]!, mean: rate[b + 3]!, S: rate[b + 4]! };
    };
    s.jobs.forEach((j, k) => {
      const id = this.jobIds[k]!;
      const dirStats = (d: number) => {
        const i = id * 2 + d;
        const n = Number(ios[i]);
        return {
          ios: n,
          bytes: Number(bytes[i]),
          lat: latencyStats(n, latSum[i]!, latSq[i]!, latMin[i]!, latMax[i]!, hist.slice(i * FIO_PLAT_NR, (i + 1) * FIO_PLAT_NR)),
          bwSamples: rateOf(i * 2),
          iopsSamples: rateOf(i * 2 + 1),
        };
      };
      const f = Number(first[id]);
      const l = Number(last[id]);
      jobs.push({
        name: j.name,
        cgroup: normPath(j.cgroup),
        device: j.device,
        read: dirStats(0),
        write: dirStats(1),
        // (with ramp_time, where fio's statistics start: the end of the ramp)
        startNs: Math.round(j.startNs + (j.rampNs ?? 0)),
        firstSubmitNs: f,
        lastDoneNs: l,
        // fio's runtime: to the job's last completion, and for a time_based job
        // at least its runtime (fio's thread runs until it sees the runtime
        // passed: a rate-limited or thinking job's last IO completes before)
        runtimeMs: f >= 0 ? Math.max(0, (Math.max(l, j.timeBased && j.runtimeNs ? Math.round(j.startNs + (j.rampNs ?? 0)) + j.runtimeNs : l) - Math.round(j.startNs + (j.rampNs ?? 0))) / 1e6) : 0,
        iodepth: j.iodepth,
        depth: Array.from(depth.subarray(id * FIO_IO_U_MAP_NR, (id + 1) * FIO_IO_U_MAP_NR), Number),
      });
    });

    // io.stat
    const nDev = Math.max(1, this.devs.length);
    const cgIos = colU64(c, COL.CG_IOS);
    const cgBytes = colU64(c, COL.CG_BYTES);
    const cgWait = colU64(c, COL.CG_WAIT);
    const nCg = this.cgPathsById.length;
    const own: Array<Record<string, IoStatCounts>> = [];
    const waits: Array<{ read: number; write: number }> = [];
    for (let g = 0; g < nCg; g++) {
      const rec: Record<string, IoStatCounts> = {};
      const w = { read: 0, write: 0 };
      this.devs.forEach((d) => {
        const i = (g * nDev + d.id) * 2;
        rec[d.spec.devno] = {
          rbytes: Number(cgBytes[i] ?? 0n), wbytes: Number(cgBytes[i + 1] ?? 0n),
          rios: Number(cgIos[i] ?? 0n), wios: Number(cgIos[i + 1] ?? 0n), dbytes: 0, dios: 0,
        };
        w.read += Number(cgWait[i] ?? 0n);
        w.write += Number(cgWait[i + 1] ?? 0n);
      });
      own.push(rec);
      waits.push(w);
    }
    const endNs = Number(c.simNow());
    // each disk's /sys/block/<dev>/stat now (assembly/device/device.ts)
    const devices: DeviceResult[] = this.devs.map((d) => {
      const f = (k: number) => Number(c.deviceStat(d.id, k));
      return {
        name: d.spec.name, devno: d.spec.devno,
        ...(d.spec.card ? { model: d.spec.card.model } : {}),
        stat: {
          readIos: f(DS.READ_IOS), readMerges: f(DS.READ_MERGES), readSectors: f(DS.READ_SECTORS), readTicksMs: f(DS.READ_TICKS_MS),
          writeIos: f(DS.WRITE_IOS), writeMerges: f(DS.WRITE_MERGES), writeSectors: f(DS.WRITE_SECTORS), writeTicksMs: f(DS.WRITE_TICKS_MS),
          inFlight: f(DS.IN_FLIGHT), ioTicksMs: f(DS.IO_TICKS_MS), timeInQueueMs: f(DS.TIME_IN_QUEUE_MS),
        },
      };
    });
    // each cgroup's subtree sums, children into parents: ids are given parents first
    // (configure), so one pass from the last id up adds every subtree once; a sum over
    // every pair of cgroups made 10,000 cgroups cost 11x 2,500 (the counts are whole
    // numbers below 2^53: the order of the additions changes nothing)
    const subtree: Array<Record<string, IoStatCounts>> = own.map((rec) => {
      const t: Record<string, IoStatCounts> = {};
      for (const d of this.devs) {
        const o = rec[d.spec.devno]!;
        t[d.spec.devno] = { rbytes: o.rbytes, wbytes: o.wbytes, rios: o.rios, wios: o.wios, dbytes: 0, dios: 0 };
      }
      return t;
    });
    for (let g = this.cgPathsById.length - 1; g > 0; g--) {
      const p = this.cgPathsById[g]!;
      const parent = this.cgIds.get(p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "")!;
      if (parent === 0) continue; // the root's totals are the disk's (below)
      for (const d of this.devs) {
        const from = subtree[g]![d.spec.devno]!;
        const to = subtree[parent]![d.spec.devno]!;
        to.rbytes += from.rbytes; to.wbytes += from.wbytes; to.rios += from.rios; to.wios += from.wios;
      }
    }
    const cgroups: CgroupResult[] = this.cgPathsById.map((path, g) => {
      const total: Record<string, IoStatCounts> = {};
      for (const [k, d] of this.devs.entries()) {
        if (path === "") {
          // the root's io.stat is the disk's own statistics (blkcg_fill_root_iostats:
          // part_stat ios and sectors, counted as requests complete), not its
          // cgroups' bios counted as they are issued
          const st = devices[k]!.stat;
          total[d.spec.devno] = { rbytes: st.readSectors * 512, wbytes: st.writeSectors * 512, rios: st.readIos, wios: st.writeIos, dbytes: 0, dios: 0 };
          continue;
        }
        total[d.spec.devno] = subtree[g]![d.spec.devno]!;
      }
      const ioStatExtra: Record<string, Record<string, string | number>> = {};
      for (const d of this.devs) {
        for (const m of controlModules()) {
          const e = m.ioStatExtra?.(this.ctx, path, d.spec.devno);
          if (e && Object.keys(e).length) ioStatExtra[d.spec.devno] = { ...(ioStatExtra[d.spec.devno] ?? {}), ...e };
        }
      }
      return { path, own: own[g]!, total, throttleWaitNs: waits[g]!, ...(Object.keys(ioStatExtra).length ? { ioStatExtra } : {}),
        ioStatDevices: this.ioStatDevices(path, jobs, total, endNs) };
    });

    // time series
    const series: SeriesBin[] = [];
    if (s.seriesBinNs > 0) {
      // closed bins: one record per bin and cgroup-direction with IOs, its
      // histogram as (bucket, count) pairs; then the open bin's dense columns
      // (assembly/stats/stats.ts)
      const push = (bin: number, j: number, n: number, bytes: number, latSum: number, p99: number | undefined) => {
        series.push({
          t0Ns: bin * s.seriesBinNs, cgroup: this.cgPathsById[j >> 1]!, dir: j & 1 ? "write" : "read", ios: n,
          bytes, meanLatNs: latSum / n, p99LatNs: p99 ?? 0,
        });
      };
      const rBin = colI64(c, COL.SERIES_REC_BIN), rKey = colI32(c, COL.SERIES_REC_KEY), rIos = colU32(c, COL.SERIES_REC_IOS);
      const rBytes = colU64(c, COL.SERIES_REC_BYTES), rLat = colF64(c, COL.SERIES_REC_LAT_SUM);
      const start = colI32(c, COL.SERIES_HIST_START), idx = colI32(c, COL.SERIES_HIST_IDX), cnt = colU32(c, COL.SERIES_HIST_CNT);
      for (let r = 0; r < rBin.length; r++) {
        // the record's histogram is its (bucket, count) pairs, buckets ascending (closeSeriesBin())
        const end = r + 1 < start.length ? start[r + 1]! : idx.length;
        const n = rIos[r]!;
        push(Number(rBin[r]), rKey[r]!, n, Number(rBytes[r]), rLat[r]!, percentileFromPairs(idx, cnt, start[r]!, end, 99, n, SERIES_PLAT_BITS));
      }
      const open = Number(c.seriesOpenBin());
      if (open >= 0) {
        const sIos = colU32(c, COL.SERIES_IOS);
        const sBytes = colU64(c, COL.SERIES_BYTES);
        const sLat = colF64(c, COL.SERIES_LAT_SUM);
        const openHist = colU32(c, COL.SERIES_HIST);
        for (let j = 0; j < nCg * 2; j++) {
          const n = sIos[j]!;
          if (n > 0) push(open, j, n, Number(sBytes[j]), sLat[j]!, percentilesFromPlat(openHist.subarray(j * SERIES_PLAT_NR, (j + 1) * SERIES_PLAT_NR), [99], n, SERIES_PLAT_BITS)[0]?.ns);
        }
      }
    }

    // buffered reads: the device side of the series (readahead bios per bin and cgroup)
    if (s.seriesBinNs > 0 && this.pagecache) {
      const dt = colI64(c, COL.PC_DONE_T), dc = colI32(c, COL.PC_DONE_CG), db = colU32(c, COL.PC_DONE_BYTES);
      const at = new Map<string, SeriesBin>();
      for (const p of series) {
        if (p.dir === "read") {
          p.deviceIos = 0;
          p.deviceBytes = 0;
          at.set(`${p.t0Ns}\u0000${p.cgroup}`, p);
        }
      }
      for (let i = 0; i < dt.length; i++) {
        const t0Ns = Math.floor(Number(dt[i]) / s.seriesBinNs) * s.seriesBinNs;
        const cgroup = this.cgPathsById[dc[i]!]!;
        const k = `${t0Ns}\u0000${cgroup}`;
        let p = at.get(k);
        if (!p) {
          p = { t0Ns, cgroup, dir: "read", ios: 0, bytes: 0, meanLatNs: 0, p99LatNs: 0, deviceIos: 0, deviceBytes: 0 };
          at.set(k, p);
          series.push(p);
        }
        p.deviceIos! += 1;
        p.deviceBytes! += db[i]!;
      }
      series.sort((a, b) => a.t0Ns - b.t0Ns);
    }

    // per-bio records
    let records: BioRecord[] | undefined;
    if (s.record) {
      const rj = colI32(c, COL.REC_JOB), rs = colI32(c, COL.REC_SEQ), rw = colI32(c, COL.REC_WORKER);
      const rc = colI32(c, COL.REC_CG), rd = colU8(c, COL.REC_DIR), ro = colI64(c, COL.REC_OFF);
      const rz = colU32(c, COL.REC_SIZE), rsub = colI64(c, COL.REC_SUBMIT), rrel = colI64(c, COL.REC_RELEASE);
      const riss = colI64(c, COL.REC_ISSUE), rdone = colI64(c, COL.REC_DONE), rf = colU32(c, COL.REC_FLAGS);
      const nameOf = new Map<number, string>();
      s.jobs.forEach((j, k) => nameOf.set(this.jobIds[k]!, j.name));
      records = [];
      for (let i = 0; i < rj.length; i++) {
        records.push({
          job: nameOf.get(rj[i]!) ?? "(writeback)", seq: rs[i]!, worker: rw[i]!, cgroup: this.cgPathsById[rc[i]!] ?? "",
          dir: rd[i] ? "W" : "R", off: Number(ro[i]), size: rz[i]!, submitNs: Number(rsub[i]), releaseNs: Number(rrel[i]),
          issueNs: Number(riss[i]), completeNs: Number(rdone[i]),
          ...(rf[i]! & BIO_READAHEAD ? { readahead: true as const } : {}),
        });
      }
    }

    return {
      scenario: s.name,
      kernel: s.kernel,
      seed: s.seed,
      simulatedNs: Number(c.simNow()),
      events: Number(c.eventCount()),
      wallMs: this.wallMs,
      jobs,
      cgroups,
      devices,
      series,
      seriesBinNs: s.seriesBinNs,
      records,
      ...rqosOf(this.ctx, this.cgPathsById),
      warnings: [...this.warnings, ...this.lateWrites(Number(c.simNow()))],
    };
  }
}

/**
 * A core kept for the next `simulate()` in this thread. Instantiating the core
 * costs more than a small run (a fresh 4 MiB memory whose first pages the
 * module's start function touches: 1.4 ms on this project's VM, where a
 * 10-bio run is 0.2 ms), and a Monte Carlo sweep of small IO scenarios is
 * thousands of such runs. `reset()` (assembly/index.ts) puts every module of
 * the core back to its state at instantiation, so a run on a used core gives
 * the same bytes as on a fresh one (test/engine/core-reuse.test.ts). The
 * core's allocator never frees (AssemblyScript's stub runtime), so a core is
 * kept only while its memory is at most CORE_REUSE_MAX_BYTES, and never after
 * a run that threw (an abort leaves its state unknown). `simulate()` owns its
 * Simulation, so no caller can read the core after it is handed on; code that
 * keeps a Simulation (`new Simulation(...)`) gets a core of its own.
 */
let spareCore: CoreExports | undefined;
export const CORE_REUSE_MAX_BYTES = 64 << 20;

/** Run a scenario to the end in this thread. */
export function simulate(scenario: Scenario, onProgress?: (p: Progress) => void): RunResult {
  const core = spareCore ?? instantiateCore();
  spareCore = undefined;
  const r = new Simulation(scenario, core).runToEnd(onProgress);
  if (core.memory.buffer.byteLength <= CORE_REUSE_MAX_BYTES) spareCore = core;
  return r;
}

/** assembly/engine/bios.ts BIO_READAHEAD */
const BIO_READAHEAD = 1 << 9;

/** A cgroup path as the kernel resolves it (bindings/cgroup/path.ts). */
export const normPath = normCgroupPath;

function depth(p: string): number {
  return p === "" ? 0 : p.split("/").length;
}

function now(): number {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}

/** RunResult.rqos: present only when io.latency or wbt_lat_usec was written (results of other runs stay as they were). */
function rqosOf(ctx: ControlContext, paths: readonly string[]): { rqos?: RqosTimelines } {
  const t = rqosTimelines(ctx, [...paths]);
  return t ? { rqos: t } : {};
}

/**
 * A depth curve's points ([in flight, multiplier], ascending) as the core's
 * table: index k = requests in flight, 0..max point (index 0 = 1's value);
 * linear in log depth between points, the end values beyond.
 */
export function depthTable(points: Array<[number, number]>): number[] {
  const pts = [...points].sort((a, b) => a[0] - b[0]);
  const last = pts[pts.length - 1]![0];
  const out: number[] = [];
  for (let k = 0; k <= last; k++) {
    const q = Math.max(1, k);
    if (q <= pts[0]![0]) out.push(pts[0]![1]);
    else {
      let v = pts[pts.length - 1]![1];
      for (let i = 1; i < pts.length; i++) {
        const [q1, m1] = pts[i]!;
        if (q <= q1) {
          const [q0, m0] = pts[i - 1]!;
          v = m0 + ((m1 - m0) * Math.log(q / q0)) / Math.log(q1 / q0);
          break;
        }
      }
      out.push(v);
    }
  }
  return out;
}
