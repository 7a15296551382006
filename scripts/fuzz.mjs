// npm run fuzz -- --cases 100000 [--seed N] [--workers W] [--report FILE]
//                 [--progress FILE] [--resume] [--alone-every K] [--recycle R]
//
// The CLI fuzz suite run long (issue #33). Case i of seed S is drawn by
// test/fuzz/inputs.ts caseAt(S, i) (generated scenario, fio, device, cgroup,
// trace, Kubernetes, Monte Carlo and journal inputs, and mutations of the
// project's examples) and judged by test/fuzz/harness.ts: exit 0, 1 or 2
// (never 3, never a V8 fatal error or a signal), at most 30 s and 1 GiB, and
// a rejected input (exit 2) says "iosim: ..." and leaves its directory as it
// was.
//
// Speed without a weaker check: W long-lived worker processes
// (test/fuzz/worker.ts, bundled here with esbuild to build/fuzz/) each run
// many cases in-process through the shipped CLI's main() (dist/cli/
// iosim.js), with the exit code captured and process.exit() caught, and
// measure each case's wall time, CPU time and peak RSS (VmHWM reset per
// case). This process watches them: a worker that dies (a V8 fatal error),
// does not answer within --kill-after seconds, or whose RSS passes 1 GiB is
// killed and replaced, and its case is re-run alone in a fresh `node
// dist/cli/iosim.js` under /usr/bin/time to classify it. Every case that
// breaks a rule in a worker is re-run alone the same way; every
// --alone-every'th case is run alone as well and its exit code must equal
// the worker's (the in-process run is the real CLI). A case that still
// breaks a rule alone, or whose exit code differs, is a finding: kept under
// test/fixtures/fuzz/found/<hash>/ (found.test.ts replays it in `npm test`).
//
// Progress is checkpointed to --progress (default fuzz-progress.json) every
// few seconds, so a long run can be read while it goes and continued with
// --resume after an interruption. The report (--report, default
// fuzz-report.json) has the cases, exit codes, cases by kind, the slowest
// case (wall and CPU), the largest RSS, the findings and the wall time.
import { spawn, fork } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const num = (name, dflt) => {
  const v = Number(opt(name, String(dflt)));
  if (!Number.isSafeInteger(v) || v < 0) {
    console.error(`fuzz: ${name} takes a whole number >= 0, got ${opt(name)}`);
    process.exit(2);
  }
  return v;
};
const CASES = num("--cases", 1000);
const SEED = num("--seed", 1);
const WORKERS = Math.max(1, num("--workers", 2));
const ALONE_EVERY = num("--alone-every", 1000);
const RECYCLE = Math.max(1, num("--recycle", 5000));
const KILL_AFTER_MS = num("--kill-after", 90) * 1000;
const REPORT = opt("--report", join(root, "fuzz-report.json"));
const PROGRESS = opt("--progress", join(root, "fuzz-progress.json"));
const RESUME = args.includes("--resume");
const RSS_LIMIT = 1 << 30;

// ------------------------------------------------------------ the worker bundle
const outdir = join(root, "build", "fuzz");
mkdirSync(outdir, { recursive: true });
await build({
  absWorkingDir: root,
  entryPoints: { worker: "test/fuzz/worker.ts", harness: "test/fuzz/harness.ts", inputs: "test/fuzz/inputs.ts" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  outExtension: { ".js": ".mjs" },
  logLevel: "warning",
});
const { caseAt } = await import(pathToFileURL(join(outdir, "inputs.mjs")).href);
const { argsOf, judge, listing, keepFound, LIMITS, writeFiles } = await import(pathToFileURL(join(outdir, "harness.mjs")).href);
// the CLI under test: a snapshot of dist/ taken now, so a rebuild while a long run goes does not change it mid-run
const snap = join(root, "build", "fuzz-cli");
rmSync(snap, { recursive: true, force: true });
cpSync(join(root, "dist", "cli"), join(snap, "cli"), { recursive: true });
cpSync(join(root, "dist", "lib"), join(snap, "lib"), { recursive: true });
const CLI = join(snap, "cli", "iosim.js");

// ------------------------------------------------------------ state (checkpointed)
const fresh = () => ({
  seed: SEED, cases: CASES, done: 0, prefix: 0, above: [], byExit: {}, byKind: {},
  maxMs: 0, maxMsCase: -1, maxMsKind: "", maxCpuMs: 0, maxCpuMsCase: -1, maxRssMiB: 0, maxRssCase: -1,
  workerDeaths: 0, aloneRuns: 0, crossChecked: 0, rerunClean: [], findings: [], wallS: 0, cpuS: 0, caseCpuMs: 0, startedAt: new Date().toISOString(),
});
let st = fresh();
if (RESUME && existsSync(PROGRESS)) {
  const p = JSON.parse(readFileSync(PROGRESS, "utf8"));
  if (p.seed !== SEED) {
    console.error(`fuzz: ${PROGRESS} is of seed ${p.seed}, not ${SEED}`);
    process.exit(2);
  }
  st = { ...p, cases: CASES };
}
const doneAbove = new Set(st.above);
const isDone = (i) => i < st.prefix || doneAbove.has(i);
const markDone = (i) => {
  doneAbove.add(i);
  while (doneAbove.has(st.prefix)) doneAbove.delete(st.prefix++);
};
const t0 = Date.now() - st.wallS * 1000;
function checkpoint() {
  st.above = [...doneAbove].sort((a, b) => a - b);
  st.wallS = Math.round((Date.now() - t0) / 1000);
  st.cpuS = Math.round(st.caseCpuMs / 1000);
  const tmp = `${PROGRESS}.tmp`;
  writeFileSync(tmp, JSON.stringify(st, null, 1) + "\n");
  renameSync(tmp, PROGRESS);
}

// ------------------------------------------------------------ a case alone, in a fresh process
async function runAlone(i) {
  const c = caseAt(SEED, i);
  const dir = mkdtempSync(join(tmpdir(), "iosim-fuzza-"));
  const timeFile = join(tmpdir(), `iosim-fuzz-time-${process.pid}-${i}`);
  try {
    writeFiles(dir, c.files);
    const before = listing(dir);
    const a = argsOf(c, dir);
    const started = Date.now();
    const r = await new Promise((res) => {
      const p = spawn("/usr/bin/time", ["-f", "%e %U %S %M", "-o", timeFile, process.execPath, CLI, ...a], { cwd: dir, detached: true, stdio: ["ignore", "ignore", "pipe"] });
      let err = "";
      p.stderr.on("data", (d) => (err.length < 8000 ? (err += d) : undefined));
      const timer = setTimeout(() => {
        try {
          process.kill(-p.pid, "SIGKILL");
        } catch {
          // gone
        }
      }, Math.max(LIMITS.ms * 3, KILL_AFTER_MS));
      p.on("close", (code, signal) => {
        clearTimeout(timer);
        res({ code, signal, err });
      });
    });
    const wallMs = Date.now() - started;
    let code = r.code ?? 128 + 9;
    let signal = r.signal;
    let ms = wallMs, cpuMs = 0, rss = 0;
    try {
      const t = readFileSync(timeFile, "utf8");
      const sig = /terminated by signal (\d+)/.exec(t);
      if (sig) {
        code = 128 + Number(sig[1]);
        signal = `signal ${sig[1]}`;
      }
      const m = /([\d.]+) ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(t);
      if (m) {
        ms = Number(m[1]) * 1000;
        cpuMs = (Number(m[2]) + Number(m[3])) * 1000;
        rss = Number(m[4]) * 1024;
      }
    } catch {
      // killed before time wrote: the wall time and no RSS
    }
    if (r.signal === "SIGKILL") signal = `killed after ${wallMs} ms`;
    // on a loaded machine a wall time past the limit is judged by the CPU time the case used
    const judged = { code, ms: ms > LIMITS.ms && cpuMs > 0 ? cpuMs : ms, stderr: r.err, rss, signal };
    const problem = judge(judged, before, () => listing(dir));
    return { i, kind: c.kind, code, ms, cpuMs, rss, problem, signal, stderr: r.err.slice(0, 1500) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(timeFile, { force: true });
  }
}

function record(a, where) {
  st.done++;
  st.byExit[a.code] = (st.byExit[a.code] ?? 0) + 1;
  const kind = a.kind.replace(/^mutated .*/, "mutated").replace(/^yaml .*/, "yaml shapes");
  st.byKind[kind] = (st.byKind[kind] ?? 0) + 1;
  if (a.ms > st.maxMs) Object.assign(st, { maxMs: Math.round(a.ms), maxMsCase: a.i, maxMsKind: `${a.kind} (${where})` });
  st.caseCpuMs += a.cpuMs;
  if (a.cpuMs > st.maxCpuMs) Object.assign(st, { maxCpuMs: Math.round(a.cpuMs), maxCpuMsCase: a.i });
  const mib = Math.round(a.rss / 2 ** 20);
  if (mib > st.maxRssMiB) Object.assign(st, { maxRssMiB: mib, maxRssCase: a.i });
  markDone(a.i);
}

function finding(i, what, worker, alone) {
  const c = caseAt(SEED, i);
  const kept = keepFound(c, { problem: `${what}: ${alone?.problem ?? worker?.problem ?? ""}` });
  st.findings.push({ i, kind: c.kind, what, worker: worker && { code: worker.code, problem: worker.problem }, alone: alone && { code: alone.code, problem: alone.problem, ms: alone.ms, cpuMs: alone.cpuMs, rssMiB: Math.round(alone.rss / 2 ** 20) }, kept: kept.slice(root.length + 1) });
  console.error(`fuzz: FINDING case ${i} (${c.kind}): ${what}: ${(alone?.problem ?? worker?.problem ?? "").slice(0, 300)}`);
}

/** a case that broke a rule in a worker, or killed it: re-run alone; a finding if it breaks a rule there too */
async function classify(i, worker, why) {
  st.aloneRuns++;
  const alone = await runAlone(i);
  if (alone.problem) finding(i, why, worker, alone);
  else st.rerunClean.push({ i, kind: alone.kind, why, worker: worker?.problem?.slice(0, 200), aloneMs: Math.round(alone.ms), aloneCpuMs: Math.round(alone.cpuMs), aloneRssMiB: Math.round(alone.rss / 2 ** 20) });
  // a case whose exit code differs alone and in a worker: the CLI keeps state between runs (a library user would see it)
  if (worker && !alone.problem && worker.code !== alone.code && [0, 1, 2].includes(worker.code)) finding(i, `exit ${worker.code} in a worker, ${alone.code} alone`, worker, alone);
  record(alone, "alone");
}

// ------------------------------------------------------------ workers
const WORKER = join(outdir, "worker.mjs");
let next = 0;
const nextIndex = () => {
  while (next < CASES && isDone(next)) next++;
  return next < CASES ? next++ : -1;
};
const pending = new Set();
let stopping = false;

function startWorker(slot) {
  return new Promise((resolveSlot) => {
    const w = fork(WORKER, [], { cwd: root, env: { ...process.env, FUZZ_SEED: String(SEED), FUZZ_CLI_DIR: join(snap, "cli") }, stdio: ["ignore", "ignore", "pipe", "ipc"], serialization: "advanced" });
    let current = -1, startedAt = 0, ran = 0, ended = false, stray = "";
    let errTail = "";
    w.stderr.on("data", (d) => (errTail = (errTail + d).slice(-4000)));
    const send = () => {
      if (stopping || ran >= RECYCLE) return void w.send({ stop: true });
      current = nextIndex();
      if (current < 0) return void w.send({ stop: true });
      startedAt = Date.now();
      w.send({ i: current });
    };
    const watch = setInterval(() => {
      if (current < 0 || ended) return;
      let rss = 0;
      try {
        rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${w.pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
      } catch {
        return;
      }
      const over = rss > RSS_LIMIT ? `worker RSS ${Math.round(rss / 2 ** 20)} MiB` : Date.now() - startedAt > KILL_AFTER_MS ? `no answer in ${KILL_AFTER_MS / 1000} s` : "";
      if (over) {
        stray = over;
        w.kill("SIGKILL");
      }
    }, 200);
    w.on("message", (m) => {
      if (m.ready) return send();
      if (m.stray) return void (stray = `stray error: ${m.stray}`);
      ran++;
      current = -1;
      const a = m;
      const done = () => {
        send();
      };
      if (a.problem) {
        const job = classify(a.i, a, `in a worker: ${a.problem.split("\n")[0]}`).finally(() => pending.delete(job));
        pending.add(job);
        job.then(done);
        return;
      }
      record(a, "worker");
      if (ALONE_EVERY > 0 && a.i % ALONE_EVERY === ALONE_EVERY - 1) {
        const job = runAlone(a.i).then((alone) => {
          st.crossChecked++;
          if (alone.problem || alone.code !== a.code) finding(a.i, alone.problem ? "alone" : `exit ${a.code} in a worker, ${alone.code} alone`, a, alone);
        }).finally(() => pending.delete(job));
        pending.add(job);
      }
      done();
    });
    w.on("exit", (code, signal) => {
      ended = true;
      clearInterval(watch);
      const lost = current;
      if (lost >= 0) {
        st.workerDeaths++;
        const why = `killed its worker (${stray || `exit ${code}${signal ? ` ${signal}` : ""}`}): ${errTail.split("\n").slice(-5).join(" | ").slice(0, 400)}`;
        const job = classify(lost, undefined, why).finally(() => pending.delete(job));
        pending.add(job);
        job.then(() => resolveSlot(startWorker(slot)));
      } else if (!stopping && next < CASES) resolveSlot(startWorker(slot));
      else resolveSlot();
    });
  });
}

const timer = setInterval(checkpoint, 5000);
const onSig = () => {
  stopping = true;
  console.error("fuzz: stopping after the cases in hand (progress kept; --resume continues)");
};
process.on("SIGINT", onSig);
process.on("SIGTERM", onSig);
await Promise.all(Array.from({ length: WORKERS }, (_, k) => startWorker(k)));
while (pending.size) await Promise.all([...pending]);
clearInterval(timer);
checkpoint();
const report = {
  seed: st.seed, cases: st.done, of: CASES, byExit: st.byExit, byKind: st.byKind,
  maxMs: st.maxMs, maxMsCase: st.maxMsCase, maxMsKind: st.maxMsKind, maxCpuMs: st.maxCpuMs, maxCpuMsCase: st.maxCpuMsCase,
  maxRssMiB: st.maxRssMiB, maxRssCase: st.maxRssCase, workerDeaths: st.workerDeaths, aloneRuns: st.aloneRuns, crossChecked: st.crossChecked,
  rerunClean: st.rerunClean, findings: st.findings, wallS: st.wallS, caseCpuS: st.cpuS,
};
writeFileSync(REPORT, JSON.stringify(report, null, 2) + "\n");
console.log(JSON.stringify(report, null, 2));
process.exit(st.findings.length ? 1 : st.done < CASES ? 2 : 0);
