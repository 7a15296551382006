// Side-by-side speed of this checkout's build against another commit's, in one process.
//
//   npm run build && node scripts/ab.mjs REF [--rounds N] [--ms M] [--mc FILE] [--logs] [--engine] [--run20m] [--keep DIR]
//
// REF (a commit, branch or tag) is checked out into a temporary git worktree
// (or DIR with --keep, reused when it is there), built there with this
// checkout's node_modules, and both builds are loaded into this process. Then
// rounds of M ms alternate between them (A = REF, B = this checkout; the
// order swaps every round), each timing the CPU of this process per unit of
// work:
//   k8s  one replay of each of the eight built-in Kubernetes cases (the four
//        seed incidents, affected and fixed version, logs off), as
//        bench/k8s-replay.ts's "interleaved" line runs them;
//   k8s-each  the same eight cases, each in a loop of its own (M/8 ms a case),
//        their CPU per replay added: bench/k8s-replay.ts's per-case rates and
//        its "each case in its own loop" line, as a sweep of one scenario (or
//        `iosim k8s run`) runs a case; interleaving the eight costs ~1.3x more
//        per replay on this VM (their code paths share the CPU's caches);
//   mc   with --mc FILE: one Monte Carlo run of FILE (bindings/mc runLine: sample,
//        replay, decide its log checks if they can change its classes, record);
//   logs, decide  with --logs: the eight cases with every log line built (what
//        `iosim k8s run --logs` does), and the eight decided for their log
//        checks alone (decideK8sLogChecks: what an mc run whose other symptoms
//        held runs again): the code that builds kubelet and controller lines.
//   engine, iomax  with --engine: the WASM core per simulated bio: 200,000
//        random reads at QD 32 on an ideal device (bench/engine.ts's loop),
//        and the built-in io.max demo on the nvme preset (659,000 bios, half
//        through blk-throttle). With --engine alone the k8s kind is skipped.
//   run20m  with --run20m: bench/engine-20m.fio's scenario as `iosim run ... --device
//        ideal` builds it (time series on), 2,000,000 bios a run on a fresh core
//        (~1.4 ms of it): the WASM core of bench/process.ts's run20m row without
//        the process around it (use --ms 300 or more: a run is 30-70 ms).
// It prints the median and quartiles of the per-round ratio A/B (> 1: this
// checkout is faster) and each side's 10th-percentile CPU per unit. Both
// sides see the same machine in every pair of rounds, which is what makes the
// ratio trustworthy on a shared VM whose speed drifts by +-30 % between
// minutes; absolute microseconds are not. An A/A run (REF = HEAD of an
// unchanged tree) reads 1.00 +- 0.02 here, and about 1.00 +- 0.03 for the
// --logs kinds (0.97-1.00 in one steady run; one run in a slow phase of the
// host read 0.84 for logs: run it twice before believing a few %).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const opt = (k, d) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : d;
};
const ref = args[0];
if (!ref || ref.startsWith("--")) {
  console.error("usage: node scripts/ab.mjs REF [--rounds N] [--ms M] [--mc FILE] [--logs] [--engine] [--run20m] [--keep DIR]");
  process.exit(2);
}
const ROUNDS = Number(opt("--rounds", "60"));
const MS = Number(opt("--ms", "150"));
const mcFile = opt("--mc", undefined);
const logs = args.includes("--logs");
const engine = args.includes("--engine");
const run20m = args.includes("--run20m");
const keep = opt("--keep", undefined);

function buildRef() {
  const dir = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), "iosim-ab-"));
  if (!existsSync(join(dir, "package.json"))) {
    if (keep) rmSync(dir, { recursive: true, force: true });
    execFileSync("git", ["-C", root, "worktree", "add", "--detach", dir, ref], { stdio: "inherit" });
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
    execFileSync("npm", ["run", "build"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  }
  return dir;
}
const other = buildRef();
const cleanup = () => {
  if (!keep) execFileSync("git", ["-C", root, "worktree", "remove", "--force", other]);
};

async function side(dir) {
  const url = (p) => pathToFileURL(join(dir, "dist", p)).href;
  const k8s = await import(url("bindings/k8s/index.js"));
  // the seed incidents only: a side whose build has more built-ins replays the same eight cases
  const cases = k8s.builtinK8sScenarios().filter((sc) => sc.incident?.seed).flatMap((sc) => [sc.incident.affected, sc.incident.fixed].map((version) => ({ sc, version })));
  const side = {
    k8s() {
      for (const c of cases) k8s.runK8sScenario(c.sc, { logs: false, version: c.version });
      return cases.length;
    },
    // one function per case, for the k8s-each kind (each case in a loop of its own)
    each: cases.map((c) => () => {
      k8s.runK8sScenario(c.sc, { logs: false, version: c.version });
      return 1;
    }),
  };
  if (logs) {
    const { decideK8sLogChecks } = await import(url("bindings/k8s/scenario/run.js"));
    let seed = 0;
    side.logs = () => {
      seed++;
      for (const c of cases) k8s.runK8sScenario(c.sc, { logs: true, version: c.version, seed });
      return cases.length;
    };
    side.decide = () => {
      seed++;
      for (const c of cases) decideK8sLogChecks(c.sc, { version: c.version, seed });
      return cases.length;
    };
  }
  if (engine) {
    const io = await import(url("bindings/index.js"));
    const QD = 32;
    const iops = (QD * 1e9) / 8000; // 8 us a bio per channel, QD channels
    const flat = [[512, iops], [1 << 20, iops]];
    const dev = { name: "loop1", devno: "7:1", kind: "ideal", channels: QD, nrRequests: QD, latencyNs: 0, jitterSigma: 0, maxSectorsKb: 1280,
      rotational: false, curve: { read: { seq: flat, rand: flat }, write: { seq: flat, rand: flat } } };
    side.engine = () => {
      const r = io.simulate(io.scenarioDefaults({ name: "e", devices: [dev],
        jobs: [io.jobDefaults({ name: "j", device: "loop1", rw: "read", random: true, iodepth: QD, regionLen: 1 << 30, count: 200_000 })] }));
      return r.jobs[0].read.ios;
    };
    side.iomax = () => {
      const r = io.simulate(io.iomaxDemo(io.devicePreset("nvme")));
      return r.jobs.reduce((n, j) => n + j.read.ios, 0);
    };
  }
  if (run20m) {
    const { scenarioForRun } = await import(url("bindings/cli/commands/run.js"));
    const { Simulation } = await import(url("bindings/engine/simulation.js"));
    const { scenario } = scenarioForRun(join(root, "bench", "engine-20m.fio"), { device: "ideal", quiet: true });
    scenario.jobs[0].count = 2_000_000;
    side.run20m = () => new Simulation(scenario).runToEnd(undefined, 1 << 20).jobs[0].read.ios;
  }
  if (mcFile) {
    const { modelFromText, runLine } = await import(url("bindings/mc/run-one.js"));
    const m = modelFromText(readFileSync(mcFile, "utf8"), mcFile);
    const metrics = m.spec.mc.metrics;
    let i = 0;
    side.mc = () => {
      for (let k = 0; k < 8; k++) runLine(m, 1n, i++, metrics);
      return 8;
    };
  }
  return side;
}
const A = await side(other);
const B = await side(root);

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
function round(fn, ms) {
  const c0 = cpuUs();
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < ms) n += fn();
  return (cpuUs() - c0) / n;
}
const q = (xs, p) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(p * (s.length - 1))];
};
// k8s-each: the eight cases each in a loop of its own, as bench/k8s-replay.ts
// measures its per-case rates and as a sweep of one scenario runs it: a round
// times every case alone (M/8 ms each; A's eight, then B's, the order
// swapping every round) and adds
// their CPU per replay, so the figure is the CPU of one replay of each case
const roundEach = (fns, ms) => fns.reduce((sum, fn) => sum + round(fn, ms / fns.length), 0);
const kinds = [...((engine || run20m) && !logs && !mcFile ? [] : ["k8s", "k8s-each"]), ...(logs ? ["logs", "decide"] : []), ...(mcFile ? ["mc"] : []), ...(engine ? ["engine", "iomax"] : []), ...(run20m ? ["run20m"] : [])];
for (const kind of kinds) {
  const each = kind === "k8s-each";
  const time = (side, ms) => (each ? roundEach(side.each, ms) : round(side[kind], ms));
  for (let i = 0; i < 10; i++) {
    time(A, 100);
    time(B, 100);
  }
  const ratios = [];
  const ua = [];
  const ub = [];
  for (let r = 0; r < ROUNDS; r++) {
    let a;
    let b;
    if (r % 2 === 0) {
      a = time(A, MS);
      b = time(B, MS);
    } else {
      b = time(B, MS);
      a = time(A, MS);
    }
    ratios.push(a / b);
    ua.push(a);
    ub.push(b);
  }
  const what = {
    k8s: "replay (eight built-in cases, logs off, interleaved: one replay of each in turn)",
    "k8s-each": "replay of each of the eight built-in cases (logs off, each case in its own loop, summed)",
    logs: "replay with every log line (eight built-in cases)",
    decide: "log-check decision (eight built-in cases, decideK8sLogChecks)",
    mc: `mc run (${mcFile})`,
    engine: "simulated bio (ideal device, QD 32, no limits)",
    iomax: "simulated bio (io.max demo, nvme)",
    run20m: "simulated bio (bench/engine-20m.fio's scenario, ideal device)",
  }[kind];
  console.log(
    `${kind}: A=${ref} B=this checkout, CPU per ${what}: A/B median ${q(ratios, 0.5).toFixed(3)} (quartiles ${q(ratios, 0.25).toFixed(3)}-${q(ratios, 0.75).toFixed(3)}, ${ROUNDS} rounds of ${MS} ms); 10th percentile A ${q(ua, 0.1).toPrecision(3)} us, B ${q(ub, 0.1).toPrecision(3)} us`,
  );
}
cleanup();
