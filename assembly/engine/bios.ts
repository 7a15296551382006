// The bio table: one record per bio in flight.
//
// A slot is taken when a job (or the writeback flusher) submits a bio and
// returned when the bio completes, so the table is as large as the number of
// bios in flight or queued, not the number simulated: ten million bios at
// QD 32 use a few dozen slots. Completed bios that must be kept (replay,
// tracing) are copied to the record columns in stats/stats.ts.
//
// `next` is a free link used by whichever queue holds the bio right now (a
// throttle qnode, the device FIFO, an iocost wait list): a bio sits in at
// most one queue at a time, so one link field serves them all.
//
// Layout: an array of structures. Every stage reads several fields of the
// same bio at once (the device: offset, size, direction, flags; completion:
// nearly all), so a bio is one BIO_BYTES record and `bioAt(slot)` is a typed
// pointer to it: `bioAt(slot).size` is one load at a constant offset from
// bioBase + slot * BIO_BYTES. (Columns cost a load of the column's data
// pointer per field on top, and touch a cache line per field.) The table is
// never read from JavaScript. The table moves when it grows, so a `bioAt()`
// pointer must not be kept across anything that may allocate a bio.
//
// Worked example: BIO_BYTES = 80 (five i64, nine i32, one u8, padded); slot
// 3's size is the u32 at bioBase + 240 + 64.

export const DIR_READ: u8 = 0;
export const DIR_WRITE: u8 = 1;

// flags
export const BIO_BPS_THROTTLED: u32 = 1 << 0; // passed the top of the throttle hierarchy (bytes charged)
export const BIO_TG_BPS_THROTTLED: u32 = 1 << 1; // 6.16+: charged bps at the current tg
export const BIO_META: u32 = 1 << 2; // REQ_META
export const BIO_SWAP: u32 = 1 << 3; // REQ_SWAP
export const BIO_SYNC: u32 = 1 << 4; // REQ_SYNC (direct IO, fsync writeback)
export const BIO_WRITEBACK: u32 = 1 << 5; // issued by the writeback flusher
export const BIO_SEQ: u32 = 1 << 6; // device classified it as sequential
export const BIO_THROTTLED: u32 = 1 << 7; // waited in blk-throttle at least once
export const BIO_SPLIT_REMAINDER: u32 = 1 << 8;
export const BIO_READAHEAD: u32 = 1 << 9; // REQ_RAHEAD: a page-cache readahead bio (pagecache.ts)
export const BIO_BUFWRITE: u32 = 1 << 11; // a buffered (page cache) write replayed as its writeback request: wbt tracks it
export const BIO_BACKGROUND: u32 = 1 << 12; // REQ_BACKGROUND (background / periodic writeback)

@unmanaged export class Bio {
  off: i64;
  submit: i64;
  release: i64; // left blk-throttle
  issue: i64; // reached the device
  aux: i64; // per-stage scratch (iocost: abs cost; throttle: wait)
  job: i32;
  seq: i32; // index within its job (issue order)
  worker: i32;
  cg: i32; // blkcg charged (owner for writeback)
  dev: i32;
  flags: u32;
  size: u32;
  pieces: u32; // pieces left to pass the throttle (split by max_sectors)
  next: i32;
  dir: u8;
}

/** Record size, rounded up to keep the i64 fields 8-byte aligned. */
export const BIO_BYTES: usize = (offsetof<Bio>() + 7) & ~7;

let bioMem = new StaticArray<u8>(64 * <i32>BIO_BYTES);
let bioBase: usize = changetype<usize>(bioMem);
let bioCap: i32 = 64; // records bioMem holds
let bioSlots: i32 = 0; // slots ever handed out (0..bioSlots-1)
let freeHead: i32 = -1;
export let bioInFlight: i32 = 0;

/** the table's base address now (it moves only when allocBio() grows it) */
@inline export function bioTableBase(): usize {
  return bioBase;
}

@inline export function bioAt(slot: i32): Bio {
  return changetype<Bio>(bioBase + <usize>slot * BIO_BYTES);
}

export function resetBios(): void {
  freeHead = -1;
  bioInFlight = 0;
  bioSlots = 0;
}

@inline export function allocBio(): i32 {
  bioInFlight++;
  if (freeHead >= 0) {
    const s = freeHead;
    const b = bioAt(s);
    freeHead = b.next;
    b.next = -1;
    return s;
  }
  if (bioSlots == bioCap) growBios();
  const s = bioSlots++;
  // a new slot starts as the columns' pushes did: zeros, one piece, no link
  const b = bioAt(s);
  memory.fill(changetype<usize>(b), 0, BIO_BYTES);
  b.pieces = 1;
  b.next = -1;
  return s;
}

function growBios(): void {
  const m = new StaticArray<u8>(bioCap * 2 * <i32>BIO_BYTES);
  memory.copy(changetype<usize>(m), bioBase, <usize>bioSlots * BIO_BYTES);
  bioMem = m;
  bioBase = changetype<usize>(m);
  bioCap *= 2;
}

@inline export function freeBio(s: i32): void {
  bioInFlight--;
  bioAt(s).next = freeHead;
  freeHead = s;
}
