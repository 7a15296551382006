// Latency statistics from the core's per-job fio plat histogram.
import type { LatencyStats } from "../scenario/types.js";

export const FIO_PLAT_BITS = 6;
export const FIO_PLAT_VAL = 1 << FIO_PLAT_BITS;
export const FIO_DEFAULT_PERCENTILES = [1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99];

/** fio's plat_idx_to_val(): the value a bucket reads back as (midpoint). */
export function platIdxToVal(idx: number, bits = FIO_PLAT_BITS): number {
  const val = 1 << bits;
  if (idx < val << 1) return idx;
  const errorBits = (idx >> bits) - 1;
  const base = 2 ** (errorBits + bits);
  const k = idx % val;
  return Math.floor(base + (k + 0.5) * 2 ** errorBits);
}

/** fio's calc_clat_percentiles(): first bucket whose cumulative count reaches pct. */
export function percentilesFromHist(hist: ArrayLike<number>, list: number[], bits = FIO_PLAT_BITS): number[] {
  let total = 0;
  for (let i = 0; i < hist.length; i++) total += hist[i]!;
  const out: number[] = new Array(list.length).fill(0);
  if (total === 0) return out;
  let sum = 0;
  let j = 0;
  const sorted = list.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  for (let i = 0; i < hist.length && j < sorted.length; i++) {
    sum += hist[i]!;
    while (j < sorted.length && sum >= (sorted[j]![0] / 100) * total) {
      out[sorted[j]![1]] = platIdxToVal(i, bits);
      j++;
    }
  }
  return out;
}

export function latencyStats(
  n: number, sum: number, sq: number, min: bigint, max: bigint, hist: Uint32Array,
): LatencyStats {
  const mean = n > 0 ? sum / n : 0;
  const variance = n > 1 ? Math.max(0, (sq - n * mean * mean) / (n - 1)) : 0;
  const pct = percentilesFromHist(hist, FIO_DEFAULT_PERCENTILES);
  const percentiles: Record<string, number> = {};
  FIO_DEFAULT_PERCENTILES.forEach((p, i) => (percentiles[p.toFixed(6)] = pct[i]!));
  return {
    min: n > 0 ? Number(min) : 0,
    max: n > 0 ? Number(max) : 0,
    mean,
    stddev: Math.sqrt(variance),
    percentiles,
    histogram: hist,
  };
}
