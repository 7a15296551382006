// The `iosim` command run inside the test's process (the built CLI's main(),
// as bin/main.js calls it): ~100x faster than spawning a node per case, for
// regression and fuzz tests of many small inputs. stdout and stderr are
// captured; process.exitCode is reset around the call. A V8 fatal error
// cannot be caught here: tests that look for those spawn (cliSpawn).
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const MAIN = join(ROOT, "dist", "bindings", "cli", "main.js");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

type MainFn = (argv: string[]) => Promise<number>;
let mainFn: MainFn | undefined;

export async function cli(...args: string[]): Promise<CliResult> {
  mainFn ??= ((await import(MAIN)) as { main: MainFn }).main;
  const out: string[] = [];
  const err: string[] = [];
  const ow = process.stdout.write.bind(process.stdout);
  const ew = process.stderr.write.bind(process.stderr);
  const saved = process.exitCode;
  process.exitCode = undefined;
  process.stdout.write = ((c: string | Uint8Array) => (out.push(String(c)), true)) as typeof process.stdout.write;
  process.stderr.write = ((c: string | Uint8Array) => (err.push(String(c)), true)) as typeof process.stderr.write;
  const t0 = performance.now();
  let code: number;
  try {
    code = await mainFn(["node", "iosim", ...args]);
  } finally {
    process.stdout.write = ow;
    process.stderr.write = ew;
    process.exitCode = saved;
  }
  return { code, stdout: out.join(""), stderr: err.join(""), ms: performance.now() - t0 };
}

/** the same in a child process, with a time limit and V8's heap capped (a fatal error is its status/signal) */
export function cliSpawn(args: string[], opts: { timeoutMs?: number; heapMb?: number; cwd?: string } = {}): CliResult & { signal: NodeJS.Signals | null } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [`--max-old-space-size=${opts.heapMb ?? 1024}`, MAIN, ...args], {
    encoding: "utf8", timeout: opts.timeoutMs ?? 60_000, cwd: opts.cwd, maxBuffer: 1 << 28,
  });
  return { code: r.status ?? -1, signal: r.signal, stdout: r.stdout ?? "", stderr: r.stderr ?? "", ms: performance.now() - t0 };
}
