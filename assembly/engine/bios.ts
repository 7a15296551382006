// The bio table: one slot per bio in flight, structure of arrays.
//
// A slot is taken when a job (or the writeback flusher) submits a bio and
// returned when the bio completes, so the table is as large as the number of
// bios in flight or queued, not the number simulated: ten million bios at
// QD 32 use a few dozen slots. Completed bios that must be kept (replay,
// tracing) are copied to the record columns in stats/records.ts.
//
// `next` is a free link used by whichever queue holds the bio right now (a
// throttle qnode, the device FIFO, an iocost wait list): a bio sits in at
// most one queue at a time, so one link column serves them all.

import { Vec } from "./vec";

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

export const bioJob = new Vec<i32>(64);
export const bioSeq = new Vec<i32>(64); // index within its job (issue order)
export const bioWorker = new Vec<i32>(64);
export const bioCg = new Vec<i32>(64); // blkcg charged (owner for writeback)
export const bioDev = new Vec<i32>(64);
export const bioDir = new Vec<u8>(64);
export const bioFlags = new Vec<u32>(64);
export const bioOff = new Vec<i64>(64);
export const bioSize = new Vec<u32>(64);
export const bioPieces = new Vec<u32>(64); // pieces left to pass the throttle (split by max_sectors)
export const bioSubmit = new Vec<i64>(64);
export const bioRelease = new Vec<i64>(64); // left blk-throttle
export const bioIssue = new Vec<i64>(64); // reached the device
export const bioNext = new Vec<i32>(64);
export const bioAux = new Vec<i64>(64); // per-stage scratch (iocost: abs cost; throttle: wait)

let freeHead: i32 = -1;
export let bioInFlight: i32 = 0;

export function resetBios(): void {
  freeHead = -1;
  bioInFlight = 0;
  bioJob.length = 0;
  bioSeq.length = 0;
  bioWorker.length = 0;
  bioCg.length = 0;
  bioDev.length = 0;
  bioDir.length = 0;
  bioFlags.length = 0;
  bioOff.length = 0;
  bioSize.length = 0;
  bioPieces.length = 0;
  bioSubmit.length = 0;
  bioRelease.length = 0;
  bioIssue.length = 0;
  bioNext.length = 0;
  bioAux.length = 0;
}

export function allocBio(): i32 {
  bioInFlight++;
  if (freeHead >= 0) {
    const s = freeHead;
    freeHead = bioNext.get(s);
    bioNext.set(s, -1);
    return s;
  }
  const s = bioJob.push(0);
  bioSeq.push(0);
  bioWorker.push(0);
  bioCg.push(0);
  bioDev.push(0);
  bioDir.push(0);
  bioFlags.push(0);
  bioOff.push(0);
  bioSize.push(0);
  bioPieces.push(1);
  bioSubmit.push(0);
  bioRelease.push(0);
  bioIssue.push(0);
  bioNext.push(-1);
  bioAux.push(0);
  return s;
}

export function freeBio(s: i32): void {
  bioInFlight--;
  bioNext.set(s, freeHead);
  freeHead = s;
}
