// The jiffies map of a recording: where the kernel's tick lies on
// CLOCK_MONOTONIC, read from /proc/timer_list as the oracle's recorders read
// it (shared/oracle/throtl/run_scenario.py jiffies_map).
//
// /proc/timer_list prints "now at N nsecs", then "jiffies: J", and each CPU's
// tick timer ("tick_sched_timer" / "tick_nohz_handler") with its next
// "expires at E-E nsecs". The tick fires on a fixed grid of CLOCK_MONOTONIC
// (multiples of tick_ns plus grid_offset_ns), so
//   jiffies(t) = floor((t - grid_offset_ns) / tick_ns) + offset.
// "now" is printed before "jiffies", so a tick between the two makes J one
// too large: the smallest offset over several samples is taken. Where the
// offsets spread over more than one tick (a loaded or emulated machine whose
// ticks run late, as in a TCG guest), the map is marked unreliable and
// `iosim compare` estimates the phase from the trace instead.
//
// Worked example (HZ 250, tick 4 ms): "now at 289789619367", "jiffies:
// 4294964679", tick expiring at 289800000000 (a multiple of 4 ms, grid 0):
// offset = 4294964679 - floor(289789619367 / 4000000) = 4294892232.

export interface JiffiesMap {
  tick_ns?: number;
  grid_offset_ns?: number;
  tick_expiry_residues_ns?: number[];
  offset?: number;
  offsets_seen?: number[];
  formula?: string;
  /** false when the samples' offsets disagree by more than one tick (a starved or emulated CPU delays ticks):
   *  iosim compare then estimates the tick phase from the trace, as for traces without a map */
  reliable?: boolean;
  samples_now_ns_jiffies: Array<[number, number]>;
  error?: string;
}

/** One read of /proc/timer_list: the (now, jiffies) sample and the tick timers' expiries. */
export function parseTimerList(text: string): { now?: number; jiffies?: number; expiries: number[] } {
  let now: number | undefined;
  let jiffies: number | undefined;
  const expiries: number[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (now === undefined && l.startsWith("now at ")) now = Number(l.split(/\s+/)[2]);
    else if (jiffies === undefined && l.startsWith("jiffies:")) jiffies = Number(l.split(/\s+/)[1]);
    else if ((l.includes("tick_nohz_handler") || l.includes("tick_sched_timer")) && i + 1 < lines.length) {
      const m = /expires at (\d+)-/.exec(lines[i + 1]!);
      if (m) expiries.push(Number(m[1]));
    }
  }
  return { now, jiffies, expiries };
}

/** The map from several reads of /proc/timer_list (one a millisecond or so apart). */
export function jiffiesMap(reads: readonly string[], hz: number | undefined): JiffiesMap {
  const samples: Array<[number, number]> = [];
  const expiries: number[] = [];
  for (const t of reads) {
    const r = parseTimerList(t);
    if (r.now !== undefined && r.jiffies !== undefined) samples.push([r.now, r.jiffies]);
    expiries.push(...r.expiries);
  }
  if (!hz || samples.length === 0) return { samples_now_ns_jiffies: samples, error: !hz ? "HZ unknown" : "no sample in /proc/timer_list" };
  const tick = Math.floor(1e9 / hz);
  const grid = [...new Set(expiries.map((e) => e % tick))].sort((a, b) => a - b);
  const g = grid.length === 1 ? grid[0]! : 0;
  const offs = samples.map(([n, j]) => j - Math.floor((n - g) / tick));
  return {
    tick_ns: tick,
    grid_offset_ns: g,
    tick_expiry_residues_ns: grid,
    offset: Math.min(...offs),
    offsets_seen: [...new Set(offs)].sort((a, b) => a - b),
    formula: "jiffies(t_mono_ns) = floor((t_mono_ns - grid_offset_ns) / tick_ns) + offset",
    reliable: Math.max(...offs) - Math.min(...offs) <= 1,
    samples_now_ns_jiffies: samples,
  };
}

/** CONFIG_HZ from the kernel's config text (/proc/config.gz unpacked, or /boot/config-$(uname -r)). */
export function hzOfConfig(config: string | undefined): number | undefined {
  const m = config ? /^CONFIG_HZ=(\d+)$/m.exec(config) : null;
  return m ? Number(m[1]) : undefined;
}
