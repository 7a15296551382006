// The y axis of the time-series charts (uPlot), for quantities that start at
// zero (MiB/s, ms of latency or throttle wait, vrate %):
//   - the range always includes 0, so a flat line is drawn as flat at its
//     height instead of being zoomed into its noise (uPlot's default range
//     around a steady 0.2428 ms mean latency was 0.2426..0.2430);
//   - tick labels carry as many decimals as the tick step needs, so they
//     differ (uPlot's default formatter keeps at most 3, which labelled that
//     axis 0.243, 0.243, 0.243, 0.243).
//
// Worked example: yRange(0.2427, 0.2429) -> [0, 0.3] (uPlot's rangeNum with
// 10% head room, rounded); tickLabels([0, 0.0005, 0.001], 0.0005) ->
// ["0.0000", "0.0005", "0.0010"].

/** Decimals needed to print multiples of `incr` exactly (0.5 -> 1, 0.25 -> 2, 20 -> 0). */
export function stepDecimals(incr: number): number {
  if (!(incr > 0) || !Number.isFinite(incr)) return 0;
  for (let d = 0; d < 12; d++) {
    const scaled = incr * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return d;
  }
  return 12;
}

/** Axis labels for ticks `splits` spaced `incr` apart: en-US grouping, step's decimals. */
export function tickLabels(splits: (number | null)[], incr: number): string[] {
  const d = stepDecimals(incr);
  const fmt = new Intl.NumberFormat("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
  return splits.map((v) => (v == null ? "" : fmt.format(v)));
}

/** The data's [min, max] widened to include 0 (an all-zero or empty series gets [0, 1]). */
export function zeroBased(min: number | null, max: number | null): [number, number] {
  if (min == null || max == null || !Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  const lo = Math.min(0, min), hi = Math.max(0, max);
  return lo === hi ? [0, 1] : [lo, hi];
}
