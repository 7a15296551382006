// Fidelity score of a replay against the real trace (oracle/README.md):
// within each throttle group (cgroup and direction) sort the real and the
// simulated completion times and pair the k-th with the k-th; a pair within
// 4 ms (one jiffy at HZ=250) is matched. Two IOs submitted microseconds apart
// may be queued in either order by the kernel; that race is not an error.
//
// The bar: >= 99% of all IOs matched over all traces, and every trace with
// >= 20 IOs >= 90% matched.

import { maxOf, minOf } from "../util/extent.js";
import type { SimIo } from "./replay.js";

export const MATCH_NS = 4_000_000;

export interface Score {
  name: string;
  ios: number;
  matched: number;
  share: number;
  p50ErrNs: number;
  p99ErrNs: number;
  maxErrNs: number;
  /** per job: recorded and simulated total time (first submit to last completion) */
  jobs: Array<{ job: string; ios: number; realTotalNs: number; simTotalNs: number; errNs: number }>;
}

function quantile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))]!;
}

/** Score the simulated IOs `sims` (each carrying its recorded IO). */
export function scoreSims(name: string, sims: readonly SimIo[], matchNs = MATCH_NS): Score {
  const groups = new Map<string, { real: number[]; sim: number[] }>();
  for (const s of sims) {
    const k = `${s.io.cgroup}\u0000${s.io.dir}`;
    const g = groups.get(k) ?? { real: [], sim: [] };
    g.real.push(s.io.completeNs);
    g.sim.push(s.completeNs);
    groups.set(k, g);
  }
  const errs: number[] = [];
  let matched = 0;
  for (const g of groups.values()) {
    g.real.sort((a, b) => a - b);
    g.sim.sort((a, b) => a - b);
    for (let k = 0; k < g.real.length; k++) {
      const e = Math.abs(g.real[k]! - g.sim[k]!);
      errs.push(e);
      if (e <= matchNs) matched++;
    }
  }
  errs.sort((a, b) => a - b);
  const byJob = new Map<string, SimIo[]>();
  for (const s of sims) {
    const l = byJob.get(s.io.job) ?? [];
    l.push(s);
    byJob.set(s.io.job, l);
  }
  const jobs: Score["jobs"] = [];
  for (const [job, l] of byJob) {
    const first = minOf(l.map((s) => s.io.submitNs));
    const realTotal = maxOf(l.map((s) => s.io.completeNs)) - first;
    const simTotal = maxOf(l.map((s) => s.completeNs)) - first;
    jobs.push({ job, ios: l.length, realTotalNs: realTotal, simTotalNs: simTotal, errNs: simTotal - realTotal });
  }
  return {
    name, ios: errs.length, matched, share: errs.length ? matched / errs.length : 1,
    p50ErrNs: quantile(errs, 0.5), p99ErrNs: quantile(errs, 0.99), maxErrNs: errs.length ? errs[errs.length - 1]! : 0, jobs,
  };
}

export function formatScore(s: Score): string {
  const ms = (x: number) => (x / 1e6).toFixed(2);
  const lines = [`${s.name}: ${s.matched}/${s.ios} matched (${(100 * s.share).toFixed(2)}%)  err p50 ${ms(s.p50ErrNs)} ms  p99 ${ms(s.p99ErrNs)} ms  max ${ms(s.maxErrNs)} ms`];
  for (const j of s.jobs) {
    lines.push(`  job ${j.job}: ${j.ios} IOs, total real ${ms(j.realTotalNs)} ms, sim ${ms(j.simTotalNs)} ms (${j.errNs >= 0 ? "+" : ""}${ms(j.errNs)} ms)`);
  }
  return lines.join("\n");
}
