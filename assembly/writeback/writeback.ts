// Page cache, dirty throttling and cgroup writeback (Linux 6.1/6.12:
// mm/page-writeback.c, mm/backing-dev.c, fs/fs-writeback.c).
//
// A buffered write(2) copies into page-cache pages; the pages become dirty and
// stay charged to the memory cgroup that brought them into the cache. Later a
// flusher ("wb", struct bdi_writeback) writes them back. With cgroup
// writeback there is one wb per (device, memcg); its blkcg is the memcg's
// cgroup's io css (cgwb_create -> cgroup_get_e_css). Every inode belongs to
// exactly one wb, the one of the memcg that first dirtied it
// (inode_attach_wb), and *every* writeback bio of the inode is issued as that
// wb's blkcg (wbc_init_bio), whoever dirtied the page. So io.max / io.cost
// see writeback IO as the inode's owner's IO, and io.stat's wbytes go wholly
// to the owner at writeback time. Ownership moves only through the foreign
// election of owner.ts, which runs at the end of each writeback pass and
// switches the inode (inode_switch_wbs) when foreign memcgs won more than
// half of the recent IO-time history.
//
// What is modelled, and how (all times integer ns, jiffies at HZ):
//
//  * Files: an inode is a byte range of a device (declared by the scenario;
//    the TypeScript module adds one implicit file per device for buffered jobs
//    with no file). Per page: the charged memcg (0 = not cached), the time it
//    became dirty (-1 = clean) and whether it is under writeback, kept
//    sparsely like the kernel's xarray (pages.ts): memory and pass time grow
//    with the pages written, not with the file's size.
//  * Dirtying: a write call of n pages at time t first updates mtime (the
//    inode is marked dirty at t, __mark_inode_dirty(I_DIRTY_SYNC), which
//    wakes the wb's flusher if the wb had no dirty IO: wb_wakeup_delayed,
//    after dirty_writeback_centisecs), then copies page k at t + (k+1) *
//    COPY_NS_PER_PAGE. A flusher that runs before the first page is copied
//    sees nothing to write; that race matters (below).
//  * Flusher (wb_workfn -> wb_do_writeback): queued works first (sync's
//    WB_SYNC_ALL work, foreign flushes), then sync's start_all
//    (WB_SYNC_NONE), then kupdate (inodes dirtied more than
//    dirty_expire_centisecs ago, every dirty_writeback_centisecs), then
//    background (while wb_over_bg_thresh). WB_SYNC_NONE works write an inode
//    in chunks of writeback_chunk_size() = round_down(min(avg_bw / 2,
//    dirty_limit / 8) + 1024, 1024) pages, each chunk one pass (one vote);
//    WB_SYNC_ALL and fsync write the whole inode in one pass. A flusher's
//    CPU time is taken as zero: a pass writes every page already dirty at
//    the instant it runs and submits its bios (up to BIO_MAX_PAGES
//    contiguous pages each) through blk-throttle and iocost like direct IO.
//  * Kworker latency: a woken flusher runs KWORKER_LATENCY_NS (exponential
//    mean, seeded) later.
//  * sync(2) = wakeup_flusher_threads (start_all, WB_SYNC_NONE, chunked) +
//    sync_inodes_sb (a WB_SYNC_ALL work per wb). Which one reaches the inode
//    first is a race in the kernel; it decides whether the sync is one pass
//    or many chunk passes, hence how many history slots it adds. We draw it
//    per (sync, wb): start_all first with probability SYNC_NONE_FIRST_NEW_PCT
//    when the wb holds dirty pages never written back before (on ext4 their
//    writeback also allocates the delalloc blocks), SYNC_NONE_FIRST_PCT
//    otherwise. Measured on the 6.1 guest (wb_share): 9 of 12 first syncs of
//    the new file, 3 of 84 later syncs. That the difference comes from block
//    allocation is our guess, not a measurement.
//  * Background writeback: wb_over_bg_thresh(): global dirty > bg_thresh, or
//    the wb's reclaimable pages > its share of bg_thresh, the share being its
//    fraction of recent writeback completions (flex proportions, halved
//    every VM_COMPLETIONS_PERIOD_LEN = 3 s). A wb that has not written
//    recently (e.g. one an inode was just switched to) has a share of 0, so
//    a single dirty page puts it over: then every page dirtied by a writer
//    wakes the flusher and is written in a tiny pass, each pass one foreign
//    history slot (the switch reset avg_time, so no pass is "short"); nine
//    of them switch the inode again. These are the "flip-backs" of the
//    recordings. The session ends once completions raise the wb's share
//    above what is dirty when it looks.
//  * Dirty throttling (balance_dirty_pages, simplified and documented):
//    global domain only (no memcg domain, no strictlimit); below the freerun
//    ceiling (thresh + bg_thresh) / 2 a writer is not delayed; above it, the
//    writer's wb starts background writeback and foreign flushes, and the
//    writer pauses pages * HZ / task_ratelimit jiffies (at most MAX_PAUSE =
//    HZ/5), task_ratelimit = avg_write_bandwidth * pos_ratio with the
//    kernel's cubic global control line (pos_ratio_polynom); at or above the
//    limit the pause is MAX_PAUSE. The writer also pays COPY_NS_PER_PAGE
//    per page copied.
//  * Bandwidth estimate: wb_update_write_bandwidth() every
//    BANDWIDTH_INTERVAL on writeback completion, from INIT_BW = 100 MB/s.
//  * cgroup v1, a filesystem without cgroup writeback, or the memory or io
//    controller missing: every inode is on the root wb, writeback bios are
//    the root cgroup's (so v1 blkio.throttle.write_* never limits buffered
//    writes), no elections.
//
// Worked example (wb_foreign, 6.1 guest): B writes 64 MiB (16384 pages) to
// a new file: the inode attaches to B's wb; sync writes it as B. A
// overwrites all of it after drop_caches, so every page is charged to A.
// Round 1's WB_SYNC_ALL pass: A wins 16384 pages, max_time =
// ceil(16384 * 8192 / 25600) = 5243, slots = min(ceil(5243/1024), 5) = 5,
// history 0x1f; round 2: 0x3ff, 10 bits > 8, inode_switch_wbs(A): from
// round 3 io.stat charges A. Recorded: the same in all runs.

import { schedule, EV_WRITEBACK } from "../engine/events";
import { allocBio, bioAt, BIO_WRITEBACK, BIO_SYNC } from "../engine/bios";
import { wbtActive, wbtDirtySleep } from "../wbt/wbt";
import { fillBio, submitBio } from "../engine/path";
import { HZ, TICK_NS, jiffiesAt, timeAfterEq, timeBefore } from "../engine/clock";
import { cgParent } from "../engine/cgroups";
import { Vec } from "../engine/vec";
import { Rng } from "../engine/random";
import { PageTable, PAGES_PER_CHUNK } from "./pages";
import { wbcAttach, wbcAccount, wbcDetach, detMaxId, detHistory, detAvgTime, detTrace, detSwitch, detSlots,
  PAGE_SHIFT, PAGE_SIZE, WB_FRN_MAX_IN_FLIGHT } from "./owner";

export let writebackActive: bool = false;

// ---------------------------------------------------------------- config

export const INIT_BW: u64 = 100 << (20 - PAGE_SHIFT); // pages/s
export const MIN_WRITEBACK_PAGES: i64 = 4096 >> (PAGE_SHIFT - 10);
export const DIRTY_SCOPE: i64 = 8;
export const RATELIMIT_CALC_SHIFT: i64 = 10;
export const MEMCG_CGWB_FRN_CNT: i32 = 4;
export const LONG_MAX: i64 = i64.MAX_VALUE;

/** Every setting of the model (sysctls, guest properties, race knobs). */
export class WbConfig {
  cgwb: bool = true; // cgroup writeback in effect (v2, memory+io, fs support)
  dirtyRatio: i64 = 20; // vm.dirty_ratio
  dirtyBackgroundRatio: i64 = 10; // vm.dirty_background_ratio
  dirtyBytes: i64 = 0; // vm.dirty_bytes
  dirtyBackgroundBytes: i64 = 0; // vm.dirty_background_bytes
  dirtyWritebackCentisecs: i64 = 500; // vm.dirty_writeback_centisecs
  dirtyExpireCentisecs: i64 = 3000; // vm.dirty_expire_centisecs
  dirtyableBytes: i64 = 4 << 30; // global_dirtyable_memory()
  dirtyLimitPages: i64 = 0; // global_wb_domain.dirty_limit at start (0 = thresh)
  copyNsPerPage: i64 = 1000; // cost of copying one page into the cache
  kworkerLatencyNs: i64 = 20_000; // mean wake-up latency of a flusher
  switchDelayNs: i64 = 20_000_000; // inode_switch_wbs -> inode_do_switch_wbs (RCU + work)
  syncNoneFirstNewPct: i64 = 75; // start_all beats the WB_SYNC_ALL work: a never-written file
  syncNoneFirstPct: i64 = 4; // ... later syncs
  bioMaxPages: i64 = 256; // BIO_MAX_VECS pages per writeback bio
  nrCpus: i64 = 2;
}
export let cfg = new WbConfig();

export const KEY_CGWB: i32 = 1;
export const KEY_DIRTY_RATIO: i32 = 2;
export const KEY_DIRTY_BG_RATIO: i32 = 3;
export const KEY_DIRTY_BYTES: i32 = 4;
export const KEY_DIRTY_BG_BYTES: i32 = 5;
export const KEY_WRITEBACK_CS: i32 = 6;
export const KEY_EXPIRE_CS: i32 = 7;
export const KEY_DIRTYABLE_BYTES: i32 = 8;
export const KEY_DIRTY_LIMIT_PAGES: i32 = 9;
export const KEY_COPY_NS: i32 = 10;
export const KEY_KWORKER_NS: i32 = 11;
export const KEY_SWITCH_NS: i32 = 12;
export const KEY_SYNC_NONE_NEW_PCT: i32 = 13;
export const KEY_SYNC_NONE_PCT: i32 = 14;
export const KEY_BIO_MAX_PAGES: i32 = 15;
export const KEY_NR_CPUS: i32 = 16;

export function setKey(key: i32, v: i64): void {
  switch (key) {
    case KEY_CGWB: cfg.cgwb = v != 0; break;
    case KEY_DIRTY_RATIO: cfg.dirtyRatio = v; break;
    case KEY_DIRTY_BG_RATIO: cfg.dirtyBackgroundRatio = v; break;
    case KEY_DIRTY_BYTES: cfg.dirtyBytes = v; break;
    case KEY_DIRTY_BG_BYTES: cfg.dirtyBackgroundBytes = v; break;
    case KEY_WRITEBACK_CS: cfg.dirtyWritebackCentisecs = v; break;
    case KEY_EXPIRE_CS: cfg.dirtyExpireCentisecs = v; break;
    case KEY_DIRTYABLE_BYTES: cfg.dirtyableBytes = v; break;
    case KEY_DIRTY_LIMIT_PAGES: cfg.dirtyLimitPages = v; domDirtyLimit = v; break;
    case KEY_COPY_NS: cfg.copyNsPerPage = v; break;
    case KEY_KWORKER_NS: cfg.kworkerLatencyNs = v; break;
    case KEY_SWITCH_NS: cfg.switchDelayNs = v; break;
    case KEY_SYNC_NONE_NEW_PCT: cfg.syncNoneFirstNewPct = v; break;
    case KEY_SYNC_NONE_PCT: cfg.syncNoneFirstPct = v; break;
    case KEY_BIO_MAX_PAGES: cfg.bioMaxPages = v < 1 ? 1 : v; break;
    case KEY_NR_CPUS: cfg.nrCpus = v < 1 ? 1 : v; break;
  }
}

// ---------------------------------------------------------------- cgroups
// memcg and blkcg of each cgroup (core cgroup ids); memcg id = cgroup + 1
// (the root memcg's css id is 1, as in the kernel).
export const memcgOf = new Vec<i32>(16);
export const blkcgOf = new Vec<i32>(16);
export const cgOnline = new Vec<u8>(16);
// struct memcg_cgwb_frn per memcg: foreign wbs its pages were dirtied on
const frnDev = new Vec<i32>(64);
const frnMemcg = new Vec<i32>(64); // memcg id of the foreign wb
const frnAt = new Vec<u64>(64); // jiffies (0 = unused)
const frnBusy = new Vec<u8>(64); // a foreign flush is in flight

function ensureCg(cg: i32): void {
  while (memcgOf.length <= cg) {
    const c = memcgOf.length;
    memcgOf.push(c);
    blkcgOf.push(c);
    cgOnline.push(1);
    for (let i = 0; i < MEMCG_CGWB_FRN_CNT; i++) {
      frnDev.push(-1);
      frnMemcg.push(0);
      frnAt.push(0);
      frnBusy.push(0);
    }
  }
}

/** The effective memcg / blkcg of a cgroup (the TypeScript module resolves
 *  which controllers are enabled where). */
export function setCgroup(cg: i32, memcg: i32, blkcg: i32): void {
  ensureCg(cg);
  memcgOf.set(cg, memcg);
  blkcgOf.set(cg, blkcg);
}

// ---------------------------------------------------------------- wbs

export class Wb {
  id: i32 = 0;
  dev: i32 = 0;
  memcg: i32 = 0; // cgroup id of the memcg (memcg css id = memcg + 1)
  blkcg: i32 = 0; // cgroup id whose io css tags the bios
  dying: bool = false;
  avgBw: u64 = INIT_BW; // avg_write_bandwidth, pages/s
  writeBw: u64 = INIT_BW; // write_bandwidth
  written: u64 = 0; // WB_WRITTEN (pages)
  writtenStamp: u64 = 0;
  bwStampJ: u64 = 0;
  nrWriteback: i32 = 0; // pages under writeback
  dirty: Vec<i32> = new Vec<i32>(4); // b_dirty: inode ids in dirtied order
  flusherAt: i64 = -1; // scheduled wb_workfn run
  startAll: bool = false;
  works: Vec<i32> = new Vec<i32>(4); // queued work ids
  lastOldFlushJ: u64 = 0;
  fpropEvents: u64 = 0; // flex-proportion completions
  fpropPeriod: i64 = 0;
  waiters: i32 = 0; // syncs/fsyncs waiting for nrWriteback == 0
}
export const wbs: Array<Wb> = new Array<Wb>();

// ---------------------------------------------------------------- inodes

export class Inode {
  id: i32 = 0;
  ino: i32 = 0;
  dev: i32 = 0;
  off: i64 = 0;
  pages: i32 = 0;
  wb: i32 = -1;
  frnWinner: i32 = 0;
  frnAvgTime: u32 = 0;
  frnHistory: u32 = 0;
  switching: bool = false;
  onDirty: bool = false;
  dirtiedWhen: i64 = 0;
  writebackIndex: i32 = 0;
  nrDirty: i32 = 0; // dirty pages, including those still being copied
  nrWriteback: i32 = 0;
  redirtyAt: i64 = -1;
  nrDirtyFresh: i32 = 0; // dirty pages never written back (no blocks yet)
  page: PageTable; // per-page state, sparse (pages.ts)
  // write calls still copying: start, newly dirtied pages, ns per page
  callT0: Vec<i64> = new Vec<i64>(4);
  callN: Vec<i32> = new Vec<i32>(4);
  callC: Vec<i64> = new Vec<i64>(4);
  constructor(pages: i32) {
    this.pages = pages;
    this.page = new PageTable(pages);
  }
}
export const inodes: Array<Inode> = new Array<Inode>();

// ---------------------------------------------------------------- works, ops, syncs

export const WORK_SYNC_ALL: i32 = 1;
export const WORK_FOREIGN: i32 = 2;
const workKind = new Vec<i32>(16);
const workArg = new Vec<i64>(16); // sync id / nr_pages
const workSlot = new Vec<i32>(16); // frn slot to release (foreign)

export const OP_SYNC: i32 = 1;
export const OP_FSYNC: i32 = 2; // a = inode, b = cgroup (unused)
export const OP_DROP_CACHES: i32 = 3;
export const OP_SET: i32 = 4; // a = key, b = value
export const OP_OFFLINE: i32 = 5; // a = cgroup
const opKind = new Vec<i32>(16);
const opA = new Vec<i64>(16);
const opB = new Vec<i64>(16);

export const syncStart = new Vec<i64>(16);
export const syncDone = new Vec<i64>(16); // -1 while pending
const syncPendingWbs = new Vec<i32>(16);
const syncWaitWb = new Vec<i32>(64); // (sync, wb) pairs still waiting for IO
const syncWaitId = new Vec<i32>(64);

// switch contexts
const iswInode = new Vec<i32>(16);
const iswNewWb = new Vec<i32>(16);
let iswNrInFlight: i32 = 0;

// events: arg = (type << 20) | index
const T_FLUSHER: u32 = 1;
const T_OP: u32 = 2;
const T_WORK_QUEUE: u32 = 3; // a WB_SYNC_ALL work reaches its wb (lost race)
const T_SWITCH: u32 = 4;
const T_REDIRTY: u32 = 5;
const qWork = new Vec<i32>(16);
const qWb = new Vec<i32>(16);

// ---------------------------------------------------------------- tracepoints
// One batch buffer of 8 i64 per record, read by JavaScript after a run.
export const TP_FOREIGN_HISTORY: i64 = 1; // ino, wb memcg cg, history, winner cg, slots, pages
export const TP_SWITCH_WBS: i64 = 2; // ino, old memcg cg, new memcg cg
export const TP_TRACK_FOREIGN: i64 = 3; // ino, wb memcg cg, page memcg cg, count, first t
export const TP_FLUSH_FOREIGN: i64 = 4; // wb memcg cg, frn dev, frn memcg cg
export const TP_PASS: i64 = 5; // ino, wb memcg cg, wrote, to_write (-1 = LONG_MAX), index, reason
export const TP_SYNC_DONE: i64 = 6; // sync id, start
export const TP_FIELDS: i32 = 8;
export const REASON_SYNC: i64 = 1;
export const REASON_BACKGROUND: i64 = 2;
export const REASON_PERIODIC: i64 = 3;
export const REASON_FSYNC: i64 = 4;
export const REASON_FOREIGN_FLUSH: i64 = 5;
export const tp = new Vec<i64>(1024);
export let traceOn: bool = true;
let lastTrackRec: i32 = -1;

function tpPush(kind: i64, t: i64, a: i64, b: i64, c: i64, d: i64, e: i64, f: i64): i32 {
  const i = tp.length;
  tp.push(kind); tp.push(t); tp.push(a); tp.push(b); tp.push(c); tp.push(d); tp.push(e); tp.push(f);
  return i;
}

export function setTrace(on: bool): void {
  traceOn = on;
}

// ---------------------------------------------------------------- state

let rng: Rng = new Rng(1, 0x5742);
let globalDirty: i64 = 0; // dirty pages incl. being copied
let globalWriteback: i64 = 0;
let domDirtyLimit: i64 = 0; // global_wb_domain.dirty_limit
let domLimitStampJ: u64 = 0;
let domEvents: u64 = 0; // fprop global completions
let domPeriod: i64 = 0;
export let passes: i64 = 0; // writeback passes run
export let pagesWritten: i64 = 0;

export function resetWriteback(): void {
  writebackActive = false;
  cfg = new WbConfig();
  memcgOf.length = 0;
  blkcgOf.length = 0;
  cgOnline.length = 0;
  frnDev.length = 0;
  frnMemcg.length = 0;
  frnAt.length = 0;
  frnBusy.length = 0;
  wbs.length = 0;
  inodes.length = 0;
  workKind.length = 0;
  workArg.length = 0;
  workSlot.length = 0;
  opKind.length = 0;
  opA.length = 0;
  opB.length = 0;
  syncStart.length = 0;
  syncDone.length = 0;
  syncPendingWbs.length = 0;
  syncWaitWb.length = 0;
  syncWaitId.length = 0;
  iswInode.length = 0;
  iswNewWb.length = 0;
  iswNrInFlight = 0;
  qWork.length = 0;
  qWb.length = 0;
  tp.length = 0;
  traceOn = true;
  lastTrackRec = -1;
  globalDirty = 0;
  globalWriteback = 0;
  domDirtyLimit = 0;
  domLimitStampJ = 0;
  domEvents = 0;
  domPeriod = 0;
  passes = 0;
  pagesWritten = 0;
}

/** Turn the model on (buffered writes go through the page cache). */
export function activate(seed: u64, nCgroups: i32): void {
  writebackActive = true;
  rng = new Rng(seed, 0x5742);
  ensureCg(nCgroups - 1);
}

/** Declare a file: `bytes` of device `dev` from byte `off`. Returns its id. */
export function addInode(dev: i32, off: i64, bytes: i64, ino: i32): i32 {
  const pages = <i32>((bytes + PAGE_SIZE - 1) >> PAGE_SHIFT);
  const n = new Inode(pages < 1 ? 1 : pages);
  n.id = inodes.length;
  n.ino = ino;
  n.dev = dev;
  n.off = off;
  inodes.push(n);
  return n.id;
}

function inodeFor(dev: i32, off: i64): i32 {
  for (let i = 0; i < inodes.length; i++) {
    const n = unchecked(inodes[i]);
    if (n.dev == dev && off >= n.off && off < n.off + (<i64>n.pages << PAGE_SHIFT)) return i;
  }
  return -1;
}

@inline function nowJ(t: i64): u64 {
  return jiffiesAt(t);
}

function kworkerDelay(): i64 {
  const m = cfg.kworkerLatencyNs;
  if (m <= 0) return 0;
  const u = rng.unit();
  return <i64>(-<f64>m * Math.log(1.0 - u));
}

function wbFor(dev: i32, memcg: i32): i32 {
  for (let i = 0; i < wbs.length; i++) {
    const w = unchecked(wbs[i]);
    if (w.dev == dev && w.memcg == memcg && !w.dying) return i;
  }
  const w = new Wb();
  w.id = wbs.length;
  w.dev = dev;
  w.memcg = memcg;
  w.blkcg = blkcgOf.get(memcg);
  w.bwStampJ = 0;
  wbs.push(w);
  return w.id;
}

/** The wb a new inode of writer cgroup `cg` attaches to (inode_attach_wb). */
function attachWbFor(dev: i32, cg: i32): i32 {
  if (!cfg.cgwb) return wbFor(dev, 0);
  return wbFor(dev, memcgOf.get(cg));
}

@inline function memcgId(w: Wb): i32 {
  return w.memcg + 1;
}

// ---------------------------------------------------------------- dirty counting

/** Pages of `n` that are dirty by time t (excluding pages still to be copied). */
function futurePages(n: Inode, t: i64): i32 {
  let f = 0;
  let k = 0;
  for (let i = 0; i < n.callT0.length; i++) {
    const t0 = n.callT0.get(i);
    const m = n.callN.get(i);
    const c = n.callC.get(i);
    const done = c > 0 ? (t - t0) / c : <i64>m;
    if (done < <i64>m) {
      f += m - <i32>(done < 0 ? 0 : done);
      // keep
      n.callT0.set(k, t0);
      n.callN.set(k, m);
      n.callC.set(k, c);
      k++;
    }
  }
  n.callT0.length = k;
  n.callN.length = k;
  n.callC.length = k;
  return f;
}

/** First time after t a page of `n` becomes dirty, or -1. */
function nextDirtyTime(n: Inode, t: i64): i64 {
  let best: i64 = -1;
  for (let i = 0; i < n.callT0.length; i++) {
    const t0 = n.callT0.get(i);
    const m = n.callN.get(i);
    const c = n.callC.get(i);
    if (c <= 0) continue;
    let k = (t - t0) / c; // pages copied by t
    if (k < 0) k = 0;
    if (k >= <i64>m) continue;
    const nt = t0 + (k + 1) * c;
    if (best < 0 || nt < best) best = nt;
  }
  return best;
}

@inline function visibleDirty(n: Inode, t: i64): i32 {
  return n.nrDirty - futurePages(n, t);
}

function wbVisibleDirty(w: Wb, t: i64): i64 {
  let s: i64 = 0;
  for (let i = 0; i < w.dirty.length; i++) s += visibleDirty(unchecked(inodes[w.dirty.get(i)]), t);
  return s;
}

function globalVisibleDirty(t: i64): i64 {
  let f: i64 = 0;
  for (let i = 0; i < inodes.length; i++) {
    const n = unchecked(inodes[i]);
    if (n.callT0.length > 0) f += futurePages(n, t);
  }
  return globalDirty - f;
}

// ---------------------------------------------------------------- dirty limits

let gThresh: i64 = 0;
let gBgThresh: i64 = 0;

/** domain_dirty_limits() for the global domain. */
function domainDirtyLimits(): void {
  const avail = cfg.dirtyableBytes >> PAGE_SHIFT;
  let thresh: i64;
  let bg: i64;
  if (cfg.dirtyBytes > 0) thresh = (cfg.dirtyBytes + PAGE_SIZE - 1) >> PAGE_SHIFT;
  else thresh = (cfg.dirtyRatio * PAGE_SIZE / 100) * avail / PAGE_SIZE;
  if (cfg.dirtyBackgroundBytes > 0) bg = (cfg.dirtyBackgroundBytes + PAGE_SIZE - 1) >> PAGE_SHIFT;
  else bg = (cfg.dirtyBackgroundRatio * PAGE_SIZE / 100) * avail / PAGE_SIZE;
  if (bg >= thresh) bg = thresh / 2;
  gThresh = thresh;
  gBgThresh = bg;
}

function dirtyLimit(): i64 {
  if (domDirtyLimit <= 0) {
    domainDirtyLimits();
    domDirtyLimit = gThresh;
  }
  return domDirtyLimit;
}

// ---- flex proportions of writeback completions (VM_COMPLETIONS_PERIOD_LEN)
@inline function periodAt(t: i64): i64 {
  const len = <i64>(3 * HZ) * TICK_NS;
  return t / len;
}

function reflectDomain(t: i64): void {
  const p = periodAt(t);
  if (p > domPeriod) {
    const d = p - domPeriod;
    domEvents = d >= 64 ? 0 : domEvents >> <u64>d;
    domPeriod = p;
  }
}

function reflectWb(w: Wb): void {
  if (w.fpropPeriod < domPeriod) {
    const d = domPeriod - w.fpropPeriod;
    w.fpropEvents = d >= 64 ? 0 : w.fpropEvents >> <u64>d;
    w.fpropPeriod = domPeriod;
  }
}

/** wb_calc_thresh(): the wb's share of `thresh` by its recent completions. */
function wbCalcThresh(w: Wb, thresh: i64, t: i64): i64 {
  reflectDomain(t);
  reflectWb(w);
  let num = w.fpropEvents;
  let den = domEvents;
  if (den <= num) den = num ? num : 1;
  return <i64>((<u64>thresh * num) / den);
}

/** wb_over_bg_thresh() (global domain). */
function overBgThresh(w: Wb, t: i64): bool {
  domainDirtyLimits();
  if (globalVisibleDirty(t) > gBgThresh) return true;
  return wbVisibleDirty(w, t) > wbCalcThresh(w, gBgThresh, t);
}

// ---------------------------------------------------------------- flusher wakeups

function scheduleFlusher(w: Wb, at: i64): void {
  if (w.flusherAt >= 0 && w.flusherAt <= at) return;
  w.flusherAt = at;
  schedule(at, EV_WRITEBACK, (T_FLUSHER << 20) | <u32>w.id);
}

/** wb_wakeup(): run the flusher now (after kworker latency). */
function wbWakeup(w: Wb, t: i64): void {
  scheduleFlusher(w, t + kworkerDelay());
}

/** wb_wakeup_delayed(): after dirty_writeback_interval; never shortens. */
function wbWakeupDelayed(w: Wb, t: i64): void {
  if (w.flusherAt >= 0) return;
  scheduleFlusher(w, t + cfg.dirtyWritebackCentisecs * 10_000_000 + kworkerDelay());
}

/** __mark_inode_dirty(): the inode goes on its wb's dirty list. */
function markInodeDirty(n: Inode, t: i64): void {
  if (n.onDirty) return;
  const w = unchecked(wbs[n.wb]);
  const wasIdle = w.dirty.length == 0;
  n.onDirty = true;
  n.dirtiedWhen = t;
  w.dirty.push(n.id);
  if (wasIdle) wbWakeupDelayed(w, t);
}

function removeDirty(w: Wb, id: i32): void {
  let k = 0;
  for (let i = 0; i < w.dirty.length; i++) {
    const x = w.dirty.get(i);
    if (x != id) w.dirty.set(k++, x);
  }
  w.dirty.length = k;
}

// ---------------------------------------------------------------- buffered write

/** A job's buffered write dirtied pages; returns the writer's delay in ns. */
export function wbWrite(job: i32, cg: i32, dev: i32, off: i64, size: u32, now: i64): i64 {
  const id = inodeFor(dev, off);
  if (id < 0) return 0; // no file declared: nothing to model
  const n = unchecked(inodes[id]);
  ensureCg(cg);
  const writerMemcg = cfg.cgwb ? memcgOf.get(cg) + 1 : 1;
  if (n.wb < 0) n.wb = attachWbFor(dev, cg);
  const w = unchecked(wbs[n.wb]);
  // file_update_time(): mtime makes the inode dirty before any page is
  markInodeDirty(n, now);
  let p0 = <i32>((off - n.off) >> PAGE_SHIFT);
  let p1 = <i32>((off - n.off + <i64>size + PAGE_SIZE - 1) >> PAGE_SHIFT);
  if (p0 < 0) p0 = 0;
  if (p1 > n.pages) p1 = n.pages;
  const c = cfg.copyNsPerPage;
  const wbId = memcgId(w);
  let m = 0;
  let foreign = 0;
  let foreignMemcg = 0;
  const pt = n.page;
  for (let p = p0; p < p1; p++) {
    let pm = pt.memcg(p);
    if (pm == 0) {
      pm = writerMemcg;
      pt.setMemcg(p, pm);
    }
    if (pt.dirtyAt(p) < 0) {
      m++;
      pt.setDirtyAt(p, now + <i64>m * c);
      if (!pt.allocated(p)) n.nrDirtyFresh++;
      if (cfg.cgwb && pm != wbId) {
        foreign++;
        foreignMemcg = pm;
      }
    }
  }
  if (m > 0) {
    n.nrDirty += m;
    globalDirty += m;
    n.callT0.push(now);
    n.callN.push(m);
    n.callC.push(c);
  }
  if (foreign > 0) trackForeignDirty(n, w, foreignMemcg, foreign, now);
  const pause = balanceDirtyPages(cg, dev, p1 - p0, now);
  // wb->dirty_sleep of the disk's root wb, which wbt's wb_recent_wait() reads
  if (pause > 0 && wbtActive && unchecked(wbs[attachWbFor(dev, cg)]).memcg == 0) wbtDirtySleep(now);
  return <i64>(p1 - p0) * c + pause;
}

/** mem_cgroup_track_foreign_dirty(): aggregated over one write call. */
function trackForeignDirty(n: Inode, w: Wb, pageMemcg: i32, count: i32, t: i64): void {
  const pcg = pageMemcg - 1;
  if (traceOn) {
    const r = lastTrackRec;
    if (r >= 0 && tp.get(r) == TP_TRACK_FOREIGN && tp.get(r + 2) == <i64>n.ino && tp.get(r + 3) == <i64>w.memcg &&
      tp.get(r + 4) == <i64>pcg) {
      tp.set(r + 1, t);
      tp.set(r + 5, tp.get(r + 5) + count);
    } else {
      lastTrackRec = tpPush(TP_TRACK_FOREIGN, t, n.ino, w.memcg, pcg, count, t, 0);
    }
  }
  // the page memcg's frn slots (mem_cgroup_track_foreign_dirty_slowpath)
  const j = nowJ(t);
  const base = pcg * MEMCG_CGWB_FRN_CNT;
  let oldest = -1;
  let oldestAt = j;
  let i = 0;
  for (; i < MEMCG_CGWB_FRN_CNT; i++) {
    const s = base + i;
    if (frnDev.get(s) == w.dev && frnMemcg.get(s) == memcgId(w)) break;
    if (timeBefore(frnAt.get(s), oldestAt) && !frnBusy.get(s)) {
      oldest = s;
      oldestAt = frnAt.get(s);
    }
  }
  if (i < MEMCG_CGWB_FRN_CNT) {
    const s = base + i;
    let upd = <u64>((cfg.dirtyExpireCentisecs * 10 * <i64>HZ / 1000) / 8);
    if (upd > <u64>HZ) upd = <u64>HZ;
    if (timeBefore(frnAt.get(s), j - upd)) frnAt.set(s, j);
  } else if (oldest >= 0) {
    frnDev.set(oldest, w.dev);
    frnMemcg.set(oldest, memcgId(w));
    frnAt.set(oldest, j);
  }
}

/** balance_dirty_pages(), global domain, for the writer's own wb. */
function balanceDirtyPages(cg: i32, dev: i32, pages: i32, t: i64): i64 {
  domainDirtyLimits();
  const dirtyVis = globalVisibleDirty(t);
  const dirty = globalDirty + globalWriteback;
  const thresh = gThresh;
  const bg = gBgThresh;
  const w = unchecked(wbs[attachWbFor(dev, cg)]);
  if (dirtyVis > bg && w.flusherAt < 0 && w.nrWriteback == 0) wbWakeup(w, t);
  const freerun = (thresh + bg) / 2;
  if (dirty <= freerun) return 0;
  if (w.flusherAt < 0 && w.nrWriteback == 0) wbWakeup(w, t);
  flushForeign(w, t);
  // update_dirty_limit(): follow thresh up at once, down slowly
  const j = nowJ(t);
  let limit = dirtyLimit();
  if (timeAfterEq(j, domLimitStampJ + <u64>max<i32>(<i32>HZ / 5, 1))) {
    domLimitStampJ = j;
    if (limit < thresh) limit = thresh;
    else {
      const tt = thresh > dirty ? thresh : dirty;
      if (limit > tt) limit -= (limit - tt) >> 5;
    }
    domDirtyLimit = limit;
  }
  const hard = limit > thresh ? limit : thresh;
  const maxPauseJ: i64 = max<i64>(<i64>HZ / 5, 1);
  if (dirty >= hard) return maxPauseJ * TICK_NS;
  // pos_ratio_polynom(setpoint, dirty, limit)
  const setpoint = (freerun + hard) / 2;
  const x: i64 = ((setpoint - dirty) << RATELIMIT_CALC_SHIFT) / ((hard - setpoint) | 1);
  let pos: i64 = x;
  pos = (pos * x) >> RATELIMIT_CALC_SHIFT;
  pos = (pos * x) >> RATELIMIT_CALC_SHIFT;
  pos += 1 << RATELIMIT_CALC_SHIFT;
  if (pos < 0) pos = 0;
  if (pos > 2 << RATELIMIT_CALC_SHIFT) pos = 2 << RATELIMIT_CALC_SHIFT;
  const taskRatelimit = (<i64>w.avgBw * pos) >> RATELIMIT_CALC_SHIFT;
  if (taskRatelimit <= 0) return maxPauseJ * TICK_NS;
  // period = HZ * pages / task_ratelimit jiffies; in ns without rounding to ticks
  let pauseNs = (<i64>pages * 1_000_000_000) / taskRatelimit;
  if (pauseNs > maxPauseJ * TICK_NS) pauseNs = maxPauseJ * TICK_NS;
  return pauseNs;
}

/** mem_cgroup_flush_foreign(): kick writeback of the foreign wbs this
 *  memcg's pages sit on, recorded in the last dirty_expire interval. */
function flushForeign(w: Wb, t: i64): void {
  if (!cfg.cgwb) return;
  const j = nowJ(t);
  const intv = <u64>(cfg.dirtyExpireCentisecs * 10 * <i64>HZ / 1000);
  const base = w.memcg * MEMCG_CGWB_FRN_CNT;
  for (let i = 0; i < MEMCG_CGWB_FRN_CNT; i++) {
    const s = base + i;
    const at = frnAt.get(s);
    if (at != 0 && timeAfterEq(at, j - intv + 1) && !frnBusy.get(s)) {
      frnAt.set(s, 0);
      const target = wbFor(frnDev.get(s), frnMemcg.get(s) - 1);
      if (traceOn) tpPush(TP_FLUSH_FOREIGN, t, w.memcg, frnDev.get(s), frnMemcg.get(s) - 1, 0, 0, 0);
      frnBusy.set(s, 1);
      const tw = unchecked(wbs[target]);
      const wk = workKind.push(WORK_FOREIGN);
      workArg.push(wbVisibleDirty(tw, t));
      workSlot.push(s);
      tw.works.push(wk);
      wbWakeup(tw, t);
    }
  }
}

// ---------------------------------------------------------------- writeback passes

/** writeback_chunk_size() for a WB_SYNC_NONE work. */
function chunkSize(w: Wb, nrPages: i64): i64 {
  let pages: i64 = <i64>(w.avgBw / 2);
  const dl = dirtyLimit() / DIRTY_SCOPE;
  if (dl < pages) pages = dl;
  if (nrPages < pages) pages = nrPages;
  return ((pages + MIN_WRITEBACK_PAGES) / MIN_WRITEBACK_PAGES) * MIN_WRITEBACK_PAGES;
}

let passSync: i32 = -1; // sync id the current pass's bios belong to

/** One writeback pass over an inode (writeback_single_inode / fdatawrite):
 *  writes up to `nrToWrite` pages dirty at time t, votes, issues bios.
 *  Returns pages written. */
function writeInode(n: Inode, nrToWrite: i64, syncAll: bool, reason: i64, t: i64): i64 {
  const w = unchecked(wbs[n.wb]);
  const elect = cfg.cgwb;
  if (elect) wbcAttach(memcgId(w), n.frnWinner);
  const start = syncAll ? 0 : n.writebackIndex;
  let written: i64 = 0;
  let runStart = -1;
  let p = start;
  const maxRun = <i32>cfg.bioMaxPages;
  const pt = n.page;
  for (; p < n.pages; p++) {
    if ((p == start || (p & (PAGES_PER_CHUNK - 1)) == 0) && !pt.chunkHasDirty(p)) {
      // no dirty page in this chunk: what the else branch below does at its
      // first page, then on to the next chunk with dirty pages
      if (runStart >= 0) {
        issueBio(n, w, runStart, p - runStart, syncAll, t);
        runStart = -1;
      }
      if (written >= nrToWrite) break;
      p = pt.nextDirtyChunk(p) - 1;
      continue;
    }
    const d = pt.dirtyAt(p);
    const ok = d >= 0 && d <= t && written < nrToWrite;
    if (ok) {
      pt.setDirtyAt(p, -1);
      pt.setWriteback(p, true);
      if (!pt.allocated(p)) {
        pt.setAllocated(p);
        n.nrDirtyFresh--;
      }
      if (elect) {
        const pm = pt.memcg(p);
        if (pm > 0 && cgOnline.get(pm - 1)) wbcAccount(pm, PAGE_SIZE);
      }
      written++;
      if (runStart < 0) runStart = p;
      if (p - runStart + 1 >= maxRun) {
        issueBio(n, w, runStart, p + 1 - runStart, syncAll, t);
        runStart = -1;
      }
    } else {
      if (runStart >= 0) {
        issueBio(n, w, runStart, p - runStart, syncAll, t);
        runStart = -1;
      }
      if (written >= nrToWrite) break;
    }
  }
  if (runStart >= 0) issueBio(n, w, runStart, p - runStart, syncAll, t);
  n.nrDirty -= <i32>written;
  globalDirty -= written;
  n.writebackIndex = p >= n.pages ? 0 : p;
  passes++;
  pagesWritten += written;
  if (traceOn) tpPush(TP_PASS, t, n.ino, w.memcg, written, syncAll ? -1 : nrToWrite, n.writebackIndex, reason);
  if (elect) {
    wbcDetach(n.frnHistory, <u64>n.frnAvgTime, w.avgBw);
    if (detTrace && traceOn) tpPush(TP_FOREIGN_HISTORY, t, n.ino, w.memcg, detHistory, detMaxId - 1, detSlots, written);
    if (detSwitch) inodeSwitchWbs(n, detMaxId, t);
    n.frnWinner = detMaxId;
    n.frnAvgTime = detAvgTime;
    n.frnHistory = detHistory;
  }
  // requeue_inode(): clean -> off the dirty list; a page still being copied
  // will redirty it (and may wake the flusher again)
  if (visibleDirty(n, t) == 0) {
    if (n.onDirty) {
      n.onDirty = false;
      removeDirty(w, n.id);
    }
    const nt = nextDirtyTime(n, t);
    if (nt >= 0 && (n.redirtyAt < 0 || nt < n.redirtyAt)) {
      n.redirtyAt = nt;
      schedule(nt, EV_WRITEBACK, (T_REDIRTY << 20) | <u32>n.id);
    }
  }
  return written;
}

function issueBio(n: Inode, w: Wb, p0: i32, np: i32, syncAll: bool, t: i64): void {
  const slot = allocBio();
  fillBio(slot, -1, passSync, n.id, w.blkcg, n.dev, 1, n.off + (<i64>p0 << PAGE_SHIFT), <u32>np << PAGE_SHIFT,
    BIO_WRITEBACK | (syncAll ? BIO_SYNC : 0), t);
  // wb index in the bio's spare column (the wb the pages are accounted to)
  bioAt(slot).seq = w.id;
  n.nrWriteback += np;
  w.nrWriteback += np;
  globalWriteback += np;
  submitBio(slot, t);
}

/** A writeback bio completed. */
export function wbBioDone(slot: i32, now: i64): void {
  const n = unchecked(inodes[bioAt(slot).worker]);
  const w = unchecked(wbs[bioAt(slot).seq]);
  const np = <i32>(bioAt(slot).size >> PAGE_SHIFT);
  const p0 = <i32>((bioAt(slot).off - n.off) >> PAGE_SHIFT);
  for (let p = p0; p < p0 + np; p++) n.page.setWriteback(p, false);
  n.nrWriteback -= np;
  w.nrWriteback -= np;
  globalWriteback -= np;
  w.written += <u64>np;
  // wb_domain_writeout_add(): flex-proportion completions
  reflectDomain(now);
  reflectWb(w);
  w.fpropEvents += <u64>np;
  domEvents += <u64>np;
  const j = nowJ(now);
  if (timeAfterEq(j, w.bwStampJ + <u64>max<i32>(<i32>HZ / 5, 1)) || w.nrWriteback == 0) updateBandwidth(w, j);
  if (w.nrWriteback == 0 && w.waiters > 0) syncsCheck(w, now);
}

/** wb_update_write_bandwidth() (mm/page-writeback.c). */
function updateBandwidth(w: Wb, j: u64): void {
  let elapsed = j - w.bwStampJ;
  if (elapsed < <u64>max<i32>(<i32>HZ / 5, 1) && w.nrWriteback != 0) return;
  if (elapsed < 1) elapsed = 1;
  let period: u64 = 1;
  while (period < <u64>(3 * HZ)) period <<= 1; // roundup_pow_of_two(3 * HZ)
  const shift = <u64>ctz(period);
  let avg = w.avgBw;
  const old = w.writeBw;
  let bw: u64 = (w.written - min(w.written, w.writtenStamp)) * <u64>HZ;
  if (elapsed > period) {
    bw = bw / elapsed;
    avg = bw;
  } else {
    bw += old * (period - elapsed);
    bw >>= shift;
    if (avg > old && old >= bw) avg -= (avg - old) >> 3;
    if (avg < old && old <= bw) avg += (old - avg) >> 3;
  }
  if (avg < 1) avg = 1;
  w.writeBw = bw;
  w.avgBw = avg;
  w.writtenStamp = w.written;
  w.bwStampJ = j;
}

/** wb_bandwidth_estimate_start(). */
function bandwidthEstimateStart(w: Wb, t: i64): void {
  const j = nowJ(t);
  if (j - w.bwStampJ > <u64>HZ && w.nrWriteback == 0) {
    w.writtenStamp = w.written;
    w.bwStampJ = j;
  }
}

// ---- wb_writeback(): one work item
const WK_NONE: i32 = 0; // start_all / foreign flush: WB_SYNC_NONE, chunked
const WK_KUPDATE: i32 = 1;
const WK_BACKGROUND: i32 = 2;
const WK_SYNC_ALL: i32 = 3;

function wbWriteback(w: Wb, kind: i32, nrPages0: i64, reason: i64, t: i64): void {
  bandwidthEstimateStart(w, t);
  let nrPages = nrPages0;
  const expireNs = cfg.dirtyExpireCentisecs * 10_000_000;
  for (let iter = 0; iter < 1 << 20; iter++) {
    if (nrPages <= 0) break;
    if (kind == WK_BACKGROUND && !overBgThresh(w, t)) break;
    if (w.dirty.length == 0) break;
    // queue_io(): the inodes to write this iteration
    let progress: i64 = 0;
    const cnt = w.dirty.length;
    for (let k = 0; k < cnt && k < w.dirty.length; k++) {
      const id = w.dirty.get(k);
      const n = unchecked(inodes[id]);
      if (n.wb != w.id) continue;
      if (kind == WK_KUPDATE && n.dirtiedWhen > t - expireNs) continue;
      const chunk = kind == WK_SYNC_ALL ? LONG_MAX : chunkSize(w, nrPages);
      const before = w.dirty.length;
      const wrote = writeInode(n, chunk, kind == WK_SYNC_ALL, reason, t);
      progress += wrote;
      nrPages -= wrote;
      if (w.dirty.length < before) k--; // the inode left the list
      if (nrPages <= 0) break;
    }
    if (kind == WK_SYNC_ALL) break; // one loop writes everything
    if (progress == 0) break;
  }
}

function flusherRun(w: Wb, t: i64): void {
  w.flusherAt = -1;
  // queued works
  for (let i = 0; i < w.works.length; i++) {
    const wk = w.works.get(i);
    if (workKind.get(wk) == WORK_SYNC_ALL) {
      passSync = <i32>workArg.get(wk);
      wbWriteback(w, WK_SYNC_ALL, LONG_MAX, REASON_SYNC, t);
      passSync = -1;
      addSyncWaiter(<i32>workArg.get(wk), w, t);
    } else {
      wbWriteback(w, WK_NONE, workArg.get(wk), REASON_FOREIGN_FLUSH, t);
      frnBusy.set(workSlot.get(wk), 0);
    }
  }
  w.works.length = 0;
  if (w.startAll) {
    w.startAll = false;
    wbWriteback(w, WK_NONE, globalVisibleDirty(t) + 1, REASON_SYNC, t);
  }
  // wb_check_old_data_flush()
  if (cfg.dirtyWritebackCentisecs > 0) {
    const j = nowJ(t);
    const intv = <u64>(cfg.dirtyWritebackCentisecs * 10 * <i64>HZ / 1000);
    if (!timeBefore(j, w.lastOldFlushJ + intv)) {
      w.lastOldFlushJ = j;
      const nr = globalVisibleDirty(t);
      if (nr > 0) wbWriteback(w, WK_KUPDATE, nr, REASON_PERIODIC, t);
    }
  }
  // wb_check_background_flush()
  if (overBgThresh(w, t)) wbWriteback(w, WK_BACKGROUND, LONG_MAX, REASON_BACKGROUND, t);
  if (w.dirty.length > 0 && cfg.dirtyWritebackCentisecs > 0) wbWakeupDelayed(w, t);
}

// ---------------------------------------------------------------- sync, fsync

function addSyncWaiter(s: i32, w: Wb, t: i64): void {
  syncWaitWb.push(w.id);
  syncWaitId.push(s);
  w.waiters++;
  if (w.nrWriteback == 0) syncsCheck(w, t);
}

function syncsCheck(w: Wb, t: i64): void {
  let k = 0;
  for (let i = 0; i < syncWaitWb.length; i++) {
    const wid = syncWaitWb.get(i);
    const s = syncWaitId.get(i);
    if (wid == w.id && w.nrWriteback == 0) {
      w.waiters--;
      const left = syncPendingWbs.get(s) - 1;
      syncPendingWbs.set(s, left);
      if (left == 0) finishSync(s, t);
    } else {
      syncWaitWb.set(k, wid);
      syncWaitId.set(k, s);
      k++;
    }
  }
  syncWaitWb.length = k;
  syncWaitId.length = k;
}

function finishSync(s: i32, t: i64): void {
  syncDone.set(s, t);
  if (traceOn) tpPush(TP_SYNC_DONE, t, s, syncStart.get(s), 0, 0, 0, 0);
}

/** sync(2): wakeup_flusher_threads() + sync_inodes_sb() on every wb. */
function doSync(t: i64): void {
  const s = syncStart.push(t);
  syncDone.push(-1);
  syncPendingWbs.push(0);
  let pending = 0;
  for (let i = 0; i < wbs.length; i++) {
    const w = unchecked(wbs[i]);
    if (w.dirty.length == 0 && w.nrWriteback == 0) continue;
    pending++;
    let fresh = false;
    for (let k = 0; k < w.dirty.length; k++) if (unchecked(inodes[w.dirty.get(k)]).nrDirtyFresh > 0) fresh = true;
    const pct = fresh ? cfg.syncNoneFirstNewPct : cfg.syncNoneFirstPct;
    const wk = workKind.push(WORK_SYNC_ALL);
    workArg.push(s);
    workSlot.push(-1);
    if (w.dirty.length > 0) w.startAll = true;
    const lat = kworkerDelay();
    if (<i64>rng.below(100) < pct) {
      // the flusher runs start_all before sync_inodes_sb queues its work
      scheduleFlusher(w, t + lat);
      const q = qWork.push(wk);
      qWb.push(w.id);
      schedule(t + lat + 1, EV_WRITEBACK, (T_WORK_QUEUE << 20) | <u32>q);
    } else {
      w.works.push(wk);
      scheduleFlusher(w, t + lat);
    }
  }
  syncPendingWbs.set(s, pending);
  if (pending == 0) finishSync(s, t);
}

/** fsync(2) of one file: filemap_write_and_wait_range() in the caller. */
function doFsync(id: i32, t: i64): void {
  const s = syncStart.push(t);
  syncDone.push(-1);
  syncPendingWbs.push(1);
  const n = unchecked(inodes[id]);
  if (n.wb < 0) {
    syncPendingWbs.set(s, 0);
    finishSync(s, t);
    return;
  }
  const w = unchecked(wbs[n.wb]);
  passSync = s;
  writeInode(n, LONG_MAX, true, REASON_FSYNC, t);
  passSync = -1;
  addSyncWaiter(s, w, t);
}

/** echo 1 > drop_caches: clean, idle pages leave the cache (uncharged). */
function dropCaches(): void {
  for (let i = 0; i < inodes.length; i++) {
    unchecked(inodes[i]).page.dropClean();
  }
}

// ---------------------------------------------------------------- switching

/** inode_switch_wbs(): queue a switch of `n` to memcg id `newId`'s wb. */
function inodeSwitchWbs(n: Inode, newId: i32, t: i64): void {
  if (n.switching) return;
  if (iswNrInFlight > WB_FRN_MAX_IN_FLIGHT) return;
  const cg = newId - 1;
  if (cg < 0 || cg >= cgOnline.length || !cgOnline.get(cg)) return; // css_tryget fails
  const nw = wbFor(n.dev, cg);
  if (nw == n.wb) return;
  iswNrInFlight++;
  n.switching = true;
  const k = iswInode.push(n.id);
  iswNewWb.push(nw);
  schedule(t + cfg.switchDelayNs, EV_WRITEBACK, (T_SWITCH << 20) | <u32>k);
}

/** inode_do_switch_wbs(): move the inode, reset its foreign history. */
function doSwitch(k: i32, t: i64): void {
  const n = unchecked(inodes[iswInode.get(k)]);
  const old = unchecked(wbs[n.wb]);
  const nw = unchecked(wbs[iswNewWb.get(k)]);
  if (traceOn) tpPush(TP_SWITCH_WBS, t, n.ino, old.memcg, nw.memcg, 0, 0, 0);
  if (n.onDirty) {
    removeDirty(old, n.id);
    nw.dirty.push(n.id); // inode_io_list_move_locked: no wakeup
  }
  n.wb = nw.id;
  n.frnWinner = 0;
  n.frnAvgTime = 0;
  n.frnHistory = 0;
  n.switching = false;
  iswNrInFlight--;
}

/** A memcg goes offline (rmdir): its pages stop voting, its wbs die and
 *  their clean inodes move to the nearest live ancestor's wb
 *  (cleanup_offline_cgwb). */
function cgroupOffline(cg: i32, t: i64): void {
  ensureCg(cg);
  cgOnline.set(cg, 0);
  for (let i = 0; i < wbs.length; i++) {
    const w = unchecked(wbs[i]);
    if (w.memcg != cg || w.dying) continue;
    w.dying = true;
    let anc = cgParent.get(cg);
    while (anc > 0 && !cgOnline.get(anc)) anc = cgParent.get(anc);
    if (anc < 0) anc = 0;
    const nw = wbFor(w.dev, anc);
    for (let k = 0; k < inodes.length; k++) {
      const n = unchecked(inodes[k]);
      if (n.wb != w.id || n.onDirty || n.switching) continue;
      iswNrInFlight++;
      n.switching = true;
      const q = iswInode.push(n.id);
      iswNewWb.push(nw);
      schedule(t + cfg.switchDelayNs, EV_WRITEBACK, (T_SWITCH << 20) | <u32>q);
    }
  }
}

// ---------------------------------------------------------------- events

/** Schedule a timed operation (sync, fsync, drop_caches, sysctl, rmdir). */
export function addOp(t: i64, kind: i32, a: i64, b: i64): i32 {
  const k = opKind.push(kind);
  opA.push(a);
  opB.push(b);
  schedule(t, EV_WRITEBACK, (T_OP << 20) | <u32>k);
  return k;
}

export function wbEvent(arg: u32, now: i64): void {
  const type = arg >> 20;
  const idx = <i32>(arg & 0xfffff);
  if (type == T_FLUSHER) {
    const w = unchecked(wbs[idx]);
    if (w.flusherAt != now) return; // superseded
    flusherRun(w, now);
  } else if (type == T_OP) {
    const k = opKind.get(idx);
    if (k == OP_SYNC) doSync(now);
    else if (k == OP_FSYNC) doFsync(<i32>opA.get(idx), now);
    else if (k == OP_DROP_CACHES) dropCaches();
    else if (k == OP_SET) setKey(<i32>opA.get(idx), opB.get(idx));
    else if (k == OP_OFFLINE) cgroupOffline(<i32>opA.get(idx), now);
  } else if (type == T_WORK_QUEUE) {
    const w = unchecked(wbs[qWb.get(idx)]);
    w.works.push(qWork.get(idx));
    wbWakeup(w, now);
  } else if (type == T_SWITCH) {
    doSwitch(idx, now);
  } else if (type == T_REDIRTY) {
    const n = unchecked(inodes[idx]);
    if (n.redirtyAt != now) return;
    n.redirtyAt = -1;
    if (n.wb >= 0 && visibleDirty(n, now) > 0) markInodeDirty(n, now);
  }
}

// ---------------------------------------------------------------- queries

export function inodeOwner(id: i32): i32 {
  const n = unchecked(inodes[id]);
  return n.wb < 0 ? -1 : unchecked(wbs[n.wb]).memcg;
}

export function inodeHistory(id: i32): u32 {
  return unchecked(inodes[id]).frnHistory;
}

export function inodeDirty(id: i32): i32 {
  return unchecked(inodes[id]).nrDirty;
}

export function wbAvgBandwidth(id: i32): u64 {
  return unchecked(wbs[id]).avgBw;
}
