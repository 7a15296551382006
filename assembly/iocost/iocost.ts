// blk-iocost (io.weight, io.cost.*) — placeholder until the iocost model
// lands: every bio passes at once.
export let iocostActive: bool = false;

export function resetIocost(): void {
  iocostActive = false;
}

export function iocSubmit(slot: i32, now: i64): bool {
  return true;
}

export function iocDone(slot: i32, now: i64): void {}

export function iocTimer(arg: u32, now: i64): void {}

export function iocWake(arg: u32, now: i64): void {}

export function iocConfigEvent(idx: u32, now: i64): void {}
