// iosim core: the WebAssembly module's exported API.
//
// The JavaScript side configures a run with a handful of calls (cgroups,
// devices, jobs, module settings), loads bulk inputs (recorded arrivals)
// through a staging buffer in one call, runs events in batches with
// `run(untilNs, maxEvents)`, and reads results by viewing columns of WASM
// memory (`column(id)` / `columnLength(id)`). Nothing crosses the boundary
// per bio.

import { resetEvents, eventsProcessed, pendingEvents, schedule, EV_CONFIG, EV_STOP } from "./engine/events";
import { resetBios, bioInFlight } from "./engine/bios";
import { setClock, jiffiesAt } from "./engine/clock";
import { resetCgroups, addCgroup, cgroupCount } from "./engine/cgroups";
import { resetPath, run as runLoop, now, rateSamplesDue, setSteadyLoop, steadySteps as steadyStepsTaken } from "./engine/path";
import { resetDevices, addDevice, setDevicePoint, devices, deviceDiskStat, setServiceReplay, setDevicePauses, setCpuReplay, setTagWakeReplay, setRaCpuReplay, setDeviceSigma, addDeviceQuantileRow, addDeviceQuantilePoint, setDeviceMechanics, setDeviceDepthScale, setDeviceLnBin } from "./device/device";
import { resetJobs, addJob, jobs, startJob, setJobPoisson, setJobFlow } from "./workload/jobs";
import * as S from "./stats/stats";
import { resetThrottle } from "./throttle/throttle";
import { resetIocost } from "./iocost/iocost";
import { resetWriteback } from "./writeback/writeback";
import { resetIolatency } from "./iolatency/iolatency";
import { resetWbt } from "./wbt/wbt";
import { iolatReset } from "./iolatency/api";
import { wbtReset } from "./wbt/api";
import { resetPagecache, pcEnable, pcDevice, pcJob, pcMemoryMax, pcStat, devDoneT, devDoneCg, devDoneBytes } from "./pagecache/pagecache";
import { Vec } from "./engine/vec";

export { FIO_PLAT_NR, SERIES_PLAT_NR } from "./stats/histogram";

let seed: u64 = 1;

// ---------------------------------------------------------------- setup

export function reset(runSeed: u64, hz: u32, jiffiesAtZero: u64, zeroAfterTickNs: i64, v2: bool): void {
  seed = runSeed;
  setClock(hz, jiffiesAtZero, zeroAfterTickNs);
  resetEvents();
  resetBios();
  resetCgroups(v2);
  resetPath();
  resetDevices();
  resetJobs();
  resetThrottle();
  resetIocost();
  resetWriteback();
  resetIolatency();
  resetWbt();
  iolatReset();
  wbtReset();
  resetPagecache();
  S.setSeries(0);
  S.setRecord(false);
}

// ---------------------------------------------------------------- page cache (buffered reads)

/** Buffered reads go through the page cache (pagecache/pagecache.ts); profile 0 = 6.1, 1 = 6.12, 2 = 6.18. */
export function pagecacheEnable(profile: i32): void {
  pcEnable(profile);
}

/** A device's read_ahead_kb, max_sectors_kb (bdi->io_pages) and size (EOF of readahead). */
export function pagecacheDevice(dev: i32, raKb: i32, ioKb: i32, sizeBytes: i64): void {
  pcDevice(dev, raKb, ioKb, sizeBytes);
}

/** A job's file: advice 0 none, 1 POSIX_FADV_SEQUENTIAL, 2 POSIX_FADV_RANDOM; fio's invalidate. */
export function pagecacheJob(job: i32, dev: i32, advice: i32, invalidate: bool): void {
  pcJob(job, dev, advice, invalidate);
}

/** memory.max of a cgroup in bytes (0 = max) for its read cache. */
export function pagecacheMemoryMax(cg: i32, bytes: i64): void {
  pcMemoryMax(cg, bytes);
}

/** Per cgroup: 0 hit pages, 1 readahead pages, 2 evicted, 3 waits on pages under IO, 4 pages cached. */
export function pagecacheStat(cg: i32, field: i32): i64 {
  return pcStat(cg, field);
}

export function cgroupAdd(parent: i32): i32 {
  return addCgroup(parent);
}

export function deviceAdd(channels: i32, nrRequests: i32, fixedLatencyNs: i64, jitterSigma: f64,
  maxSectorsBytes: u32, rotational: bool): i32 {
  const id = addDevice(seed);
  const d = devices[id];
  d.channels = channels < 1 ? 1 : channels;
  d.nrRequests = nrRequests < 1 ? 1 : nrRequests;
  d.fixedLatencyNs = fixedLatencyNs;
  d.jitterSigma = jitterSigma;
  for (let t = 0; t < 4; t++) setDeviceSigma(id, t, jitterSigma);
  d.maxSectorsBytes = maxSectorsBytes;
  d.rotational = rotational;
  return id;
}

export function deviceSigma(dev: i32, t: i32, sigma: f64): void {
  setDeviceSigma(dev, t, sigma);
}

export function deviceQuantileRow(dev: i32, t: i32, p: i32, depth: i32): i32 {
  return addDeviceQuantileRow(dev, t, p, depth);
}

export function deviceQuantilePoint(dev: i32, u: f64, factor: f64): void {
  addDeviceQuantilePoint(dev, u, factor);
}

export function deviceMechanics(dev: i32, settleNs: f64, spanNs: f64, rotNs: f64, nsPerByte: f64, capBytes: f64): void {
  setDeviceMechanics(dev, settleNs, spanNs, rotNs, nsPerByte, capBytes);
}

export function deviceDepthScale(dev: i32, k: i32, n: i32, scale: f64): void {
  setDeviceDepthScale(dev, k, n, scale);
}

export function jobFlow(job: i32, group: i32, weight: f64, sleepNs: i64): void {
  setJobFlow(job, group, weight, sleepNs);
}

export function jobRamp(job: i32, rampNs: i64): void {
  jobs[job].rampNs = rampNs > 0 ? rampNs : 0;
}

export function jobPoisson(job: i32, gapUs: i64): void {
  setJobPoisson(job, gapUs, seed);
}

export function deviceLnBin(dev: i32, t: i32, k: i32, factor: f64): void {
  setDeviceLnBin(dev, t, k, factor);
}

export function devicePoint(dev: i32, dir: i32, rand: i32, k: i32, size: f64, iops: f64): void {
  setDevicePoint(dev, dir, rand, k, size, iops);
}

export function jobAdd(cg: i32, dev: i32, rw: i32, mixReadPct: i32, random: bool, direct: bool,
  regionOff: i64, regionLen: i64, align: i64, qd: i32, pattern: i32, rateIops: f64, rateBps: f64,
  burst: i32, thinkNs: i64, thinkBlocks: i32, startNs: i64, count: i64, bytesLimit: i64,
  runtimeNs: i64, timeBased: bool): i32 {
  const id = addJob(seed);
  const j = jobs[id];
  j.cg = cg;
  j.dev = dev;
  j.rw = rw;
  j.mixReadPct = mixReadPct;
  j.random = random;
  j.direct = direct;
  j.regionOff = regionOff;
  j.regionLen = regionLen;
  j.align = align < 1 ? 1 : align;
  j.qd = qd < 1 ? 1 : qd;
  j.pattern = pattern;
  j.rateIops = rateIops;
  j.rateBps = rateBps;
  j.burst = burst;
  j.thinkNs = thinkNs;
  j.thinkBlocks = thinkBlocks < 1 ? 1 : thinkBlocks;
  j.startNs = startNs;
  j.count = count < 0 ? i64.MAX_VALUE : count;
  j.bytesLimit = bytesLimit < 0 ? i64.MAX_VALUE : bytesLimit;
  j.runtimeNs = runtimeNs < 0 ? i64.MAX_VALUE : runtimeNs;
  j.timeBased = timeBased;
  return id;
}

/** The bio flags of a job's IOs (default REQ_SYNC; engine/bios.ts BIO_*). */
export function jobSetBioFlags(job: i32, flags: u32): void {
  jobs[job].bioFlags = flags;
}

export function jobBs(job: i32, size: u32, weight: u32): void {
  const j = jobs[job];
  const n = j.bsCum.length;
  const prev: u32 = n > 0 ? j.bsCum.get(n - 1) : 0;
  j.bsSize.push(size);
  j.bsCum.push(prev + (weight < 1 ? 1 : weight));
}

/** Per-direction caps of a mixed job (fio rate=R,W / rate_iops=R,W; 0 = none): fio's rate_ddir(). */
export function jobRateDir(job: i32, dir: i32, iops: f64, bps: f64): void {
  const j = jobs[job];
  j.rateDir = true;
  unchecked((j.dirIops[dir & 1] = iops));
  unchecked((j.dirBps[dir & 1] = bps));
}

/** A block size of the job's writes, when they differ from its reads (call after every jobBs). */
export function jobBsWrite(job: i32, size: u32, weight: u32): void {
  const j = jobs[job];
  const n = j.bsCum.length;
  if (j.bsWFrom < 0) j.bsWFrom = n;
  const prev: u32 = n > j.bsWFrom ? j.bsCum.get(n - 1) : 0;
  j.bsSize.push(size);
  j.bsCum.push(prev + (weight < 1 ? 1 : weight));
}

/** fio's thinktime_iotime (ns) and whether thinktime_blocks was given beside it (workload/jobs.ts thinkStall()). */
export function jobThinkIotime(job: i32, iotimeNs: i64, blocksSet: bool): void {
  const j = jobs[job];
  j.thinkIotimeNs = iotimeNs;
  j.thinkBlocksSet = blocksSet;
}

export function jobGap(job: i32, gapNs: i64): void {
  jobs[job].gaps.push(gapNs);
}

// ---- staging buffer for bulk inputs (one call per array, not per item)
let staging = new StaticArray<u8>(64);

export function stagingAlloc(bytes: i32): usize {
  if (staging.length < bytes) staging = new StaticArray<u8>(bytes);
  return changetype<usize>(staging);
}

/** The first `n` i64 of staging, as a Vec (a replay's recorded values, loaded once per job or device). */
function stagedI64(n: i32): Vec<i64> {
  const p = changetype<usize>(staging);
  const v = new Vec<i64>(n);
  for (let i = 0; i < n; i++) v.push(load<i64>(p + (<usize>i << 3)));
  return v;
}

/** Load `n` recorded driver times (i64 ns per IO in issue order, -1 = none) from staging (device.ts svcReplay). */
export function jobLoadService(job: i32, n: i32): void {
  setServiceReplay(job, stagedI64(n));
}

/** Load `n` recorded CPU times before the tag (i64 ns per IO in issue order, 0 = none) from staging (device.ts cpuReplay). */
export function jobLoadCpu(job: i32, n: i32): void {
  setCpuReplay(job, stagedI64(n));
}

/** Load `n` recorded tag wake latencies (i64 ns per IO in issue order, 0 = none) from staging (device.ts tagWakeReplay). */
export function jobLoadTagWake(job: i32, n: i32): void {
  setTagWakeReplay(job, stagedI64(n));
}

/** Load `n` recorded dispatch delays of the job's readahead bios (i64 ns in submission order) from staging (device.ts raCpuReplay). */
export function jobLoadRaCpu(job: i32, n: i32): void {
  setRaCpuReplay(job, stagedI64(n));
}

/** Load `n` recorded guest stalls of device `dev` (i64 start, end pairs, ascending) from staging (device.ts setDevicePauses). */
export function deviceLoadPauses(dev: i32, n: i32): void {
  setDevicePauses(dev, stagedI64(2 * n));
}

/** Load `n` submit times (i64 ns, relative to the job start) from staging. */
export function jobLoadTimes(job: i32, n: i32): void {
  const j = jobs[job];
  const p = changetype<usize>(staging);
  for (let i = 0; i < n; i++) j.times.push(load<i64>(p + (<usize>i << 3)));
}

/** Load `n` recorded IOs from staging: times i64[n], offsets i64[n], sizes u32[n], dirs u8[n]. */
export function jobLoadReplay(job: i32, n: i32): void {
  const j = jobs[job];
  const p = changetype<usize>(staging);
  const pOff = p + (<usize>n << 3);
  const pSize = pOff + (<usize>n << 3);
  const pDir = pSize + (<usize>n << 2);
  for (let i = 0; i < n; i++) {
    j.times.push(load<i64>(p + (<usize>i << 3)));
    j.rOff.push(load<i64>(pOff + (<usize>i << 3)));
    j.rSize.push(load<u32>(pSize + (<usize>i << 2)));
    j.rDir.push(load<u8>(pDir + <usize>i));
  }
}

export function statsSetup(seriesBinNs: i64, record: bool): void {
  S.setSeries(seriesBinNs);
  S.setRecord(record);
}

/** Schedule a stop: no event after `t` is processed. */
export function stopAt(t: i64): void {
  schedule(t, EV_STOP, 0);
}

/** Everything configured: size the stats and start the jobs. */
export function start(): void {
  S.resetStats(jobs.length, cgroupCount(), devices.length);
  for (let i = 0; i < jobs.length; i++) {
    startJob(jobs[i]);
    const ramp = jobs[i].rampNs;
    if (ramp > 0) S.setJobStatsFrom(i, jobs[i].startNs + ramp);
    S.rateSamplesStart(i, jobs[i].startNs + ramp);
  }
}

// ---------------------------------------------------------------- running

export function run(untilNs: i64, maxEvents: i32): i32 {
  return runLoop(untilNs, maxEvents);
}

/** Tests: turn the steady closed loop (engine/path.ts runSteady) off (0) or on for this run (reset() turns it on). */
export function steadyLoop(on: i32): void {
  setSteadyLoop(on != 0);
}

/** Tests: the bios the steady closed loop has taken this run. */
export function steadySteps(): u64 {
  return steadyStepsTaken;
}

export function simNow(): i64 {
  return now;
}

export function jiffiesAtTime(t: i64): u64 {
  return jiffiesAt(t);
}

export function eventCount(): u64 {
  return eventsProcessed;
}

export function eventsPending(): i32 {
  return pendingEvents();
}

export function biosInFlight(): i32 {
  return bioInFlight;
}

export function jobIssued(job: i32): i64 {
  return jobs[job].issued;
}

export function jobCompleted(job: i32): i64 {
  return jobs[job].completed;
}

/**
 * Close the jobs' fio bw/iops sample windows that ended by now while they ran
 * (engine/path.ts rateSamplesDue). Called before the results are read;
 * idempotent.
 */
export function finishRateSamples(): void {
  rateSamplesDue(now, true);
}

/** One field (DS_*, assembly/device/device.ts) of a device's /sys/block/<dev>/stat at the current simulated time. */
export function deviceStat(dev: i32, field: i32): u64 {
  return deviceDiskStat(dev, field, now);
}

// ---------------------------------------------------------------- results

// Column ids (mirrored in bindings/core/columns.ts).
export const COL_JOB_IOS: i32 = 1;
export const COL_JOB_BYTES: i32 = 2;
export const COL_JOB_LAT_SUM: i32 = 3;
export const COL_JOB_LAT_SQ: i32 = 4;
export const COL_JOB_LAT_MIN: i32 = 5;
export const COL_JOB_LAT_MAX: i32 = 6;
export const COL_JOB_HIST: i32 = 7;
export const COL_JOB_FIRST_SUBMIT: i32 = 8;
export const COL_JOB_LAST_DONE: i32 = 9;
export const COL_CG_IOS: i32 = 10;
export const COL_CG_BYTES: i32 = 11;
export const COL_CG_WAIT: i32 = 12;
export const COL_SERIES_IOS: i32 = 13;
export const COL_SERIES_BYTES: i32 = 14;
export const COL_SERIES_LAT_SUM: i32 = 15;
export const COL_SERIES_HIST: i32 = 16; // the open bin's dense histograms
export const COL_SERIES_HIST_START: i32 = 17; // closed bins' records: first pair of each
export const COL_SERIES_HIST_IDX: i32 = 18; // closed bins' pairs: bucket
export const COL_SERIES_HIST_CNT: i32 = 19; // closed bins' pairs: count
export const COL_JOB_DEPTH: i32 = 37; // per job x 7: fio's io_u_map (IO depth at submission)
export const COL_JOB_RATE_STAT: i32 = 38; // per job x dir x {bw, iops} x {samples, min, max, mean, S}: fio's bw/iops samples
export const COL_SERIES_REC_BIN: i32 = 32; // closed bins' records (one per bin and cgroup-direction with IOs)
export const COL_SERIES_REC_KEY: i32 = 33; // cg*2+dir
export const COL_SERIES_REC_IOS: i32 = 34;
export const COL_SERIES_REC_BYTES: i32 = 35;
export const COL_SERIES_REC_LAT_SUM: i32 = 36;
export const COL_PC_DONE_T: i32 = 60; // readahead bio completions (pagecache.ts), for the series
export const COL_PC_DONE_CG: i32 = 61;
export const COL_PC_DONE_BYTES: i32 = 62;
export const COL_REC_JOB: i32 = 20;
export const COL_REC_SEQ: i32 = 21;
export const COL_REC_WORKER: i32 = 22;
export const COL_REC_CG: i32 = 23;
export const COL_REC_DIR: i32 = 24;
export const COL_REC_FLAGS: i32 = 25;
export const COL_REC_OFF: i32 = 26;
export const COL_REC_SIZE: i32 = 27;
export const COL_REC_SUBMIT: i32 = 28;
export const COL_REC_RELEASE: i32 = 29;
export const COL_REC_ISSUE: i32 = 30;
export const COL_REC_DONE: i32 = 31;

function ptrOf<T>(v: Vec<T>): usize {
  return v.ptr();
}

export function column(id: i32): usize {
  switch (id) {
    case COL_JOB_IOS: return ptrOf(S.jobIos);
    case COL_JOB_BYTES: return ptrOf(S.jobBytes);
    case COL_JOB_LAT_SUM: return ptrOf(S.jobLatSum);
    case COL_JOB_LAT_SQ: return ptrOf(S.jobLatSq);
    case COL_JOB_LAT_MIN: return ptrOf(S.jobLatMin);
    case COL_JOB_LAT_MAX: return ptrOf(S.jobLatMax);
    case COL_JOB_HIST: return ptrOf(S.jobHist);
    case COL_JOB_FIRST_SUBMIT: return ptrOf(S.jobFirstSubmit);
    case COL_JOB_LAST_DONE: return ptrOf(S.jobLastDone);
    case COL_JOB_DEPTH: return ptrOf(S.jobDepth);
    case COL_JOB_RATE_STAT: return ptrOf(S.jobRateStat);
    case COL_CG_IOS: return ptrOf(S.cgIos);
    case COL_CG_BYTES: return ptrOf(S.cgBytes);
    case COL_CG_WAIT: return ptrOf(S.cgWaitNs);
    case COL_SERIES_IOS: return ptrOf(S.seriesIos);
    case COL_SERIES_BYTES: return ptrOf(S.seriesBytes);
    case COL_SERIES_LAT_SUM: return ptrOf(S.seriesLatSum);
    case COL_SERIES_HIST: return ptrOf(S.seriesHist);
    case COL_SERIES_HIST_START: return ptrOf(S.seriesHistStart);
    case COL_SERIES_HIST_IDX: return ptrOf(S.seriesHistIdx);
    case COL_SERIES_HIST_CNT: return ptrOf(S.seriesHistCnt);
    case COL_SERIES_REC_BIN: return ptrOf(S.seriesRecBin);
    case COL_SERIES_REC_KEY: return ptrOf(S.seriesRecKey);
    case COL_SERIES_REC_IOS: return ptrOf(S.seriesRecIos);
    case COL_SERIES_REC_BYTES: return ptrOf(S.seriesRecBytes);
    case COL_SERIES_REC_LAT_SUM: return ptrOf(S.seriesRecLatSum);
    case COL_PC_DONE_T: return ptrOf(devDoneT);
    case COL_PC_DONE_CG: return ptrOf(devDoneCg);
    case COL_PC_DONE_BYTES: return ptrOf(devDoneBytes);
    case COL_REC_JOB: return ptrOf(S.recJob);
    case COL_REC_SEQ: return ptrOf(S.recSeq);
    case COL_REC_WORKER: return ptrOf(S.recWorker);
    case COL_REC_CG: return ptrOf(S.recCg);
    case COL_REC_DIR: return ptrOf(S.recDir);
    case COL_REC_FLAGS: return ptrOf(S.recFlags);
    case COL_REC_OFF: return ptrOf(S.recOff);
    case COL_REC_SIZE: return ptrOf(S.recSize);
    case COL_REC_SUBMIT: return ptrOf(S.recSubmit);
    case COL_REC_RELEASE: return ptrOf(S.recRelease);
    case COL_REC_ISSUE: return ptrOf(S.recIssue);
    case COL_REC_DONE: return ptrOf(S.recDone);
  }
  return 0;
}

export function columnLength(id: i32): i32 {
  switch (id) {
    case COL_JOB_IOS: return S.jobIos.length;
    case COL_JOB_BYTES: return S.jobBytes.length;
    case COL_JOB_LAT_SUM: return S.jobLatSum.length;
    case COL_JOB_LAT_SQ: return S.jobLatSq.length;
    case COL_JOB_LAT_MIN: return S.jobLatMin.length;
    case COL_JOB_LAT_MAX: return S.jobLatMax.length;
    case COL_JOB_HIST: return S.jobHist.length;
    case COL_JOB_FIRST_SUBMIT: return S.jobFirstSubmit.length;
    case COL_JOB_LAST_DONE: return S.jobLastDone.length;
    case COL_JOB_DEPTH: return S.jobDepth.length;
    case COL_JOB_RATE_STAT: return S.jobRateStat.length;
    case COL_CG_IOS: return S.cgIos.length;
    case COL_CG_BYTES: return S.cgBytes.length;
    case COL_CG_WAIT: return S.cgWaitNs.length;
    case COL_SERIES_IOS: return S.seriesIos.length;
    case COL_SERIES_BYTES: return S.seriesBytes.length;
    case COL_SERIES_LAT_SUM: return S.seriesLatSum.length;
    case COL_SERIES_HIST: return S.seriesHist.length;
    case COL_SERIES_HIST_START: return S.seriesHistStart.length;
    case COL_SERIES_HIST_IDX: return S.seriesHistIdx.length;
    case COL_SERIES_HIST_CNT: return S.seriesHistCnt.length;
    case COL_SERIES_REC_BIN: return S.seriesRecBin.length;
    case COL_SERIES_REC_KEY: return S.seriesRecKey.length;
    case COL_SERIES_REC_IOS: return S.seriesRecIos.length;
    case COL_SERIES_REC_BYTES: return S.seriesRecBytes.length;
    case COL_SERIES_REC_LAT_SUM: return S.seriesRecLatSum.length;
    case COL_PC_DONE_T: return devDoneT.length;
    case COL_PC_DONE_CG: return devDoneCg.length;
    case COL_PC_DONE_BYTES: return devDoneBytes.length;
    case COL_REC_JOB: return S.recJob.length;
    case COL_REC_SEQ: return S.recSeq.length;
    case COL_REC_WORKER: return S.recWorker.length;
    case COL_REC_CG: return S.recCg.length;
    case COL_REC_DIR: return S.recDir.length;
    case COL_REC_FLAGS: return S.recFlags.length;
    case COL_REC_OFF: return S.recOff.length;
    case COL_REC_SIZE: return S.recSize.length;
    case COL_REC_SUBMIT: return S.recSubmit.length;
    case COL_REC_RELEASE: return S.recRelease.length;
    case COL_REC_ISSUE: return S.recIssue.length;
    case COL_REC_DONE: return S.recDone.length;
  }
  return 0;
}

/** The series bin still filling (its counters are COL_SERIES_IOS.., dense), or -1 before any completion. */
export function seriesOpenBin(): i64 {
  return S.seriesAny ? S.seriesOpen : -1;
}
export * from "./throttle/api";
export * from "./iocost/api";
export * from "./writeback/api";
export * from "./iolatency/api";
export * from "./wbt/api";
