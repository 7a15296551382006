// Page cache and cgroup writeback — placeholder until the writeback model
// lands: buffered writes are treated as direct.
export let writebackActive: bool = false;

export function resetWriteback(): void {
  writebackActive = false;
}

/** A buffered write dirtied pages; returns the writer's delay in ns. */
export function wbWrite(job: i32, cg: i32, dev: i32, off: i64, size: u32, now: i64): i64 {
  return 0;
}

export function wbEvent(arg: u32, now: i64): void {}

export function wbBioDone(slot: i32, now: i64): void {}
