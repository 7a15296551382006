// blk-throttle (io.max) — placeholder until the throttle model lands:
// every bio passes at once.
export let throttleActive: bool = false;

export function resetThrottle(): void {
  throttleActive = false;
}

export function throtlSubmit(slot: i32, now: i64): bool {
  return true;
}

export function throtlTimer(arg: u32, now: i64): void {}

export function throtlWork(arg: u32, now: i64): void {}

export function throtlConfigEvent(idx: u32, now: i64): void {}
