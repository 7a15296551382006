// Engine throughput: simulated bios per second with no limits on an ideal
// device at QD 32, WASM core vs the same loop in plain TypeScript
// (bench/plain-engine.ts), measured side by side in one run. Then small runs
// (100 bios, as a Monte Carlo sweep of small IO scenarios makes them):
// simulate(), which reuses the previous run's core, vs a fresh core per run.
//
//   node dist/bench/engine.js [--bios N] [--rounds R]
import { Simulation, simulate } from "../bindings/engine/simulation.js";
import { jobDefaults, scenarioDefaults } from "../bindings/scenario/defaults.js";
import type { DeviceSpec } from "../bindings/scenario/types.js";
import { runPlain } from "./plain-engine.js";

const args = process.argv.slice(2);
const arg = (k: string, d: number) => {
  const i = args.indexOf(k);
  return i >= 0 ? Number(args[i + 1]) : d;
};
const BIOS = arg("--bios", 10_000_000);
const ROUNDS = arg("--rounds", 3);
const QD = 32;
const SERVICE_NS = 8_000; // a loop device on tmpfs: ~8 us per 4 KiB bio
const REGION = 1 << 30;

const flat = (iops: number): Array<[number, number]> => [[512, iops], [1 << 20, iops]];
// channels >= nr_requests: every admitted bio is served at once for SERVICE_NS
const ideal: DeviceSpec = {
  name: "loop1", devno: "7:1", kind: "ideal", channels: QD, nrRequests: QD, latencyNs: 0, jitterSigma: 0,
  maxSectorsKb: 1280, rotational: false,
  curve: { read: { seq: flat((QD * 1e9) / SERVICE_NS), rand: flat((QD * 1e9) / SERVICE_NS) },
    write: { seq: flat((QD * 1e9) / SERVICE_NS), rand: flat((QD * 1e9) / SERVICE_NS) } },
};

function wasmRun(): { ms: number; simNs: number; ios: number } {
  const sc = scenarioDefaults({
    name: "bench-engine", devices: [ideal],
    jobs: [jobDefaults({ name: "j", device: "loop1", iodepth: QD, count: BIOS, random: true, regionLen: REGION })],
  });
  const t0 = performance.now();
  const sim = new Simulation(sc);
  sim.runToEnd(undefined, 1 << 24);
  const r = sim.result();
  return { ms: performance.now() - t0, simNs: r.simulatedNs, ios: r.jobs[0]!.read.ios };
}

function plainRun(): { ms: number; simNs: number; ios: number } {
  const t0 = performance.now();
  const r = runPlain(BIOS, QD, SERVICE_NS, REGION, 1);
  return { ms: performance.now() - t0, simNs: r.simulatedNs, ios: r.ios };
}

const w: number[] = [];
const p: number[] = [];
let simNs = 0;
for (let r = 0; r < ROUNDS; r++) {
  const a = wasmRun();
  const b = plainRun();
  if (a.ios !== BIOS || b.ios !== BIOS) throw new Error(`bench: expected ${BIOS} bios, got wasm ${a.ios}, plain ${b.ios}`);
  w.push(a.ms);
  p.push(b.ms);
  simNs = a.simNs;
}
const best = (xs: number[]) => Math.min(...xs);
const wasmRate = BIOS / (best(w) / 1e3);
const plainRate = BIOS / (best(p) / 1e3);
console.log(`engine: ${BIOS.toLocaleString("en-US")} bios, QD ${QD}, ideal device (${SERVICE_NS / 1000} us/bio), no limits, best of ${ROUNDS}`);
console.log(`  wasm core        ${(wasmRate / 1e6).toFixed(2)} M bios/s   simulated/wall ${((simNs / 1e6) / best(w)).toFixed(1)}x`);
console.log(`  plain TypeScript ${(plainRate / 1e6).toFixed(2)} M bios/s   simulated/wall ${((simNs / 1e6) / best(p)).toFixed(1)}x`);
console.log(`  ratio wasm/plain ${(wasmRate / plainRate).toFixed(2)}x   (targets: >= 20 M bios/s, >= 5x)`);

// small runs: the core's instantiation against the run itself
const small = scenarioDefaults({
  name: "bench-small", devices: [ideal],
  jobs: [jobDefaults({ name: "j", device: "loop1", iodepth: 4, count: 100, random: true, regionLen: REGION })],
});
const smallRate = (run: () => unknown): number => {
  for (let i = 0; i < 50; i++) run();
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 1000) {
    run();
    n++;
  }
  return n / ((performance.now() - t0) / 1e3);
};
const reused: number[] = [];
const freshCore: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  reused.push(smallRate(() => simulate(small)));
  freshCore.push(smallRate(() => new Simulation(small).runToEnd()));
}
const bestOf = (xs: number[]) => Math.max(...xs);
console.log(`small runs (100 bios each), best of ${ROUNDS} 1 s rounds, alternated:`);
console.log(`  simulate(), core reused   ${Math.round(bestOf(reused)).toLocaleString("en-US")} runs/s`);
console.log(`  a fresh core per run      ${Math.round(bestOf(freshCore)).toLocaleString("en-US")} runs/s`);
console.log(`  ratio ${(bestOf(reused) / bestOf(freshCore)).toFixed(1)}x`);
