// The page cache for buffered reads: cache hits, readahead, and the bios a
// reader's cgroup is charged for.
//
// Spec: Linux 6.1 mm/readahead.c and mm/filemap.c (filemap_read(),
// filemap_get_pages(), filemap_get_read_batch(), page_cache_sync_ra(),
// page_cache_async_ra(), ondemand_readahead(), do_page_cache_ra(),
// page_cache_ra_unbounded(), force_page_cache_ra()); 6.12 and 6.18 fold
// ondemand_readahead() into the two entry points (Jan Kara's 6.10 rework):
// the sync path no longer ramps a window at its expected index (a miss there
// starts a new initial window), async_size is size / 2 when the read covers
// the window, the self-merge of the next window is gone; 6.18 also trims
// each async window's end to its ra->order alignment (syncRa612(),
// asyncRa612(): with order-0 pages, as modelled, a 4-page alignment).
// Large folios are not modelled (the block device's cache, which the oracle
// reads, uses order-0 pages in 6.1).
//
// A buffered read(2) of [pos, pos+len) does not become a bio. It walks the
// pages of the range, as filemap_get_pages() does, in batches: the run of
// cached pages from the current page, ending at the first page that is not
// uptodate (its bio is in flight) or carries PG_readahead.
//   - No cached page at all: synchronous readahead (page_cache_sync_ra())
//     adds pages and submits bios for them, then the batch is taken again.
//   - The batch's last page has PG_readahead: asynchronous readahead
//     (page_cache_async_ra()) pushes the window forward; the mark is cleared.
//   - The last page is not uptodate: the reader sleeps until the bio that
//     reads it completes (folio_wait_locked), then carries on. A reader
//     meeting a page another reader's readahead is reading waits the same
//     way - it is not charged for that bio.
// The read completes when its last page is copied; a read that found every
// page uptodate costs no device IO, only the copy (COPY_PAGE_NS a page).
//
// Readahead state is fio's file's (struct file_ra_state, one per job: fio
// opens the file per job; the oracle's iotest threads share one fd, i.e. one
// job): start, size, async_size, prev_pos, ra_pages (read_ahead_kb / 4 of
// the device at open; POSIX_FADV_SEQUENTIAL doubles it, fio's
// fadvise_hint=1 on a sequential job) and FMODE_RANDOM (POSIX_FADV_RANDOM,
// fadvise_hint=1 on a random job: force_page_cache_ra() of the request, no
// window). Windows (pages):
//   get_init_ra_size(req, max): roundup_pow_of_two(req) x4 if <= max/32,
//     x2 if <= max/4, else max
//   get_next_ra_size(cur, max): x4 if cur < max/16, x2 if cur <= max/2, else max
// and ondemand_readahead()'s cases: index 0 or a sequential miss
// (index - prev_index <= 1) start a window; the expected index (the marked
// page, or the window's end) ramps it; a marked page without matching state
// queries the cache (page_cache_next_miss); a miss after cached history
// pages (count_history_pages) sizes the window from the history; anything
// else is the "standalone, small random read: read as is" - exactly the
// requested pages, state untouched. blk_cgroup_congested() (a cgroup or an
// ancestor with blkcg use_delay on: iocost's debt delay) turns a sync
// readahead into a forced one-page read and skips async readahead.
//
// Bios: page_cache_ra_unbounded() adds the missing pages of the window (a
// page already cached ends the current run: read_pages() submits it) and
// marks page `nr - lookahead` PG_readahead; each run of contiguous new pages
// is one bio (mpage_readahead(), at most BIO_MAX_VECS = 256 pages), REQ_RAHEAD,
// charged to the reader's cgroup; blk-throttle, iocost and the device see it
// as any bio (the device splits it by max_sectors, and blk-throttle counts
// the pieces against iops as 6.1 does). The block device's size is the EOF
// of do_page_cache_ra().
//
// Memory: every cached page is charged to the memcg of the reader whose
// readahead added it (as filemap_add_folio() charges current's memcg). A
// cgroup with memory.max set reclaims its own oldest clean pages that are
// not under IO before a page is added beyond its limit (insertion order: the
// inactive list; activation by a second access is not modelled, nor is the
// parent's limit, nor global memory pressure). The writeback model's dirty
// pages live in its own per-inode tables and are not counted against this
// limit (not modelled: reads and dirty pages competing in one LRU).
//
// Worked example (6.1, read_ahead_kb=128: ra_pages 32; 4 KiB sequential
// reads from offset 0, max_sectors_kb 124 as the oracle's null_blk):
//   read 0: no page -> sync ra, index 0: initial window: size
//     get_init_ra_size(1, 32) = 4, async_size 3: pages 0-3 (16 KiB bio),
//     page 1 marked. The read waits for page 0's bio.
//   read 1: page 1 marked -> async ra: index 1 == start + size - async, so
//     start 4, size get_next_ra_size(4) = 8, async 8: pages 4-11 (32 KiB),
//     page 4 marked; page 1 is uptodate: completes at once.
//   read 4: marked -> start 12, size 16: pages 12-27 (64 KiB), then waits
//     for page 4's bio if it is still in flight.
//   read 12: start 28, size 32: pages 28-59 (128 KiB: the device splits it
//     into 124 KiB + 4 KiB requests, two IOs for riops).
//   From then on every 32nd read submits the next 128 KiB window.
// So 1024 reads of 4 KiB (4 MiB) are 4 + 8 + 16 + 32 x 31 + ... pages of
// bios: fio reports 4 MiB read, io.stat more (the last window reads ahead
// past the end of the job's range).

import { Vec } from "../engine/vec";
import { schedule, EV_DEVICE_DONE, EV_PC_RESUME } from "../engine/events";
import { raCpuReplay, recordedRaCpu } from "../device/device";
import { allocBio, freeBio, bioAt, BIO_READAHEAD } from "../engine/bios";
import { fillBio, submitBio } from "../engine/path";
import { cgParent } from "../engine/cgroups";
import { jobAt } from "../workload/jobs";
import { record, recordOn, seriesBinNs } from "../stats/stats";
import { iocgs } from "../iocost/iocost";

export const PAGE_SHIFT: i32 = 12;
// CPU time of copying one cached page to the reader (copy_folio_to_iter):
// an assumption, not a measurement - 4 KiB at ~16 GB/s of memcpy. It keeps a
// pass over cached pages from taking no time at all (fio's runtime would be 0).
export const COPY_PAGE_NS: i64 = 250;
const BIO_MAX_VECS: i32 = 256;

export let pagecacheActive: bool = false;
// kernel profile: 0 = 6.1, 1 = 6.12, 2 = 6.18 (see sync/async below)
let profile: i32 = 0;

// per device
const devRaPages = new Vec<i32>(4); // bdi->ra_pages (read_ahead_kb / 4)
const devIoPages = new Vec<i32>(4); // bdi->io_pages (max_sectors_kb / 4)
const devLastPage = new Vec<i64>(4); // (size - 1) >> PAGE_SHIFT

// per job: struct file_ra_state and the file's mode
const raStart = new Vec<i64>(4);
const raSize = new Vec<i64>(4);
const raAsync = new Vec<i64>(4);
const raPrevPos = new Vec<i64>(4);
const raPages = new Vec<i64>(4);
const fRandom = new Vec<u8>(4);
const fInvalidate = new Vec<u8>(4);
const jobRaSeq = new Vec<i32>(4);
const raOrder = new Vec<i64>(4); // 6.18 ra->order

// per cgroup (memcg): pages charged, memory.max in pages (0 = max), the
// pages in charge order, statistics
const cgPages = new Vec<i64>(4);
const cgMaxPages = new Vec<i64>(4);
const cgLru = new Array<Vec<u64>>();
const cgLruHead = new Vec<i32>(4);
export const cgHitPages = new Vec<i64>(4); // pages a read found uptodate
export const cgRaPages = new Vec<i64>(4); // pages readahead added
export const cgEvicted = new Vec<i64>(4); // pages reclaimed by memory.max
export const cgWaitPages = new Vec<i64>(4); // waits on a page under IO

// per page, keyed by dev << 40 | index:
//   bit 0 uptodate, bit 1 PG_readahead, bits 8..31 slot + 1 of the bio
//   reading it (0 = none), bits 32..63 memcg cgroup + 1
const pages = new Map<u64, u64>();
const F_UPTODATE: u64 = 1;
const F_MARK: u64 = 2;

// readahead bio completions (time, cgroup, bytes) when a time series is kept:
// the device side of the series (io.stat's view), binned by the bindings
export const devDoneT = new Vec<i64>(16);
export const devDoneCg = new Vec<i32>(16);
export const devDoneBytes = new Vec<u32>(16);

// per bio slot: the first app read waiting for it (-1 none); reads link
// through their own `next` (an app read sits in no queue)
const waitHead = new Vec<i32>(64);

// The submitter sleeps in the rq-qos chain. read_pages() submits the
// readahead bios in the reader's own context, and rq_qos_throttle() (iocost's
// ioc_rqos_throttle(), blk-iolatency) puts the submitting task to sleep until
// its bio may go (6.1 block/blk-iocost.c: "the issuer is blocked on
// @iocg->waitq"; bios are split by max_sectors before it, and each piece is
// throttled in turn). blk-throttle does not: it queues the bio and returns. So
// a reader whose sync or async readahead is held by io.cost is held with it:
// filemap_get_pages() calls page_cache_async_ra() before it looks at the
// page's uptodate bit, so even a read whose pages are all cached waits for
// the next window's bio to get through io.cost (6.1 guest, bufread_iocost:
// a 64 KiB read of cached pages took 81 ms, its async window's bio waited
// 80 ms in io.cost).
// passWait, per bio slot: -2 just submitted and not yet through rq-qos, -1
// through (or not a readahead bio), >= 0 the reader (app read slot) asleep
// until it is through. passPending, per app read slot: its readahead bios
// still held.
const passWait = new Vec<i32>(64);
const passPending = new Vec<i32>(64);
let curReader: i32 = -1;

@inline function key(dev: i32, index: i64): u64 {
  return ((<u64>dev) << 40) | <u64>index;
}

export function resetPagecache(): void {
  pagecacheActive = false;
  profile = 0;
  devRaPages.length = 0;
  devIoPages.length = 0;
  devLastPage.length = 0;
  raStart.length = 0;
  raSize.length = 0;
  raAsync.length = 0;
  raPrevPos.length = 0;
  raPages.length = 0;
  fRandom.length = 0;
  fInvalidate.length = 0;
  jobRaSeq.length = 0;
  raOrder.length = 0;
  cgPages.length = 0;
  cgMaxPages.length = 0;
  cgLru.length = 0;
  cgLruHead.length = 0;
  cgHitPages.length = 0;
  cgRaPages.length = 0;
  cgEvicted.length = 0;
  cgWaitPages.length = 0;
  pages.clear();
  waitHead.length = 0;
  passWait.length = 0;
  passPending.length = 0;
  curReader = -1;
  devDoneT.length = 0;
  devDoneCg.length = 0;
  devDoneBytes.length = 0;
}

export function pcEnable(kernelProfile: i32): void {
  pagecacheActive = true;
  profile = kernelProfile;
}

export function pcDevice(dev: i32, raKb: i32, ioKb: i32, sizeBytes: i64): void {
  while (devRaPages.length <= dev) {
    devRaPages.push(32);
    devIoPages.push(32);
    devLastPage.push(i64.MAX_VALUE);
  }
  devRaPages.set(dev, raKb >> 2);
  devIoPages.set(dev, ioKb >> 2);
  devLastPage.set(dev, sizeBytes > 0 ? (sizeBytes - 1) >> PAGE_SHIFT : i64.MAX_VALUE);
}

function growCg(cg: i32): void {
  while (cgPages.length <= cg) {
    cgPages.push(0);
    cgMaxPages.push(0);
    cgLru.push(new Vec<u64>(16));
    cgLruHead.push(0);
    cgHitPages.push(0);
    cgRaPages.push(0);
    cgEvicted.push(0);
    cgWaitPages.push(0);
  }
}

export function pcMemoryMax(cg: i32, bytes: i64): void {
  growCg(cg);
  cgMaxPages.set(cg, bytes > 0 ? bytes >> PAGE_SHIFT : 0);
}

/** A job's file: advice 0 none, 1 SEQUENTIAL (ra_pages x2), 2 RANDOM (FMODE_RANDOM). */
export function pcJob(job: i32, dev: i32, advice: i32, invalidate: bool): void {
  while (raStart.length <= job) {
    raStart.push(0);
    raSize.push(0);
    raAsync.push(0);
    raPrevPos.push(-1);
    raPages.push(32);
    fRandom.push(0);
    fInvalidate.push(0);
    jobRaSeq.push(0);
    raOrder.push(0);
  }
  const ra = <i64>(dev < devRaPages.length ? devRaPages.get(dev) : 32);
  raPages.set(job, advice == 1 ? ra * 2 : ra);
  fRandom.set(job, advice == 2 ? 1 : 0);
  fInvalidate.set(job, invalidate ? 1 : 0);
}

export function pcStat(cg: i32, field: i32): i64 {
  if (cg >= cgPages.length) return 0;
  if (field == 0) return cgHitPages.get(cg);
  if (field == 1) return cgRaPages.get(cg);
  if (field == 2) return cgEvicted.get(cg);
  if (field == 3) return cgWaitPages.get(cg);
  return cgPages.get(cg);
}

// ------------------------------------------------------------ page state

@inline function pageGet(dev: i32, index: i64): u64 {
  const k = key(dev, index);
  return pages.has(k) ? pages.get(k) : 0;
}

function pageDrop(dev: i32, index: i64, v: u64): void {
  pages.delete(key(dev, index));
  const m = <i32>(v >> 32) - 1;
  if (m >= 0) cgPages.set(m, cgPages.get(m) - 1);
}

/** memory.max: the memcg reclaims its oldest clean, idle pages to make room for one. */
function reclaim(cg: i32): void {
  const max = cgMaxPages.get(cg);
  if (max <= 0) return;
  const lru = cgLru[cg];
  let head = cgLruHead.get(cg);
  let tries = lru.length - head;
  while (cgPages.get(cg) >= max && tries-- > 0) {
    const k = lru.get(head++);
    if (!pages.has(k)) continue;
    const v = pages.get(k);
    if (<i32>(v >> 32) - 1 != cg) continue;
    if ((v & F_UPTODATE) == 0) {
      lru.push(k); // under IO: not reclaimable now, look again later
      continue;
    }
    pages.delete(k);
    cgPages.set(cg, cgPages.get(cg) - 1);
    cgEvicted.set(cg, cgEvicted.get(cg) + 1);
  }
  // compact the consumed head now and then
  if (head > 4096 && head * 2 > lru.length) {
    const n = lru.length - head;
    for (let i = 0; i < n; i++) lru.set(i, lru.get(head + i));
    lru.length = n;
    head = 0;
  }
  cgLruHead.set(cg, head);
}

function pageAdd(dev: i32, index: i64, cg: i32, slotPlus1: i32, mark: bool): void {
  reclaim(cg);
  const v: u64 = ((<u64>(cg + 1)) << 32) | ((<u64>slotPlus1) << 8) | (mark ? F_MARK : 0);
  const k = key(dev, index);
  pages.set(k, v);
  cgPages.set(cg, cgPages.get(cg) + 1);
  cgLru[cg].push(k);
  cgRaPages.set(cg, cgRaPages.get(cg) + 1);
}

/** fio's invalidate=1 (POSIX_FADV_DONTNEED over the job's file): clean idle pages leave. */
export function pcInvalidate(dev: i32, off: i64, len: i64): void {
  const first = off >> PAGE_SHIFT;
  const last = (off + len - 1) >> PAGE_SHIFT;
  if (<i64>pages.size < last - first + 1) {
    const ks = pages.keys();
    for (let i = 0; i < ks.length; i++) {
      const k = ks[i];
      if (<i32>(k >> 40) != dev) continue;
      const idx = <i64>(k & 0xffffffffff);
      if (idx < first || idx > last) continue;
      const v = pages.get(k);
      if (v & F_UPTODATE) pageDrop(dev, idx, v);
    }
    return;
  }
  for (let p = first; p <= last; p++) {
    const v = pageGet(dev, p);
    if (v & F_UPTODATE) pageDrop(dev, p, v);
  }
}

/** drop_caches for reads: every clean idle page leaves. */
export function pcDropAll(): void {
  const ks = pages.keys();
  for (let i = 0; i < ks.length; i++) {
    const k = ks[i];
    const v = pages.get(k);
    if (v & F_UPTODATE) pageDrop(<i32>(k >> 40), <i64>(k & 0xffffffffff), v);
  }
}

// ------------------------------------------------------------ bios

/** read_pages(): pages [start, start+n) (just added, slot not yet known) become bios. */
function submitRun(job: i32, cg: i32, dev: i32, start: i64, n: i64, t: i64): void {
  let p = start;
  let left = n;
  while (left > 0) {
    const k = left < <i64>BIO_MAX_VECS ? left : <i64>BIO_MAX_VECS;
    const slot = allocBio();
    while (waitHead.length <= slot) {
      waitHead.push(-1);
      passWait.push(-1);
    }
    waitHead.set(slot, -1);
    const seq = jobRaSeq.get(job);
    jobRaSeq.set(job, seq + 1);
    fillBio(slot, job, seq, -1, cg, dev, 0, p << PAGE_SHIFT, <u32>(k << PAGE_SHIFT), BIO_READAHEAD, t);
    for (let i: i64 = 0; i < k; i++) {
      const kk = key(dev, p + i);
      const v = pages.get(kk);
      pages.set(kk, (v & ~(<u64>0xffffff00)) | ((<u64>(slot + 1)) << 8));
    }
    // submit_bio() in the reader's context: did blk-throttle let it through at
    // once (release set) but the rq-qos chain keep it (not yet to the device)?
    bioAt(slot).release = -1;
    passWait.set(slot, -2);
    submitBio(slot, t);
    if (passWait.get(slot) == -2) {
      if (bioAt(slot).release >= 0 && curReader >= 0) {
        // asleep in rq_qos_throttle() until the bio goes (pcRaPassed)
        passWait.set(slot, curReader);
        passPending.set(curReader, passPending.get(curReader) + 1);
      } else passWait.set(slot, -1); // blk-throttle queued it: the submitter returns
    } else if (raCpuReplay && curReader >= 0) {
      // through at once; a replay's recorded dispatch delay holds the submitter (pcRaPassed)
      const d = recordedRaCpu(job, seq);
      if (d > 0) {
        passPending.set(curReader, passPending.get(curReader) + 1);
        schedule(t + d, EV_PC_RESUME, <u32>curReader);
      }
    }
    p += k;
    left -= k;
  }
}

/** do_page_cache_ra() + page_cache_ra_unbounded(): read nr pages from index, mark nr - lookahead. */
function doRa(job: i32, cg: i32, dev: i32, index: i64, nrIn: i64, lookahead: i64, t: i64): void {
  const last = devLastPage.get(dev);
  if (index > last) return;
  let nr = nrIn;
  if (nr > last - index) nr = last - index + 1;
  let runStart: i64 = -1;
  let runLen: i64 = 0;
  for (let i: i64 = 0; i < nr; i++) {
    const p = index + i;
    if (pages.has(key(dev, p))) {
      if (runLen > 0) submitRun(job, cg, dev, runStart, runLen, t);
      runLen = 0;
      continue;
    }
    if (runLen == 0) runStart = p;
    pageAdd(dev, p, cg, 0, i == nr - lookahead);
    runLen++;
  }
  if (runLen > 0) submitRun(job, cg, dev, runStart, runLen, t);
}

function forceRa(job: i32, cg: i32, dev: i32, index: i64, nrIn: i64, t: i64): void {
  const io = <i64>devIoPages.get(dev);
  const ra = raPages.get(job);
  const max = io > ra ? io : ra;
  let nr = nrIn < max ? nrIn : max;
  let i = index;
  while (nr > 0) {
    const chunk: i64 = nr < 512 ? nr : 512; // 2 MiB
    doRa(job, cg, dev, i, chunk, 0, t);
    i += chunk;
    nr -= chunk;
  }
}

@inline function roundupPow2(x: i64): i64 {
  if (x <= 1) return 1;
  return (<i64>1) << (64 - clz(x - 1));
}

function initRaSize(size: i64, max: i64): i64 {
  const n = roundupPow2(size);
  if (n <= max / 32) return n * 4;
  if (n <= max / 4) return n * 2;
  return max;
}

function nextRaSize(cur: i64, max: i64): i64 {
  if (cur < max / 16) return 4 * cur;
  if (cur <= max / 2) return 2 * cur;
  return max;
}

/** ondemand_readahead() (6.1); page_cache_sync_ra() / page_cache_async_ra() bodies (6.12, 6.18). */
function ondemand(job: i32, cg: i32, dev: i32, index: i64, marked: bool, reqSize: i64, t: i64): void {
  let maxPages = raPages.get(job);
  const io = <i64>devIoPages.get(dev);
  // ractl_max_pages(): a request larger than the window may read up to io_pages
  if (reqSize > maxPages && io > maxPages) maxPages = reqSize < io ? reqSize : io;
  if (profile > 0) {
    if (marked) asyncRa612(job, cg, dev, index, reqSize, maxPages, t);
    else syncRa612(job, cg, dev, index, reqSize, maxPages, t);
    return;
  }
  let start = raStart.get(job);
  let size = raSize.get(job);
  let asyncSz = raAsync.get(job);
  let init = false;
  if (index == 0) init = true;
  else {
    const expected = start + size - asyncSz;
    if (index == expected || index == start + size) {
      // the expected callback index: sequential, ramp up and push forward
      start += size;
      const nx = nextRaSize(size, maxPages);
      size = size > nx ? size : nx;
      asyncSz = size;
    } else if (marked) {
      // a marked page without valid state (interleaved reads):
      // page_cache_next_miss(index + 1, max_pages) gives the old async_size
      let miss = index + 1;
      while (miss - (index + 1) < maxPages && pages.has(key(dev, miss))) miss++;
      if (miss - index > maxPages) return;
      start = miss;
      size = miss - index + reqSize;
      size = nextRaSize(size, maxPages);
      asyncSz = size;
    } else if (reqSize > maxPages) init = true; // oversize read
    else if (sequentialMiss(job, index)) init = true;
    else {
      // try_context_readahead(): cached history pages before index
      const h = historyPages(dev, index, maxPages);
      if (h <= reqSize) {
        // standalone, small random read: read as is
        doRa(job, cg, dev, index, reqSize, 0, t);
        return;
      }
      start = index;
      const s = (h >= index ? h * 2 : h) + reqSize;
      size = s < maxPages ? s : maxPages;
      asyncSz = 1;
    }
  }
  if (init) {
    start = index;
    size = initRaSize(reqSize, maxPages);
    asyncSz = size > reqSize ? size - reqSize : size;
  }
  // readit: will this read hit the mark it makes? then merge the next window
  if (index == start && size == asyncSz) {
    const add = nextRaSize(size, maxPages);
    if (size + add <= maxPages) {
      asyncSz = add;
      size += add;
    } else {
      size = maxPages;
      asyncSz = maxPages >> 1;
    }
  }
  setRa(job, start, size, asyncSz);
  doRa(job, cg, dev, start, size, asyncSz, t);
}

/** A sequential cache miss: index - prev_index <= 1 (unsigned; prev_pos starts at -1). */
@inline function sequentialMiss(job: i32, index: i64): bool {
  const prevPos = raPrevPos.get(job);
  return prevPos >= 0 && <u64>(index - (prevPos >> PAGE_SHIFT)) <= 1;
}

/** Contiguously cached pages before index, at most max (index - 1 - page_cache_prev_miss()). */
function historyPages(dev: i32, index: i64, max: i64): i64 {
  let h: i64 = 0;
  while (h < max && index - 1 - h >= 0 && pages.has(key(dev, index - 1 - h))) h++;
  return h;
}

@inline function setRa(job: i32, start: i64, size: i64, asyncSz: i64): void {
  raStart.set(job, start);
  raSize.set(job, size);
  raAsync.set(job, asyncSz);
}

/** 6.12 / 6.18 page_cache_sync_ra() after the forced cases: no expected-index
 *  case (a miss at the window's end is a sequential miss: a new initial
 *  window), async_size = size >> 1 when the read covers the window, and no
 *  merge of the next window (dead code since 6.10). 6.18 resets ra->order. */
function syncRa612(job: i32, cg: i32, dev: i32, index: i64, reqSize: i64, maxPages: i64, t: i64): void {
  let start: i64, size: i64, asyncSz: i64;
  if (index == 0 || reqSize > maxPages || sequentialMiss(job, index)) {
    start = index;
    size = initRaSize(reqSize, maxPages);
    asyncSz = size > reqSize ? size - reqSize : size >> 1;
  } else {
    const contig = historyPages(dev, index, maxPages);
    if (contig <= reqSize) {
      doRa(job, cg, dev, index, reqSize, 0, t);
      return;
    }
    // miss == ULONG_MAX: cached from the file's start
    const c = contig >= index ? contig * 2 : contig;
    start = index;
    size = c + reqSize < maxPages ? c + reqSize : maxPages;
    asyncSz = 1;
  }
  raOrder.set(job, 0);
  setRa(job, start, size, asyncSz);
  doRa(job, cg, dev, start, size, asyncSz, t);
}

/** 6.12 / 6.18 page_cache_async_ra(): the expected index is the marked page
 *  only; 6.18 ("mm/readahead: Terminate async readahead on natural
 *  boundary") trims the window's end down to 1 << min(ra->order + 2,
 *  ffs(max_pages) - 1) pages. */
function asyncRa612(job: i32, cg: i32, dev: i32, index: i64, reqSize: i64, maxPages: i64, t: i64): void {
  let start = raStart.get(job);
  let size = raSize.get(job);
  const expected = start + size - raAsync.get(job);
  if (index == expected) {
    start += size;
    const nx = nextRaSize(size, maxPages);
    size = size > nx ? size : nx;
  } else {
    let miss = index + 1;
    while (miss - (index + 1) < maxPages && pages.has(key(dev, miss))) miss++;
    if (miss - index > maxPages) return;
    start = miss;
    size = nextRaSize(miss - index + reqSize, maxPages);
  }
  if (profile == 2) {
    // ra->order += 2; the window's end is rounded down to 1 << min(order,
    // ffs(max_pages) - 1) pages. page_cache_ra_order() sets ra->order back
    // to 0 for a mapping without large folios (as here), so order is 2 at
    // every async window: a 4-page alignment.
    const order = raOrder.get(job) + 2;
    const ffs1 = maxPages > 0 ? <i64>ctz(maxPages) : 0;
    const align: i64 = (<i64>1) << (order < ffs1 ? order : ffs1);
    const end = start + size;
    const alignedEnd = end & ~(align - 1);
    if (alignedEnd > start) size -= end - alignedEnd;
    raOrder.set(job, 0);
  }
  setRa(job, start, size, size);
  doRa(job, cg, dev, start, size, size, t);
}

function congested(cg: i32): bool {
  for (let i = 0; i < iocgs.length; i++) {
    const g = unchecked(iocgs[i]);
    if (!g.useDelay) continue;
    let c = cg;
    while (c >= 0) {
      if (c == g.cg) return true;
      c = cgParent.get(c);
    }
  }
  return false;
}

function syncRa(job: i32, cg: i32, dev: i32, index: i64, req: i64, t: i64): void {
  let forced = fRandom.get(job) != 0;
  let n = req;
  if (raPages.get(job) == 0 || congested(cg)) {
    n = 1;
    forced = true;
  }
  if (forced) {
    forceRa(job, cg, dev, index, n, t);
    return;
  }
  ondemand(job, cg, dev, index, false, n, t);
}

function asyncRa(job: i32, cg: i32, dev: i32, index: i64, req: i64, t: i64): void {
  if (raPages.get(job) == 0) return;
  const v = pageGet(dev, index);
  if (v != 0) pages.set(key(dev, index), v & ~F_MARK);
  if (congested(cg)) return;
  ondemand(job, cg, dev, index, true, req, t);
}

// ------------------------------------------------------------ reads

/** A buffered read enters filemap_read(); `slot` holds the job's read (off, size). */
export function pcRead(slot: i32, t: i64): void {
  const b = bioAt(slot);
  const job = b.job;
  if (jobAt(job).issued == 1 && fInvalidate.get(job) != 0) {
    const j = jobAt(job);
    pcInvalidate(b.dev, j.regionOff, j.regionLen);
  }
  b.aux = b.off;
  while (passPending.length <= slot) passPending.push(0);
  passPending.set(slot, 0);
  pcContinue(slot, t);
}

/** A readahead bio got through the rq-qos chain (path.ts toDevice): its submitter wakes,
 *  in a replay after the bio's recorded dispatch delay (device.ts raCpuReplay: the guest
 *  issued an earlier piece late while the submitter flushed its plug). */
export function pcRaPassed(slot: i32, t: i64): void {
  const w = passWait.get(slot);
  passWait.set(slot, -1);
  if (w < 0) return;
  if (raCpuReplay) {
    const d = recordedRaCpu(bioAt(slot).job, bioAt(slot).seq);
    if (d > 0) {
      schedule(t + d, EV_PC_RESUME, <u32>w);
      return;
    }
  }
  pcResume(w, t);
}

/** The submitter `w` (an app read slot) is through the rq-qos chain with one more readahead bio. */
export function pcResume(w: i32, t: i64): void {
  const n = passPending.get(w) - 1;
  passPending.set(w, n);
  if (n == 0) pcContinue(w, t);
}

/** filemap_read()'s loop from the read's current position; returns when it sleeps or ends. */
function pcContinue(slot: i32, t: i64): void {
  const b = bioAt(slot);
  const job = b.job;
  const cg = b.cg;
  const dev = b.dev;
  const end = b.off + <i64>b.size;
  const lastIndex = (end + (1 << PAGE_SHIFT) - 1) >> PAGE_SHIFT; // exclusive
  let pos = b.aux;
  // (b is not read below: readahead allocates bios, which may move the table)
  growCg(cg);
  while (pos < end) {
    const index = pos >> PAGE_SHIFT;
    let tried = false;
    let p = index;
    let v: u64 = 0;
    for (;;) {
      // filemap_get_read_batch(): cached pages from index; stop after a page
      // not uptodate or marked
      p = index;
      while (p < lastIndex) {
        v = pageGet(dev, p);
        if (v == 0) break;
        if ((v & F_UPTODATE) == 0 || (v & F_MARK) != 0) {
          p++;
          break;
        }
        p++;
      }
      if (p > index || tried) break;
      curReader = slot;
      syncRa(job, cg, dev, index, lastIndex - index, t);
      curReader = -1;
      tried = true;
      if (passPending.get(slot) > 0) {
        // asleep in rq_qos_throttle(); carries on from here when its bios go
        bioAt(slot).aux = pos;
        return;
      }
    }
    if (p == index) {
      // nothing cached even after readahead: past the device's end, the
      // read ends short; else read one page (filemap_create_folio())
      if (index > devLastPage.get(dev)) break;
      doRa(job, cg, dev, index, 1, 0, t);
      continue;
    }
    const lastP = p - 1;
    v = pageGet(dev, lastP);
    if (v & F_MARK) {
      curReader = slot;
      asyncRa(job, cg, dev, lastP, lastIndex - lastP, t);
      curReader = -1;
      if (passPending.get(slot) > 0) {
        // asleep in rq_qos_throttle(); the mark is gone, so carrying on from
        // pos takes the same batch and goes to the uptodate check
        bioAt(slot).aux = pos;
        return;
      }
      v = pageGet(dev, lastP);
    }
    // the pages before lastP in the batch were uptodate: hits
    cgHitPages.set(cg, cgHitPages.get(cg) + (lastP - index));
    if ((v & F_UPTODATE) == 0) {
      // folio_wait_locked(): sleep until the bio reading lastP completes
      const s = <i32>((v >> 8) & 0xffffff) - 1;
      cgWaitPages.set(cg, cgWaitPages.get(cg) + 1);
      // (readahead above may have moved the bio table: fetch the record anew)
      const r = bioAt(slot);
      r.aux = lastP << PAGE_SHIFT > pos ? lastP << PAGE_SHIFT : pos;
      r.next = waitHead.get(s);
      waitHead.set(s, slot);
      raPrevPos.set(job, r.aux);
      return;
    }
    cgHitPages.set(cg, cgHitPages.get(cg) + 1);
    const np = (lastP + 1) << PAGE_SHIFT;
    pos = np < end ? np : end;
    raPrevPos.set(job, pos);
  }
  // the read is done: complete it from the reader's view (path.ts deviceDone)
  // once its pages are copied
  const r = bioAt(slot);
  r.next = -1;
  r.release = t;
  r.issue = t;
  schedule(t + (lastIndex - (r.off >> PAGE_SHIFT)) * COPY_PAGE_NS, EV_DEVICE_DONE, <u32>(slot | 0x800000));
}

/** A readahead bio completed: its pages are uptodate; its waiters carry on. */
export function pcBioDone(slot: i32, t: i64): void {
  const b = bioAt(slot);
  if (recordOn) record(b.job, b.seq, b.worker, b.cg, 0, b.flags, b.off, b.size, b.submit, b.release, b.issue, t);
  if (seriesBinNs > 0) {
    devDoneT.push(t);
    devDoneCg.push(b.cg);
    devDoneBytes.push(b.size);
  }
  const dev = b.dev;
  const first = b.off >> PAGE_SHIFT;
  const n = <i64>(b.size >> PAGE_SHIFT);
  for (let i: i64 = 0; i < n; i++) {
    const k = key(dev, first + i);
    if (!pages.has(k)) continue;
    const v = pages.get(k);
    if (<i32>((v >> 8) & 0xffffff) != slot + 1) continue;
    pages.set(k, (v & ~(<u64>0xffffff00)) | F_UPTODATE);
  }
  let w = waitHead.get(slot);
  waitHead.set(slot, -1);
  freeBio(slot);
  while (w >= 0) {
    const next = bioAt(w).next;
    pcContinue(w, t);
    w = next;
  }
}
