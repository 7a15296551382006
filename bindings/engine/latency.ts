// Latency statistics from the core's per-job fio plat histogram, computed the
// way fio computes them (bindings/report/percentiles.ts).
import type { LatencyStats } from "../scenario/types.js";
import { FIO_DEFAULT_PERCENTILE_LIST, percentileKey, percentilesFromPlat } from "../report/percentiles.js";

export function latencyStats(
  n: number, sum: number, sq: number, min: bigint, max: bigint, hist: Uint32Array,
): LatencyStats {
  const mean = n > 0 ? sum / n : 0;
  const variance = n > 1 ? Math.max(0, (sq - n * mean * mean) / (n - 1)) : 0;
  const percentiles: Record<string, number> = {};
  for (const p of percentilesFromPlat(hist, FIO_DEFAULT_PERCENTILE_LIST, n)) percentiles[percentileKey(p.pct)] = p.ns;
  return {
    min: n > 0 ? Number(min) : 0,
    max: n > 0 ? Number(max) : 0,
    mean,
    stddev: Math.sqrt(variance),
    percentiles,
    histogram: hist,
  };
}
