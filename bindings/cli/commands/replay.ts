// `iosim replay TRACE`: replay a recorded kernel trace and print JSON Lines.
// blk-throttle traces (oracle throtl format, guest iomax): a header, then per
// IO the job, seq, recorded submit time, simulated throttle release and
// completion. guest iocost traces: 100 ms bins and vrate samples. guest
// writeback traces: one line per round with the owner and wbytes per cgroup.
import type { Command } from "commander";
import { writeFileSync } from "node:fs";
import { kernelOption, periodTimerOption, seedOption } from "../options.js";
import { readTraceText, traceHandler } from "./compare.js";

export function register(program: Command): void {
  program
    .command("replay")
    .description("replay a recorded kernel trace (throttle, iocost, writeback) and print the simulation as JSON Lines")
    .argument("<trace>", "trace file (.jsonl)")
    .option("--kernel <version>", "kernel profile: 6.18, 6.12 or 6.1 (default: the trace's)")
    .option("--seed <n>", "seed for traces whose replay draws random numbers (writeback races)")
    .option("--period-timer <when>", "iocost traces: fire the period timer at its recorded deliveries (recorded) or at the kernel's own expiry (kernel)", "recorded")
    .option("-o, --output <file>", "write to a file instead of stdout")
    .action((trace: string, o: { kernel?: string; output?: string; seed?: string; periodTimer: string }) => {
      const text = readTraceText(trace);
      const h = traceHandler(text, trace);
      const lines = h.replay(text, trace, { kernel: kernelOption(o.kernel), seed: seedOption(o.seed), periodTimer: periodTimerOption(o.periodTimer) });
      const out = lines.join("\n") + "\n";
      if (o.output) writeFileSync(o.output, out);
      else process.stdout.write(out);
    });
}
