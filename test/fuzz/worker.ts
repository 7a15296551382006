// A long-lived fuzz worker (scripts/fuzz.mjs forks a few of these; bundled
// with esbuild to build/fuzz/worker.mjs, not run by vitest). It runs many
// cases in this one process through the shipped CLI's main() (dist/cli/
// iosim.js), each in its own fresh directory that is also the working
// directory (so a file the CLI writes beside its input or in "." is seen),
// and answers per case: the exit code (main's return, process.exitCode, or a
// process.exit() call, which is caught and never ends the worker), the wall
// and CPU time, the peak RSS during the case (the kernel's VmHWM, reset
// before the case through /proc/self/clear_refs) and the judgement of
// harness.ts (exit 0, 1 or 2; bounded; a rejected input leaves the disk as
// it was; exit 2 says "iosim: ...").
//
// A case that kills or wedges this process (a V8 fatal error, an endless
// loop, memory past the limit) never answers: the parent notices (exit,
// timeout, RSS watchdog), re-runs that case alone in a fresh `iosim`
// process to classify it, and starts a new worker.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { caseAt } from "./inputs.js";
import { argsOf, judge, listing, ROOT, writeFiles } from "./harness.js";

type MainFn = (argv: string[]) => Promise<number>;

class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

function peakRssBytes(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) * 1024 : process.memoryUsage().rss;
}
let canResetPeak = true;
function resetPeakRss(): void {
  if (!canResetPeak) return;
  try {
    writeFileSync("/proc/self/clear_refs", "5");
  } catch {
    canResetPeak = false; // then VmHWM is the worker's peak so far: an upper bound
  }
}

export interface WorkerAnswer {
  i: number;
  kind: string;
  code: number;
  ms: number;
  cpuMs: number;
  rss: number;
  problem?: string;
  stderr: string;
}

async function main(): Promise<void> {
  const seed = Number(process.env.FUZZ_SEED ?? 1);
  const cliMain = ((await import(join(process.env.FUZZ_CLI_DIR ?? join(ROOT, "dist", "cli"), "iosim.js"))) as { main: MainFn }).main;
  const home = process.cwd();
  const base = mkdtempSync(join(tmpdir(), "iosim-fuzzw-"));
  const realExit = process.exit.bind(process);
  const ow = process.stdout.write.bind(process.stdout);
  const ew = process.stderr.write.bind(process.stderr);

  const runOne = async (i: number): Promise<WorkerAnswer> => {
    const c = caseAt(seed, i);
    const dir = join(base, String(i));
    mkdirSync(dir);
    writeFiles(dir, c.files);
    const before = listing(dir);
    const args = argsOf(c, dir);
    const err: string[] = [];
    let outBytes = 0;
    process.stdout.write = ((chunk: string | Uint8Array) => ((outBytes += chunk.length), true)) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array) => (err.length < 200 && err.push(String(chunk)), true)) as typeof process.stderr.write;
    process.exit = ((code?: number) => {
      throw new ExitCalled(code ?? 0);
    }) as typeof process.exit;
    process.exitCode = undefined;
    process.chdir(dir);
    resetPeakRss();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let code: number;
    try {
      code = await cliMain(["node", "iosim", ...args]);
    } catch (e) {
      // main() catches everything but process.exit(); anything else escaping is a bug
      code = e instanceof ExitCalled ? e.code : -3;
      if (!(e instanceof ExitCalled)) err.push(`escaped main(): ${(e as Error)?.stack ?? e}`);
    } finally {
      process.stdout.write = ow;
      process.stderr.write = ew;
      process.exit = realExit;
      process.exitCode = undefined;
      process.chdir(home);
    }
    const ms = performance.now() - t0;
    const du = process.cpuUsage(cpu0);
    const rss = peakRssBytes();
    const stderr = err.join("");
    const problem = judge({ code, ms, stderr, rss, cpuMs: (du.user + du.system) / 1000 }, before, () => listing(dir));
    rmSync(dir, { recursive: true, force: true });
    return { i, kind: c.kind, code, ms, cpuMs: (du.user + du.system) / 1000, rss, problem, stderr: stderr.slice(0, 1500) };
  };

  process.on("message", (m: { i?: number; stop?: boolean }) => {
    if (m.stop) {
      rmSync(base, { recursive: true, force: true });
      process.disconnect();
      return;
    }
    void runOne(m.i!).then((a) => process.send!(a));
  });
  // a stray rejection or exception from a case's leftovers: say so, and let the parent re-run the case alone
  const fatal = (e: unknown) => {
    process.send!({ stray: String((e as Error)?.stack ?? e).slice(0, 1500) });
    realExit(70);
  };
  process.on("uncaughtException", fatal);
  process.on("unhandledRejection", fatal);
  process.send!({ ready: true });
}

void main();
