// Micro-bench statistics with benchmark.js: each case run in timed cycles
// until the sample is large enough, reported as mean time per call ± the
// relative margin of error (95 %) and the number of samples, beside the
// ratio of two cases' means: the figure a bench quotes, with how much it can
// be trusted on this shared machine. (The side-by-side ratios of the benches
// stay the target figures: benchmark.js runs the cases one after the other,
// so a phase of the host can land on one of them.)
//
// Worked example: microStats([{ name: "wasm", fn: a }, { name: "bigint", fn: b }])
//   -> "  wasm   : 1.23 ms/call ± 0.8 % (61 samples)" ... and ratio(bigint, wasm) = 23.1.
import Benchmark from "benchmark";

export interface MicroCase {
  name: string;
  fn: () => void;
}

export interface MicroStat {
  name: string;
  /** mean seconds per call */
  mean: number;
  /** calls per second (1 / mean) */
  hz: number;
  /** relative margin of error at 95 %, in % */
  rme: number;
  samples: number;
}

/** Run each case with benchmark.js (synchronously, one after the other) and return its statistics. */
export function microStats(cases: readonly MicroCase[], opts: { maxTime?: number; minSamples?: number } = {}): MicroStat[] {
  const suite = new Benchmark.Suite();
  for (const c of cases) suite.add(c.name, c.fn, { maxTime: opts.maxTime ?? 2, minSamples: opts.minSamples ?? 10 });
  suite.run({ async: false });
  return suite.map((b: Benchmark) => ({ name: b.name!, mean: b.stats.mean, hz: b.hz, rme: b.stats.rme, samples: b.stats.sample.length }));
}

export function fmtTime(s: number): string {
  return s >= 1 ? `${s.toFixed(2)} s` : s >= 1e-3 ? `${(s * 1e3).toFixed(2)} ms` : s >= 1e-6 ? `${(s * 1e6).toFixed(2)} µs` : `${(s * 1e9).toFixed(1)} ns`;
}

/** One line per case: "name: mean/call ± rme % (n samples)". */
export function formatStats(stats: readonly MicroStat[]): string[] {
  const w = Math.max(...stats.map((s) => s.name.length));
  return stats.map((s) => `  ${s.name.padEnd(w)} : ${fmtTime(s.mean)}/call ± ${s.rme.toFixed(1)} % (${s.samples} samples)`);
}
