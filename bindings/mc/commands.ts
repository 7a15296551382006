// `iosim mc ...`: the Monte Carlo commands, declared (names, options, help);
// each action loads cli.ts, and with it the runner, only when it runs.
import { Option, type Command } from "commander";
import type { RunOpts } from "./cli.js";

/** the most runs one process sweeps unless --max-runs says otherwise (a journal's bit per run and eight metrics' values: ~640 MB at 10 M) */
export const DEFAULT_MAX_RUNS = 10_000_000;

/** Options of a sweep that name what a merge reads from the journals' headers. */
export const SWEEP_ONLY_OPTIONS = ["--runs <n>", "--seed <s>", "--workers <w>", "--shard <i/N>", "--resume", "--force"];

export function registerMcCommands(program: Command): void {
  const mc = program
    .command("mc")
    .description("Monte Carlo sweep of a randomised scenario: outcome probabilities, metric percentiles, shrunk repros")
    .argument("[scenario]", "randomised scenario file (YAML with distributions, see bindings/mc/README.md)")
    .option("-n, --runs <n>", "number of runs", "1000")
    .option("-s, --seed <s>", "sweep seed (run i gets SplitMix64(seed, i))", "1")
    .option("-w, --workers <w>", "worker threads, 0 = this thread (default: one, more up to the cores when the first one's warm-up says they pay)")
    .option("--shard <i/N>", "run only slice i of N of the run indices (merge with `iosim mc merge`)")
    .option("-o, --out <dir>", "output directory (default mc-<scenario name>)")
    .option("--resume", "continue an interrupted sweep from its journal")
    .option("--force", "start over even if a journal exists")
    .option("--json", "print the summary as one JSON object")
    .option("--no-shrink", "do not shrink and write repro files")
    .option("--shrink-budget <runs>", "runs the shrinker may spend per class")
    .option("--by <param[:edges]>", "tabulate class probabilities by a named parameter (repeatable); on a finished sweep's journal, tabulates it again without running", (v: string, a: string[] = []) => [...a, v])
    .option("--grid <name=v1,v2,...>", "sweep a parameter over listed values instead of drawing it (repeatable; run i takes combination i mod their number)", (v: string, a: string[] = []) => [...a, v])
    .option("--no-progress", "no progress output on stderr")
    .option("--max-runs <n>", `the most runs one process sweeps (default ${DEFAULT_MAX_RUNS}; more: --shard)`)
    .action(async (scenario: string | undefined, o: RunOpts) => {
      if (!scenario) {
        mc.help({ error: true });
        return;
      }
      // the sweep's first workers start now, while this thread loads the rest of the command and the
      // scenario (pool.ts prestartWorkers; 0 workers, or a count runCommand refuses, starts none)
      (await import("./pool.js")).prestartWorkers(o.workers === undefined ? 1 : Number(o.workers));
      await (await import("./cli.js")).runCommand(scenario, o);
    });

  const merge = mc.command("merge")
    .description("combine shard journals into one summary (equal to an unsharded sweep's)")
    .argument("<journals...>", "the shards' journals (runs.shard-*-of-N.jsonl)")
    .option("-o, --out <dir>", "where to write summary.json and repro files (default: the first journal's directory)")
    .option("--json", "print the summary as one JSON object")
    .option("--no-shrink", "do not shrink and write repro files")
    .option("--by <param[:edges]>", "tabulate by a named parameter (repeatable)", (v: string, a: string[] = []) => [...a, v])
    .option("--shrink-budget <runs>", "runs the shrinker may spend per class")
    .option("--no-progress", "no progress output on stderr (merge draws none; accepted as a sweep's command line gives it)");
  // a sweep's options that a merge takes from the journals' headers: refused
  // with a word on why, not with the help text
  for (const flag of SWEEP_ONLY_OPTIONS) merge.addOption(new Option(flag).hideHelp());
  merge.action(async (paths: string[], _o: unknown, cmd: Command) => (await import("./cli.js")).mergeAction(paths, cmd));

  mc.command("replay")
    .description("run one concrete scenario file (e.g. a shrunk repro) with its seed and print its outcome classes; " +
      "exit 0 when it ends ok, 1 when it shows a failure class, 2 when the file does not load")
    .argument("<file>", "scenario file")
    .option("--json", "print {classes, metrics} as JSON")
    .action(async (file: string, _o: unknown, cmd: Command) => (await import("./cli.js")).mcReplayAction(file, cmd));
}
