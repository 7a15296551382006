// What a run measures, kept in the core so nothing crosses to JavaScript per bio.
//
// Per job and direction (fio's view): IOs, bytes, completion-latency sum,
// sum of squares, min, max and a fio plat histogram; the job's first submit
// and last completion. Per cgroup and direction (the kernel's io.stat view):
// IOs and bytes when the bio reaches the device (blk_cgroup_bio_start runs
// after blk-throttle), own counts only; the TypeScript side sums subtrees
// as the kernel's rstat flush does. Optionally, per completion-time bin of
// SERIES_BIN_NS: IOs, bytes, latency sum and a coarse histogram per cgroup
// and direction (the time series). Optionally, one record per completed bio
// (replay and tracing).
//
// The series: completions arrive in time order (noteComplete runs at the
// completion event's instant), so only the newest bin is still filling. Its
// counters and latency histograms are dense (per cgroup and direction, the
// histograms SERIES_PLAT_NR buckets); when a later bin begins, each of its
// cgroup-directions with IOs becomes one record (bin, key, IOs, bytes,
// latency sum) with its non-empty buckets as (bucket, count) pairs, and the
// dense arrays are zeroed for the new bin. A completion finds its bin by
// comparing its time with the open bin's range (seriesEnter() divides only
// when it falls outside: once per bin, not once per bio; ~18 x86
// instructions a bio less at QD 32 on the ideal device, callgrind). Memory
// grows with the bins that saw IO, not with the run's length: dense columns
// for every bin aborted the core at its 4 GiB limit on an hour of 10 cgroups
// at 100 ms bins, and on a 1 MiB job under io.max rbps=1 (12 days
// simulated, 10 M bins).

import { Vec } from "../engine/vec";
import { platIndex, FIO_PLAT_BITS, FIO_PLAT_NR, SERIES_PLAT_BITS, SERIES_PLAT_NR } from "./histogram";

// ---- per job x dir (index job*2+dir)
export const jobIos = new Vec<u64>(16);
export const jobBytes = new Vec<u64>(16);
export const jobLatSum = new Vec<f64>(16);
export const jobLatSq = new Vec<f64>(16);
export const jobLatMin = new Vec<i64>(16);
export const jobLatMax = new Vec<i64>(16);
export const jobHist = new Vec<u32>(16 * FIO_PLAT_NR);
// per job
export const jobFirstSubmit = new Vec<i64>(8);
export const jobLastDone = new Vec<i64>(8);
// fio's ramp_time: a job's completions before this time are left out of its
// statistics (time.c ramp_time_over() -> reset_all_stats(); i64.MIN_VALUE: none)
export const jobStatsFrom = new Vec<i64>(8);
// per job x depth bucket (index job*FIO_IO_U_MAP_NR+bucket): fio's io_u_map,
// the job's in-flight count when each IO is submitted (see noteDepth())
export const FIO_IO_U_MAP_NR: i32 = 7;
export const jobDepth = new Vec<u64>(8 * FIO_IO_U_MAP_NR);

// ---- fio's bandwidth and IOPS samples (stat.c add_bw_samples /
// add_iops_samples, from the helper thread every bwavgtime / iopsavgtime,
// 500 ms by default). fio's helper thread wakes at start + k * 500 ms
// (td->bw_sample_time advances by the period) and, per direction with IO in
// the window, adds one sample to bw_stat (KiB/s = bytes * 1000 / spent ms /
// 1024) and to iops_stat (ios * 1000 / spent ms), each by add_stat_sample()
// (min, max, Welford mean and S). Here the windows are exact (spent = 500
// ms; fio's helper wakes up to a few ms late, so real samples jitter by
// that). A window is closed at the first completion (of any job) after its
// end, before that completion is counted, or at the end of the run
// (engine/path.ts rateSamplesDue), and sampled if the job's thread still ran
// at its end: a job's last, partial window is not (fio's thread has exited
// before the helper's next wake-up), a time_based job's window ending at its
// runtime is (fio checks the runtime after its IO).
// Worked example: a job at rate_iops=2000 with 4 KiB reads for 2 s has four
// windows of 1000 IOs: bw samples 8000 KiB/s x 4 (1000 * 4096 * 1000 / 500 /
// 1024), iops samples 2000 x 4; fio 3.39 printed min 7968, max 8016, avg
// 8000.00 and samples=4 for that job on a real disk.
export const BW_AVG_TIME_MS: i64 = 500;
const BW_AVG_TIME_NS: i64 = BW_AVG_TIME_MS * 1_000_000;
export const jobBwNext = new Vec<i64>(8); // per job: the end of its open window
export const jobSampledBytes = new Vec<u64>(16); // per job x dir: jobBytes when the last window closed
export const jobSampledIos = new Vec<u64>(16); // jobIos then
// per job x dir x {bw, iops} x {samples, min, max, mean, S} (index ((job*2+dir)*2+k)*5+f)
export const SAMPLE_FIELDS: i32 = 5;
export const jobRateStat = new Vec<f64>(16 * 2 * SAMPLE_FIELDS);

// ---- per cgroup x device x dir (index (cg*nDev+dev)*2+dir), counted at device issue
export let statDevices: i32 = 1;
export const cgIos = new Vec<u64>(16);
export const cgBytes = new Vec<u64>(16);
export const cgWaitNs = new Vec<u64>(16); // time spent in blk-throttle

// ---- time series
export let seriesBinNs: i64 = 0; // 0 = off
export let seriesCgroups: i32 = 0;
export let seriesAny: bool = false; // a completion has been binned
export let seriesOpen: i64 = 0; // the bin still filling
// its time range [from, to) once a completion has been binned (noteComplete() divides only outside it)
export let seriesOpenFrom: i64 = 0;
export let seriesOpenTo: i64 = 0;
// the open bin, index cg*2+dir (histograms: (cg*2+dir)*SERIES_PLAT_NR + bucket)
export const seriesIos = new Vec<u32>(64);
export const seriesBytes = new Vec<u64>(64);
export const seriesLatSum = new Vec<f64>(64);
export const seriesHist = new Vec<u32>(64);
export const seriesTouched = new Vec<i32>(64); // the open bin's buckets in use (indices into seriesHist)
// closed bins: one record per bin and cgroup-direction with IOs; record r's
// histogram is the pairs seriesHistStart[r] .. seriesHistStart[r+1] (or the pairs' end)
export const seriesRecBin = new Vec<i64>(64);
export const seriesRecKey = new Vec<i32>(64);
export const seriesRecIos = new Vec<u32>(64);
export const seriesRecBytes = new Vec<u64>(64);
export const seriesRecLatSum = new Vec<f64>(64);
export const seriesHistStart = new Vec<i32>(64);
export const seriesHistIdx = new Vec<i32>(64);
export const seriesHistCnt = new Vec<u32>(64);

// ---- per-bio records
export let recordOn: bool = false;
export const recJob = new Vec<i32>(64);
export const recSeq = new Vec<i32>(64);
export const recWorker = new Vec<i32>(64);
export const recCg = new Vec<i32>(64);
export const recDir = new Vec<u8>(64);
export const recFlags = new Vec<u32>(64);
export const recOff = new Vec<i64>(64);
export const recSize = new Vec<u32>(64);
export const recSubmit = new Vec<i64>(64);
export const recRelease = new Vec<i64>(64);
export const recIssue = new Vec<i64>(64);
export const recDone = new Vec<i64>(64);

export function resetStats(nJobs: i32, nCgroups: i32, nDevices: i32): void {
  statDevices = nDevices < 1 ? 1 : nDevices;
  rateNextMin = i64.MAX_VALUE;
  jobIos.clear();
  jobBytes.clear();
  jobLatSum.clear();
  jobLatSq.clear();
  jobLatMin.clear();
  jobLatMax.clear();
  jobHist.clear();
  jobFirstSubmit.clear();
  jobLastDone.clear();
  jobStatsFrom.clear();
  anyRamp = false;
  jobDepth.clear();
  jobBwNext.clear();
  jobSampledBytes.clear();
  jobSampledIos.clear();
  jobRateStat.clear();
  if (nJobs > 0) {
    jobBwNext.ensure(nJobs - 1);
    for (let i = 0; i < nJobs; i++) jobBwNext.set(i, i64.MAX_VALUE); // until the job starts
    jobSampledBytes.ensure(nJobs * 2 - 1);
    jobSampledIos.ensure(nJobs * 2 - 1);
    jobRateStat.ensure(nJobs * 2 * 2 * SAMPLE_FIELDS - 1);
    jobIos.ensure(nJobs * 2 - 1);
    jobBytes.ensure(nJobs * 2 - 1);
    jobLatSum.ensure(nJobs * 2 - 1);
    jobLatSq.ensure(nJobs * 2 - 1);
    jobLatMin.ensure(nJobs * 2 - 1);
    jobLatMax.ensure(nJobs * 2 - 1);
    for (let i = 0; i < nJobs * 2; i++) jobLatMin.set(i, i64.MAX_VALUE);
    jobHist.ensure(nJobs * 2 * FIO_PLAT_NR - 1);
    jobFirstSubmit.ensure(nJobs - 1);
    jobLastDone.ensure(nJobs - 1);
    jobStatsFrom.ensure(nJobs - 1);
    for (let i = 0; i < nJobs; i++) jobStatsFrom.set(i, i64.MIN_VALUE);
    jobDepth.ensure(nJobs * FIO_IO_U_MAP_NR - 1);
    for (let i = 0; i < nJobs; i++) jobFirstSubmit.set(i, -1);
  }
  cgIos.clear();
  cgBytes.clear();
  cgWaitNs.clear();
  if (nCgroups > 0) {
    const n = nCgroups * statDevices * 2 - 1;
    cgIos.ensure(n);
    cgBytes.ensure(n);
    cgWaitNs.ensure(n);
  }
  seriesCgroups = nCgroups;
  seriesAny = false;
  seriesOpen = 0;
  seriesOpenFrom = 0;
  seriesOpenTo = 0; // empty: the first completion finds its bin (seriesEnter())
  const stride = nCgroups * 2;
  seriesIos.clear();
  seriesBytes.clear();
  seriesLatSum.clear();
  seriesHist.clear();
  seriesTouched.length = 0;
  if (nCgroups > 0) {
    seriesIos.ensure(stride - 1);
    seriesBytes.ensure(stride - 1);
    seriesLatSum.ensure(stride - 1);
    seriesHist.ensure(stride * SERIES_PLAT_NR - 1);
  }
  seriesRecBin.clear();
  seriesRecKey.clear();
  seriesRecIos.clear();
  seriesRecBytes.clear();
  seriesRecLatSum.clear();
  seriesHistStart.clear();
  seriesHistIdx.clear();
  seriesHistCnt.clear();
  recJob.length = 0;
  recSeq.length = 0;
  recWorker.length = 0;
  recCg.length = 0;
  recDir.length = 0;
  recFlags.length = 0;
  recOff.length = 0;
  recSize.length = 0;
  recSubmit.length = 0;
  recRelease.length = 0;
  recIssue.length = 0;
  recDone.length = 0;
  takeColumnPointers();
}

// The per-bio counters' data pointers, taken when resetStats() has sized the
// columns (they do not move during a run): one load less per counter than
// going through the Vec.
export let pJobIos: usize = 0;
export let pJobBytes: usize = 0;
export let pJobLatSum: usize = 0;
export let pJobLatSq: usize = 0;
export let pJobLatMin: usize = 0;
export let pJobLatMax: usize = 0;
export let pJobHist: usize = 0;
let pJobFirstSubmit: usize = 0;
export let pJobLastDone: usize = 0;
let pJobStatsFrom: usize = 0;
export let pJobDepth: usize = 0;
export let pCgIos: usize = 0;
export let pCgBytes: usize = 0;
let pCgWaitNs: usize = 0;
export let pSeriesIos: usize = 0;
export let pSeriesBytes: usize = 0;
export let pSeriesLatSum: usize = 0;
export let pSeriesHist: usize = 0;

function takeColumnPointers(): void {
  pJobIos = jobIos.ptr();
  pJobBytes = jobBytes.ptr();
  pJobLatSum = jobLatSum.ptr();
  pJobLatSq = jobLatSq.ptr();
  pJobLatMin = jobLatMin.ptr();
  pJobLatMax = jobLatMax.ptr();
  pJobHist = jobHist.ptr();
  pJobFirstSubmit = jobFirstSubmit.ptr();
  pJobLastDone = jobLastDone.ptr();
  pJobStatsFrom = jobStatsFrom.ptr();
  pJobDepth = jobDepth.ptr();
  pCgIos = cgIos.ptr();
  pCgBytes = cgBytes.ptr();
  pCgWaitNs = cgWaitNs.ptr();
  pSeriesIos = seriesIos.ptr();
  pSeriesBytes = seriesBytes.ptr();
  pSeriesLatSum = seriesLatSum.ptr();
  pSeriesHist = seriesHist.ptr();
}

// any job with a ramp_time: without one, noteComplete() reads no jobStatsFrom
export let anyRamp: bool = false;

/** fio's ramp_time: job `job` counts completions from `t` on (after resetStats). */
export function setJobStatsFrom(job: i32, t: i64): void {
  jobStatsFrom.set(job, t);
  anyRamp = true;
}

export function setSeries(binNs: i64): void {
  seriesBinNs = binNs;
}

export function setRecord(on: bool): void {
  recordOn = on;
}

@inline export function noteSubmit(job: i32, now: i64): void {
  if (job >= 0) {
    const p = pJobFirstSubmit + (<usize>job << 3);
    if (load<i64>(p) < 0) store<i64>(p, now);
  }
}

/**
 * fio 3.39 io_u_mark_depth() (io_u.c): one IO submitted while the job has
 * `depth` IOs in flight, counting this one (fio's td->cur_depth, raised in
 * __get_io_u() before the IO is queued). Buckets 1, 2-3, 4-7, 8-15, 16-31,
 * 32-63, >=64: floor(log2(depth)) capped at 6.
 */
@inline export function noteDepth(job: i32, depth: i32): void {
  let b = 31 - <i32>clz<u32>(<u32>(depth > 1 ? depth : 1));
  if (b > 6) b = 6;
  const p = pJobDepth + (<usize>(job * FIO_IO_U_MAP_NR + b) << 3);
  store<u64>(p, load<u64>(p) + 1);
}

@inline export function noteIssue(cg: i32, dev: i32, dir: u8, size: u32, throttleWaitNs: i64): void {
  const o = <usize>((cg * statDevices + dev) * 2 + <i32>dir) << 3;
  store<u64>(pCgIos + o, load<u64>(pCgIos + o) + 1);
  store<u64>(pCgBytes + o, load<u64>(pCgBytes + o) + <u64>size);
  store<u64>(pCgWaitNs + o, load<u64>(pCgWaitNs + o) + <u64>throttleWaitNs);
}

@inline export function noteComplete(job: i32, cg: i32, dir: u8, size: u32, submit: i64, done: i64): void {
  const lat = done - submit;
  if (job >= 0 && (!anyRamp || done >= load<i64>(pJobStatsFrom + (<usize>job << 3)))) {
    const i = job * 2 + <i32>dir;
    const o = <usize>i << 3;
    store<u64>(pJobIos + o, load<u64>(pJobIos + o) + 1);
    store<u64>(pJobBytes + o, load<u64>(pJobBytes + o) + <u64>size);
    const fl = <f64>lat;
    store<f64>(pJobLatSum + o, load<f64>(pJobLatSum + o) + fl);
    store<f64>(pJobLatSq + o, load<f64>(pJobLatSq + o) + fl * fl);
    if (lat < load<i64>(pJobLatMin + o)) store<i64>(pJobLatMin + o, lat);
    if (lat > load<i64>(pJobLatMax + o)) store<i64>(pJobLatMax + o, lat);
    const h = pJobHist + (<usize>(i * FIO_PLAT_NR + platIndex(<u64>lat, FIO_PLAT_BITS, FIO_PLAT_NR)) << 2);
    store<u32>(h, load<u32>(h) + 1);
    const pl = pJobLastDone + (<usize>job << 3);
    if (done > load<i64>(pl)) store<i64>(pl, done);
  }
  if (seriesBinNs > 0) {
    // the open bin's time range first: no division while completions stay in it
    if (done < seriesOpenFrom || done >= seriesOpenTo) seriesEnter(done);
    const j = cg * 2 + <i32>dir;
    const o = <usize>j << 3;
    const pi = pSeriesIos + (<usize>j << 2);
    store<u32>(pi, load<u32>(pi) + 1);
    store<u64>(pSeriesBytes + o, load<u64>(pSeriesBytes + o) + <u64>size);
    store<f64>(pSeriesLatSum + o, load<f64>(pSeriesLatSum + o) + <f64>lat);
    const h = j * SERIES_PLAT_NR + platIndex(<u64>lat, SERIES_PLAT_BITS, SERIES_PLAT_NR);
    const ph = pSeriesHist + (<usize>h << 2);
    const c = load<u32>(ph);
    if (c == 0) seriesTouched.push(h);
    store<u32>(ph, c + 1);
  }
}

/**
 * A completion at `done` outside the open bin's time range (or the run's
 * first): its bin, done / seriesBinNs, becomes the open one (the bin before
 * is closed), and its range [bin x binNs, (bin + 1) x binNs) is kept so the
 * completions after it in that bin take no division (noteComplete()). The
 * same bins as dividing at every completion, in any order of completions.
 */
function seriesEnter(done: i64): void {
  const bin = done / seriesBinNs;
  if (bin != seriesOpen) {
    if (seriesAny) closeSeriesBin();
    seriesOpen = bin;
  }
  seriesAny = true;
  seriesOpenFrom = bin * seriesBinNs;
  // the end, or i64.MAX_VALUE where (bin + 1) x binNs would overflow: the bin then
  // holds every later time (one at exactly i64.MAX_VALUE comes back here and finds it open)
  seriesOpenTo = bin + 1 <= i64.MAX_VALUE / seriesBinNs ? (bin + 1) * seriesBinNs : i64.MAX_VALUE;
}

/**
 * The earliest end of any job's open window: the engine calls
 * rateSamplesDue() (engine/path.ts) at the first completion after it, before
 * that completion is counted. One compare per completion; the work runs once
 * per window.
 */
export let rateNextMin: i64 = i64.MAX_VALUE;

export function setRateNextMin(t: i64): void {
  rateNextMin = t;
}

/** The job starts at `t` (after its startdelay): its first sample window ends BW_AVG_TIME_MS later. */
export function rateSamplesStart(job: i32, t: i64): void {
  const next = t + BW_AVG_TIME_NS;
  jobBwNext.set(job, next);
  if (next < rateNextMin) rateNextMin = next;
}

/**
 * Job `job`'s open window has ended (before `t`). If the job's thread still
 * ran at the window's end (`alive`), fio's helper sampled it (stat.c
 * __add_samples: both directions, a direction with no IO in the window adds
 * no sample); the windows after it up to `t` hold no IO (this runs before
 * any completion after the window's end is counted). A job that has ended
 * opens no more windows.
 */
export function rateSamplesClose(job: i32, t: i64, alive: bool, ended: bool): void {
  let next = jobBwNext.get(job);
  if (alive) {
    for (let d = 0; d < 2; d++) {
      const i = job * 2 + d;
      // (the completions so far less those at the last close)
      const total = jobBytes.get(i);
      const bytes = total - jobSampledBytes.get(i);
      if (bytes == 0) continue;
      const ios = jobIos.get(i);
      // rate = delta * 1000 / spent / 1024 (KiB/s) and delta * 1000 / spent, integer division as fio's
      addRateSample(i * 2, bytes * 1000 / <u64>BW_AVG_TIME_MS / 1024);
      addRateSample(i * 2 + 1, (ios - jobSampledIos.get(i)) * 1000 / <u64>BW_AVG_TIME_MS);
      jobSampledBytes.set(i, total);
      jobSampledIos.set(i, ios);
    }
  }
  if (ended) next = i64.MAX_VALUE;
  else {
    next += BW_AVG_TIME_NS;
    if (t > next) next += ((t - next + BW_AVG_TIME_NS - 1) / BW_AVG_TIME_NS) * BW_AVG_TIME_NS;
  }
  jobBwNext.set(job, next);
}

/** stat.h add_stat_sample(): min, max, Welford mean and S, in fio's order of operations. */
function addRateSample(k: i32, data: u64): void {
  const b = k * SAMPLE_FIELDS;
  const val = <f64>data;
  const n = jobRateStat.get(b);
  if (n == 0 || val > jobRateStat.get(b + 2)) jobRateStat.set(b + 2, val);
  if (n == 0 || jobRateStat.get(b + 1) > val) jobRateStat.set(b + 1, val);
  const mean = jobRateStat.get(b + 3);
  const delta = val - mean;
  if (delta != 0) {
    const m = mean + delta / (n + 1.0);
    jobRateStat.set(b + 3, m);
    jobRateStat.set(b + 4, jobRateStat.get(b + 4) + delta * (val - m));
  }
  jobRateStat.set(b, n + 1);
}

/**
 * The open bin's cgroup-directions with IOs become records (histograms as
 * pairs) and its counters are zeroed. It visits only the buckets the bin
 * used (seriesTouched, sorted: by cgroup-direction, then bucket), not all
 * SERIES_PLAT_NR of every cgroup-direction: with bins finer than the gaps
 * between completions a bin closes at nearly every completion.
 */
function closeSeriesBin(): void {
  const t = seriesTouched;
  const n = t.length;
  for (let a = 1; a < n; a++) {
    // insertion sort: a bin touches few buckets, mostly in order already
    const x = t.get(a);
    let b = a - 1;
    while (b >= 0 && t.get(b) > x) {
      t.set(b + 1, t.get(b));
      b--;
    }
    t.set(b + 1, x);
  }
  let last = -1;
  for (let k = 0; k < n; k++) {
    const h = t.get(k);
    const j = h / SERIES_PLAT_NR;
    if (j != last) {
      last = j;
      seriesRecBin.push(seriesOpen);
      seriesRecKey.push(j);
      seriesRecIos.push(seriesIos.get(j));
      seriesRecBytes.push(seriesBytes.get(j));
      seriesRecLatSum.push(seriesLatSum.get(j));
      seriesHistStart.push(seriesHistIdx.length);
      seriesIos.set(j, 0);
      seriesBytes.set(j, 0);
      seriesLatSum.set(j, 0);
    }
    seriesHistIdx.push(h - j * SERIES_PLAT_NR);
    seriesHistCnt.push(seriesHist.get(h));
    seriesHist.set(h, 0);
  }
  t.length = 0;
}

export function record(
  job: i32, seq: i32, worker: i32, cg: i32, dir: u8, flags: u32, off: i64, size: u32,
  submit: i64, release: i64, issue: i64, done: i64,
): void {
  recJob.push(job);
  recSeq.push(seq);
  recWorker.push(worker);
  recCg.push(cg);
  recDir.push(dir);
  recFlags.push(flags);
  recOff.push(off);
  recSize.push(size);
  recSubmit.push(submit);
  recRelease.push(release);
  recIssue.push(issue);
  recDone.push(done);
}
