// Running one fuzz case (inputs.ts) and judging it: the exit code is 0, 1 or
// 2 (3 is a bug, anything else a V8 fatal error or a kill), the case ends in
// bounded time and memory, and a rejected input (exit 2) leaves its directory
// as it was (no --out directory, no journal, no partial file). A failing case
// is kept under test/fixtures/fuzz/found/<hash>/ (its files and case.json) so
// found.test.ts replays it as a regression.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cli, cliSpawn, ROOT, type CliResult } from "../helpers/cli-inproc.js";

export { ROOT };
import type { FuzzCase } from "./inputs.js";

export const LIMITS = { ms: 30_000, rssBytes: 1 << 30 };
/** budgets a fuzz case runs under (the CLI's own options; a run past them is exit 2 naming them) */
const BUDGET_ARGS: Record<string, string[]> = { run: ["--max-events", "3000000", "--max-memory", "512"] };

export interface CaseOutcome {
  code: number;
  ms: number;
  rss: number;
  spawned: boolean;
  stderr: string;
  problem?: string;
}

export interface FuzzStats {
  cases: number;
  byExit: Record<string, number>;
  byKind: Record<string, number>;
  maxMs: number;
  maxMsKind: string;
  maxRss: number;
  spawned: number;
  problems: number;
}

export function newStats(): FuzzStats {
  return { cases: 0, byExit: {}, byKind: {}, maxMs: 0, maxMsKind: "", maxRss: 0, spawned: 0, problems: 0 };
}

/** write a case's files (names may hold a directory: "out/runs.jsonl") under dir */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

/** a journal lock whose process is gone (or that holds no pid): a sweep takes it over and removes it, rightly */
function staleLock(p: string): boolean {
  if (!p.endsWith(".lock")) return false;
  const pid = Number(readFileSync(p, "utf8").trim());
  if (!Number.isSafeInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== "EPERM";
  }
}

/** a directory's tree with sizes (stale journal locks left out: see staleLock) */
export function listing(dir: string): string {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = statSync(p);
      if (st.isFile() && staleLock(p)) continue;
      out.push(`${rel}${n} ${st.isDirectory() ? "dir" : st.size}`);
      if (st.isDirectory()) walk(p, `${rel}${n}/`);
    }
  };
  walk(dir, "");
  return out.join("\n");
}

export function argsOf(c: FuzzCase, dir: string): string[] {
  const args = c.args.map((a) => a.replaceAll("{dir}", dir));
  return [...args, ...(BUDGET_ARGS[args[0]!] ?? [])];
}

/** what a case did, as harness judges it (rss: the peak during the case when known, else 0) */
export interface Ran {
  code: number;
  ms: number;
  stderr: string;
  rss: number;
  signal?: NodeJS.Signals | null;
}

/**
 * The rules a case must keep: exit 0, 1 or 2 (3 is a bug; anything else a V8
 * fatal error or a signal); within LIMITS; when rejected (exit 2), an
 * "iosim: ..." message and the directory unchanged (`after` lists it again).
 * Returns what is wrong, or undefined.
 */
export function judge(r: Ran, before: string, after: () => string): string | undefined {
  if (![0, 1, 2].includes(r.code)) return `exit ${r.code}${r.signal ? ` (${r.signal})` : ""}: ${r.stderr.slice(0, 600)}`;
  if (r.ms > LIMITS.ms) return `took ${Math.round(r.ms)} ms`;
  if (r.rss > LIMITS.rssBytes) return `RSS ${Math.round(r.rss / 2 ** 20)} MiB`;
  if (r.code === 2) {
    const now = after();
    if (now !== before) return `a rejected input changed the disk:\n${before}\n--- after ---\n${now}`;
    // "iosim: <file>:<line>: ..." for bad input; commander's own "error: ..." and the usage for a bad command line
    if (!/^(iosim: |error: )/.test(r.stderr)) return `exit 2 without an "iosim: ..." message: ${r.stderr.slice(0, 300)}`;
  }
  return undefined;
}

export async function runCase(c: FuzzCase, spawn = false): Promise<CaseOutcome> {
  const dir = mkdtempSync(join(tmpdir(), "iosim-fuzz-"));
  try {
    writeFiles(dir, c.files);
    const before = listing(dir);
    const args = argsOf(c, dir);
    let r: CliResult & { signal?: NodeJS.Signals | null };
    let rss: number;
    if (spawn) {
      r = cliSpawn(args, { timeoutMs: LIMITS.ms * 2, heapMb: 1024, cwd: dir });
      rss = 0;
    } else {
      const cpu0 = process.cpuUsage();
      r = await cli(...args);
      const du = process.cpuUsage(cpu0);
      rss = process.memoryUsage().rss;
      // on a loaded machine a wall time past the limit is judged by the CPU time the case used (as scripts/fuzz.mjs does)
      if (r.ms > LIMITS.ms) r = { ...r, ms: (du.user + du.system) / 1000 };
    }
    const out: CaseOutcome = { code: r.code, ms: r.ms, rss, spawned: spawn, stderr: r.stderr.slice(0, 2000) };
    out.problem = judge({ ...r, rss }, before, () => listing(dir));
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function count(stats: FuzzStats, c: FuzzCase, o: CaseOutcome): void {
  stats.cases++;
  stats.byExit[String(o.code)] = (stats.byExit[String(o.code)] ?? 0) + 1;
  const kind = c.kind.replace(/^mutated .*/, "mutated");
  stats.byKind[kind] = (stats.byKind[kind] ?? 0) + 1;
  if (o.ms > stats.maxMs) {
    stats.maxMs = o.ms;
    stats.maxMsKind = c.kind;
  }
  stats.maxRss = Math.max(stats.maxRss, o.rss);
  if (o.spawned) stats.spawned++;
  if (o.problem) stats.problems++;
}

/** Keep a failing case as a regression (test/fixtures/fuzz/found/<hash>/); returns its directory. */
export function keepFound(c: FuzzCase, o: { problem?: string }): string {
  const h = createHash("sha256").update(JSON.stringify(c)).digest("hex").slice(0, 12);
  const dir = join(ROOT, "test", "fixtures", "fuzz", "found", h);
  mkdirSync(dir, { recursive: true });
  writeFiles(dir, c.files);
  writeFileSync(join(dir, "case.json"), JSON.stringify({ kind: c.kind, args: c.args, files: Object.keys(c.files), found: o.problem }, null, 2) + "\n");
  return dir;
}
