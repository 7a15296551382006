// A log-normal factor of mean 1 as the core draws it for the presets' latency
// spread: LN_BINS equally likely bins of the factor exp(sigma Z - sigma^2 / 2),
// each holding its conditional mean, so one uniform draw picks a bin
// (assembly/device/device.ts; a table load instead of Box-Muller's log, sqrt,
// cos and exp per bio) and the mean is exactly 1: with phi(z) the normal
// density, exp(sigma z - sigma^2 / 2) phi(z) = phi(z - sigma), so the bin
// [z_k, z_k+1) of probability 1 / N has mean N (Phi(z_k+1 - sigma) - Phi(z_k - sigma)).
// Quantiles are exact at the bin edges (p99 is the edge of bin 0.99 N); within
// a bin the factor is its mean, and the top bin (the top 1 / N) is one value.
// Worked example, sigma 0.3, N 2048: bin 0 (u < 0.000488) has mean 0.3294, the
// median edge is exp(-0.045) = 0.956, bin 2047 2.7902; p99 / p50 =
// exp(2.326 * 0.3) = 2.01.

export const LN_BINS = 2048;

/** erfc(x), Numerical Recipes' Chebyshev fit (fractional error < 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 +
    t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? r : 2 - r;
}

/** The standard normal CDF. */
export function normCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** The standard normal quantile (Acklam's rational fit, then one Newton step on normCdf). */
export function normQuantile(p: number): number {
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  let x: number;
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  } else if (p > 1 - 0.02425) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  } else {
    const q = p - 0.5;
    const r = q * q;
    x = ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  }
  const e = normCdf(x) - p;
  return x - e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
}

/** The LN_BINS bin means of exp(sigma Z - sigma^2 / 2), mean exactly 1 (renormalized for the erfc fit's error). */
export function lognormalBins(sigma: number, n = LN_BINS): number[] {
  const edges = Array.from({ length: n + 1 }, (_, k) => (k === 0 ? -Infinity : k === n ? Infinity : normQuantile(k / n)));
  const cdf = (z: number) => (z === -Infinity ? 0 : z === Infinity ? 1 : normCdf(z - sigma));
  const bins = edges.slice(0, n).map((z, k) => Math.max(0, n * (cdf(edges[k + 1]!) - cdf(z))));
  const mean = bins.reduce((a, b) => a + b, 0) / n;
  return bins.map((b) => b / mean);
}
