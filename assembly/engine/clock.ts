// Simulated time and the kernel's jiffies.
//
// Time is an i64 count of nanoseconds from the scenario's origin (t = 0),
// never negative inside the core (the TypeScript side shifts a trace so that
// its earliest event is at or after 0).
//
// The kernel counts time in jiffies: a tick every 1e9/HZ ns. Linux starts
// jiffies at INITIAL_JIFFIES = (unsigned long)(unsigned int)(-300*HZ), i.e. five
// minutes before the 32-bit wrap, and blk-throttle aligns slice ends to
// absolute multiples of the slice length, so the absolute jiffies value (not
// just elapsed ticks) decides timing. We therefore keep two numbers:
//
//   JIFFIES_AT_ZERO   the jiffies value during the tick that contains t = 0
//   ZERO_AFTER_TICK_NS how long after that tick's start t = 0 lies
//
//   jiffies(t) = JIFFIES_AT_ZERO + floor((t + ZERO_AFTER_TICK_NS) / TICK_NS)
//
// Worked example (oracle throtl header, HZ=250): t0_mono_ns = 1234567890123,
// offset = 4294892243, grid 0  ->  TICK_NS = 4_000_000,
// ZERO_AFTER_TICK_NS = 1234567890123 % 4e6 = 1890123,
// JIFFIES_AT_ZERO = 1234567890123 / 4e6 + 4294892243 = 4295200884.
// Jiffies are u64 as on a 64-bit kernel; comparisons use the kernel's
// wrap-safe time_after (signed difference) anyway.

export let HZ: u32 = 250;
export let TICK_NS: i64 = 4_000_000;
export let JIFFIES_AT_ZERO: u64 = 0x100000000 - 300 * 250;
export let ZERO_AFTER_TICK_NS: i64 = 0;

/**
 * The kernel's ktime_get() (ns since boot) at simulated time `t`: the ticks
 * since INITIAL_JIFFIES, the offset into t = 0's tick, and t. A policy that
 * keeps a ktime stamp which starts at 0 (blk-iolatency's last_scale_event)
 * sees, as the kernel does, that far in the past: 10 s on defaultClock().
 */
export function ktimeAt(t: i64): u64 {
  const initial = <u64>(<u32>(-300 * <i32>HZ));
  return (JIFFIES_AT_ZERO - initial) * <u64>TICK_NS + <u64>ZERO_AFTER_TICK_NS + <u64>t;
}

export function setClock(hz: u32, jiffiesAtZero: u64, zeroAfterTickNs: i64): void {
  HZ = hz;
  TICK_NS = 1_000_000_000 / <i64>hz;
  JIFFIES_AT_ZERO = jiffiesAtZero;
  ZERO_AFTER_TICK_NS = zeroAfterTickNs % TICK_NS;
  tickLo = i64.MAX_VALUE; // forget the remembered tick
  tickHi = i64.MIN_VALUE;
}

// blk-throttle asks for jiffies at every bio and every timer, and a 64-bit
// division by TICK_NS costs tens of cycles; but consecutive questions mostly
// fall in the same tick. The last tick computed is remembered as the time
// range [tickLo, tickHi) it covers and its jiffies value.
let tickLo: i64 = i64.MAX_VALUE;
let tickHi: i64 = i64.MIN_VALUE;
let tickJiffies: u64 = 0;

/** jiffies during which simulated time `t` falls. */
@inline export function jiffiesAt(t: i64): u64 {
  if (t >= tickLo && t < tickHi) return tickJiffies;
  return jiffiesAtSlow(t);
}

function jiffiesAtSlow(t: i64): u64 {
  const x = t + ZERO_AFTER_TICK_NS;
  const q = x / TICK_NS;
  const j = JIFFIES_AT_ZERO + <u64>q;
  if (x >= 0 && x <= i64.MAX_VALUE - 2 * TICK_NS) {
    // (below zero, division truncates towards zero: not one tick per range)
    tickLo = q * TICK_NS - ZERO_AFTER_TICK_NS;
    tickHi = tickLo + TICK_NS;
    tickJiffies = j;
  }
  return j;
}

/** Simulated time at which jiffy `j` begins (the tick interrupt for j). */
@inline export function tickTime(j: u64): i64 {
  return <i64>(j - JIFFIES_AT_ZERO) * TICK_NS - ZERO_AFTER_TICK_NS;
}

/** The kernel's time_after(a, b): a is later than b, wrap-safe. */
@inline export function timeAfter(a: u64, b: u64): bool {
  return <i64>(b - a) < 0;
}

/** time_after_eq(a, b). */
@inline export function timeAfterEq(a: u64, b: u64): bool {
  return <i64>(a - b) >= 0;
}

/** time_before(a, b). */
@inline export function timeBefore(a: u64, b: u64): bool {
  return timeAfter(b, a);
}

/** time_in_range(a, b, c): b <= a <= c, wrap-safe. */
@inline export function timeInRange(a: u64, b: u64, c: u64): bool {
  return timeAfterEq(a, b) && timeAfterEq(c, a);
}
