// `iosim replay TRACE`: replay a recorded kernel trace (oracle throtl format or
// guest iomax format) and print JSON Lines: a header, then per IO the job, seq,
// recorded submit time, simulated throttle release and completion.
import type { Command } from "commander";
import { readFileSync, writeFileSync } from "node:fs";
import { readTrace } from "../../oracle/traces.js";
import { replayTrace, replayLines } from "../../oracle/replay.js";
import { calibrated } from "../../oracle/compare.js";
import type { KernelVersion } from "../../scenario/types.js";
import { InputError } from "../../scenario/errors.js";

export function register(program: Command): void {
  program
    .command("replay")
    .description("replay a recorded blk-throttle trace and print simulated completions as JSON Lines")
    .argument("<trace>", "trace file (.jsonl)")
    .option("--kernel <version>", "kernel profile: 6.18, 6.12 or 6.1 (default: the trace's)")
    .option("-o, --output <file>", "write to a file instead of stdout")
    .action((trace: string, o: { kernel?: string; output?: string }) => {
      try {
        const opts = { kernel: o.kernel as KernelVersion | undefined };
        const t = calibrated(readTrace(readFileSync(trace, "utf8"), trace), opts);
        const lines = replayLines(replayTrace(t, opts)).join("\n") + "\n";
        if (o.output) writeFileSync(o.output, lines);
        else process.stdout.write(lines);
      } catch (e) {
        fail(e);
      }
    });
}

export function fail(e: unknown): never {
  const msg = e instanceof InputError ? e.message : e instanceof Error ? `${e.message}` : String(e);
  process.stderr.write(`iosim: ${msg}\n`);
  process.exit(1);
}
