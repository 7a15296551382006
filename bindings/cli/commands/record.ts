// `iosim record SCENARIO|JOBFILE -o TRACE.jsonl`: run a scenario on this
// machine's kernel and write the trace `iosim compare` scores
// (bindings/record/record.ts says how; README "Check iosim against your kernel").
import type { Command } from "commander";
import { writeFileSync, renameSync } from "node:fs";
import { InputError } from "../../scenario/errors.js";
import { scenarioForRun } from "./run.js";
import { wholeNumberOption } from "../options.js";
import { dryRun, realHost } from "../../record/host.js";
import { record, RecordError } from "../../record/record.js";

interface RecordCliOptions {
  out?: string;
  device?: string;
  file?: string;
  yes?: boolean;
  repeats: string;
  tracepoints: boolean;
  dryRun?: boolean;
  nullBlk?: string;
  timeout: string;
  seed?: string;
  kernel?: string;
  recorder?: string;
}

/** -o r.jsonl with 3 repeats -> r.run1.jsonl, r.run2.jsonl, r.run3.jsonl */
export function repeatPath(out: string, k: number, n: number): string {
  if (n === 1) return out;
  return out.replace(/(\.jsonl)?$/, `.run${k}.jsonl`);
}

export function register(program: Command): void {
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
    .option("--timeout <s>", "stop the jobs and fail after this many seconds", "600")
    .option("--seed <n>", "seed for the jobs' offsets and sizes (default: the scenario's)")
    .option("--recorder <path>", "a recorder binary built beforehand from bindings/record/iosim_rec.c (default: compiled now with cc)")
    .option("--dry-run", "print every write and command it would make, change nothing")
    .action(async (target: string, o: RecordCliOptions) => {
      if (!o.out && !o.dryRun) throw new InputError("-o TRACE.jsonl is required (where the trace goes)", "command line", undefined, "-o");
      const repeats = wholeNumberOption("--repeats", o.repeats);
      const timeoutS = wholeNumberOption("--timeout", o.timeout);
      if (repeats < 1) throw new InputError("--repeats must be at least 1", "command line", undefined, "--repeats");
      const nullBlk = o.nullBlk ? Object.fromEntries(o.nullBlk.split(",").map((kv) => kv.split("=") as [string, string])) : undefined;
      const { scenario } = scenarioForRun(target, { seed: o.seed });
      const say = (l: string) => (o.dryRun ? process.stdout.write(`# ${l}\n`) : process.stderr.write(`iosim record: ${l}\n`));
      const host = o.dryRun ? dryRun(realHost(), (l) => process.stdout.write(l + "\n")) : realHost();
      for (let k = 1; k <= (o.dryRun ? 1 : repeats); k++) {
        try {
          const rec = await record(host, scenario, { device: o.device, file: o.file, yes: o.yes, tracepoints: o.tracepoints, repeat: k, timeoutS, nullBlk, say, recorder: o.recorder });
          if (o.dryRun) return;
          const path = repeatPath(o.out!, k, repeats);
          writeFileSync(path + ".part", rec.lines.join("\n") + "\n");
          renameSync(path + ".part", path);
          const last = rec.ios.reduce((m, r) => Math.max(m, r.complete_ns as number), 0);
          say(`${path}: ${rec.ios.length} IOs, ${rec.block.length} block events, last completion ${(last / 1e6).toFixed(1)} ms after t0`);
        } catch (e) {
          if (e instanceof RecordError) throw new InputError(e.message, target);
          throw e;
        }
      }
    });
}
