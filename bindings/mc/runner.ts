// The sweep runner: the run indices of one shard, spread over a pool of
// worker threads, records streamed to the journal as chunks finish.
//
// Why node:worker_threads and not piscina: a sweep is one static list of
// independent, cheap runs (tens of us to a millisecond each). The work is
// handed out in chunks of run indices sized to about CHUNK_TARGET_MS of work
// (so messaging costs < 1 % and the journal sees a steady stream), each worker
// loads (and compiles) the scenario once at start and posts back each chunk as
// one string of journal lines, and Ctrl-C must stop the pool at once with
// the journal consistent. That is thirty lines over worker_threads; a
// general-purpose task pool would add a per-task promise and queue, and a
// dependency in every worker, for no feature we use.
//
// Determinism: a record depends only on (scenario, sweep seed, run index)
// (rng.ts), and the summary only on the set of records (summary.ts). Workers
// and chunking change when a run happens, never what it gives.

import { existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { setFlagsFromString } from "node:v8";
import type { Worker } from "node:worker_threads";
import { createWorker, releasePrestarted, takePrestarted, workerSemiSpaceMb, workerUrl } from "./pool.js";
import {
  digestText, JournalWriter, readJournal, sameSweep, scanJournal, shardRange, type JournalHeader, type RunRecord, type ShardSpec,
} from "./journal.js";
import { modelFromText, runOne } from "./run-one.js";
import type { TableAxis, TemplateModel } from "./model.js";
import { canonicalRecords, SweepTally } from "./summary.js";
import type { ChunkDone, Init, ToWorker } from "./worker.js";
// (what the pool's workers start with: pool.ts, which `iosim mc` loads first)
export { MAX_WORKERS_PER_CORE, prestartedWorkers, prestartWorkers, WORKER_SEMI_SPACE_MB, workerSemiSpaceMb, workersCompileOnOwnThread, workerUrl } from "./pool.js";
import { InputError } from "../scenario/errors.js";

/** Aim for chunks of about this much work per message. */
export const CHUNK_TARGET_MS = 50;
export const CHUNK_MAX_RUNS = 4096;

export interface SweepProgress {
  /** runs of this shard finished (including ones found in the journal on resume) */
  done: number;
  /** runs in this shard */
  total: number;
  /** runs finished in this invocation */
  doneNow: number;
  elapsedMs: number;
}

export interface SweepOptions {
  /** path of the randomised scenario file */
  file: string;
  /** its text (default: read from file) */
  text?: string;
  /** the model of `text` (modelFromText), when the caller has made it already (default: made here) */
  model?: TemplateModel;
  runs: number;
  seed: bigint;
  /** worker threads; 0 = run in this thread */
  workers: number;
  /**
   * Let the pool grow from `workers` up to this many workers while the sweep
   * runs, when the first worker's own measurements say one more pays for its
   * warm-up (see growthPays()); the CLI's default: 1 growing to the cores.
   */
  growTo?: number;
  shard?: ShardSpec;
  journal: string;
  resume?: boolean;
  force?: boolean;
  onProgress?(p: SweepProgress): void;
  /** stop early (Ctrl-C): the journal is synced and closed, the promise resolves with what finished */
  signal?: AbortSignal;
  /**
   * Size in MB of each worker's young-generation semi-spaces (V8 starts them
   * at this size instead of growing them from 1 MB; see pool.ts workerHeap()).
   * Default WORKER_SEMI_SPACE_MB (less when memory is short); 0 = V8's default.
   */
  semiSpaceMb?: number;
  /**
   * Let V8 scavenge the workers' young generations with helper threads
   * (default: only while the pool leaves cores idle; see serialScavenge()).
   */
  parallelScavenge?: boolean;
  /** the summary's table axes (default: the scenario's mc.table) */
  table?: TableAxis[];
  /**
   * TurboFan's inlining budget while the pool runs (see capInlining());
   * default WORKER_INLINE_BUDGET, 0 = V8's default.
   */
  inlineBudget?: number;
  /**
   * Let each worker's isolate compile its optimised code on V8's helper
   * threads (V8's default) rather than on the worker's own thread (default:
   * only while the pool leaves a core idle; see pool.ts compileOnWorker()).
   */
  concurrentCompile?: boolean;
}


/** Did the user choose V8's GC threading on the command line or in NODE_OPTIONS? Then it stays as they set it. */
function userSetGcThreads(): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((a) => /scavenge|single[-_]threaded[-_]gc/.test(a));
}

let serialPools = 0;
/** Is V8's parallel scavenging switched off for a running pool now? (for tests) */
export function scavengeIsSerial(): boolean {
  return serialPools > 0;
}
/**
 * Scavenge without helper threads while a pool's workers fill the cores.
 * V8 scavenges a young generation with helper threads from a process-wide
 * pool; with a worker on every core those helpers only take turns with the
 * workers (and wait for them), where each worker scavenging its own heap
 * loses nothing. `--parallel-scavenge` is a process-wide V8 flag read at
 * every scavenge (set at run time it reaches the workers' isolates too:
 * --trace-gc-nvp's background.scavenge.parallel drops to 0), so it stays off
 * while the pool runs and comes back when the last such pool ends. Measured
 * with the bench's --gc-variants in a quiet phase: 2 workers 21.3 k runs/s
 * with it off vs 20.3 k with V8's default, speed-up 1.92 vs 1.82x (bench/mc.ts).
 * Returns the undo.
 */
function serialScavenge(workers: number, wanted: boolean | undefined): () => void {
  const serial = wanted === undefined ? workers >= availableParallelism() : !wanted;
  if (!serial || userSetGcThreads()) return () => {};
  if (serialPools++ === 0) setFlagsFromString("--no-parallel-scavenge");
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    if (--serialPools === 0) setFlagsFromString("--parallel-scavenge");
  };
}

/**
 * TurboFan's inlining budget while a pool runs (V8's
 * --max-inlined-bytecode-size-cumulative: how much bytecode it inlines into
 * one optimised function; V8's default 920). A worker's warm-up is mostly
 * TurboFan compiling the Kubernetes replay on V8's helper threads (~370
 * compiles, ~2 s of compile time in one worker's first 8,000 runs of the
 * detach-backoff sweep, --trace-opt), and a compile's cost grows with what it
 * inlines: the replay's per-run functions (the scenario's play, the outcome,
 * the controllers' set-up) each pulled in hundreds of callees. At 200 a
 * worker's warm-up costs ~1.3x less CPU and its steady runs ~1.1x less
 * (bench/warmup.ts, one-worker sweeps of 20,000 runs alternated with V8's
 * default; issue #34). Like --parallel-scavenge, a process-wide flag read at
 * every compile: set while a pool runs, V8's default again when the last
 * such pool ends; left alone when the user sets inlining flags in node's
 * options.
 */
export const WORKER_INLINE_BUDGET = 200;
const V8_DEFAULT_INLINE_BUDGET = 920;

/** Did the user choose TurboFan's inlining on the command line or in NODE_OPTIONS? Then it stays as they set it. */
function userSetInlining(): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((a) => /inlin/.test(a));
}

let cappedPools = 0;
/** Is TurboFan's inlining budget lowered for a running pool now? (for tests) */
export function inliningIsCapped(): boolean {
  return cappedPools > 0;
}
/** Lower TurboFan's inlining budget to `budget` (0: leave V8's) while a pool runs; returns the undo. */
function capInlining(budget: number): () => void {
  if (!(budget > 0) || userSetInlining()) return () => {};
  if (cappedPools++ === 0) setFlagsFromString(`--max-inlined-bytecode-size-cumulative=${Math.round(budget)}`);
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    if (--cappedPools === 0) setFlagsFromString(`--max-inlined-bytecode-size-cumulative=${V8_DEFAULT_INLINE_BUDGET}`);
  };
}

export interface SweepResult {
  header: JournalHeader;
  /** what the summary needs of every run in the journal (this run's and resumed ones): `tally.summary(header, model)` */
  tally: SweepTally;
  /** distinct runs in the journal */
  completed: number;
  /** the journal's records, read back from the file when asked for (unique, by run index): for small sweeps and tests */
  readonly records: RunRecord[];
  model: TemplateModel;
  /** runs done in this invocation */
  ranNow: number;
  wallMs: number;
  /** summed time the runs took inside the workers (or this thread): busy / (wall x workers) is the pool's utilisation */
  busyMs: number;
  aborted: boolean;
  /** workers the pool ended with (0: this thread) */
  workersUsed: number;
}

export function defaultWorkers(): number {
  return Math.max(1, availableParallelism());
}

/**
 * Should a pool of `workers` start one more? Every worker warms up on its own
 * (V8 runs a run's code in its interpreter, then compiles it on helper
 * threads: a Kubernetes replay costs ~25x its steady time at first and
 * ~1 s of CPU before it is fast, bench/mc.ts), so a second worker saves
 * time only when what is left is long against that warm-up: on a quiet
 * 2-core machine the 20,000-run detach-backoff sweep took 5.7 s on one
 * worker and 7.9 s on two (issue #34), while a sweep of the WebAssembly
 * io domain, with little JavaScript to warm up, gains from its first
 * seconds. Decided from the first worker's chunks (the CPU time its thread
 * spent on them where Linux tells it, which a busy machine does not stretch
 * as it does the wall-clock time) once its time per run has
 * stopped falling (after a second of its runs, the median of its last three
 * chunks within 25 % of the three before: WarmupMeter): `perRunMs` its steady time per run, `warmMs` what its runs so far
 * took beyond that, `left` the runs not handed out yet. One more worker
 * saves about left x perRunMs x (1 - workers/(workers+1)) and costs a warm-up
 * of its own, which on a machine whose cores the pool fills also slows the
 * others (its compiler threads take their cores): GROW_MARGIN of it.
 */
export function growthPays(workers: number, perRunMs: number, warmMs: number, left: number): boolean {
  const saved = left * perRunMs * (1 - workers / (workers + 1));
  return saved > GROW_MARGIN * Math.max(warmMs, GROW_MIN_WARM_MS);
}
export const GROW_MARGIN = 2;
/** a warm-up below this is measurement noise: a worker's start-up (loading the bundle, the model) costs about this */
export const GROW_MIN_WARM_MS = 100;

const WARMUP_MIN_CHUNK_MS = 20;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const WARMUP_MIN_MS = 1000;

/** The first worker's chunks: its time per run, and whether that has stopped falling. */
export class WarmupMeter {
  private perRun: number[] = [];
  runs = 0;
  ms = 0;
  /** a chunk of `runs` that took `ms` of the worker's time (its CPU where known) over `wallMs` */
  add(runs: number, ms: number, wallMs = ms): void {
    this.runs += runs;
    this.ms += ms;
    // a chunk of a few ms says little (a timer tick, a scavenge, the thread descheduled)
    if (runs > 0 && wallMs >= WARMUP_MIN_CHUNK_MS) this.perRun.push(ms / runs);
  }
  /**
   * steady time per run (the median of its last six chunks' of
   * WARMUP_MIN_CHUNK_MS or more) once the first worker has run WARMUP_MIN_MS
   * and the median of the last three is within 25 % of the three before's,
   * else undefined
   */
  steadyPerRunMs(): number | undefined {
    const n = this.perRun.length;
    if (n < 6 || this.ms < WARMUP_MIN_MS) return undefined;
    const last = median(this.perRun.slice(n - 3));
    const before = median(this.perRun.slice(n - 6, n - 3));
    // the median of the last six: a sweep's runs differ in length (its params), and a chunk
    // slowed by a scavenge or a neighbour's cache misses would shrink the warm-up it implies
    return last >= 0.75 * before ? median(this.perRun.slice(n - 6)) : undefined;
  }
  /** what the runs so far took beyond `perRunMs` each */
  warmMs(perRunMs: number): number {
    return Math.max(0, this.ms - this.runs * perRunMs);
  }
}

/** Parse a sweep seed: a decimal or 0x integer below 2^64. */
export function parseSeed(s: string | number | bigint): bigint {
  try {
    // BigInt("") and BigInt("  ") are 0n: an empty --seed (an unset variable in a job spec) would run seed 0 unsaid
    if (typeof s === "string" && s.trim() === "") throw new Error();
    const v = BigInt(s);
    if (v < 0n || v >= 1n << 64n) throw new Error();
    return v;
  } catch {
    throw new InputError(`--seed takes an integer in [0, 2^64), got "${String(s)}"`, "command line", undefined, "--seed");
  }
}

export async function runSweep(o: SweepOptions): Promise<SweepResult> {
  const t0 = performance.now();
  const text = o.text ?? readFileSync(o.file, "utf8");
  const model = o.model ?? modelFromText(text, o.file);
  // a value the file fixes that no run can load: refused now, not an error class in every run
  const fixed = model.fixedError();
  if (fixed) throw fixed;
  const shard = o.shard ?? { index: 0, count: 1 };
  if (!(Number.isInteger(o.runs) && o.runs >= 1)) throw new InputError(`--runs takes a whole number >= 1, got ${o.runs}`, "command line", undefined, "--runs");
  const header: JournalHeader = {
    mc: 1, scenario: { file: o.file, digest: digestText(text), text }, seed: o.seed.toString(), runs: o.runs, shard,
    // only axes given for this sweep (--by) are recorded: without them the scenario's mc.table is the table
    ...(o.table ? { table: o.table } : {}),
  };
  let table = o.table ?? model.spec.mc.table;
  let tally = new SweepTally({ table, metrics: model.spec.mc.metrics });
  let writer: JournalWriter;
  // one sweep writes a journal at a time: two --resume of one journal at once each ran the runs
  // the other was running (2,743 duplicate lines in one try)
  const unlock = lockJournal(o.journal);
  try {
    writer = openJournal();
  } catch (e) {
    unlock();
    throw e;
  }
  function openJournal(): JournalWriter {
  if (o.resume && existsSync(o.journal)) {
    const j = scanJournal(o.journal, (r) => void tally.add(r), (h) => {
      const why = sameSweep(h, header);
      if (why) throw new InputError(`cannot resume: the journal is of another sweep (${why})`, o.journal, 1);
      if (h.shard.index !== shard.index || h.shard.count !== shard.count) {
        throw new InputError(`cannot resume: the journal is shard ${h.shard.index}/${h.shard.count}, not ${shard.index}/${shard.count}`, o.journal, 1);
      }
      // the journal keeps the header it was started with: a resume without --by tabulates by the sweep's --by
      if (!o.table && h.table) {
        table = h.table;
        header.table = h.table;
        tally = new SweepTally({ table, metrics: model.spec.mc.metrics });
      }
    });
    return JournalWriter.reopen(o.journal, j.goodBytes);
  }
  return JournalWriter.create(o.journal, header, o.force);
  }
  const [lo, hi] = shardRange(o.runs, shard);
  const todo: number[] = [];
  for (let i = lo; i < hi; i++) if (!tally.has(i)) todo.push(i);
  const total = hi - lo;
  const alreadyDone = total - todo.length;
  let doneNow = 0;
  const report = () => o.onProgress?.({ done: alreadyDone + doneNow, total, doneNow, elapsedMs: performance.now() - t0 });
  const accept = (recs: RunRecord[]) => {
    writer.append(recs);
    for (const r of recs) tally.add(r);
    doneNow += recs.length;
    report();
  };
  // workers send journal lines, written as they are, and what they counted
  // (the tally keeps no record but the smallest per failing class)
  const acceptChunk = (m: ChunkDone) => {
    writer.appendLines(m.lines, m.runs);
    tally.merge(m.tally);
    doneNow += m.runs;
    report();
  };
  report();
  const metrics = model.spec.mc.metrics;
  let aborted = false;
  let busyMs = 0;
  let workersUsed = 0;
  try {
    if (o.workers <= 0) {
      let next = 0;
      let chunk = 8;
      while (next < todo.length) {
        if (o.signal?.aborted) { aborted = true; break; }
        const idx = todo.slice(next, next + chunk);
        next += idx.length;
        const c0 = performance.now();
        accept(idx.map((i) => runOne(model, o.seed, i, metrics)));
        busyMs += performance.now() - c0;
        chunk = nextChunk(chunk, idx.length, performance.now() - c0, todo.length - next, 1);
        await new Promise((r) => setImmediate(r));
      }
    } else {
      const pool = await runPool(o, text, todo, metrics, table, acceptChunk, (ms) => (busyMs += ms));
      aborted = pool.aborted;
      workersUsed = pool.workers;
    }
  } finally {
    writer.close();
    unlock();
    releasePrestarted();
  }
  const journal = o.journal;
  return {
    header, tally, completed: tally.completed, model, ranNow: doneNow, wallMs: performance.now() - t0, busyMs, aborted, workersUsed,
    get records() {
      if (!existsSync(journal)) throw new Error(`mc: SweepResult.records reads the journal back, and ${journal} is gone (read records before removing it, or use tally)`);
      return canonicalRecords(readJournal(journal).records);
    },
  };
}

function nextChunk(cur: number, ran: number, ms: number, left: number, workers: number): number {
  const perRunMs = ms / Math.max(1, ran);
  let n = perRunMs > 0 ? Math.round(CHUNK_TARGET_MS / perRunMs) : cur * 2;
  n = Math.min(n, cur * 4, CHUNK_MAX_RUNS);
  // keep a few chunks per worker in the tail, so no worker idles while one finishes a big chunk
  n = Math.min(n, Math.ceil(left / (workers * 4)));
  return Math.max(1, n);
}

function runPool(o: SweepOptions, text: string, todo: number[], metrics: string[] | undefined, table: TableAxis[] | undefined,
  accept: (m: ChunkDone) => void, busy: (ms: number) => void): Promise<{ aborted: boolean; workers: number }> {
  const nWorkers = Math.max(1, Math.min(o.workers, todo.length || 1));
  const maxWorkers = Math.max(nWorkers, Math.min(o.growTo ?? nWorkers, todo.length || 1));
  return new Promise((resolveAll, rejectAll) => {
    if (todo.length === 0) return resolveAll({ aborted: false, workers: 0 });
    const url = workerUrl();
    const undo: Array<() => void> = [];
    let next = 0;
    let inFlight = 0;
    let chunk = 4;
    let finished = false;
    let msgId = 0;
    const pool: Worker[] = [];
    const meter = new WarmupMeter();
    const init: Init = { text, file: o.file, seed: o.seed.toString(), metrics, table };
    const finish = (err?: unknown, aborted = false) => {
      if (finished) return;
      finished = true;
      for (const u of undo) u();
      o.signal?.removeEventListener("abort", onAbort);
      Promise.all(pool.map((w) => w.terminate())).finally(() => (err ? rejectAll(err) : resolveAll({ aborted, workers: pool.length })));
    };
    const onAbort = () => finish(undefined, true);
    undo.push(capInlining(o.inlineBudget ?? WORKER_INLINE_BUDGET));
    o.signal?.addEventListener("abort", onAbort);
    const feed = (w: Worker) => {
      if (finished) return;
      if (next >= todo.length) {
        if (inFlight === 0) finish();
        return;
      }
      const idx = todo.slice(next, next + chunk);
      next += idx.length;
      inFlight++;
      w.postMessage({ id: msgId++, indices: idx });
    };
    /** start `n` more workers (their heap flags are process-wide: set for the pool's new size, undone once they are online) */
    const spawn = (n: number) => {
      const size = pool.length + n;
      const mb = o.semiSpaceMb ?? workerSemiSpaceMb(size);
      const ownThread = !(o.concurrentCompile ?? size < availableParallelism());
      undo.push(serialScavenge(size, o.parallelScavenge));
      for (let k = 0; k < n; k++) {
        // a worker started ahead of the sweep with these settings (prestartWorkers) gets the sweep as its first message
        let w = takePrestarted(url, mb, ownThread);
        if (w) w.postMessage({ init } satisfies ToWorker);
        else w = createWorker(url, mb, ownThread, init);
        const first = pool.length === 0;
        w.on("message", (m: ChunkDone) => {
          if (finished) return;
          inFlight--;
          busy(m.ms);
          try {
            accept(m);
          } catch (e) {
            return finish(e);
          }
          chunk = nextChunk(chunk, m.runs, m.ms, todo.length - next, pool.length);
          if (first && pool.length < maxWorkers) {
            meter.add(m.runs, m.cpuMs ?? m.ms, m.ms);
            const c = meter.steadyPerRunMs();
            if (c !== undefined && growthPays(pool.length, c, meter.warmMs(c), todo.length - next)) {
              const added = spawn(1);
              feed(added[0]!);
              feed(added[0]!);
            }
          }
          feed(w);
        });
        w.on("error", (e) => finish(e));
        w.on("exit", (code) => {
          if (!finished && code !== 0) finish(new Error(`mc worker exited with code ${code}`));
        });
        pool.push(w);
      }
      return pool.slice(pool.length - n);
    };
    spawn(nWorkers);
    releasePrestarted();
    if (o.signal?.aborted) return finish(undefined, true);
    // two chunks in flight per worker keeps it busy while the main thread writes
    for (const w of pool) { feed(w); feed(w); }
  });
}


/**
 * Take `<journal>.lock` (created exclusively, holding this process's pid) for
 * the sweep; another live process holding it is an input error naming it. A
 * lock left by a process that is gone (kill -9) is taken over. Returns the
 * release, also run at exit.
 */
export function lockJournal(journal: string): () => void {
  const lock = `${journal}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: "wx" });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) {
        if ((e as NodeJS.ErrnoException).code === "EEXIST") throw new InputError(`the journal is locked by ${lock}, which another sweep keeps taking`, journal, undefined, "--resume");
        throw e;
      }
      let pid = NaN;
      try {
        pid = Number(readFileSync(lock, "utf8").trim());
      } catch {
        // gone meanwhile: try again
      }
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new InputError(`another sweep (process ${pid}) is writing this journal; wait for it, or remove ${lock} if it is not running`, journal, undefined, "--resume");
      }
      try {
        unlinkSync(lock); // stale: its process is gone
      } catch {
        // removed by someone else
      }
    }
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.removeListener("exit", release);
    try {
      unlinkSync(lock);
    } catch {
      // already gone
    }
  };
  process.on("exit", release);
  return release;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
