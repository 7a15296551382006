// The event queue: a binary min-heap in two parallel columns, plus FIFO lanes.
//
// An event is (time, meta). meta packs (insertion sequence << 32) | (kind << 24)
// | arg, so comparing (time, meta) orders events by time and, at equal times,
// by the order they were scheduled: the simulation is deterministic without
// any tie-breaking randomness. `arg` is 24 bits: an index into whichever
// table the event kind refers to (a bio slot, a job, a timer).
//
// Cancellation is lazy: a module that re-arms a timer keeps the time it
// expects and ignores a firing that does not match (like mod_timer()).
//
// Fast lanes: most events of a busy device are completions scheduled in time
// order (fixed service time, FIFO start). `scheduleLane(lane, ...)` appends
// such an event to a FIFO lane in O(1) when it is not earlier than the lane's
// tail, and falls back to the heap otherwise. `pop()` takes the least (time,
// meta) among the heap top and the lane heads, so the order of events is
// exactly the one a single heap would give: lanes change speed, not results.
// Only device completions go on lanes (lane = device id).
//
// A lane is a buffer of (time, meta) pairs, 16 bytes an event, and its state
// (buffer, head, length, capacity) sits at a fixed address, so appending or
// taking an event touches one slot and no column headers. The heap's least
// event is kept in two globals (heapTopTime, heapTopMeta; MAX when empty) by
// schedule() and popHeap(). While only lane 0 is in use and its head comes
// before that least event (laneZeroFirst(): one device whose next completion
// is due before the next timer, wake-up or the run's stop mark), the event
// loop pops lane 0 directly (path.ts runLaneZero()). Worked example: QD 32
// on an ideal 8 us device: the 32 bios issued at t = 0 complete at 8,000 ns,
// in seq order on lane 0; popping each and appending its replacement's
// completion at 16,000 ns keeps the lane in (time, meta) order, so the heap
// is never touched and each event costs one 16-byte load and one 16-byte
// store. With a run length of 10 s the stop mark (10e9, meta m) sits on the
// heap all along: a completion at 16,000 ns is still popped off the lane,
// after one compare with heapTopTime = 10e9; a completion at exactly 10e9
// would also compare metas (the earlier scheduled goes first), as one heap
// would order them. (Before the heap top was kept, a stop mark sent every
// event of a timed run through the general pop: 1437 x86 instructions per
// bio in bench/throttle.ts end to end, 882 with this.)

import { Vec } from "./vec";

export const EV_JOB_WAKE: u32 = 1; // arg = job: a worker may issue its next IO
export const EV_DEVICE_DONE: u32 = 2; // arg = bio slot: device finished it
export const EV_THROTL_TIMER: u32 = 3; // arg = throttle service queue
export const EV_CONFIG: u32 = 4; // arg = scheduled config change
export const EV_REPLAY: u32 = 5; // arg = job: next recorded IO is due
export const EV_IOCOST_TIMER: u32 = 6; // arg = device
export const EV_IOCOST_WAKE: u32 = 7; // arg = iocg
export const EV_WRITEBACK: u32 = 8; // arg = writeback event id
export const EV_THROTL_WORK: u32 = 9; // arg = device: kthrotld dispatch work runs
export const EV_DEVICE_ISSUE: u32 = 10; // arg = bio slot: asks for a tag and reaches the driver (a replayed request after its recorded CPU time)
export const EV_IOLAT_TIMER: u32 = 11; // arg = device: blkiolatency_timer_fn
export const EV_WBT_TIMER: u32 = 12; // arg = device: wbt's blk-stat window timer (wb_timer_fn)
export const EV_TAG_RETRY: u32 = 13; // arg = bio slot: a woken tag waiter runs and tries for a tag (a replay, device.ts tagWakeReplay)
export const EV_PC_RESUME: u32 = 14; // arg = app read slot: a buffered reader runs again after a replayed dispatch delay (pagecache.ts)
export const EV_STOP: u32 = 15;

const ARG_MASK: u64 = 0xffffff;

const heapTime = new Vec<i64>(1024);
const heapMeta = new Vec<u64>(1024);
let seqCounter: u64 = 0;
export let eventsProcessed: u64 = 0;
// The heap's least event, (i64.MAX_VALUE, u64.MAX_VALUE) when the heap is
// empty: schedule() and popHeap() keep it, so the loop's fast path compares
// the lane head with two globals (laneZeroFirst()).
let heapTopTime: i64 = i64.MAX_VALUE;
let heapTopMeta: u64 = u64.MAX_VALUE;

export const LANES: i32 = 8;
// Lane l's state is four i32 at LANE_STATE + l * 16, a fixed address (no
// pointer to chase): [buffer pointer, head, length, capacity]. The buffer
// holds (time, meta) pairs side by side, so an event is one 16-byte load or
// store: events head..length-1 are pending, in order.
const LANE_STATE: usize = memory.data(LANES * 16, 16);
const LANE_INITIAL_EVENTS: i32 = 256;
let lanesUsed: i32 = 0; // lanes 0..lanesUsed-1 may hold events
let laneEvents: i32 = 0;
for (let l = 0; l < LANES; l++) {
  const buf = new StaticArray<u64>(LANE_INITIAL_EVENTS * 2);
  store<usize>(LANE_STATE + (<usize>l << 4), changetype<usize>(buf));
  store<i32>(LANE_STATE + (<usize>l << 4), LANE_INITIAL_EVENTS, 12);
}

@inline function laneBuf(l: i32): usize {
  return load<usize>(LANE_STATE + (<usize>l << 4));
}
@inline function laneHead(l: i32): i32 {
  return load<i32>(LANE_STATE + (<usize>l << 4), 4);
}
@inline function laneLen(l: i32): i32 {
  return load<i32>(LANE_STATE + (<usize>l << 4), 8);
}
@inline function laneCap(l: i32): i32 {
  return load<i32>(LANE_STATE + (<usize>l << 4), 12);
}
@inline function setLaneHead(l: i32, h: i32): void {
  store<i32>(LANE_STATE + (<usize>l << 4), h, 4);
}
@inline function setLaneLen(l: i32, n: i32): void {
  store<i32>(LANE_STATE + (<usize>l << 4), n, 8);
}

function growLane(l: i32): void {
  const cap = laneCap(l) * 2;
  const buf = new StaticArray<u64>(cap * 2);
  memory.copy(changetype<usize>(buf), laneBuf(l), <usize>laneLen(l) << 4);
  store<usize>(LANE_STATE + (<usize>l << 4), changetype<usize>(buf));
  store<i32>(LANE_STATE + (<usize>l << 4), cap, 12);
}

export function resetEvents(): void {
  heapTime.length = 0;
  heapMeta.length = 0;
  seqCounter = 0;
  eventsProcessed = 0;
  heapTopTime = i64.MAX_VALUE;
  heapTopMeta = u64.MAX_VALUE;
  for (let l = 0; l < LANES; l++) {
    setLaneHead(l, 0);
    setLaneLen(l, 0);
  }
  lanesUsed = 0;
  laneEvents = 0;
}

@inline export function pendingEvents(): i32 {
  return heapTime.length + laneEvents;
}

/** Schedule on FIFO lane `lane` when in order, else on the heap. */
@inline export function scheduleLane(lane: i32, time: i64, kind: u32, arg: u32): void {
  if (lane >= LANES) {
    schedule(time, kind, arg);
    return;
  }
  const n = laneLen(lane);
  if (n > laneHead(lane) && load<i64>(laneBuf(lane) + (<usize>(n - 1) << 4)) > time) {
    schedule(time, kind, arg);
    return;
  }
  const meta: u64 = (seqCounter++ << 32) | ((<u64>kind) << 24) | (<u64>arg & ARG_MASK);
  if (n == laneCap(lane)) growLane(lane);
  const p = laneBuf(lane) + (<usize>n << 4);
  store<i64>(p, time);
  store<u64>(p, meta, 8);
  setLaneLen(lane, n + 1);
  laneEvents++;
  if (lane >= lanesUsed) lanesUsed = lane + 1;
}

@inline function less(ta: i64, ma: u64, tb: i64, mb: u64): bool {
  return ta < tb || (ta == tb && ma < mb);
}

export function schedule(time: i64, kind: u32, arg: u32): void {
  const meta: u64 = (seqCounter++ << 32) | ((<u64>kind) << 24) | (<u64>arg & ARG_MASK);
  let i = heapTime.push(time);
  heapMeta.push(meta);
  const t = heapTime.data;
  const m = heapMeta.data;
  while (i > 0) {
    const p = (i - 1) >> 1;
    const pt = unchecked(t[p]);
    const pm = unchecked(m[p]);
    if (!less(time, meta, pt, pm)) break;
    unchecked((t[i] = pt));
    unchecked((m[i] = pm));
    i = p;
  }
  unchecked((t[i] = time));
  unchecked((m[i] = meta));
  if (i == 0) {
    heapTopTime = time;
    heapTopMeta = meta;
  }
}

/** Time of the earliest pending event (there must be one). */
export function peekTime(): i64 {
  let bt: i64 = i64.MAX_VALUE;
  if (heapTime.length > 0) bt = unchecked(heapTime.data[0]);
  for (let l = 0; l < lanesUsed; l++) {
    const h = laneHead(l);
    if (h < laneLen(l)) {
      const t = load<i64>(laneBuf(l) + (<usize>h << 4));
      if (t < bt) bt = t;
    }
  }
  return bt;
}

/** Pop the earliest event; its time and meta are left in poppedTime/poppedMeta. */
export let poppedTime: i64 = 0;
export let poppedMeta: u64 = 0;

@inline export function pop(): void {
  if (laneZeroFirst()) {
    // one lane holds every pending event (a lone device's completions)
    popLane(0);
    return;
  }
  popAny();
}

function popAny(): void {
  if (laneEvents > 0) {
    // least of heap top and lane heads
    let best = -1;
    let bt: i64 = i64.MAX_VALUE;
    let bm: u64 = u64.MAX_VALUE;
    if (heapTime.length > 0) {
      bt = unchecked(heapTime.data[0]);
      bm = unchecked(heapMeta.data[0]);
    }
    for (let l = 0; l < lanesUsed; l++) {
      const h = laneHead(l);
      if (h < laneLen(l)) {
        const p = laneBuf(l) + (<usize>h << 4);
        const t = load<i64>(p);
        const m = load<u64>(p, 8);
        if (less(t, m, bt, bm)) {
          best = l;
          bt = t;
          bm = m;
        }
      }
    }
    if (best >= 0) {
      popLane(best);
      return;
    }
  }
  popHeap();
}

/** Lane 0 holds the least pending event: no other lane is in use and its
 *  head comes before the heap's least event (always, when the heap is
 *  empty: a lone device's completions, the steady state of an unthrottled
 *  run; and while a run's stop mark or a timer lies ahead on the heap). */
@inline export function laneZeroFirst(): bool {
  return laneZeroOnly() && laneZeroBeforeHeap(laneZeroHeadTime());
}

/** Lane 0 holds events and no other lane does. */
@inline function laneZeroOnly(): bool {
  return laneEvents > 0 && lanesUsed == 1;
}

/** Lane 0's head, at time `t`, comes before the heap's least event. */
@inline function laneZeroBeforeHeap(t: i64): bool {
  return t < heapTopTime || (t == heapTopTime && load<u64>(laneBuf(0) + (<usize>laneHead(0) << 4), 8) < heapTopMeta);
}

/** Time of lane 0's head event (there must be one). */
@inline function laneZeroHeadTime(): i64 {
  return load<i64>(laneBuf(0) + (<usize>laneHead(0) << 4));
}

/** The loop's fast path (path.ts runLaneZero()): when lane 0's head is the
 *  least pending event (laneZeroFirst()) and not after `untilNs`, pop it
 *  into poppedTime/poppedMeta without counting it (the caller adds its pops
 *  to eventsProcessed in one go, countEvents()) and return true; otherwise
 *  change nothing and return false. One pass over the lane state: the
 *  head's address, time and meta are loaded once for the checks and the pop. */
@inline export function popLaneZeroFirst(untilNs: i64): bool {
  if (lanesUsed != 1) return false;
  const h = laneHead(0);
  const n = laneLen(0);
  if (h >= n) return false; // (lanesUsed == 1: lane 0 holds every lane event)
  const buf = laneBuf(0);
  const p = buf + (<usize>h << 4);
  const t = load<i64>(p);
  const m = load<u64>(p, 8);
  if (t >= heapTopTime && (t > heapTopTime || m >= heapTopMeta)) return false;
  if (t > untilNs) return false;
  poppedTime = t;
  poppedMeta = m;
  advanceLane(0, buf, h + 1, n);
  return true;
}

@inline export function countEvents(n: i32): void {
  eventsProcessed += <u64>n;
}

/** Take the head event of lane `l` (which holds one). */
@inline function popLane(l: i32): void {
  const buf = laneBuf(l);
  let h = laneHead(l);
  const n = laneLen(l);
  const p = buf + (<usize>h << 4);
  poppedTime = load<i64>(p);
  poppedMeta = load<u64>(p, 8);
  advanceLane(l, buf, h + 1, n);
  eventsProcessed++;
}

/** Lane `l` (buffer `buf`, `n` events) has taken its head: `h` is the new
 *  head. Rewinds a drained lane, compacts a long-consumed one. */
@inline function advanceLane(l: i32, buf: usize, h: i32, n: i32): void {
  if (h == n) {
    // lane drained: rewind
    setLaneLen(l, 0);
    h = 0;
  } else if (h >= 4096 && h * 2 >= n) {
    // compact: move the live tail to the front
    const live = n - h;
    memory.copy(buf, buf + (<usize>h << 4), <usize>live << 4);
    setLaneLen(l, live);
    h = 0;
  }
  setLaneHead(l, h);
  laneEvents--;
}

// ---- lane 0 for path.ts runSteady(), which keeps the lane's head, length
// and the scheduling sequence in locals while it runs and hands them back
// here when it stops (the same state scheduleLane() and popLane() keep).

@inline export function lane0Buf(): usize {
  return laneBuf(0);
}
@inline export function lane0Head(): i32 {
  return laneHead(0);
}
@inline export function lane0Len(): i32 {
  return laneLen(0);
}
@inline export function lane0Cap(): i32 {
  return laneCap(0);
}
/** lane 0 now holds events head..len-1; `popped` taken off it and `pushed` put on it since the state was read */
export function setLane0(head: i32, len: i32, popped: i32, pushed: i32): void {
  setLaneHead(0, head);
  setLaneLen(0, len);
  laneEvents += pushed - popped;
}
@inline export function heapTopT(): i64 {
  return heapTopTime;
}
@inline export function heapTopM(): u64 {
  return heapTopMeta;
}
@inline export function seqNow(): u64 {
  return seqCounter;
}
@inline export function setSeqNow(s: u64): void {
  seqCounter = s;
}

function popHeap(): void {
  const t = heapTime.data;
  const m = heapMeta.data;
  poppedTime = unchecked(t[0]);
  poppedMeta = unchecked(m[0]);
  eventsProcessed++; // before the early return: the heap's last event counts too
  const n = --heapTime.length;
  heapMeta.length = n;
  if (n == 0) {
    heapTopTime = i64.MAX_VALUE;
    heapTopMeta = u64.MAX_VALUE;
    return;
  }
  const lt = unchecked(t[n]);
  const lm = unchecked(m[n]);
  let i = 0;
  while (true) {
    let c = 2 * i + 1;
    if (c >= n) break;
    let ct = unchecked(t[c]);
    let cm = unchecked(m[c]);
    const c2 = c + 1;
    if (c2 < n) {
      const t2 = unchecked(t[c2]);
      const m2 = unchecked(m[c2]);
      if (less(t2, m2, ct, cm)) {
        c = c2;
        ct = t2;
        cm = m2;
      }
    }
    if (!less(ct, cm, lt, lm)) break;
    unchecked((t[i] = ct));
    unchecked((m[i] = cm));
    i = c;
  }
  unchecked((t[i] = lt));
  unchecked((m[i] = lm));
  heapTopTime = unchecked(t[0]);
  heapTopMeta = unchecked(m[0]);
}

@inline export function metaKind(meta: u64): u32 {
  return <u32>((meta >> 24) & 0xff);
}

@inline export function metaArg(meta: u64): u32 {
  return <u32>(meta & ARG_MASK);
}
