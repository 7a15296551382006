// Inode ownership election: wbc_account_cgroup_owner() and wbc_detach_inode()
// of fs/fs-writeback.c (Linux 6.1; identical in 6.12), with the kernel's
// constants and unsigned integer arithmetic.
//
// One writeback *pass* over an inode (one writeback_single_inode(), one
// fsync's filemap_fdatawrite) is a vote. While the filesystem builds bios it
// calls wbc_account_cgroup_owner(wbc, page, bytes) for every page; the page
// votes for the memory cgroup it is charged to. Three counters are kept:
//
//   wb_id / wb_bytes         the inode's current owner (its wb's memcg)
//   lcand_id / lcand_bytes   last pass's winner (inode->i_wb_frn_winner)
//   tcand_id / tcand_bytes   a Boyer-Moore majority candidate among the rest
//
// At the end of the pass wbc_detach_inode() picks the largest of the three
// (ties favour the owner, then lcand), converts its bytes to IO time in
// 1/8192 s units with the owner wb's avg_write_bandwidth (pages/s),
//
//   max_time = DIV_ROUND_UP((max_bytes >> PAGE_SHIFT) << 13, avg_write_bandwidth)
//
// folds it into the inode's running average (avg += max/8 - avg/8), and, if
// the pass is not short (max_time >= avg / 8), shifts min(ceil(max_time /
// 1024), 5) slots into the 16-bit history, all ones if a foreign memcg won.
// More than 8 of 16 set bits switches the inode to the winner's wb.
//
// Worked example (guest trace wb_share, kernel 6.1, 64 MiB file, INIT_BW =
// 25600 pages/s): B owns the inode; A dirtied the first 70 % (11469 pages),
// B the rest (4915 pages). One WB_SYNC_ALL pass: wb_bytes = 4915 pages, the
// Boyer-Moore candidate is A with 11469 pages, so A wins;
// max_time = ceil(11469 * 8192 / 25600) = 3671 units (448 ms), slots =
// min(ceil(3671 / 1024), 5) = 4: history 0x0 -> 0xf (4 bits). Next round
// 0xff (8 bits, not > 8), third round 0xfff (12 > 8): switch. Were the
// first sync written in 2048-page chunks instead (WB_SYNC_NONE start_all),
// each chunk is one pass of ceil(2048*8192/25600) = 656 units = 1 slot, six
// chunks won by A and two by B give 0xfc, and the next single pass makes
// 0xfcf (10 bits): switch one round earlier. Both happen in the recordings.

export const PAGE_SHIFT: u32 = 12;
export const PAGE_SIZE: u32 = 4096;
export const WB_FRN_TIME_SHIFT: u32 = 13; // 1s = 2^13, up to 8 secs w/ 16bit
export const WB_FRN_TIME_AVG_SHIFT: u32 = 3; // avg = avg * 7/8 + new * 1/8
export const WB_FRN_TIME_CUT_DIV: u64 = 8; // ignore rounds < avg / 8
export const WB_FRN_TIME_PERIOD: u64 = 2 * (1 << WB_FRN_TIME_SHIFT); // 2s
export const WB_FRN_HIST_SLOTS: u32 = 16; // inode->i_wb_frn_history is 16bit
export const WB_FRN_HIST_UNIT: u64 = WB_FRN_TIME_PERIOD / WB_FRN_HIST_SLOTS;
export const WB_FRN_HIST_THR_SLOTS: i32 = WB_FRN_HIST_SLOTS / 2;
export const WB_FRN_HIST_MAX_SLOTS: u64 = WB_FRN_HIST_THR_SLOTS / 2 + 1;
export const WB_FRN_MAX_IN_FLIGHT: i32 = 1024; // don't queue too many concurrently
export const U16_MAX: u64 = 65535;

// ---- struct writeback_control's cgroup fields (one pass at a time)
export let wbcWbId: i32 = 0;
export let wbcWbBytes: u64 = 0;
export let wbcLcandId: i32 = 0;
export let wbcLcandBytes: u64 = 0;
export let wbcTcandId: i32 = 0;
export let wbcTcandBytes: u64 = 0;

/** wbc_attach_and_unlock_inode(): start a pass of inode owned by memcg `wbId`. */
export function wbcAttach(wbId: i32, lastWinner: i32): void {
  wbcWbId = wbId;
  wbcWbBytes = 0;
  wbcLcandId = lastWinner;
  wbcLcandBytes = 0;
  wbcTcandId = 0;
  wbcTcandBytes = 0;
}

/** wbc_account_cgroup_owner(): `bytes` of a page charged to memcg `id` are
 *  being written. The caller skips pages of offline memcgs (dead cgroups do
 *  not vote). */
@inline export function wbcAccount(id: i32, bytes: u64): void {
  if (id == wbcWbId) {
    wbcWbBytes += bytes;
    return;
  }
  if (id == wbcLcandId) wbcLcandBytes += bytes;
  // Boyer-Moore majority vote algorithm
  if (!wbcTcandBytes) wbcTcandId = id;
  if (id == wbcTcandId) wbcTcandBytes += bytes;
  else wbcTcandBytes -= min(bytes, wbcTcandBytes);
}

// ---- wbc_detach_inode() outputs
export let detMaxId: i32 = 0;
export let detMaxBytes: u64 = 0;
export let detMaxTime: u64 = 0;
export let detSlots: i32 = 0; // 0 = pass ignored as short
export let detHistory: u32 = 0; // new i_wb_frn_history
export let detAvgTime: u32 = 0; // new i_wb_frn_avg_time (capped at U16_MAX)
export let detTrace: bool = false; // trace_inode_foreign_history fires
export let detSwitch: bool = false; // inode_switch_wbs(inode, detMaxId) is called

/** wbc_detach_inode(): decide the pass's winner and whether to switch.
 *  `history`/`avgTime` are the inode's i_wb_frn_history/avg_time,
 *  `avgWriteBandwidth` the owner wb's avg_write_bandwidth in pages/s (> 0). */
export function wbcDetach(history: u32, avgTime: u64, avgWriteBandwidth: u64): void {
  let maxId: i32;
  let maxBytes: u64;
  // pick the winner of this round
  if (wbcWbBytes >= wbcLcandBytes && wbcWbBytes >= wbcTcandBytes) {
    maxId = wbcWbId;
    maxBytes = wbcWbBytes;
  } else if (wbcLcandBytes >= wbcTcandBytes) {
    maxId = wbcLcandId;
    maxBytes = wbcLcandBytes;
  } else {
    maxId = wbcTcandId;
    maxBytes = wbcTcandBytes;
  }
  const bw = avgWriteBandwidth > 0 ? avgWriteBandwidth : 1;
  const maxTime: u64 = (((maxBytes >> PAGE_SHIFT) << WB_FRN_TIME_SHIFT) + bw - 1) / bw;
  let avg = avgTime;
  if (avg) avg = avg - (avg >> WB_FRN_TIME_AVG_SHIFT) + (maxTime >> WB_FRN_TIME_AVG_SHIFT);
  else avg = maxTime; // immediate catch up on first run

  let h: u32 = history & 0xffff;
  detSlots = 0;
  detTrace = false;
  detSwitch = false;
  if (maxTime >= avg / WB_FRN_TIME_CUT_DIV) {
    let slots = (maxTime + WB_FRN_HIST_UNIT - 1) / WB_FRN_HIST_UNIT;
    if (slots > WB_FRN_HIST_MAX_SLOTS) slots = WB_FRN_HIST_MAX_SLOTS;
    h = (h << <u32>slots) & 0xffff;
    if (wbcWbId != maxId) h |= (1 << <u32>slots) - 1;
    detSlots = <i32>slots;
    detTrace = h != 0;
    detSwitch = <i32>popcnt(h) > WB_FRN_HIST_THR_SLOTS;
  }
  detMaxId = maxId;
  detMaxBytes = maxBytes;
  detMaxTime = maxTime;
  detHistory = h;
  detAvgTime = <u32>(avg < U16_MAX ? avg : U16_MAX);
}
