// Synthetic RunResults for report tests: latencies in, the stats the engine would produce out.
import type { DirectionStats, JobResult, RunResult } from "../../bindings/scenario/types.js";
import { FIO_IO_U_PLAT_NR, platValToIdx } from "../../bindings/report/percentiles.js";

/** Direction stats from explicit per-IO latencies (ns) and one IO size. */
export function dirStats(latsNs: number[], size = 4096): DirectionStats {
  const hist = new Uint32Array(FIO_IO_U_PLAT_NR);
  let sum = 0;
  for (const l of latsNs) {
    hist[platValToIdx(l)]!++;
    sum += l;
  }
  const n = latsNs.length;
  const mean = n ? sum / n : 0;
  const S = latsNs.reduce((a, l) => a + (l - mean) ** 2, 0);
  return {
    ios: n,
    bytes: n * size,
    lat: {
      min: n ? Math.min(...latsNs) : 0,
      max: n ? Math.max(...latsNs) : 0,
      mean,
      stddev: n > 1 ? Math.sqrt(S / (n - 1)) : 0,
      percentiles: {},
      histogram: hist,
    },
  };
}

export function job(name: string, read: DirectionStats, write: DirectionStats, runtimeMs: number, cgroup = ""): JobResult {
  return { name, cgroup, device: "nvme0n1", read, write, startNs: 0, firstSubmitNs: 0, lastDoneNs: runtimeMs * 1e6, runtimeMs };
}

export function runResult(jobs: JobResult[], over: Partial<RunResult> = {}): RunResult {
  return {
    scenario: "synthetic", kernel: "6.12", seed: 1, simulatedNs: 2_000_000_000, events: 0, wallMs: 0,
    jobs, cgroups: [], series: [], seriesBinNs: 0, warnings: [], ...over,
  };
}
