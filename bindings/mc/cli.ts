// `iosim mc`: Monte Carlo sweeps of a randomised scenario.
//
//   iosim mc SCENARIO --runs N --seed S [--workers W] [--shard i/N] [--out DIR] [--resume] [--json]
//   iosim mc merge JOURNAL... [--out DIR] [--json]
//   iosim mc replay FILE [--json]
//
// Output directory (default mc-<scenario name>): runs.jsonl (the journal; for
// a shard runs.shard-<i>-of-<N>.jsonl), summary.json, repro-<class>.yaml.
//
// The commands' options are declared in commands.ts, which loads this module
// only when one of them runs.

import type { Command } from "commander";
import { DEFAULT_MAX_RUNS, SWEEP_ONLY_OPTIONS } from "./commands.js";
import { existsSync, statSync, writeFileSync } from "node:fs";
import { makeDirs } from "../cli/make-dirs.js";
import { basename, dirname, join } from "node:path";
import { InputError } from "../scenario/errors.js";
import { readInputFile } from "../cli/read-input.js";
import { sameSweep, sameTable, scanJournal, shardRange, parseShard, type JournalHeader, type ShardSpec } from "./journal.js";
import { checkTableUnits, type TableAxis, type TemplateModel } from "./model.js";
import { unreadParams } from "./distributions.js";
import { applyGrid, parseGrid } from "./grid.js";
import { progressSink, fmtRate } from "./progress.js";
import { modelFromText, uniqueSorted } from "./run-one.js";
import { defaultWorkers, MAX_WORKERS_PER_CORE, parseSeed, runSweep } from "./runner.js";
import { humanValue, metricUnit, OK_CLASS, SweepTally, type McSummary } from "./summary.js";

export interface RunOpts {
  runs: string;
  seed: string;
  workers?: string;
  shard?: string;
  out?: string;
  resume?: boolean;
  force?: boolean;
  json?: boolean;
  shrink: boolean;
  shrinkBudget?: string;
  by?: string[];
  grid?: string[];
  progress: boolean;
  maxRuns?: string;
}

/**
 * The command that merges the N shard journals in `outDir`, for a shell:
 * `runs.shard-*-of-N.jsonl` (`runs.shard-*.jsonl` also took the journals of
 * a sweep sharded another way into the same directory), with the directory
 * quoted when the shell would split or expand it.
 */
export function mergeHint(outDir: string, count: number): string {
  const d = outDir.replace(/\/+$/, "");
  const dir = /^[A-Za-z0-9_./@%+=:,-]*$/.test(d) ? d : `'${d.replace(/'/g, "'\\''")}'`;
  return `iosim mc merge ${dir}/runs.shard-*-of-${count}.jsonl`;
}

export function journalName(shard: ShardSpec): string {
  return shard.count === 1 ? "runs.jsonl" : `runs.shard-${shard.index}-of-${shard.count}.jsonl`;
}

function parseBy(list: string[] | undefined): TableAxis[] | undefined {
  if (!list?.length) return undefined;
  return list.map((s) => {
    const [param, edges] = s.split(":");
    if (!param) throw new InputError(`--by takes PARAM or PARAM:e1,e2,...; got "${s}"`, "command line", undefined, "--by");
    const bins = edges ? edges.split(",").map(Number) : undefined;
    if (bins && bins.some((b, k) => !Number.isFinite(b) || (k > 0 && b <= bins[k - 1]!))) {
      throw new InputError(`--by ${s}: bin edges must be increasing numbers`, "command line", undefined, "--by");
    }
    return { param, bins };
  });
}

/** --by's axes, checked against the sweep's template (a binned param keeps to one unit) */
function byAxes(list: string[] | undefined, model: TemplateModel): TableAxis[] | undefined {
  const axes = parseBy(list);
  checkTableUnits(model.spec.template, axes, () => ({ file: "command line", field: "--by" }));
  return axes;
}

/** runs one process may sweep unless --max-runs says otherwise, and the largest --runs (31-bit run indices) */
export const MAX_RUN_INDEX = 2 ** 31 - 1;

function intArg(v: string | undefined, name: string, dflt: number, min: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new InputError(`${name} takes a whole number >= ${min}, got "${v}"`, "command line", undefined, name);
  return n;
}

export function formatSummary(s: McSummary, outDir?: string): string {
  const lines: string[] = [];
  lines.push(`iosim mc: ${s.scenario} (${s.domain}), ${s.completed}/${s.runs} runs, seed ${s.seed}`);
  lines.push("");
  // classes seen in exactly the same runs print as one row, "a = b"
  const rowsOf = Object.entries(s.classes).filter(([k, c]) => !c.sameRunsAs?.some((o) => o < k));
  const label = (k: string, c: McSummary["classes"][string]) => [k, ...(c.sameRunsAs ?? [])].join(" = ");
  const w = Math.max(8, ...rowsOf.map(([k, c]) => label(k, c).length));
  lines.push(`${"outcome".padEnd(w)}  ${"count".padStart(8)}  ${"prob".padStart(8)}  95% Wilson`);
  for (const [k, c] of rowsOf) {
    lines.push(`${label(k, c).padEnd(w)}  ${String(c.count).padStart(8)}  ${c.probability.toFixed(4).padStart(8)}  [${c.wilson95[0].toFixed(4)}, ${c.wilson95[1].toFixed(4)}]`);
    if (c.repro) {
      const f = outDir ? join(outDir, c.repro.file) : c.repro.file;
      lines.push(`${"".padEnd(w)}  repro: ${f} (run ${c.repro.run}, ${c.repro.shrinkSteps} shrink steps)`);
    }
  }
  const ms = Object.entries(s.metrics);
  if (ms.length) {
    const mw = Math.max(6, ...ms.map(([k]) => k.length));
    // each value in human units from the unit its name implies (metricUnit); summary.json keeps the metrics' own numbers,
    // as mc.expect bounds read them
    const units = ms.map(([k]) => metricUnit(k));
    lines.push("");
    lines.push(`${"metric".padEnd(mw)}  ${"p50".padStart(12)}  ${"p90".padStart(12)}  ${"p99".padStart(12)}  ${"n".padStart(7)}`);
    ms.forEach(([k, m], i) => {
      const f = (x: number) => humanValue(x, units[i]!).padStart(12);
      lines.push(`${k.padEnd(mw)}  ${f(m.p50)}  ${f(m.p90)}  ${f(m.p99)}  ${String(m.n).padStart(7)}`);
    });
  }
  const table = s.table;
  if (table) {
    lines.push("");
    // a class seen in the same runs as one before it in name order is that one's column
    const classes = [...new Set(table.cells.flatMap((c) => Object.keys(c.classes)))]
      .filter((c) => c !== OK_CLASS && !s.classes[c]?.sameRunsAs?.some((o) => o < c))
      .sort();
    const head = [...table.axes, "runs", ...classes.map((c) => `P(${[c, ...(s.classes[c]?.sameRunsAs ?? [])].join(" = ")})`)];
    const rows = table.cells.map((c) => [...table.axes.map((a) => c.key[a]!), String(c.runs), ...classes.map((k) => {
      const e = c.classes[k];
      return e ? `${e.probability.toFixed(3)} [${e.wilson95[0].toFixed(3)}, ${e.wilson95[1].toFixed(3)}]` : "0";
    })]);
    lines.push(...markdownTable(head, rows, table.axes.length));
  }
  return lines.join("\n");
}

/**
 * A Markdown table whose columns line up in a terminal too: every cell padded
 * to its column's width, the first `textColumns` (the table's axes) left
 * aligned, the counts and probabilities right aligned (`---:`), so the text
 * pastes into a README or an issue as it is.
 */
export function markdownTable(head: string[], rows: string[][], textColumns: number): string[] {
  const w = head.map((h, j) => Math.max(3, h.length, ...rows.map((r) => r[j]!.length)));
  const cell = (v: string, j: number) => (j < textColumns ? v.padEnd(w[j]!) : v.padStart(w[j]!));
  const line = (r: string[]) => `| ${r.map(cell).join(" | ")} |`;
  const rule = `|${w.map((n, j) => (j < textColumns ? "-".repeat(n + 2) : `${"-".repeat(n + 1)}:`)).join("|")}|`;
  return [line(head), rule, ...rows.map(line)];
}

/**
 * The names of mc.metrics that no counted run reported: a misspelt name
 * (`job.a.read.iopz`) would otherwise just leave its row out of the summary.
 */
export function unreportedMetrics(model: TemplateModel, summary: McSummary): string[] {
  return (model.spec.mc.metrics ?? []).filter((m) => !(m in summary.metrics));
}

function warnUnreported(model: TemplateModel, summary: McSummary, who: string): void {
  const miss = unreportedMetrics(model, summary);
  if (miss.length && summary.completed > 0) {
    process.stderr.write(`${who}: warning: mc.metrics names ${miss.map((m) => `"${m}"`).join(", ")}, which no run reported (${model.spec.file}, mc.metrics)\n`);
  }
}

/**
 * A draw of mc.params that no {param: name} reads changes nothing in a run
 * (renamed in the document but not in mc.params): said once, when the sweep
 * starts, with its file, line and field.
 */
function warnUnreadParams(model: TemplateModel): void {
  for (const k of unreadParams(model.spec.template)) {
    const field = `mc.params.${k}`;
    const line = model.spec.lines.get(field);
    process.stderr.write(`mc: warning: ${model.spec.file}${line !== undefined ? `:${line}` : ""} (${field}): the param "${k}" is drawn in every run, but nothing reads it ({param: ${k}}): it changes no run\n`);
  }
}

/** `iosim mc SCENARIO` (its options: commands.ts) */
export async function runCommand(scenario: string, o: RunOpts): Promise<void> {
  const grids = parseGrid(o.grid);
  const text = applyGrid(readInputFile(scenario, "scenario"), scenario, grids);
  const model = modelFromText(text, scenario);
  // a value the file fixes that no run can load: bad input, before the output directory is made
  const fixed = model.fixedError();
  if (fixed) throw fixed;
  warnUnreadParams(model);
  // a grid sweep is tabulated by its grids unless --by or the file's mc.table say otherwise
  const by = byAxes(o.by?.length || !grids.length || model.spec.mc.table ? o.by : grids.map((g) => g.name), model);
  // checked before the sweep: a bad value found after it would leave a journal that needs --force
  const shrinkBudget = o.shrinkBudget ? intArg(o.shrinkBudget, "--shrink-budget", 0, 0) : undefined;
  const runs = intArg(o.runs, "--runs", 1000, 1);
  const seed = parseSeed(o.seed);
  // default: one worker, more while the sweep runs when the first one's warm-up says they pay (runner.ts growthPays)
  const workers = intArg(o.workers, "--workers", 1, 0);
  const growTo = o.workers === undefined ? defaultWorkers() : undefined;
  // each worker holds a V8 heap with 32 MB semi-spaces and a copy of the model: far more than the cores only thrashes
  const maxWorkers = MAX_WORKERS_PER_CORE * defaultWorkers();
  if (workers > maxWorkers) throw new InputError(`--workers ${workers} is more than ${MAX_WORKERS_PER_CORE} per core (${maxWorkers} on this machine); a worker per core is the fastest`, "command line", undefined, "--workers");
  if (o.resume && o.force) throw new InputError("--resume continues the journal and --force starts it over: give one", "command line", undefined, "--resume");
  const shard = o.shard ? parseShard(o.shard) : { index: 0, count: 1 };
  // runs per process: each run's metrics are kept for the percentiles (8 bytes a metric a run), and
  // run indices are 31-bit; --runs 4294967296 died in V8 ("invalid size"), 1e9 exhausted the heap
  if (runs > MAX_RUN_INDEX) throw new InputError(`--runs ${runs} is more than ${MAX_RUN_INDEX} (run indices are 31-bit numbers)`, "command line", undefined, "--runs");
  const maxRuns = o.maxRuns === undefined ? DEFAULT_MAX_RUNS : intArg(o.maxRuns, "--max-runs", DEFAULT_MAX_RUNS, 1);
  {
    const [lo, hi] = shardRange(runs, shard);
    if (hi - lo > maxRuns) {
      throw new InputError(`--runs ${runs} gives this process ${hi - lo} runs, more than the ${maxRuns} one process sweeps (~${Math.ceil(((hi - lo) * 64) / 2 ** 20)} MiB for eight metrics alone); split it with --shard i/N, or --max-runs raises the budget`, "command line", undefined, "--runs");
    }
  }
  const outDir = o.out ?? `mc-${model.name.replace(/[^A-Za-z0-9._-]+/g, "-")}`;
  makeDirs(outDir);
  const journal = join(outDir, journalName(shard));
  // --by beside a journal that exists: tabulate it again (a resume; a finished sweep runs nothing)
  const retab = !!o.by?.length && !o.resume && !o.force && existsSync(journal);
  if (retab) process.stderr.write(`mc: ${journal} exists: tabulating its runs again by ${o.by!.join(", ")} (an unfinished sweep is continued; --force starts over)\n`);
  const ac = new AbortController();
  const onSig = () => ac.abort();
  process.once("SIGINT", onSig);
  process.once("SIGTERM", onSig);
  const bar = o.progress
    ? progressSink({ isTTY: !!process.stderr.isTTY, env: process.env, write: (s) => process.stderr.write(s) },
      shard.count > 1 ? `mc ${shard.index}/${shard.count}` : "mc")
    : undefined;
  let res;
  try {
    res = await runSweep({ file: scenario, text, model, runs, seed, workers, growTo, shard, journal, resume: o.resume || retab, force: o.force,
      table: by, onProgress: (p) => bar?.update(p), signal: ac.signal });
  } finally {
    process.off("SIGINT", onSig);
    process.off("SIGTERM", onSig);
  }
  bar?.done(undefined);
  const [lo, hi] = shardRange(runs, shard);
  if (res.aborted) {
    process.stderr.write(`mc: interrupted: ${res.completed}/${hi - lo} runs recorded in ${journal}; continue with --resume\n`);
    process.exitCode = 130;
    return;
  }
  // the sweep's own rate, and the whole process's (node's start-up, loading, the model: what the user waited for)
  const used = res.workersUsed;
  const wholeS = process.uptime();
  process.stderr.write(`mc: ${res.ranNow} runs in ${(res.wallMs / 1000).toFixed(2)} s (${fmtRate((res.ranNow * 1000) / res.wallMs)} runs/s, ` +
    `${used === 0 ? "in this thread" : `${used} worker${used === 1 ? "" : "s"}`}${growTo !== undefined && used > 0 ? ` of up to ${growTo}` : ""}); ` +
    `whole process ${wholeS.toFixed(2)} s, ${fmtRate(res.ranNow / wholeS)} runs/s\n`);
  const summary = res.tally.summary(res.header, res.model, {
    outDir: o.shrink && shard.count === 1 ? outDir : undefined,
    shrinkBudget,
  });
  const name = shard.count === 1 ? "summary.json" : `summary.shard-${shard.index}-of-${shard.count}.json`;
  writeFileSync(join(outDir, name), JSON.stringify(summary, null, 2) + "\n");
  warnUnreported(res.model, summary, "mc");
  if (shard.count > 1) process.stderr.write(`mc: shard ${shard.index}/${shard.count} (${hi > lo ? `runs ${lo}..${hi - 1}` : "no runs: more shards than runs"}) done; combine the shards with: ${mergeHint(outDir, shard.count)}\n`);
  process.stdout.write((o.json ? JSON.stringify(summary) : formatSummary(summary, outDir)) + "\n");
}

/**
 * Combine shard journals into the summary a single sweep gives, streaming
 * each journal into one tally (summary.ts SweepTally; a run index in two
 * journals counts once). `table` (merge's own --by) defaults to the axes
 * the sweep's --by gave (recorded in the journal header), then to the
 * scenario's mc.table; shards tabulated differently need merge's --by.
 */
export function mergeJournals(paths: string[], table?: (model: TemplateModel) => TableAxis[] | undefined):
  { header: JournalHeader; model: TemplateModel; tally: SweepTally; missing: number } {
  if (paths.length === 0) throw new InputError("mc merge needs at least one journal", "command line");
  let h0: JournalHeader | undefined;
  let model: TemplateModel | undefined;
  let tally: SweepTally | undefined;
  let given: TableAxis[] | undefined;
  for (const p of paths) {
    if (!existsSync(p)) throw new InputError("cannot read the journal: ENOENT", p);
    if (statSync(p).isDirectory()) throw new InputError("cannot read the journal: EISDIR", p);
    scanJournal(p, (r) => void tally!.add(r), (h) => {
      if (!h0) {
        h0 = h;
        model = modelFromText(h.scenario.text, h.scenario.file);
        given = table?.(model);
        tally = new SweepTally({ table: given ?? h.table ?? model.spec.mc.table, metrics: model.spec.mc.metrics });
        return;
      }
      const why = sameSweep(h0, h);
      if (why) throw new InputError(`not the same sweep as ${paths[0]}: ${why}`, p, 1);
      const tab = given ? undefined : sameTable(h0, h);
      if (tab) throw new InputError(`${tab} from ${paths[0]}: give merge the --by to tabulate by`, p, 1, "table");
    });
  }
  const header: JournalHeader = { ...h0!, shard: { index: 0, count: 1 } };
  if (given) header.table = given;
  return { header, model: model!, tally: tally!, missing: h0!.runs - tally!.completed };
}

/**
 * A subcommand's options, with those written before it on `mc` (`iosim mc
 * --json merge ...`, the same names) where the subcommand's own were not
 * given. Not commander's optsWithGlobals(), where `mc`'s defaults win: `mc`'s
 * `shrink: true` undid `merge --no-shrink`, which shrank and wrote repros.
 */
function givenOpts(cmd: Command): Record<string, unknown> {
  const out: Record<string, unknown> = { ...cmd.opts() };
  for (let p = cmd.parent; p; p = p.parent) {
    for (const [k, v] of Object.entries(p.opts())) {
      if (p.getOptionValueSource(k) === "cli" && cmd.getOptionValueSource(k) !== "cli") out[k] = v;
    }
  }
  return out;
}

const SWEEP_ONLY_WHY: Record<string, string> = {
  runs: "the runs and seed of the sweep are in the journals' headers",
  seed: "the runs and seed of the sweep are in the journals' headers",
  workers: "a merge runs no sweep (it reads the journals; only shrinking runs scenarios, in this thread)",
  shard: "a merge combines the shards: give their journals",
  resume: "a merge writes no journal; finish an interrupted shard with `iosim mc ... --shard i/N --resume`, then merge",
  force: "a merge writes no journal, only summary.json and the repro files, which it always writes anew",
};

/** `iosim mc merge` (its options: commands.ts) */
export function mergeAction(paths: string[], cmd: Command): void {
  const own = cmd.opts() as Record<string, unknown>;
  for (const flag of SWEEP_ONLY_OPTIONS) {
    const key = flag.replace(/^--/, "").replace(/ .*$/, "");
    if (own[key] !== undefined) {
      throw new InputError(`mc merge takes no ${flag.replace(/ .*$/, "")}: ${SWEEP_ONLY_WHY[key]}`, "command line", undefined, flag.replace(/ .*$/, ""));
    }
  }
  const o = givenOpts(cmd) as { out?: string; json?: boolean; shrink: boolean; by?: string[]; shrinkBudget?: string };
  const shrinkBudget = o.shrinkBudget ? intArg(o.shrinkBudget, "--shrink-budget", 0, 0) : undefined;
  const { header, model, tally, missing } = mergeJournals(paths, (model) => byAxes(o.by, model));
  const outDir = o.out ?? dirname(paths[0]!);
  makeDirs(outDir);
  if (missing > 0) process.stderr.write(`mc merge: warning: ${missing} of ${header.runs} runs are missing (a shard is absent or unfinished)\n`);
  const summary = tally.summary(header, model, { outDir: o.shrink ? outDir : undefined, shrinkBudget });
  writeFileSync(join(outDir, "summary.json"), JSON.stringify(summary, null, 2) + "\n");
  warnUnreported(model, summary, "mc merge");
  process.stdout.write((o.json ? JSON.stringify(summary) : formatSummary(summary, outDir)) + "\n");
}

/** `iosim mc replay` */
export function mcReplayAction(file: string, cmd: Command): void {
  const o = givenOpts(cmd) as { json?: boolean };
  const out = replayFile(file);
  if (o.json) process.stdout.write(JSON.stringify(out) + "\n");
  else process.stdout.write(`${basename(file)}: seed ${out.seed}: ${out.classes.length ? out.classes.join(", ") : OK_CLASS}\n`);
  process.exitCode = out.classes.length ? 1 : 0;
}

/** Run a scenario file once with the seed it names (a repro). */
export function replayFile(file: string): { seed: number; classes: string[]; metrics: Record<string, number> } {
  const text = readInputFile(file, "scenario");
  const model = modelFromText(text, file);
  const root = model.spec.template.root;
  const seedField = root.t === "lit" ? (root.v as Record<string, unknown>)?.seed
    : root.t === "obj" ? (root.entries.find(([k]) => k === "seed")?.[1] as { v?: unknown } | undefined)?.v : undefined;
  const seed = typeof seedField === "number" ? seedField : 1;
  const c = model.sample(seed);
  // a file the domain's loader rejects throws its InputError (file, line, field) here: bad input, where a sweep's run counts it as an error class
  model.spec.domain.prepare(c.doc, model.spec.file, model.spec.docLines);
  const out = model.run(c, seed);
  return { seed, classes: uniqueSorted(out.classes), metrics: out.metrics };
}
