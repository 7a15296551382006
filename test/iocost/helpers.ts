// Small scenario builders for the iocost tests.
import { Simulation } from "../../bindings/engine/simulation.js";
import { jobDefaults, scenarioDefaults } from "../../bindings/scenario/defaults.js";
import type { ConfigWrite, DeviceSpec, JobSpec, KernelVersion, Scenario } from "../../bindings/scenario/types.js";
import { iocostCore, readIocostTrace, type IocostTraceEvent } from "../../bindings/engine/modules/iocost.js";
import "../../bindings/engine/modules/index.js";

export const DEVNO = "259:0";

/** A fast device: `iops` at full parallelism, `latencyNs` on top, many channels. */
export function device(iops = 200_000, latencyNs = 100_000, over: Partial<DeviceSpec> = {}): DeviceSpec {
  const pts: Array<[number, number]> = [[4096, iops]];
  return {
    name: "nvme0n1", devno: DEVNO, kind: "custom", channels: 64, nrRequests: 1024, latencyNs, jitterSigma: 0,
    maxSectorsKb: 1280, rotational: false, curve: { read: { seq: pts, rand: pts }, write: { seq: pts, rand: pts } },
    ...over,
  };
}

/** Linear model worth `iops` 4 KiB IOs a second at vrate 100%. */
export const model = (iops: number, seqiops = iops) =>
  `${DEVNO} ctrl=user model=linear rbps=104857600 rseqiops=${seqiops} rrandiops=${iops} wbps=104857600 wseqiops=${seqiops} wrandiops=${iops}`;
export const pinnedQos = (pct = 100) => `${DEVNO} enable=1 ctrl=user rpct=90 rlat=20000 wpct=90 wlat=20000 min=${pct} max=${pct}`;

export interface Group {
  path: string;
  weight?: number;
  qd?: number;
  startNs?: number;
  runtimeNs?: number;
  random?: boolean;
  rw?: "read" | "write";
}

export function scenario(groups: Group[], opts: {
  iops?: number; seqiops?: number; qos?: string; durationNs?: number; kernel?: KernelVersion; dev?: DeviceSpec;
  writes?: ConfigWrite[]; binNs?: number; jobs?: JobSpec[];
} = {}): Scenario {
  const dev = opts.dev ?? device();
  const cgroups = [{ path: "", files: { "io.cost.model": model(opts.iops ?? 1000, opts.seqiops), "io.cost.qos": opts.qos ?? pinnedQos() } },
    ...groups.map((g) => ({ path: g.path, files: g.weight ? { "io.weight": `default ${g.weight}` } : {} }))];
  const jobs = groups.filter((g) => g.qd !== 0).map((g, i) => jobDefaults({
    name: `j${i}-${g.path}`, device: dev.name, cgroup: g.path, rw: g.rw ?? "read", random: g.random ?? true,
    iodepth: g.qd ?? 16, startNs: g.startNs ?? 0, runtimeNs: g.runtimeNs ?? opts.durationNs ?? 2e9, timeBased: true,
    regionLen: 1 << 30,
  }));
  return scenarioDefaults({
    name: "iocost-test", kernel: opts.kernel ?? "6.1", devices: [dev], cgroups, jobs: [...jobs, ...(opts.jobs ?? [])],
    writes: opts.writes ?? [], durationNs: (opts.durationNs ?? 2e9) + 5e8, seriesBinNs: opts.binNs ?? 1e8,
  });
}

export function run(sc: Scenario) {
  const sim = new Simulation(sc);
  const res = sim.runToEnd();
  const ctx = sim.context();
  const trace: IocostTraceEvent[] = readIocostTrace(sim.core, ctx.cgroupPaths(), ctx.devices().map((d) => d.spec.name));
  const ios = (path: string) => res.cgroups.find((c) => c.path === path)?.own[DEVNO]?.rios ?? 0;
  const iosIn = (path: string, fromNs: number, toNs: number) => res.series
    .filter((s) => s.cgroup === path && s.t0Ns >= fromNs && s.t0Ns < toNs).reduce((a, s) => a + s.ios, 0);
  return { sim, res, trace, ios, iosIn, core: iocostCore(sim.core), cg: (p: string) => ctx.cgroupId(p)! };
}
