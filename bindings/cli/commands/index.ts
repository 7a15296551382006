// Every `iosim` subcommand, declared on the program: names, arguments, options
// and help text only. Each action loads its command's module when it runs
// (`await import(...)`), so `iosim --help` or `iosim k8s list` never loads the
// WebAssembly core, the fio reports or the Kubernetes replay: start-up costs
// what the command uses (bench/process.ts measures it; the published `iosim`
// is one esbuild bundle per entry point whose lazy chunks follow these imports,
// scripts/bundle.mjs).
import type { Command } from "commander";
import { KERNEL_VERSIONS } from "../../scenario/types.js";
import { wholeNumberOption } from "../options.js";
import type { RunCliOptions } from "./run.js";
import type { RecordCliOptions } from "./record.js";
import { registerK8sCommands } from "../../k8s/commands.js";
import { registerMcCommands } from "../../mc/commands.js";
import { DEFAULT_LIMITS } from "../../scenario/limits.js";

export function registerCommands(program: Command): void {
  program
    .command("run")
    .description("run a scenario (YAML), a fio job file, an oracle throttle scenario (.json), or the built-in io.max demo when none is given")
    .argument("[scenario]", "scenario YAML, fio job file (.fio), oracle throtl scenario (.json), or 'demo'")
    .option("--device <ssd|nvme|hdd|ideal|nullb|FILE>", "device preset or device file (default ssd)")
    .option("--json", "print fio-style JSON instead of text (--output-format json)")
    .option("--output-format <fmt>", "fio's output format: normal (default), json, or json+ (json with the latency histogram bins)")
    .option("--out <dir>", "also write fio.json, io.stat, series.csv, series.json, summary.txt, summary.json, report.html (and records.jsonl if recorded) to DIR")
    .option("--seed <n>", "override the scenario's seed")
    .option("--kernel <version>", `kernel profile (${KERNEL_VERSIONS.join(", ")})`)
    .option("-q, --quiet", "no progress bar")
    .option("--max-events <n>", `stop a run that passes N simulated events (default ${DEFAULT_LIMITS.maxEvents})`)
    .option("--max-series-bins <n>", `refuse a run of more than N time-series bins (default ${DEFAULT_LIMITS.maxSeriesBins})`)
    .option("--max-records <n>", `refuse a run that records more than N bios (default ${DEFAULT_LIMITS.maxRecords})`)
    .option("--max-memory <MiB>", `stop a run whose simulator memory passes N MiB (default ${DEFAULT_LIMITS.maxMemoryMiB}, at most 4096)`)
    .option("--strict", "make every warning an error (exit 2): a setting the kernel takes that was surely not meant, a controller set but not active, a job in a cgroup nothing configures")
    .option("--summary-json <file>", "also write iosim's own summary as JSON (schema: docs/summary-json.md)")
    .option("--report <file.html>", "also write the run as one self-contained web page: charts over time, the summary, io.stat (opens offline)")
    .action(async (target: string | undefined, o: RunCliOptions) => (await import("./run.js")).runAction(target, o));

  program
    .command("replay")
    .description("replay a recorded kernel trace (throttle, iocost, writeback) and print the simulation as JSON Lines")
    .argument("<trace>", "trace file (.jsonl)")
    .option("--kernel <version>", "kernel profile: 6.18, 6.12 or 6.1 (default: the trace's)")
    .option("--seed <n>", "seed for traces whose replay draws random numbers (writeback races)")
    .option("--period-timer <when>", "iocost traces: fire the period timer at its recorded deliveries (recorded) or at the kernel's own expiry (kernel)", "recorded")
    .option("-o, --output <file>", "write to a file instead of stdout")
    .action(async (trace: string, o: { kernel?: string; output?: string; seed?: string; periodTimer: string }) =>
      (await import("./replay.js")).replayAction(trace, o));

  program
    .command("compare")
    .description("score simulated completions against recorded kernel traces (throttle, iocost, writeback)")
    .argument("<traces...>", "trace files (.jsonl)")
    .option("--kernel <version>", "kernel profile: 6.18, 6.12 or 6.1 (default: each trace's)")
    .option("--seed <n>", "seed for traces whose replay draws random numbers (writeback races)")
    .option("--period-timer <when>", "iocost traces: fire the period timer at its recorded deliveries (recorded) or at the kernel's own expiry (kernel)", "recorded")
    .option("--json", "print one JSON object")
    .action(async (traces: string[], o: { kernel?: string; json?: boolean; seed?: string; periodTimer: string }) =>
      (await import("./compare.js")).compareAction(traces, o));

  program
    .command("explain")
    .description("explain why a bio waited in blk-throttle")
    .argument("<file>", "a recorded trace (.jsonl) or an oracle throtl scenario (.json)")
    .requiredOption("--job <name>", "job name")
    .requiredOption("--seq <n>", "IO index in the job", (v: string) => wholeNumberOption("--seq", v))
    .action(async (file: string, o: { job: string; seq: number }) => (await import("./explain.js")).explainAction(file, o));

  program
    .command("record")
    .description("run a scenario on this machine's real kernel (as root) and write its per-IO trace for iosim compare")
    .argument("<scenario>", "scenario YAML, fio job file (.fio) or oracle throtl scenario (.json)")
    .option("-o, --out <trace.jsonl>", "the trace to write (with --repeats N: NAME.runK.jsonl)")
    .option("--device <loop|null_blk|/dev/X>", "where the IO goes: a new loop device on a tmpfs file (loop, default), a new null_blk device, or an existing whole device (with --yes)", "loop")
    .option("--file <path>", "record against a file on a mounted filesystem instead of a device (made if missing, removed after)")
    .option("--yes", "confirm writing to the device named by --device /dev/X")
    .option("--null-blk <k=v,...>", "null_blk parameters: irqmode, completion_nsec, queue_mode, ...")
    .option("--repeats <n>", "record the scenario this many times", "1")
    .option("--no-tracepoints", "do not read block tracepoints (needs no tracefs)")
    .option("--no-jiffies-map", "mark the tick map from /proc/timer_list as not to be trusted: compare estimates the tick phase from the trace (a guest under software emulation)")
    .option("--timeout <s>", "stop the jobs and fail after this many seconds", "600")
    .option("--seed <n>", "seed for the jobs' offsets and sizes (default: the scenario's)")
    .option("--recorder <path>", "a recorder binary built beforehand from bindings/record/iosim_rec.c (default: compiled now with cc)")
    .option("--dry-run", "print every write and command it would make, change nothing")
    .action(async (target: string, o: RecordCliOptions) => (await import("./record.js")).recordAction(target, o));

  program
    .command("devices")
    .description("list the device presets with their cards: what each is, its numbers, where they come from")
    .argument("[name]", "one preset, or a device file")
    .option("--json", "print the cards and the full device specs as JSON")
    .action(async (name: string | undefined, o: { json?: boolean }) => (await import("./devices.js")).devicesAction(name, o));

  const device = program.command("device").description("device files: fit one from real fio runs");
  device
    .command("fit")
    .description("fit a device file from fio --output-format=json+ runs on one device (several block sizes, queue depths, directions) and report how well it reproduces each run")
    .argument("<fio_json...>", "fio json+ outputs")
    .option("-o, --output <dev.yaml>", "write the device file here (default: print it)")
    .option("--name <name>", "the device's kernel name (default: the runs' disk, else fitted0)")
    .option("--devno <MAJ:MIN>", "the device's number (default 252:0)")
    .option("--json", "print the fit report as JSON")
    .action(async (files: string[], o: { output?: string; name?: string; devno?: string; json?: boolean }) => (await import("./device-fit.js")).deviceFitAction(files, o));

  registerK8sCommands(program);
  registerMcCommands(program);
}
