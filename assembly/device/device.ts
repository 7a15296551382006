// Block devices: where a bio spends its service time.
//
// A device is `channels` identical servers (internal parallelism: NVMe
// queues, SSD dies, one HDD arm) behind a dispatch queue that admits at most
// `nrRequests` bios at once (the request queue depth); later bios wait FIFO
// for a request, as blk-mq's tag allocation makes them wait.
//
// A bio's time at the device is
//
//   occupancy  = channels * 1e9 / IOPS(dir, seq|rand, size)    (holds a channel)
//   latency    = fixedLatencyNs                                 (does not)
//   completion = start + (occupancy + latency) * jitter
//
// IOPS(dir, pattern, size) comes from a table of up to 32 (size, IOPS) points
// per direction and pattern, interpolated linearly in service time between
// points (service time is what adds up; IOPS does not). The TypeScript side
// fills the table from a curve (the seed SSD/NVMe/HDD curves), from iocost's
// linear model (1/iops + size/bps), or from a user's file.
//
// Sequential or random. The device remembers where its last read and its
// last write ended; a bio is sequential when it starts at either. That keeps
// every bio the older rule ("starts where the device's previous bio ended")
// called sequential sequential, since the previous bio's end is one of the
// two, and adds one case: a bio that continues its own direction's stream
// across bios of the other direction. Real devices see that case so:
//   - SSD: a sequential read is fast because the controller detects the
//     read stream and prefetches ahead of it; a sequential write is fast
//     because the write buffer fills open pages of one block. The two are
//     separate paths: a write landing in the buffer does not cancel the
//     read stream's prefetch, a read does not close the open write block.
//   - HDD: one arm, but with the write cache on (the default of SATA
//     drives) a write is acknowledged from the cache and destaged later
//     with its neighbours, and a read continuing the read stream is served
//     from the read-ahead segment its predecessor filled; neither pays a
//     seek for each switch of direction.
// fio's sequential rw=rw keeps one position per direction (f->last_pos[ddir],
// assembly/workload/jobs.ts), so its bios interleave two streams that each
// start at the region's start. Worked example, 4 KiB, directions R W W R R W:
//
//   bio                          R@0   W@0   W@4k  R@4k  R@8k  W@8k
//   old: device's last end       -     4k    4k    8k    8k    12k
//        sequential              no    no    yes   no    yes   no    (2 of 6)
//   new: last read / last write  -/-   4k/-  4k/4k 4k/8k 8k/8k 12k/8k
//        sequential              no    no    yes   yes   yes   yes   (4 of 6)
// (the ends are those before the bio starts)
//
// The first bio of each direction has nothing to follow; every later one
// is sequential, as on the real devices above, where the older rule called
// every switch of direction random. A device that sees one direction only
// keeps the other end at -1, so it classifies exactly as before.
// Not modelled: several streams of one direction (fio numjobs on stripes,
// two sequential readers) still look random to each other. A table of K
// recent stream ends, as multi-stream firmware keeps, would also let a
// random bio hit any of K ends (K times the chance of a random job's bio
// being called sequential), changing every random job, and K differs by
// device; the two per-direction ends need no such parameter.
//
// Worked example: seed SSD (the `ssd` preset), 4 KiB random read: BPS =
// 70e6 + 57e3*4096 - 2*4096^2 = 269,917,568 B/s, so IOPS(4096) = 65,897.8;
// channels = 8 -> occupancy = 8e9/65,897.8 = 121,400 ns per bio on one
// channel; 8 channels in parallel give 65,897.8 IOPS.
//
// jitter is 1 (fixed) or exp(sigma * N(0,1)) from the device's own stream.
//
// Shape (the `ssd` / `nvme` / `hdd` presets and fitted devices; `ideal`,
// `nullb` and the oracle devices have none and take the fixed path). Each of
// the four tables has its own latency distribution: a log-normal sigma
// (tableSigma, drawn by Box-Muller: deviceAdd's jitterSigma fills all four;
// the presets' sigmas come as LN_BINS equally likely bin means, one uniform
// and a load per bio, bindings/device/lognormal.ts) or a measured one per
// table point, up to QUANT_POINTS (u, factor) points of mean 1, drawn by one
// uniform and linear interpolation: the inverse CDF of a fio latency
// histogram (bindings/device/fit.ts); a bio takes the row of the table point
// nearest its size in log size. The
// factor multiplies occupancy and latency as before, so the curve's IOPS is
// kept in the mean. A rotational device may have mechanics: a random bio then
// holds the arm for
//   seek(d)  = d == 0 ? 0 : settle + span * sqrt(d / capacity)   (d = |off - head|)
//   rotation = rotNs * u                                            (u uniform, the device's stream)
//   transfer = size * nsPerByte
// instead of its table's time; a sequential bio (it continues a stream, the
// drive's read-ahead or write cache serves it) takes its seq table's time.
// `head` is where the last started bio ended. Worked example (the `hdd`
// preset: settle 0.8 ms, span 9.4 ms, 7200 rpm = 8.333 ms a turn, 200 MB/s,
// 4 TB): a 4 KiB random read 1 TB from the head: 0.8 + 9.4 * sqrt(0.25) =
// 5.5 ms seek, on average 4.17 ms rotation, 20.5 us transfer: 9.69 ms. Over
// the whole disk E[sqrt(d/C)] = 8/15, so the mean is 0.8 + 9.4 * 8/15 + 4.17
// + 0.02 = 10.0 ms: the seed's 100 IOPS.
// A fitted device (bindings/device/fit.ts) may also scale a bio's time by the
// requests in flight when it starts (depthScale): what a real device's QD1 IO
// costs beyond its share at depth (interrupt and wake-up per IO, batching),
// measured from fio runs at several depths.
//
// Disk statistics (/sys/block/<dev>/stat, what fio's disk_util and the root
// cgroup's io.stat read). Followed: Linux 6.12 block/blk-mq.c
// blk_account_io_start() / blk_account_io_done(), block/blk-core.c
// update_io_ticks(), block/genhd.c part_stat_show(); Debian's 6.1 (6.1.192,
// the oracle's kernel) has the same update_io_ticks, in-flight test
// included (earlier kernels added one jiffy at a start instead). A request is accounted
// when it is allocated (start() here: a bio waiting for a tag has no
// request yet, so tag waits are in no tick) and when it completes:
//   start: update_io_ticks(jiffies, end = false), then in_flight++
//   done:  update_io_ticks(jiffies, end = true), ios++, nsecs += now - start_time_ns,
//          sectors += bytes >> 9, in_flight--
//   update_io_ticks(now, end): if time_after(now, stamp): stamp = now, and
//          if end or in_flight > 0: io_ticks += now - stamp (the old stamp)
// so io_ticks counts the jiffies in which the disk had a request in flight,
// at tick granularity: an idle disk's first request only moves the stamp.
// Reading the file (part_stat_show) first applies update_io_ticks(jiffies,
// true) if requests are in flight, then prints ticks as nsecs / 1e6 (ms,
// truncated), io_ticks as jiffies_to_msecs() and time_in_queue as the sum of
// the directions' nsecs / 1e6. A bio larger than max_sectors is split into
// requests that iosim serves as one: each piece counts as a request with the
// bio's start and completion times. No merges (iosim merges no bios): the
// merge counts are 0.
// Worked example (HZ = 250): requests at [1 ms, 9 ms] and [5 ms, 13 ms] on an
// idle disk at jiffies 0 (t = 0-4 ms), 1, 2, 3 (12-16 ms): the first start
// moves the stamp to 0; the second (jiffy 1, one in flight) adds 1; the first
// done (jiffy 2) adds 1; the second done (jiffy 3) adds 1: io_ticks = 3
// jiffies = 12 ms; ticks = 8 + 8 = 16 ms; time_in_queue = 16 ms.

import { Rng } from "../engine/random";
import { Vec } from "../engine/vec";
import { scheduleLane, schedule, EV_DEVICE_DONE, EV_TAG_RETRY } from "../engine/events";
import { bioAt, BIO_SEQ, Bio } from "../engine/bios";
import { jiffiesAt, tickTime, timeAfter, HZ } from "../engine/clock";
import { wbtActive, wbtIssue } from "../wbt/wbt";
import { deviceStartHooks, setRqosFlags } from "../iolatency/log";

export const TABLE_POINTS: i32 = 32;
export const LN_BINS: i32 = 2048;

export class Device {
  channels: i32 = 1;
  nrRequests: i32 = 64;
  fixedLatencyNs: i64 = 0;
  jitterSigma: f64 = 0;
  maxSectorsBytes: u32 = 1280 * 1024;
  rotational: bool = false;
  // table[(dir*2 + rand) * TABLE_POINTS + k]
  tableSize: StaticArray<f64> = new StaticArray<f64>(4 * TABLE_POINTS);
  tableServiceNs: StaticArray<f64> = new StaticArray<f64>(4 * TABLE_POINTS);
  tableLen: StaticArray<i32> = new StaticArray<i32>(4);
  tableSlope: StaticArray<f64> = new StaticArray<f64>(4 * TABLE_POINTS); // ns per byte into point k
  tableSlopeTail: StaticArray<f64> = new StaticArray<f64>(4); // ns per byte past the last point
  rng: Rng;
  // shape (design note above): per-table sigma, quantile factors, mechanics
  shaped: bool = false;
  tableSigma: StaticArray<f64> = new StaticArray<f64>(4);
  // the presets' log-normal spread as LN_BINS equally likely bin means per
  // table (bindings/device/lognormal.ts); lnOn[t]: table t draws from it
  lnTab: StaticArray<f64> = new StaticArray<f64>(0);
  lnOn: StaticArray<bool> = new StaticArray<bool>(4);
  // measured distributions: rows of (u, factor) points, each for one table
  // point and one depth (requests in flight); a point's rows are consecutive
  qU: Array<f64> = new Array<f64>();
  qF: Array<f64> = new Array<f64>();
  rowBase: Array<i32> = new Array<i32>();
  rowN: Array<i32> = new Array<i32>();
  rowDepthLog: Array<f64> = new Array<f64>();
  pointFirst: StaticArray<i32> = new StaticArray<i32>(4 * TABLE_POINTS);
  pointRows: StaticArray<i32> = new StaticArray<i32>(4 * TABLE_POINTS);
  hasQuant: bool = false;
  svcRowN: i32 = 0; // with the memo: the rows of the memo's table point
  svcQuant: i32 = -1; // with the memo: its table point's first row, -1 none
  mech: bool = false;
  seekSettleNs: f64 = 0;
  seekSpanNs: f64 = 0;
  rotNs: f64 = 0;
  nsPerByte: f64 = 0;
  capBytes: f64 = 1;
  head: i64 = 0;
  // fitted devices: a multiplier of a bio's time by the requests in flight when
  // it starts (itself included), depthScale[min(inFlight, length - 1)]
  depthScale: StaticArray<f64> = new StaticArray<f64>(0);
  // the last serviceNs() asked for: (size << 2 | dir << 1 | rand) -> ns. A job
  // issues the same size and pattern again and again, and the table walk
  // and interpolation cost more than the rest of a bio's start.
  svcKey: u64 = u64.MAX_VALUE;
  svcNs: f64 = 0;
  svcOccNs: i64 = 0; // <i64>svcNs
  svcLatNs: i64 = 0; // <i64><f64>fixedLatencyNs, the latency part when there is no jitter
  // state: where the last read and the last write ended (-1: none yet)
  lastEndR: i64 = -1;
  lastEndW: i64 = -1;
  inFlight: i32 = 0; // holding a request
  busyChannels: i32 = 0;
  // When each channel becomes free, kept sorted in a ring: chFree[(chHead + k)
  // & chMask] is the k-th earliest. start() takes the earliest and puts the
  // new free time back in order, scanning from the latest end: with similar
  // service times the new time is the latest, so that costs one compare
  // (a binary heap pays a full sift-down of log2(channels) levels for it).
  // Only the multiset of times matters (its minimum), so any ordered
  // structure gives the same schedule.
  chFree: StaticArray<i64> = new StaticArray<i64>(0);
  chHead: i32 = 0;
  chMask: i32 = 0;
  fifoHead: i32 = -1;
  fifoTail: i32 = -1;
  fifoLen: i32 = 0;
  // counters
  ios: u64 = 0;
  busyNs: i64 = 0;
  // disk statistics (design note above): part_stat ios, sectors, nsecs per
  // direction, io_ticks and bd_stamp in jiffies
  dsIosR: u64 = 0;
  dsIosW: u64 = 0;
  dsSectorsR: u64 = 0;
  dsSectorsW: u64 = 0;
  dsNsR: u64 = 0;
  dsNsW: u64 = 0;
  dsIoTicks: u64 = 0;
  dsStamp: u64 = 0;
  // when the jiffy after dsStamp begins: before it, update_io_ticks has
  // nothing to do (simulated time never goes back), which spares the
  // per-request jiffies lookup while many requests share a jiffy
  dsStampEndNs: i64 = i64.MIN_VALUE;

  id: i32;

  constructor(seed: u64, id: i32) {
    this.id = id;
    this.rng = new Rng(seed, 0x10000 + <u64>id);
  }

  /** Service time (occupancy of one channel) in ns for a bio. */
  serviceNs(dir: u8, rand: i32, size: u32): f64 {
    const t = (<i32>dir) * 2 + rand;
    const n = unchecked(this.tableLen[t]);
    const base = t * TABLE_POINTS;
    const x = <f64>size;
    if (n == 0) return 0;
    if (n == 1 || x <= unchecked(this.tableSize[base])) {
      // below the first point: scale as constant IOPS
      return unchecked(this.tableServiceNs[base]);
    }
    for (let k = 1; k < n; k++) {
      const x1 = unchecked(this.tableSize[base + k]);
      if (x <= x1) {
        const x0 = unchecked(this.tableSize[base + k - 1]);
        const y0 = unchecked(this.tableServiceNs[base + k - 1]);
        return y0 + unchecked(this.tableSlope[base + k]) * (x - x0);
      }
    }
    // beyond the last point: constant bandwidth of the last point
    return unchecked(this.tableSlopeTail[t]) * x;
  }
}

export const devices = new Array<Device>();

/**
 * A replay's recorded values (svcTab, cpuTab, wakeTab, raCpuTab per job and
 * IO in issue order; pauseTab per device): one Vec per index, set once before
 * the run (index.ts stagedI64), read on the replayed paths only.
 */
class Recorded {
  private tab: Array<Vec<i64>> = new Array<Vec<i64>>();
  get count(): i32 {
    return this.tab.length;
  }
  set(i: i32, v: Vec<i64>): void {
    while (this.tab.length <= i) this.tab.push(new Vec<i64>(1));
    this.tab[i] = v;
  }
  /** index i's values (i < count) */
  @inline of(i: i32): Vec<i64> {
    return unchecked(this.tab[i]);
  }
  /** the value for (i, k), or `none` when there is none */
  @inline at(i: i32, k: i32, none: i64): i64 {
    if (i < 0 || i >= this.tab.length) return none;
    const v = unchecked(this.tab[i]);
    return k < v.length ? v.get(k) : none;
  }
  clear(): void {
    this.tab.length = 0;
  }
}

// Recorded per-request driver times (a trace replay, bindings/oracle/rqos.ts):
// per job, per IO in issue order, the ns from reaching the driver to
// completion (block_rq_issue -> block_rq_complete), -1 = not recorded. When
// set, it replaces the request's service and latency: the device is then the
// recording, and what the replay models is everything before the driver.
export let svcReplay: bool = false;
const svcTab = new Recorded();

export function resetServiceReplay(): void {
  svcReplay = false;
  svcTab.clear();
  pauseTab.clear();
  cpuTab.clear();
  cpuReplay = false;
  wakeTab.clear();
  tagWakeReplay = false;
  raCpuTab.clear();
  raCpuReplay = false;
  setRqosFlags(-1, -1, 0);
}

// Recorded stalls of the machine a trace was made on (a replay of an emulated
// guest, bindings/oracle/rqos.ts guestStalls): per device, windows [start,
// end) in which the guest did not run. A request that reaches the driver in
// one is issued at its end, and one due to complete in one completes at its
// end (the guest's timer interrupt fires when the guest runs again). Flat
// ascending pairs; empty for every other run.
const pauseTab = new Recorded();

export function setDevicePauses(dev: i32, w: Vec<i64>): void {
  pauseTab.set(dev, w);
  setRqosFlags(-1, -1, 1);
}

/** The end of the pause window holding `t`, or `t` when none does. */
function afterPause(dev: i32, t: i64): i64 {
  if (dev >= pauseTab.count) return t;
  const w = pauseTab.of(dev);
  let lo = 0;
  let hi = w.length >> 1;
  // the first window whose end is after t
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (w.get(2 * mid + 1) <= t) lo = mid + 1;
    else hi = mid;
  }
  if (lo < w.length >> 1 && w.get(2 * lo) <= t) return w.get(2 * lo + 1);
  return t;
}

/** What start() does only when a policy or a replay asks (log.ts deviceStartHooks). */
function startHooks(d: Device, b: Bio, slot: i32, now: i64): void {
  if (wbtActive) wbtIssue(slot, now); // rq_qos_issue: wbt notes the oldest read in flight
}

export function setServiceReplay(job: i32, ns: Vec<i64>): void {
  svcTab.set(job, ns);
  svcReplay = true;
  setRqosFlags(-1, -1, 1);
}

// Recorded CPU time of the guest a trace was made on, per job and IO in issue
// order (-1/0 = none): from rq-qos letting the request go (a wbt wake-up) to
// its tag (block_getrq). A replay only (bindings/oracle/rqos.ts); engine/path.ts
// rqosChain() holds the request that long before it asks for a tag (only
// where an rq-qos policy exists: the wbt traces).
export let cpuReplay: bool = false;
const cpuTab = new Recorded();

export function setCpuReplay(job: i32, ns: Vec<i64>): void {
  cpuTab.set(job, ns);
  cpuReplay = true;
}

// Recorded dispatch delays of readahead bios (a buffered-read replay of an
// emulated guest, bindings/oracle/bufread.ts raRecordedTimes()): per job, per
// readahead bio in submission order, the ns from the issue of its last piece
// (the rest of a bio split by max_sectors, through the throttles last) to the
// issue of its latest one, when the guest dispatched an earlier piece after it
// (its vCPU stalled while the issuer flushed its plug). The submitter, asleep
// in the rq-qos chain on the bio, runs again that long after it went
// (pagecache.ts pcRaPassed()); the bio's own driver time (svcReplay) already
// runs from its last piece's issue.
export let raCpuReplay: bool = false;
const raCpuTab = new Recorded();

export function setRaCpuReplay(job: i32, ns: Vec<i64>): void {
  raCpuTab.set(job, ns);
  raCpuReplay = true;
}

export function recordedRaCpu(job: i32, seq: i32): i64 {
  return raCpuTab.at(job, seq, 0);
}

export function recordedCpu(job: i32, seq: i32): i64 {
  return cpuTab.at(job, seq, 0);
}

// Recorded time a request of the guest a trace was made on did not take a free
// tag while it waited for one (a replay only, bindings/oracle/rqos.ts): blk-mq
// hands no tag over. A freed tag is put back in the bitmap and wakes one
// waiter (lib/sbitmap.c 6.1: sbitmap_queue_clear() -> sbitmap_queue_wake_up(),
// wake_batch 1 below 8 tags), which takes a tag only when it runs again and
// retries __blk_mq_get_tag() (block/blk-mq-tag.c blk_mq_get_tag()'s loop);
// whoever asks in between takes the tag first. The recording says how long
// the waiting task took to run: per job and IO in issue order (0 = at once),
// used at its first attempt on a free tag and then spent.
export let tagWakeReplay: bool = false;
const wakeTab = new Recorded();

export function setTagWakeReplay(job: i32, ns: Vec<i64>): void {
  wakeTab.set(job, ns);
  tagWakeReplay = true;
}

/** The recorded wake latency of (job, seq), spent by this call (0 afterwards). */
export function takeTagWake(job: i32, seq: i32): i64 {
  const w = wakeTab.at(job, seq, 0);
  if (w > 0) wakeTab.of(job).set(seq, 0);
  return w;
}

/**
 * A bio whose wake latency ran out tries for a tag (EV_TAG_RETRY): a free one, or it waits again,
 * first in line (it was the waiter the freed tag woke).
 */
export function deviceRetryTag(slot: i32, now: i64): void {
  const d = deviceAt(bioAt(slot).dev);
  if (d.inFlight < d.nrRequests) {
    d.inFlight++;
    start(d, slot, now);
    return;
  }
  bioAt(slot).next = d.fifoHead;
  d.fifoHead = slot;
  if (d.fifoTail < 0) d.fifoTail = slot;
  d.fifoLen++;
}

function recordedService(job: i32, seq: i32): i64 {
  return svcTab.at(job, seq, -1);
}
// The same references in a table of our own whose address is a plain global:
// deviceAt(i) is two loads (table, entry) where devices[i] is three (array,
// its data pointer, entry) on the per-bio path.
let deviceTable: usize = changetype<usize>(new StaticArray<usize>(8));
let deviceTableCap: i32 = 8;

@inline export function deviceAt(dev: i32): Device {
  return load<Device>(deviceTable + (<usize>dev << alignof<usize>()));
}

export function resetDevices(): void {
  devices.length = 0;
  resetServiceReplay();
}

export function addDevice(seed: u64): i32 {
  const id = devices.length;
  const d = new Device(seed, id);
  devices.push(d);
  if (id == deviceTableCap) {
    const t = changetype<usize>(new StaticArray<usize>(deviceTableCap * 2));
    memory.copy(t, deviceTable, <usize>deviceTableCap << alignof<usize>());
    deviceTable = t;
    deviceTableCap *= 2;
  }
  store<usize>(deviceTable + (<usize>id << alignof<usize>()), changetype<usize>(d));
  return id;
}

/** Set one table point: (dir, rand, k) -> (size bytes, IOPS at full parallelism). */
export function setDevicePoint(dev: i32, dir: i32, rand: i32, k: i32, size: f64, iops: f64): void {
  const d = devices[dev];
  const t = dir * 2 + rand;
  const i = t * TABLE_POINTS + k;
  unchecked((d.tableSize[i] = size));
  unchecked((d.tableServiceNs[i] = (<f64>d.channels * 1e9) / iops));
  if (k + 1 > unchecked(d.tableLen[t])) unchecked((d.tableLen[t] = k + 1));
  // points arrive in increasing size: keep slopes current
  if (k > 0) {
    const dx = unchecked(d.tableSize[i]) - unchecked(d.tableSize[i - 1]);
    unchecked((d.tableSlope[i] = dx > 0 ? (unchecked(d.tableServiceNs[i]) - unchecked(d.tableServiceNs[i - 1])) / dx : 0));
  }
  unchecked((d.tableSlopeTail[t] = unchecked(d.tableServiceNs[i]) / size));
  d.svcKey = u64.MAX_VALUE; // the table changed: forget the memo
}

// Hook set by the engine: called when a bio finishes at the device.
@inline export function deviceSubmit(dev: i32, slot: i32, now: i64): void {
  const d = deviceAt(dev);
  if (d.inFlight < d.nrRequests) {
    d.inFlight++;
    start(d, slot, now);
  } else {
    // wait for a request, FIFO
    bioAt(slot).next = -1;
    if (d.fifoTail >= 0) bioAt(d.fifoTail).next = slot;
    else d.fifoHead = slot;
    d.fifoTail = slot;
    d.fifoLen++;
  }
}

/**
 * start()'s memo of the service time of a (size, direction, random) bio:
 * d.svcNs / svcOccNs / svcLatNs (and a shaped device's quantile row) for the
 * key, computed again only when the key changes (the engine's steady loop,
 * engine/path.ts runSteady, writes the unshaped case out).
 */
@inline function serviceMemo(d: Device, dir: u8, rand: i32, size: u32): void {
  const key = (<u64>size << 2) | <u64>((<i32>dir << 1) | rand);
  if (key == d.svcKey) return;
  const svc = d.serviceNs(dir, rand, size);
  d.svcKey = key;
  d.svcNs = svc;
  d.svcOccNs = <i64>svc;
  d.svcLatNs = <i64><f64>d.fixedLatencyNs;
  if (d.hasQuant) {
    const pk = quantPoint(d, (<i32>dir) * 2 + rand, size);
    d.svcQuant = pk < 0 ? -1 : unchecked(d.pointFirst[pk]);
    d.svcRowN = pk < 0 ? 0 : unchecked(d.pointRows[pk]);
  }
}

@inline function start(d: Device, slot: i32, now: i64): void {
  const b = bioAt(slot);
  const off = b.off;
  const size = b.size;
  const dir = b.dir;
  // sequential: it continues the last read or the last write (design note above)
  const seq = off == d.lastEndR || off == d.lastEndW;
  if (dir) d.lastEndW = off + <i64>size;
  else d.lastEndR = off + <i64>size;
  if (seq) b.flags = b.flags | BIO_SEQ;
  b.issue = now;
  // blk_account_io_start: update_io_ticks(jiffies, false) with the requests
  // in flight before this one (inFlight counts it already)
  if (now >= d.dsStampEndNs) ioTicksStart(d, now);
  const rand = seq ? 0 : 1;
  serviceMemo(d, dir, rand, size);
  let occNs: i64;
  let latNs: i64;
  if (d.shaped) {
    let occ = d.svcNs;
    let lat = <f64>d.fixedLatencyNs;
    if (d.mech) {
      if (rand) occ = mechanicalNs(d, off, size);
      d.head = off + <i64>size;
    }
    const t = (<i32>dir) * 2 + rand;
    let row = d.svcQuant;
    let j = 1.0;
    if (row >= 0) {
      if (d.svcRowN > 1) row = rowForDepth(d, row, d.svcRowN, d.inFlight);
      j = quantileFactor(d, row, d.rng.unit());
    } else if (unchecked(d.lnOn[t])) {
      let k = <i32>(d.rng.unit() * <f64>LN_BINS);
      if (k >= LN_BINS) k = LN_BINS - 1;
      j = unchecked(d.lnTab[t * LN_BINS + k]);
    } else {
      const sg = unchecked(d.tableSigma[t]);
      if (sg > 0) j = Math.exp(sg * gaussian(d.rng) - 0.5 * sg * sg);
    }
    const nd = d.depthScale.length;
    if (nd > 0) j *= unchecked(d.depthScale[d.inFlight < nd ? d.inFlight : nd - 1]);
    occ *= j;
    lat *= j;
    occNs = <i64>occ;
    latNs = <i64>lat;
  } else {
    // the same integers as the jitter path's conversions with j = 1, kept with the memo
    occNs = d.svcOccNs;
    latNs = d.svcLatNs;
  }
  if (deviceStartHooks) {
    // rq_qos_issue (wbt notes the oldest read in flight) and recorded driver times
    startHooks(d, b, slot, now);
    if (svcReplay) {
      const rec = recordedService(b.job, b.seq);
      if (rec >= 0) {
        occNs = 0;
        latNs = rec;
      }
    }
    if (pauseTab.count > 0) {
      // a recorded guest stall: issued at its end, completing after any stall it ends in
      const begin = afterPause(d.id, now);
      const done = afterPause(d.id, begin + occNs + latNs);
      latNs = done - now - occNs;
    }
  }
  d.busyNs += occNs;
  d.ios++;
  if (d.channels >= d.nrRequests) {
    // every admitted bio has a channel of its own: it starts now
    scheduleLane(d.id, now + occNs + latNs, EV_DEVICE_DONE, <u32>slot);
    return;
  }
  // earliest free channel
  if (d.chFree.length == 0) initChannels(d);
  const cf = d.chFree;
  const mask = d.chMask;
  const head = d.chHead;
  const bestT = unchecked(cf[head]);
  const begin = bestT > now ? bestT : now;
  const v = begin + occNs;
  // drop the earliest, insert v in order: shift later times up one place
  let k = (head + d.channels) & mask; // one past the latest
  let p = (k - 1) & mask;
  while (p != head && unchecked(cf[p]) > v) {
    unchecked((cf[k] = unchecked(cf[p])));
    k = p;
    p = (p - 1) & mask;
  }
  unchecked((cf[k] = v));
  d.chHead = (head + 1) & mask;
  // completions of a device are usually in time order: its own fast lane
  scheduleLane(d.id, begin + occNs + latNs, EV_DEVICE_DONE, <u32>slot);
}

/**
 * The requests blk-mq makes of a bio of `size` bytes on device `d`: one per
 * max_sectors piece (bio_split_rw). blk-throttle counts them (engine/path.ts
 * fillBioShape: Bio.pieces) and so do the disk statistics.
 */
@inline export function requestsOf(d: Device, size: u32): u32 {
  const maxb = d.maxSectorsBytes;
  return maxb == 0 || size <= maxb ? 1 : (size + maxb - 1) / maxb;
}

/** The bio in `slot` completed at the device: account it, free its request and start a waiting one. */
@inline export function deviceComplete(slot: i32, now: i64): void {
  const b = bioAt(slot);
  const d = deviceAt(b.dev);
  // blk_account_io_done, for each request of the bio (design note above)
  if (now >= d.dsStampEndNs) ioTicksEnd(d, now);
  const size = b.size;
  const n = <u64>requestsOf(d, size);
  const ns = n * <u64>(now - b.issue);
  if (b.dir) {
    d.dsIosW += n;
    d.dsSectorsW += <u64>(size >> 9);
    d.dsNsW += ns;
  } else {
    d.dsIosR += n;
    d.dsSectorsR += <u64>(size >> 9);
    d.dsNsR += ns;
  }
  d.inFlight--;
  if (d.fifoHead >= 0) {
    const s = d.fifoHead;
    d.fifoHead = bioAt(s).next;
    if (d.fifoHead < 0) d.fifoTail = -1;
    d.fifoLen--;
    if (tagWakeReplay) {
      // the woken waiter runs later (takeTagWake above); the tag stays free meanwhile
      const sb = bioAt(s);
      const w = takeTagWake(sb.job, sb.seq);
      if (w > 0) {
        schedule(now + w, EV_TAG_RETRY, <u32>s);
        return;
      }
    }
    d.inFlight++;
    start(d, s, now);
  }
}

// Fields of /sys/block/<dev>/stat (part_stat_show's order; discard and flush
// fields are all 0 in iosim and left out).
export const DS_READ_IOS: i32 = 0;
export const DS_READ_MERGES: i32 = 1;
export const DS_READ_SECTORS: i32 = 2;
export const DS_READ_TICKS_MS: i32 = 3;
export const DS_WRITE_IOS: i32 = 4;
export const DS_WRITE_MERGES: i32 = 5;
export const DS_WRITE_SECTORS: i32 = 6;
export const DS_WRITE_TICKS_MS: i32 = 7;
export const DS_IN_FLIGHT: i32 = 8;
export const DS_IO_TICKS_MS: i32 = 9;
export const DS_TIME_IN_QUEUE_MS: i32 = 10;

const NSEC_PER_MSEC: u64 = 1_000_000;
const MSEC_PER_SEC: u64 = 1000;

/** jiffies_to_msecs(): exact for HZ dividing 1000, else rounded up (HZ 300). */
function jiffiesToMsecs(j: u64): u64 {
  const hz = <u64>HZ;
  if (MSEC_PER_SEC % hz == 0) return (MSEC_PER_SEC / hz) * j;
  return (j * MSEC_PER_SEC + hz - 1) / hz;
}

/** update_io_ticks(jiffies, false) at a request's start, in a later jiffy than the stamp's. */
function ioTicksStart(d: Device, now: i64): void {
  const jf = jiffiesAt(now);
  if (timeAfter(jf, d.dsStamp)) {
    if (d.inFlight > 1) d.dsIoTicks += jf - d.dsStamp;
    setStamp(d, jf);
  }
}

/** update_io_ticks(jiffies, true): a completion, or a read with requests in flight. */
function ioTicksEnd(d: Device, now: i64): void {
  const jf = jiffiesAt(now);
  if (timeAfter(jf, d.dsStamp)) {
    d.dsIoTicks += jf - d.dsStamp;
    setStamp(d, jf);
  }
}

@inline function setStamp(d: Device, jf: u64): void {
  d.dsStamp = jf;
  d.dsStampEndNs = tickTime(jf + 1);
}

/**
 * One field of the device's /sys/block/<dev>/stat read at `now`
 * (part_stat_show: with requests in flight, io_ticks is first brought up to
 * now, as update_io_ticks(jiffies, true)).
 */
export function deviceDiskStat(dev: i32, field: i32, now: i64): u64 {
  const d = deviceAt(dev);
  if (d.inFlight > 0) ioTicksEnd(d, now);
  switch (field) {
    case DS_READ_IOS: return d.dsIosR;
    case DS_READ_SECTORS: return d.dsSectorsR;
    case DS_READ_TICKS_MS: return d.dsNsR / NSEC_PER_MSEC;
    case DS_WRITE_IOS: return d.dsIosW;
    case DS_WRITE_SECTORS: return d.dsSectorsW;
    case DS_WRITE_TICKS_MS: return d.dsNsW / NSEC_PER_MSEC;
    case DS_IN_FLIGHT: return <u64>d.inFlight;
    case DS_IO_TICKS_MS: return jiffiesToMsecs(d.dsIoTicks);
    case DS_TIME_IN_QUEUE_MS: return (d.dsNsR + d.dsNsW) / NSEC_PER_MSEC;
  }
  return 0; // merges
}

/** A random bio's arm time on a device with mechanics: seek + rotation + transfer (design note above). */
function mechanicalNs(d: Device, off: i64, size: u32): f64 {
  const dist = off > d.head ? off - d.head : d.head - off;
  let seek = 0.0;
  if (dist > 0) seek = d.seekSettleNs + d.seekSpanNs * Math.sqrt(Math.min(1.0, <f64>dist / d.capBytes));
  return seek + d.rotNs * d.rng.unit() + <f64>size * d.nsPerByte;
}

/**
 * The table point (t * TABLE_POINTS + k) whose distributions a bio of `size`
 * in table t takes: the point nearest in log size that has any, -1 when none has.
 */
function quantPoint(d: Device, t: i32, size: u32): i32 {
  const n = unchecked(d.tableLen[t]);
  const lx = Math.log(<f64>size);
  let best = -1;
  let bestD = 0.0;
  for (let k = 0; k < n; k++) {
    if (unchecked(d.pointRows[t * TABLE_POINTS + k]) == 0) continue;
    const dist = Math.abs(Math.log(unchecked(d.tableSize[t * TABLE_POINTS + k])) - lx);
    if (best < 0 || dist < bestD) {
      best = k;
      bestD = dist;
    }
  }
  return best < 0 ? -1 : t * TABLE_POINTS + best;
}

/** Of a point's rows (first, n), the one whose depth is nearest `inFlight` in log depth. */
function rowForDepth(d: Device, first: i32, n: i32, inFlight: i32): i32 {
  const lq = Math.log(<f64>(inFlight > 1 ? inFlight : 1));
  let best = first;
  let bestD = Math.abs(d.rowDepthLog[first] - lq);
  for (let r = first + 1; r < first + n; r++) {
    const dist = Math.abs(d.rowDepthLog[r] - lq);
    if (dist < bestD) {
      best = r;
      bestD = dist;
    }
  }
  return best;
}

/** The inverse CDF of a row at u in [0, 1): linear between its (u, factor) points. */
function quantileFactor(d: Device, row: i32, u: f64): f64 {
  const n = d.rowN[row];
  const base = d.rowBase[row];
  // the last point at or below u (binary search; us ascend from 0)
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (d.qU[base + mid] <= u) lo = mid;
    else hi = mid;
  }
  const u0 = d.qU[base + lo];
  const u1 = d.qU[base + hi];
  const a = d.qF[base + lo];
  const b = d.qF[base + hi];
  return u1 > u0 ? a + ((b - a) * (u - u0)) / (u1 - u0) : a;
}

/** Table t's log-normal sigma (jitterSigma set all four). */
export function setDeviceSigma(dev: i32, t: i32, sigma: f64): void {
  const d = devices[dev];
  unchecked((d.tableSigma[t] = sigma));
  d.shaped = d.shaped || sigma > 0;
}

/**
 * A new distribution row for table t's point p at `depth` requests in flight
 * (a point's rows are added one after another); returns the row.
 */
export function addDeviceQuantileRow(dev: i32, t: i32, p: i32, depth: i32): i32 {
  const d = devices[dev];
  const pk = t * TABLE_POINTS + p;
  const row = d.rowN.length;
  if (unchecked(d.pointRows[pk]) == 0) unchecked((d.pointFirst[pk] = row));
  else if (unchecked(d.pointFirst[pk]) + unchecked(d.pointRows[pk]) != row) return -1; // not consecutive
  unchecked((d.pointRows[pk] = unchecked(d.pointRows[pk]) + 1));
  d.rowBase.push(d.qU.length);
  d.rowN.push(0);
  d.rowDepthLog.push(Math.log(<f64>(depth > 1 ? depth : 1)));
  d.shaped = true;
  d.hasQuant = true;
  d.svcKey = u64.MAX_VALUE;
  return row;
}

/** Append a (u, factor) point to the last row (us ascending from 0 to 1). */
export function addDeviceQuantilePoint(dev: i32, u: f64, factor: f64): void {
  const d = devices[dev];
  d.qU.push(u);
  d.qF.push(factor);
  d.rowN[d.rowN.length - 1] = d.rowN[d.rowN.length - 1] + 1;
}

/** Table t's log-normal spread: bin k's mean factor (of LN_BINS). */
export function setDeviceLnBin(dev: i32, t: i32, k: i32, factor: f64): void {
  const d = devices[dev];
  if (d.lnTab.length == 0) d.lnTab = new StaticArray<f64>(4 * LN_BINS);
  unchecked((d.lnTab[t * LN_BINS + k] = factor));
  unchecked((d.lnOn[t] = true));
  d.shaped = true;
}

/** A fitted device's depth curve: scale at k requests in flight, k = 0..n-1 (k >= n: the last). */
export function setDeviceDepthScale(dev: i32, k: i32, n: i32, scale: f64): void {
  const d = devices[dev];
  if (d.depthScale.length != n) d.depthScale = new StaticArray<f64>(n);
  unchecked((d.depthScale[k] = scale));
  d.shaped = true;
}

/** Mechanics of a rotational device (design note above). */
export function setDeviceMechanics(dev: i32, settleNs: f64, spanNs: f64, rotNs: f64, nsPerByte: f64, capBytes: f64): void {
  const d = devices[dev];
  d.mech = true;
  d.shaped = true;
  d.seekSettleNs = settleNs;
  d.seekSpanNs = spanNs;
  d.rotNs = rotNs;
  d.nsPerByte = nsPerByte;
  d.capBytes = capBytes > 1 ? capBytes : 1;
}

function initChannels(d: Device): void {
  let cap = 1;
  while (cap < d.channels + 1) cap <<= 1;
  d.chFree = new StaticArray<i64>(cap); // all free at t = 0
  d.chMask = cap - 1;
  d.chHead = 0;
}

/** Standard normal from two uniforms (Box-Muller; one value used, deterministic). */
function gaussian(r: Rng): f64 {
  let u = r.unit();
  if (u < 1e-300) u = 1e-300;
  const v = r.unit();
  return Math.sqrt(-2.0 * Math.log(u)) * Math.cos(2.0 * Math.PI * v);
}
