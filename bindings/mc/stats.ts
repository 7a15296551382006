// Statistics of a sweep: outcome probabilities with Wilson intervals, and
// order statistics of metrics.
//
// Wilson score interval (Wilson 1927; Brown, Cai & DasGupta 2001 recommend it
// over the Wald interval for small counts and p near 0 or 1). For k
// successes in n runs, p = k/n, z = 1.959964 (95 %):
//
//     centre = (p + z^2/2n) / (1 + z^2/n)
//     half   = z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/4n^2)
//
// Worked example: 0 failures in 100 runs gives [0, 0.0370]: "never seen" still
// allows up to 3.7 %; 50 in 100 gives [0.4038, 0.5962].
//
// Percentiles are nearest-rank on the sorted values (the value at rank
// ceil(q n)), so they are values that occurred and do not depend on the order
// the runs finished in. Means are summed over the sorted values for the same
// reason: floating-point sums depend on order.

/** z for a two-sided 95 % interval */
export const Z95 = 1.959963984540054;

export function wilson(k: number, n: number, z = Z95): [number, number] {
  if (n <= 0) return [0, 1];
  const p = k / n;
  const z2 = z * z;
  const den = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / den;
  const half = (z / den) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Nearest-rank percentile (q in [0, 100]) of values sorted ascending. */
export function percentileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.max(1, Math.ceil((q / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export interface MetricSummary {
  n: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summariseValues(values: number[]): MetricSummary {
  const s = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of s) sum += v;
  const arr = Array.from(s);
  return {
    n: arr.length,
    min: arr[0] ?? NaN,
    p50: percentileSorted(arr, 50),
    p90: percentileSorted(arr, 90),
    p99: percentileSorted(arr, 99),
    max: arr[arr.length - 1] ?? NaN,
    mean: arr.length ? sum / arr.length : NaN,
  };
}

/** Round for printing and for stable JSON (12 significant digits). */
export function tidy(x: number): number {
  // integers of at most 12 digits print exactly (x + 0 turns -0 into 0, as the string round trip does)
  if (Number.isInteger(x) && x < 1e12 && x > -1e12) return x + 0;
  return Number.isFinite(x) ? Number(x.toPrecision(12)) : x;
}
