// blk-iocost constants, built-in parameter sets and the linear cost model.
//
// Everything here is copied from block/blk-iocost.c of Linux 6.1 (identical
// in 6.12 unless noted) and keeps the kernel's integer arithmetic: vtime is a
// u64 count where one second of device time at vrate 100% is 2^37, weights
// are scaled by WEIGHT_ONE = 2^16, and every division rounds the way the
// kernel's does (div64_u64 truncates, DIV64_U64_ROUND_UP rounds up).
//
// Worked example (the oracle's model: rbps=104857600 rseqiops=rrandiops=1000):
//
//   bps_pages = ceil(104857600 / 4096)          = 25,600
//   page      = ceil(2^37 / 25,600)             = 5,368,710   vtime per 4 KiB
//   randio    = ceil(2^37 / 1000) - page        = 137,438,954 - 5,368,710
//             = 132,070,244
//
// so a 4 KiB random read costs randio + 1 page = 137,438,954 vtime = 1 ms of
// device time at vrate 100%: the device is worth 1000 such IOs a second.

export const MILLION: u64 = 1000000;
export const USEC_PER_SEC: u64 = 1000000;
export const NSEC_PER_USEC: u64 = 1000;

// timer period bounds (µs)
export const MIN_PERIOD_US: u32 = 1000;
export const MAX_PERIOD_US: u32 = 1000000;

export const MARGIN_MIN_PCT: u64 = 10;
export const MARGIN_LOW_PCT: u64 = 20;
export const MARGIN_TARGET_PCT: u64 = 50;
export const INUSE_ADJ_STEP_PCT: u32 = 25;
export const TIMER_SLACK_PCT: u64 = 1;
export const WEIGHT_ONE: u32 = 1 << 16;

export const VTIME_PER_SEC_SHIFT: u64 = 37;
export const VTIME_PER_SEC: u64 = (<u64>1) << VTIME_PER_SEC_SHIFT;
export const VTIME_PER_USEC: u64 = VTIME_PER_SEC / 1000000; // 137,438
export const VTIME_PER_NSEC: u64 = VTIME_PER_SEC / 1000000000; // 137
export const VRATE_MIN_PPM: u32 = 10000; // 1%
export const VRATE_MAX_PPM: u32 = 100000000; // 10000%
export const VRATE_MIN: u64 = (VTIME_PER_USEC * <u64>VRATE_MIN_PPM) / MILLION;
export const VRATE_CLAMP_ADJ_PCT: u64 = 4;
export const AUTOP_CYCLE_NSEC: u64 = 10 * 1000000000;

export const RQ_WAIT_BUSY_PCT: u32 = 5;
export const UNBUSY_THR_PCT: u32 = 75;
export const MIN_DELAY_THR_PCT: i64 = 500;
export const MAX_DELAY_THR_PCT: i64 = 25000;
export const MIN_DELAY_US: u64 = 250;
export const MAX_DELAY_US: u64 = 250 * 1000;
export const DFGV_USAGE_PCT: u64 = 50;
export const DFGV_PERIOD_US: u64 = 100 * 1000;
export const MAX_LAGGING_PERIODS: u64 = 10;
export const IOC_PAGE_SHIFT: u32 = 12;
export const IOC_PAGE_SIZE: u64 = 1 << IOC_PAGE_SHIFT;
export const IOC_SECT_TO_PAGE_SHIFT: u32 = IOC_PAGE_SHIFT - 9;
export const LCOEF_RANDIO_PAGES: u64 = 4096;

export const CGROUP_WEIGHT_MIN: u32 = 1;
export const CGROUP_WEIGHT_DFL: u32 = 100;
export const CGROUP_WEIGHT_MAX: u32 = 10000;

// ioc->running
export const IOC_IDLE: i32 = 0;
export const IOC_RUNNING: i32 = 1;

// io.cost.qos params
export const QOS_RPPM: i32 = 0;
export const QOS_RLAT: i32 = 1;
export const QOS_WPPM: i32 = 2;
export const QOS_WLAT: i32 = 3;
export const QOS_MIN: i32 = 4;
export const QOS_MAX: i32 = 5;
export const NR_QOS_PARAMS: i32 = 6;

// io.cost.model user coefficients
export const I_LCOEF_RBPS: i32 = 0;
export const I_LCOEF_RSEQIOPS: i32 = 1;
export const I_LCOEF_RRANDIOPS: i32 = 2;
export const I_LCOEF_WBPS: i32 = 3;
export const I_LCOEF_WSEQIOPS: i32 = 4;
export const I_LCOEF_WRANDIOPS: i32 = 5;
export const NR_I_LCOEFS: i32 = 6;

// derived coefficients
export const LCOEF_RPAGE: i32 = 0;
export const LCOEF_RSEQIO: i32 = 1;
export const LCOEF_RRANDIO: i32 = 2;
export const LCOEF_WPAGE: i32 = 3;
export const LCOEF_WSEQIO: i32 = 4;
export const LCOEF_WRANDIO: i32 = 5;

export const AUTOP_INVALID: i32 = 0;
export const AUTOP_HDD: i32 = 1;
export const AUTOP_SSD_QD1: i32 = 2;
export const AUTOP_SSD_DFL: i32 = 3;
export const AUTOP_SSD_FAST: i32 = 4;

/** Built-in parameter sets: [rlat, wlat, rbps, rseqiops, rrandiops, wbps,
 *  wseqiops, wrandiops, too_fast_vrate_pct, too_slow_vrate_pct] per class.
 *  All classes: rpct = wpct = 0, min = 1%, max = 10000%. */
const AUTOP: StaticArray<u64> = [
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // AUTOP_INVALID
  250000, 250000, 174019176, 41708, 370, 178075866, 42705, 378, 0, 0, // HDD
  25000, 25000, 245855193, 61575, 6946, 141365009, 33716, 26796, 0, 0, // SSD_QD1
  25000, 25000, 488636629, 8932, 8518, 427891549, 28755, 21940, 500, 0, // SSD_DFL
  5000, 5000, 3102524156, 724816, 778122, 1742780862, 425702, 443193, 0, 10, // SSD_FAST
];

@inline export function autopRlat(idx: i32): u32 {
  return <u32>unchecked(AUTOP[idx * 10]);
}
@inline export function autopWlat(idx: i32): u32 {
  return <u32>unchecked(AUTOP[idx * 10 + 1]);
}
@inline export function autopLcoef(idx: i32, k: i32): u64 {
  return unchecked(AUTOP[idx * 10 + 2 + k]);
}
@inline export function autopTooFast(idx: i32): u32 {
  return <u32>unchecked(AUTOP[idx * 10 + 8]);
}
@inline export function autopTooSlow(idx: i32): u32 {
  return <u32>unchecked(AUTOP[idx * 10 + 9]);
}

/** vrate adjust percentages indexed by |busy_level|. */
export const VRATE_ADJ_PCT: StaticArray<u32> = [
  0, 0, 0, 0,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
  4, 4, 4, 4, 4, 4, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8, 16,
];

/** DIV64_U64_ROUND_UP */
@inline export function divRoundUp(a: u64, b: u64): u64 {
  return (a + b - 1) / b;
}

/** The kernel's time_after64(a, b). */
@inline export function after64(a: u64, b: u64): bool {
  return <i64>(b - a) < 0;
}

/** time_before_eq64(a, b) */
@inline export function beforeEq64(a: u64, b: u64): bool {
  return <i64>(a - b) <= 0;
}

/** calc_lcoefs(): (bps, seqiops, randiops) -> page, seqio, randio written to out[base..base+3]. */
export function calcLcoefs(bps: u64, seqiops: u64, randiops: u64, out: StaticArray<u64>, base: i32): void {
  let page: u64 = 0;
  let seqio: u64 = 0;
  let randio: u64 = 0;
  if (bps) {
    const bpsPages = divRoundUp(bps, IOC_PAGE_SIZE);
    if (bpsPages) page = divRoundUp(VTIME_PER_SEC, bpsPages);
    else page = 1;
  }
  if (seqiops) {
    const v = divRoundUp(VTIME_PER_SEC, seqiops);
    if (v > page) seqio = v - page;
  }
  if (randiops) {
    const v = divRoundUp(VTIME_PER_SEC, randiops);
    if (v > page) randio = v - page;
  }
  unchecked((out[base] = page));
  unchecked((out[base + 1] = seqio));
  unchecked((out[base + 2] = randio));
}

/** usecs_to_jiffies() for any HZ: round up. */
@inline export function usecsToJiffies(us: u64, hz: u32): u64 {
  return (us * <u64>hz + 999999) / 1000000;
}
