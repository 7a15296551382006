// A RunResult written as fio's `--output-format=json` (and json+).
//
// Followed (fio 3.39; key names and order checked against what Debian's fio
// 3.39 binary prints): fio stat.c __show_run_stats() (top level), show_thread_status_json()
// (one object per job, or per reporting group with group_reporting),
// add_ddir_status_json() (read/write/trim/sync) and add_ddir_lat_json()
// (slat_ns/clat_ns/lat_ns), with fio's arithmetic:
//     bw_bytes = 1000 * io_bytes / runtime_ms      (integer division)
//     bw       = bw_bytes / 1024                   (KiB/s, integer)
//     iops     = 1000.0 * total_ios / runtime_ms   (float)
//     io_kbytes = io_bytes >> 10
// and fio's percentiles (percentiles.ts). With group_reporting, jobs of one
// group are summed as sum_thread_stats() does: counts and histograms add,
// runtime is the longest, means and variances merge (__sum_stat).
//
// Mapping from iosim: a JobResult's latency is submit-to-completion; fio's
// psync/libaio submit path is not modelled, so clat_ns and lat_ns both
// carry it and slat_ns has N = 0 (what fio prints for synchronous engines).
// Runtime is JobResult.runtimeMs truncated to whole ms like fio's
// mtime_since(). bw_min ... bw_samples and iops_min ... iops_samples are
// fio's 500 ms samples (DirectionStats.bwSamples / iopsSamples, from the
// core; summed over a reporting group as fio's sum_stat(pure_sum) does;
// bw_agg the mean's share of the group's bandwidth,
// convert_agg_kbytes_percent). Fields iosim does not measure (CPU) are
// present with fio's zero values so consumers find every key
// (latency_depth is the job's iodepth option,
// latency_target/window 0 and latency_percentile 100, as fio prints them
// without latency_target); disk_util is fio's diskutil.c over the
// devices' /sys/block/<dev>/stat (RunResult.devices; fioDiskUtil() below);
// latency_ns/us/ms (fio's io_u_lat_* buckets)
// are rebuilt from the plat histogram, bucket midpoints, so a bucket that
// straddles a boundary (e.g. 750 ns) counts on the side of its midpoint.
// IO depths (iodepth_level) are the core's per-job io_u_map (JobResult.depth:
// the in-flight count at each submission, io_u_mark_depth()); submit and
// complete (io_u_mark_submit/complete) are one IO per call, i.e. all in the
// "4" bucket (1-4 per call): exact for sync engines and for libaio/io_uring
// with fio's default iodepth_batch=1; a real async run may also reap several
// completions in one call near its end ("8=0.1%"), which iosim does not model.
// Percentages are fio's stat_calc_dist(): 100 * n / total, a nonzero bucket
// under 0.1 % shown as 0.1. JobResults without `depth` keep fio's zeros.
//
// Worked example: a job read 40,960,000 bytes in 10,000 IOs with
// runtimeMs = 2000.7: runtime = 2000, bw_bytes = 1000 * 40960000 / 2000 =
// 20,480,000, bw = 20,000 KiB/s, iops = 5000.0, io_kbytes = 40,000.

import type { DeviceResult, DirectionStats, JobResult, LatencyStats, RateSamples, RunResult } from "../scenario/types.js";
import type { FioStartup } from "../workload/fio-jobfile.js";
import {
  FIO_DEFAULT_PERCENTILE_LIST, FIO_IO_U_PLAT_NR, percentileKey, percentilesFromPlat, platIdxToVal,
} from "./percentiles.js";

/** What a job's fio report needs beyond JobResult (bindings/workload FioJobMeta has this shape). */
export interface FioJobInfo {
  /** JobResult.name / JobSpec.name */
  spec: string;
  jobname: string;
  groupid: number;
  options?: Record<string, string>;
  groupReporting?: boolean;
  percentiles?: number[];
  /** the iodepth option as written (fio's latency_depth); default: the JobResult's iodepth, else 1 */
  iodepth?: number;
  /** false: disk_util=0, the job adds no disk to fio's disk stats */
  diskUtil?: boolean;
  /** the fields of the job's start-up line (fio-text.ts prints them) */
  startup?: FioStartup;
  /** which of its numjobs clones the job is (absent: numjobs=1) */
  clone?: number;
  /** the job runs as a thread (fio's thread option) */
  thread?: boolean;
  /** fio's write_bw_log / write_lat_log / write_iops_log (report/fio-logs.ts; "" = the job's name) */
  logs?: { bw?: string; lat?: string; iops?: string; avgMsec: number; perJob: boolean; fixedBs?: number };
}

export interface FioJsonOptions {
  /** per-job fio details, matched to JobResults by `spec` (e.g. FioJobFile.meta) */
  jobs?: FioJobInfo[];
  /** fio's "global options" */
  globalOptions?: Record<string, string>;
  /** report time, ms since the epoch (default 0: output depends only on the run) */
  nowMs?: number;
  /** default "iosim (fio-3.39 json)" */
  fioVersion?: string;
  /** json+: add "bins" (the plat histogram) to clat_ns */
  plus?: boolean;
}

export interface FioLatJson {
  min: number;
  max: number;
  mean: number;
  stddev: number;
  N: number;
  percentile?: Record<string, number>;
  bins?: Record<string, number>;
}

export interface FioDirJson {
  io_bytes: number;
  io_kbytes: number;
  bw_bytes: number;
  bw: number;
  iops: number;
  runtime: number;
  total_ios: number;
  short_ios: number;
  drop_ios: number;
  slat_ns: FioLatJson;
  clat_ns: FioLatJson;
  lat_ns: FioLatJson;
  bw_min: number;
  bw_max: number;
  bw_agg: number;
  bw_mean: number;
  bw_dev: number;
  bw_samples: number;
  iops_min: number;
  iops_max: number;
  iops_mean: number;
  iops_stddev: number;
  iops_samples: number;
}

export interface FioJobJson {
  jobname: string;
  groupid: number;
  job_start: number;
  error: number;
  eta: number;
  elapsed: number;
  "job options"?: Record<string, string>;
  read: FioDirJson;
  write: FioDirJson;
  trim: FioDirJson;
  sync: { total_ios: number; lat_ns: FioLatJson };
  job_runtime: number;
  usr_cpu: number;
  sys_cpu: number;
  ctx: number;
  majf: number;
  minf: number;
  iodepth_level: Record<string, number>;
  iodepth_submit: Record<string, number>;
  iodepth_complete: Record<string, number>;
  latency_ns: Record<string, number>;
  latency_us: Record<string, number>;
  latency_ms: Record<string, number>;
  latency_depth: number;
  latency_target: number;
  latency_percentile: number;
  latency_window: number;
}

export interface FioJson {
  "fio version": string;
  timestamp: number;
  timestamp_ms: number;
  time: string;
  "global options"?: Record<string, string>;
  jobs: FioJobJson[];
  disk_util: FioDiskUtilJson[];
  /** iosim's warnings about the run (`iosim run --json`), last and only when there are some: fio's readers skip a key they do not know */
  iosim_warnings?: string[];
}

/** One device of fio's "disk_util" (stat.c json_array_add_disk_util, a device without slaves). */
export interface FioDiskUtilJson {
  name: string;
  read_ios: number;
  write_ios: number;
  read_sectors: number;
  write_sectors: number;
  read_merges: number;
  write_merges: number;
  read_ticks: number;
  write_ticks: number;
  in_queue: number;
  util: number;
}

export const DEFAULT_FIO_VERSION = "iosim (fio-3.39 json)";

// ---- one direction, possibly summed over a reporting group -----------------

export interface DirAgg {
  ios: number;
  bytes: number;
  runtimeMs: number;
  n: number; // latency samples
  min: number;
  max: number;
  mean: number;
  S: number; // sum of squared deviations (fio's io_stat.S)
  hist: Float64Array;
  /** fio's bw_stat / iops_stat, summed over the members as sum_stat(..., pure_sum) does */
  bwS: RateSamples;
  iopsS: RateSamples;
}

function emptyRate(): RateSamples {
  return { samples: 0, min: 0, max: 0, mean: 0, S: 0 };
}

function emptyAgg(): DirAgg {
  return { ios: 0, bytes: 0, runtimeMs: 0, n: 0, min: 0, max: 0, mean: 0, S: 0, hist: new Float64Array(FIO_IO_U_PLAT_NR), bwS: emptyRate(), iopsS: emptyRate() };
}

/**
 * fio's sum_stat(dst, src, pure_sum = true) for bw and iops samples of a
 * reporting group: "for group_reporting, we should just add those up, not
 * make them the mean of everything": the first member's copied, the next
 * ones' min, max, samples, mean and S added.
 */
function sumRate(dst: RateSamples, src: RateSamples | undefined): void {
  if (!src || src.samples === 0) return;
  if (dst.samples === 0) Object.assign(dst, src);
  else {
    dst.min += src.min;
    dst.max += src.max;
    dst.samples += src.samples;
    dst.mean += src.mean;
    dst.S += src.S;
  }
}

/** Add one job's direction into `dst` as fio's sum_thread_stats() + __sum_stat() do. */
function addDirStats(dst: DirAgg, d: DirectionStats, runtimeMs: number): void {
  addDir(dst, d.ios, d.bytes, runtimeMs, d.lat);
  sumRate(dst.bwS, d.bwSamples);
  sumRate(dst.iopsS, d.iopsSamples);
}

function addDir(dst: DirAgg, ios: number, bytes: number, runtimeMs: number, lat: LatencyStats): void {
  dst.ios += ios;
  dst.bytes += bytes;
  if (ios > 0 && runtimeMs > dst.runtimeMs) dst.runtimeMs = runtimeMs;
  const n = ios;
  if (n > 0) {
    const S = lat.stddev * lat.stddev * (n - 1);
    if (dst.n === 0) {
      dst.min = lat.min;
      dst.max = lat.max;
      dst.mean = lat.mean;
      dst.S = S;
    } else {
      dst.min = Math.min(dst.min, lat.min);
      dst.max = Math.max(dst.max, lat.max);
      const delta = lat.mean - dst.mean;
      const mean = (lat.mean * n + dst.mean * dst.n) / (dst.n + n);
      dst.S = S + dst.S + (delta * delta * (dst.n * n)) / (dst.n + n);
      dst.mean = mean;
    }
    dst.n += n;
  }
  const h = lat.histogram;
  const len = Math.min(h.length, FIO_IO_U_PLAT_NR);
  for (let i = 0; i < len; i++) dst.hist[i]! += h[i]!;
}

/**
 * Direction `dir` of `jobs` summed as one fio reporting group (fio's
 * sum_thread_stats(): IOs, bytes and histograms add, the runtime is the
 * longest, means merge): what `iosim run --json` prints for those jobs when
 * they report as one group (group_reporting). Percentiles of the sum come
 * from its merged histogram (percentilesFromPlat(a.hist, list, a.n)), so they
 * are over all the jobs' IOs combined, not any one job's.
 */
export function groupDir(jobs: readonly JobResult[], dir: "read" | "write"): DirAgg {
  const a = emptyAgg();
  for (const j of jobs) addDirStats(a, j[dir], j.runtimeMs);
  return a;
}

function latJson(a: DirAgg, withPercentiles: boolean, list: readonly number[], plus: boolean): FioLatJson {
  const o: FioLatJson = {
    min: a.n > 0 ? a.min : 0,
    max: a.n > 0 ? a.max : 0,
    mean: a.n > 0 ? a.mean : 0,
    stddev: a.n > 1 ? Math.sqrt(a.S / (a.n - 1)) : 0,
    N: a.n,
  };
  if (withPercentiles && a.n > 0) {
    const pct: Record<string, number> = {};
    for (const p of percentilesFromPlat(a.hist, list, a.n)) pct[percentileKey(p.pct)] = p.ns;
    o.percentile = pct;
    if (plus) {
      const bins: Record<string, number> = {};
      for (let i = 0; i < a.hist.length; i++) if (a.hist[i]! > 0) bins[String(platIdxToVal(i))] = a.hist[i]!;
      o.bins = bins;
    }
  }
  return o;
}

function zeroLat(): FioLatJson {
  return { min: 0, max: 0, mean: 0, stddev: 0, N: 0 };
}

/**
 * fio's rates of one direction (add_ddir_status_json): runtime truncated to
 * whole ms as mtime_since() gives it, bw_bytes = 1000 * io_bytes / runtime
 * (integer), bw = bw_bytes / 1024 (KiB/s, integer), iops = 1000.0 * ios /
 * runtime; all 0 when the runtime is under 1 ms. The values `iosim run
 * --json` prints, and `iosim mc`'s job metrics.
 */
export function fioRates(ios: number, bytes: number, runtimeMs: number): { runtime: number; bw_bytes: number; bw: number; iops: number } {
  const runt = Math.floor(runtimeMs);
  if (!(runt > 0)) return { runtime: runt, bw_bytes: 0, bw: 0, iops: 0 };
  const bwBytes = Math.floor((1000 * bytes) / runt);
  return { runtime: runt, bw_bytes: bwBytes, bw: Math.floor(bwBytes / 1024), iops: (1000 * ios) / runt };
}

/** calc_lat() of a sample set: min, max, mean and stddev (sqrt(S / (n - 1))), or none without samples. */
export function rateStats(r: RateSamples): { min: number; max: number; mean: number; dev: number } | undefined {
  if (r.samples === 0) return undefined;
  return { min: r.min, max: r.max, mean: r.mean, dev: r.samples > 1 ? Math.sqrt(r.S / (r.samples - 1)) : 0 };
}

/**
 * convert_agg_kbytes_percent(): a bw mean (KiB/s) as a share of its reporting
 * group's aggregate bandwidth (bytes/s), at most 100; 100 when the aggregate
 * is 1 KiB/s or less.
 */
export function percentOfAgg(aggBytes: number, meanKiB: number): number {
  if (!(aggBytes > 1024)) return 100;
  const p = (meanKiB * 100) / (aggBytes / 1024);
  return p > 100 ? 100 : p;
}

/** One direction of a run status group (fio's struct group_run_stats). */
export interface GroupRunStats {
  /** shortest and longest runtime in ms of the group's reporting units with IO (0 when none has) */
  minRun: number;
  maxRun: number;
  /** their bandwidths, bytes/s */
  minBw: number;
  maxBw: number;
  /** bytes of the whole group */
  io: number;
  /** rs->agg: io * 1000 / maxRun (integer), what show_group_stats prints and bw's "per=" divides by */
  agg: number;
}

/**
 * __show_run_stats()'s group_run_stats for `groupid`, direction `dir`: over
 * its reporting units with IO in that direction, runtimes truncated to ms.
 */
export function groupRunStats(units: readonly FioReportUnit[], groupid: number, dir: "read" | "write"): GroupRunStats {
  const g: GroupRunStats = { minRun: Infinity, maxRun: 0, minBw: Infinity, maxBw: 0, io: 0, agg: 0 };
  for (const u of units) {
    if (u.groupid !== groupid) continue;
    const a = u[dir];
    const runt = Math.floor(a.runtimeMs);
    if (!runt || a.ios === 0) continue;
    g.minRun = Math.min(g.minRun, runt);
    g.maxRun = Math.max(g.maxRun, runt);
    const bw = Math.floor((a.bytes * 1000) / runt);
    g.minBw = Math.min(g.minBw, bw);
    g.maxBw = Math.max(g.maxBw, bw);
    g.io += a.bytes;
  }
  if (g.maxRun) g.agg = Math.floor((g.io * 1000) / g.maxRun);
  else g.minRun = g.minBw = 0;
  return g;
}

function dirJson(a: DirAgg, list: readonly number[], plus: boolean, aggBytes = 0): FioDirJson {
  const { runtime: runt, bw_bytes: bwBytes, bw, iops } = fioRates(a.ios, a.bytes, a.runtimeMs);
  const bwSt = rateStats(a.bwS);
  const iopsSt = rateStats(a.iopsS);
  return {
    io_bytes: a.bytes,
    io_kbytes: Math.floor(a.bytes / 1024),
    bw_bytes: bwBytes,
    bw,
    iops,
    runtime: a.ios > 0 ? runt : 0,
    total_ios: a.ios,
    short_ios: 0,
    drop_ios: 0,
    slat_ns: zeroLat(),
    clat_ns: latJson(a, true, list, plus),
    lat_ns: latJson(a, false, list, false),
    // (add_ddir_status_json: zeros when there are no samples)
    bw_min: bwSt?.min ?? 0,
    bw_max: bwSt?.max ?? 0,
    bw_agg: bwSt ? percentOfAgg(aggBytes, bwSt.mean) : 0,
    bw_mean: bwSt?.mean ?? 0,
    bw_dev: bwSt?.dev ?? 0,
    bw_samples: a.bwS.samples,
    iops_min: iopsSt?.min ?? 0,
    iops_max: iopsSt?.max ?? 0,
    iops_mean: iopsSt?.mean ?? 0,
    iops_stddev: iopsSt?.dev ?? 0,
    iops_samples: a.iopsS.samples,
  };
}

// ---- latency distribution (fio io_u_lat_n/u/m) --------------------------------

const LAT_LABELS = ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"];
const LAT_M_LABELS = [...LAT_LABELS, "2000", ">=2000"];
const LAT_EDGES = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];

/** Which fio latency bucket a value (in the bucket's unit) falls in: label "2" holds < 2, "4" holds 2..3, ... */
function latSlot(v: number): number {
  for (let i = 0; i < LAT_EDGES.length; i++) if (v < LAT_EDGES[i]!) return i;
  return LAT_EDGES.length; // only for msec: 1000..1999 -> "2000"
}

/** fio's io_u_mark_latency() buckets, rebuilt from the histogram, as percentages (stat_calc_lat). */
export function latencyDistribution(hist: ArrayLike<number>, totalIos: number): {
  ns: Record<string, number>; us: Record<string, number>; ms: Record<string, number>;
} {
  const n = new Array(10).fill(0);
  const u = new Array(10).fill(0);
  const m = new Array(12).fill(0);
  for (let i = 0; i < hist.length; i++) {
    const c = hist[i]!;
    if (!c) continue;
    const v = platIdxToVal(i);
    if (v < 1000) n[latSlot(v)] += c;
    else if (v < 1_000_000) u[latSlot(Math.floor(v / 1000))] += c;
    else {
      const ms = Math.floor(v / 1_000_000);
      m[ms >= 2000 ? 11 : latSlot(ms)] += c;
    }
  }
  const pct = (arr: number[], labels: string[]) => {
    const o: Record<string, number> = {};
    arr.forEach((c, i) => {
      let p = totalIos > 0 ? (100 * c) / totalIos : 0;
      if (p < 0.01 && c > 0) p = 0.01;
      o[labels[i]!] = p;
    });
    return o;
  };
  return { ns: pct(n, LAT_LABELS), us: pct(u, LAT_LABELS), ms: pct(m, LAT_M_LABELS) };
}

// ---- IO depth distribution (fio io_u_map / io_u_submit / io_u_complete) --------

export const FIO_IO_U_MAP_NR = 7;
export const DEPTH_LEVEL_LABELS = ["1", "2", "4", "8", "16", "32", ">=64"];
export const DEPTH_BATCH_LABELS = ["0", "4", "8", "16", "32", "64", ">=64"];

/** fio 3.39 stat_calc_dist(): each bucket as a percentage of `total`, a nonzero one under 0.1 % shown as 0.1. */
export function statCalcDist(map: readonly number[], total: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < FIO_IO_U_MAP_NR; i++) {
    const c = map[i] ?? 0;
    let p = total ? (c / total) * 100 : 0;
    if (total && p < 0.1 && c) p = 0.1;
    out.push(p);
  }
  return out;
}

/**
 * A report unit's IO depth distributions as percentages, in fio's bucket
 * order: level (io_u_map over total_io_u), submit and complete (one IO per
 * call: the "4" bucket, over total_submit / total_complete). All zeros when
 * no member carries a depth map (fio's values when nothing was counted).
 */
export function depthDistribution(u: FioReportUnit): { level: number[]; submit: number[]; complete: number[] } {
  const total = u.depth.reduce((a, b) => a + b, 0);
  const batch = [0, total, 0, 0, 0, 0, 0];
  return { level: statCalcDist(u.depth, total), submit: statCalcDist(batch, total), complete: statCalcDist(batch, total) };
}

function depthObject(keys: string[], pcts: number[]): Record<string, number> {
  const o: Record<string, number> = {};
  keys.forEach((k, i) => (o[k] = pcts[i]!));
  return o;
}

// ---- top level -------------------------------------------------------------------

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** ctime(3) without the newline, in UTC: "Thu Jan  1 00:00:00 1970". */
export function ctimeUtc(ms: number): string {
  const d = new Date(ms);
  const p2 = (x: number) => String(x).padStart(2, "0");
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, " ")} ` +
    `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} ${d.getUTCFullYear()}`;
}

/** Jobs as fio reports them: one per job, or one per reporting group (consecutive jobs with group_reporting). */
export interface FioReportUnit {
  jobname: string;
  groupid: number;
  members: JobResult[];
  info?: FioJobInfo;
  /**
   * fio's ts->latency_depth: td->latency_qd, which starts at the job's iodepth
   * option as written (fio 3.39 prints depth=8 for psync with iodepth=8,
   * though it caps the queue at 1); a reporting group takes its last member's
   * (__show_run_stats() assigns it per td)
   */
  latencyDepth: number;
  /** fio's io_u_map summed over the members (sum_thread_stats() adds it) */
  depth: number[];
  read: DirAgg;
  write: DirAgg;
  runtimeMs: number;
}

export function fioReportUnits(result: RunResult, jobs: FioJobInfo[] = []): FioReportUnit[] {
  const byName = new Map(jobs.map((j) => [j.spec, j]));
  const units: FioReportUnit[] = [];
  let last: FioReportUnit | undefined;
  for (const jr of result.jobs) {
    const info = byName.get(jr.name);
    const groupid = info?.groupid ?? 0;
    let u: FioReportUnit;
    if (info?.groupReporting && last && last.info?.groupReporting && last.groupid === groupid) u = last;
    else {
      u = { jobname: info?.jobname ?? jr.name, groupid, members: [], info, latencyDepth: 1, depth: new Array(FIO_IO_U_MAP_NR).fill(0), read: emptyAgg(), write: emptyAgg(), runtimeMs: 0 };
      units.push(u);
    }
    u.members.push(jr);
    u.latencyDepth = info?.iodepth ?? jr.iodepth ?? 1;
    if (jr.depth) for (let i = 0; i < FIO_IO_U_MAP_NR; i++) u.depth[i]! += jr.depth[i] ?? 0;
    addDirStats(u.read, jr.read, jr.runtimeMs);
    addDirStats(u.write, jr.write, jr.runtimeMs);
    u.runtimeMs += Math.floor(jr.runtimeMs); // fio total_run_time adds
    last = u;
  }
  return units;
}

/**
 * fio's disk utilisation for a run (diskutil.c, stat.c json_array_add_disk_util):
 * one entry per device a job's file is on, in the order the jobs first name
 * them (init_disk_util, job by job), except jobs with disk_util=0. fio
 * samples /sys/block/<dev>/stat when it sets the jobs up and after the last
 * one is reaped, and reports the differences; iosim's disks start idle at
 * t = 0 and are read at the run's end, so the counts are the whole run's:
 *   util = 100 * io_ticks / msec, at most 100,   msec = the run's length in ms (truncated)
 * Worked example: a disk busy 9,996 ms of a 10,008.27 ms run: util =
 * 100 * 9996 / 10008 = 99.880096.
 */
export function fioDiskUtil(result: RunResult, jobs: FioJobInfo[] = []): FioDiskUtilJson[] {
  const devices = result.devices;
  if (!devices || devices.length === 0) return [];
  const byName = new Map(jobs.map((j) => [j.spec, j]));
  const msec = Math.floor(result.simulatedNs / 1e6);
  const out: FioDiskUtilJson[] = [];
  const seen = new Set<DeviceResult>();
  for (const jr of result.jobs) {
    if (byName.get(jr.name)?.diskUtil === false) continue;
    const d = devices.find((x) => x.name === jr.device || x.devno === jr.device);
    if (!d || seen.has(d)) continue;
    seen.add(d);
    const st = d.stat;
    let util = msec ? (100 * st.ioTicksMs) / msec : 0;
    if (util > 100) util = 100;
    out.push({
      name: d.name, read_ios: st.readIos, write_ios: st.writeIos, read_sectors: st.readSectors, write_sectors: st.writeSectors,
      read_merges: st.readMerges, write_merges: st.writeMerges, read_ticks: st.readTicksMs, write_ticks: st.writeTicksMs,
      in_queue: st.timeInQueueMs, util,
    });
  }
  return out;
}

/** Build fio's JSON report (an object; fioJsonText() prints it the way fio does). */
export function toFioJson(result: RunResult, opts: FioJsonOptions = {}): FioJson {
  const nowMs = opts.nowMs ?? 0;
  const plus = opts.plus ?? false;
  const out: FioJson = {
    "fio version": opts.fioVersion ?? DEFAULT_FIO_VERSION,
    timestamp: Math.floor(nowMs / 1000),
    timestamp_ms: nowMs,
    time: ctimeUtc(nowMs),
    jobs: [],
    disk_util: fioDiskUtil(result, opts.jobs),
  };
  if (opts.globalOptions && Object.keys(opts.globalOptions).length > 0) out["global options"] = { ...opts.globalOptions };
  // keep fio's key order: "global options" before "jobs"
  const ordered: FioJson = {
    "fio version": out["fio version"], timestamp: out.timestamp, timestamp_ms: out.timestamp_ms, time: out.time,
    ...(out["global options"] ? { "global options": out["global options"] } : {}),
    jobs: out.jobs, disk_util: out.disk_util,
  };
  const units = fioReportUnits(result, opts.jobs);
  for (const u of units) {
    const list = u.info?.percentiles ?? FIO_DEFAULT_PERCENTILE_LIST;
    const empty = emptyAgg();
    const hist = new Float64Array(FIO_IO_U_PLAT_NR);
    for (let i = 0; i < hist.length; i++) hist[i] = u.read.hist[i]! + u.write.hist[i]!;
    const lat = latencyDistribution(hist, u.read.ios + u.write.ios);
    const depth = depthDistribution(u);
    const job: FioJobJson = {
      jobname: u.jobname,
      groupid: u.groupid,
      job_start: 0,
      error: 0,
      eta: 0,
      elapsed: Math.floor(result.simulatedNs / 1e9),
      ...(u.info?.options && Object.keys(u.info.options).length > 0 ? { "job options": { ...u.info.options } } : {}),
      read: dirJson(u.read, list, plus, groupRunStats(units, u.groupid, "read").agg),
      write: dirJson(u.write, list, plus, groupRunStats(units, u.groupid, "write").agg),
      trim: dirJson(empty, list, plus),
      sync: { total_ios: 0, lat_ns: zeroLat() },
      job_runtime: u.runtimeMs,
      usr_cpu: 0,
      sys_cpu: 0,
      ctx: 0,
      majf: 0,
      minf: 0,
      iodepth_level: depthObject(DEPTH_LEVEL_LABELS, depth.level),
      iodepth_submit: depthObject(DEPTH_BATCH_LABELS, depth.submit),
      iodepth_complete: depthObject(DEPTH_BATCH_LABELS, depth.complete),
      latency_ns: lat.ns,
      latency_us: lat.us,
      latency_ms: lat.ms,
      // fio 3.39 show_thread_status_json(): `if (ts->latency_depth)` — always,
      // since latency_qd starts at o.iodepth — then latency_target (usec),
      // latency_percentile (float) and latency_window. latency_target is not
      // modelled (the option is warned about), so these are fio's defaults.
      latency_depth: u.latencyDepth,
      latency_target: 0,
      latency_percentile: 100,
      latency_window: 0,
    };
    ordered.jobs.push(job);
  }
  return ordered;
}

/** Keys fio writes with json_object_add_value_float (printed "%f"). */
const FLOAT_KEYS = new Set([
  "iops", "mean", "stddev", "bw_agg", "bw_mean", "bw_dev", "iops_mean", "iops_stddev", "usr_cpu", "sys_cpu",
  "util", "aggr_util", "latency_percentile", "cachehit",
]);
const FLOAT_OBJECTS = new Set([
  "iodepth_level", "iodepth_submit", "iodepth_complete", "latency_ns", "latency_us", "latency_ms",
]);

/** Print a FioJson as fio's json.c does: 2-space indent, `"key" : value`, floats as %f. */
export function fioJsonText(obj: FioJson): string {
  const lines: string[] = [];
  const str = (s: string) => JSON.stringify(s);
  const num = (v: number, float: boolean) => (float ? v.toFixed(6) : String(Math.trunc(v)));
  const emit = (v: unknown, key: string | undefined, parentKey: string | undefined, indent: string): string => {
    if (v === null || v === undefined) return "null";
    if (typeof v === "number") return num(v, (key !== undefined && FLOAT_KEYS.has(key)) || (parentKey !== undefined && FLOAT_OBJECTS.has(parentKey)));
    if (typeof v === "string") return str(v);
    if (typeof v === "boolean") return v ? "1" : "0";
    const inner = indent + "  ";
    if (Array.isArray(v)) {
      if (v.length === 0) return "[\n" + indent + "]";
      return "[\n" + v.map((x) => inner + emit(x, undefined, key, inner)).join(",\n") + "\n" + indent + "]";
    }
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) return "{\n" + indent + "}";
    return "{\n" + entries.map(([k, x]) => `${inner}${str(k)} : ${emit(x, k, key, inner)}`).join(",\n") + "\n" + indent + "}";
  };
  lines.push(emit(obj, undefined, undefined, ""));
  return lines.join("\n") + "\n";
}
