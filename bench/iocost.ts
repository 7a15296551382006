// iocost throughput: simulated bios per second with 100 cgroups in a 3-level
// tree (4 x 4 x 5 = 80 leaves issuing) on an NVMe-like device, iocost on vs
// off, side by side in one run; and the period timer's work with and without
// 1000 idle cgroups (which were active once, then went idle).
//
//   node dist/bench/iocost.js [--bios N] [--rounds R]
//
// Target: >= 5 M simulated bios/s on one core with iocost on. The timer must
// visit only active iocgs: idle ones leave the active list, so the visits per
// period are the same with 0 or 1000 idle cgroups.
import { Simulation } from "../bindings/engine/simulation.js";
import { jobDefaults, scenarioDefaults } from "../bindings/scenario/defaults.js";
import type { CgroupSpec, DeviceSpec, JobSpec } from "../bindings/scenario/types.js";
import { iocostCore } from "../bindings/engine/modules/iocost.js";

const args = process.argv.slice(2);
const arg = (k: string, d: number) => {
  const i = args.indexOf(k);
  return i >= 0 ? Number(args[i + 1]) : d;
};
const BIOS = arg("--bios", 4_000_000);
const ROUNDS = arg("--rounds", 3);
const DEVNO = "259:0";
const flat = (iops: number): Array<[number, number]> => [[512, iops], [1 << 20, iops]];
// NVMe-like: 1 M IOPS of 4 KiB at full parallelism, 20 us fixed latency
const nvme: DeviceSpec = {
  name: "nvme0n1", devno: DEVNO, kind: "nvme", channels: 64, nrRequests: 1023, latencyNs: 20_000, jitterSigma: 0,
  maxSectorsKb: 1280, rotational: false,
  curve: { read: { seq: flat(1e6), rand: flat(1e6) }, write: { seq: flat(1e6), rand: flat(1e6) } },
};
const MODEL = `${DEVNO} ctrl=user model=linear rbps=4000000000 rseqiops=800000 rrandiops=800000 wbps=4000000000 wseqiops=800000 wrandiops=800000`;
const QOS = (on: boolean) => `${DEVNO} enable=${on ? 1 : 0} ctrl=user rpct=95 rlat=5000 wpct=95 wlat=5000 min=50 max=150`;

function tree(): { cgroups: CgroupSpec[]; leaves: string[] } {
  const cgroups: CgroupSpec[] = [];
  const leaves: string[] = [];
  for (let a = 0; a < 4; a++) {
    cgroups.push({ path: `t${a}`, files: { "io.weight": `${100 * (a + 1)}` } });
    for (let b = 0; b < 4; b++) {
      cgroups.push({ path: `t${a}/m${b}`, files: { "io.weight": `${50 + 50 * b}` } });
      for (let c = 0; c < 5; c++) {
        const p = `t${a}/m${b}/l${c}`;
        cgroups.push({ path: p, files: { "io.weight": `${1 + 20 * c}` } });
        leaves.push(p);
      }
    }
  }
  return { cgroups, leaves };
}

function throughput(on: boolean): { ms: number; ios: number; simNs: number; timerRuns: number; waited: number; wakes: number } {
  const { cgroups, leaves } = tree();
  const per = Math.ceil(BIOS / leaves.length);
  const jobs = leaves.map((p, i) => jobDefaults({ name: `j${i}`, device: "nvme0n1", cgroup: p, iodepth: 8, count: per, random: true }));
  const sc = scenarioDefaults({
    name: "bench-iocost", kernel: "6.1", devices: [nvme], jobs,
    cgroups: [{ path: "", files: { "io.cost.model": MODEL, "io.cost.qos": QOS(on) } }, ...cgroups],
  });
  const t0 = performance.now();
  const sim = new Simulation(sc);
  sim.runToEnd(undefined, 1 << 24);
  const ms = performance.now() - t0;
  const r = sim.result();
  const ios = r.jobs.reduce((s, j) => s + j.read.ios, 0);
  const c = iocostCore(sim.core);
  return { ms, ios, simNs: r.simulatedNs, timerRuns: Number(c.iocostIocStat(0, 6)), waited: Number(c.iocostIocStat(0, 32)),
    wakes: Number(c.iocostIocStat(0, 34)) };
}

/** Timer visits per period in steady state with `idle` cgroups that were active once. */
function timerWork(idle: number): { visitsPerTimer: number } {
  const cgroups: CgroupSpec[] = [{ path: "", files: { "io.cost.model": MODEL, "io.cost.qos": QOS(true) } }];
  const jobs: JobSpec[] = [];
  for (let i = 0; i < 10; i++) {
    cgroups.push({ path: `busy/b${i}`, files: { "io.weight": `${10 * (i + 1)}` } });
    jobs.push(jobDefaults({ name: `b${i}`, device: "nvme0n1", cgroup: `busy/b${i}`, iodepth: 4, random: true,
      runtimeNs: 3e9, timeBased: true }));
  }
  for (let i = 0; i < idle; i++) {
    const p = `idle/g${i % 10}/i${i}`;
    cgroups.push({ path: p });
    jobs.push(jobDefaults({ name: `i${i}`, device: "nvme0n1", cgroup: p, iodepth: 1, count: 2, random: true }));
  }
  const sim = new Simulation(scenarioDefaults({ name: "bench-iocost-timer", kernel: "6.1", devices: [nvme], cgroups, jobs,
    durationNs: 3e9 }));
  const c = iocostCore(sim.core);
  while (Number(sim.core.simNow()) < 1e9) sim.step(1 << 14);
  const r0 = Number(c.iocostIocStat(0, 6));
  const v0 = Number(c.iocostIocStat(0, 7));
  sim.runToEnd(undefined, 1 << 22);
  const runs = Number(c.iocostIocStat(0, 6)) - r0;
  const visits = Number(c.iocostIocStat(0, 7)) - v0;
  return { visitsPerTimer: visits / Math.max(1, runs) };
}

const on: number[] = [];
const off: number[] = [];
let last = { ios: 0, simNs: 0, timerRuns: 0, waited: 0, wakes: 0 };
for (let r = 0; r < ROUNDS; r++) {
  const a = throughput(true);
  const b = throughput(false);
  on.push(a.ms);
  off.push(b.ms);
  last = a;
}
const best = (xs: number[]) => Math.min(...xs);
const rate = (ms: number) => (last.ios / ms) * 1000;
console.log(`iocost bench: ${last.ios} bios, 100 cgroups (3 levels, 80 leaves at QD 8), NVMe-like 1 M IOPS, model 800 k IOPS`);
console.log(`  iocost on : ${best(on).toFixed(0)} ms  -> ${(rate(best(on)) / 1e6).toFixed(2)} M simulated bios/s (${(last.simNs / 1e9).toFixed(2)} s simulated, ${last.timerRuns} period timers, ${last.waited} bios waited, ${last.wakes} wake-ups)`);
console.log(`  iocost off: ${best(off).toFixed(0)} ms  -> ${(rate(best(off)) / 1e6).toFixed(2)} M simulated bios/s`);
console.log(`  ratio on/off: ${(best(off) / best(on)).toFixed(2)} (target >= 5 M/s with iocost on: ${rate(best(on)) >= 5e6 ? "met" : "NOT met"})`);
const t0 = timerWork(0);
const t1 = timerWork(1000);
console.log(`  period timer, 10 busy cgroups: ${t0.visitsPerTimer.toFixed(1)} iocg visits per period with 0 idle cgroups, ` +
  `${t1.visitsPerTimer.toFixed(1)} with 1000 idle cgroups (ratio ${(t1.visitsPerTimer / t0.visitsPerTimer).toFixed(2)})`);
