// WASM exports of the writeback model (page cache, cgroup writeback
// ownership). Configuration calls are made once per run; results (owner,
// history, sync completion times, the tracepoint buffer) are read in one
// batch after a run, never per bio.

import * as W from "./writeback";
import * as O from "./owner";

/** Turn the model on for this run (after reset, before start). */
export function wbActivate(seed: u64, nCgroups: i32): void {
  W.activate(seed, nCgroups);
}

/** Set one config value (keys: W.KEY_*). */
export function wbSet(key: i32, value: i64): void {
  W.setKey(key, value);
}

/** The effective memcg and blkcg (core cgroup ids) of cgroup `cg`. */
export function wbCgroup(cg: i32, memcg: i32, blkcg: i32): void {
  W.setCgroup(cg, memcg, blkcg);
}

/** Declare a file of `bytes` at byte `off` of device `dev`; returns its id. */
export function wbFile(dev: i32, off: i64, bytes: i64, ino: i32): i32 {
  return W.addInode(dev, off, bytes, ino);
}

/** A timed operation: 1 sync, 2 fsync(a = file), 3 drop_caches, 4 set(a = key, b = value), 5 offline(a = cgroup). */
export function wbOp(t: i64, kind: i32, a: i64, b: i64): i32 {
  return W.addOp(t, kind, a, b);
}

export function wbTraceOn(on: bool): void {
  W.setTrace(on);
}

export function wbTracePtr(): usize {
  return W.tp.ptr();
}

export function wbTraceLen(): i32 {
  return W.tp.length;
}

/** Memcg (core cgroup id) owning file `id`, -1 before it is first dirtied. */
export function wbOwner(id: i32): i32 {
  return W.inodeOwner(id);
}

export function wbHistory(id: i32): u32 {
  return W.inodeHistory(id);
}

export function wbDirtyPages(id: i32): i32 {
  return W.inodeDirty(id);
}

export function wbSyncCount(): i32 {
  return W.syncStart.length;
}

export function wbSyncDone(s: i32): i64 {
  return W.syncDone.get(s);
}

export function wbPasses(): i64 {
  return W.passes;
}

export function wbPagesWritten(): i64 {
  return W.pagesWritten;
}

export function wbBandwidth(wb: i32): u64 {
  return W.wbAvgBandwidth(wb);
}

// ---- the election on its own (property tests, bench)
let stage = new StaticArray<u8>(64);

export function wbStagingAlloc(bytes: i32): usize {
  if (stage.length < bytes) stage = new StaticArray<u8>(bytes);
  return changetype<usize>(stage);
}

/** One pass's votes: i32 memcg ids then u32 bytes, n of each, from staging. */
export function wbVoteStaged(n: i32, wbId: i32, lastWinner: i32): void {
  const p = changetype<usize>(stage);
  const pb = p + (<usize>n << 2);
  O.wbcAttach(wbId, lastWinner);
  for (let i = 0; i < n; i++) O.wbcAccount(load<i32>(p + (<usize>i << 2)), <u64>load<u32>(pb + (<usize>i << 2)));
}

export function wbVoteTcand(): i32 {
  return O.wbcTcandId;
}

export function wbVoteTcandBytes(): u64 {
  return O.wbcTcandBytes;
}

export function wbVoteWbBytes(): u64 {
  return O.wbcWbBytes;
}

export function wbVoteLcandBytes(): u64 {
  return O.wbcLcandBytes;
}

/** wbc_detach_inode() on the current votes; read the outcome with wbDet*. */
export function wbDetach(history: u32, avgTime: u64, avgWriteBandwidth: u64): void {
  O.wbcDetach(history, avgTime, avgWriteBandwidth);
}

export function wbDetMaxId(): i32 {
  return O.detMaxId;
}

export function wbDetHistory(): u32 {
  return O.detHistory;
}

export function wbDetAvgTime(): u32 {
  return O.detAvgTime;
}

export function wbDetSlots(): i32 {
  return O.detSlots;
}

export function wbDetSwitch(): bool {
  return O.detSwitch;
}

/** Bench: `passes` passes of `pagesPerPass` 4 KiB pages from `writers`
 *  memcgs (a 70/30-like mix from an LCG), each attached, accounted per page
 *  and detached with the kernel's rules. Returns the number of switches. */
export function wbBenchElection(passes: i32, pagesPerPass: i32, writers: i32, seed: u32): i32 {
  let x = seed | 1;
  let history: u32 = 0;
  let avg: u64 = 0;
  let owner = 1;
  let winner = 0;
  let switches = 0;
  const w = writers < 1 ? 1 : writers;
  for (let k = 0; k < passes; k++) {
    O.wbcAttach(owner, winner);
    for (let i = 0; i < pagesPerPass; i++) {
      x = x * 1664525 + 1013904223;
      const r = (x >> 8) % 10;
      const id = r < 7 ? 2 : 3 + <i32>((x >> 20) % <u32>w);
      O.wbcAccount(id, 4096);
    }
    O.wbcDetach(history, avg, 25600);
    history = O.detHistory;
    avg = O.detAvgTime;
    winner = O.detMaxId;
    if (O.detSwitch) {
      owner = O.detMaxId;
      history = 0;
      avg = 0;
      winner = 0;
      switches++;
    }
  }
  return switches;
}
