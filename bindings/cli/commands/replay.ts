// `iosim replay TRACE`: replay a recorded kernel trace and print JSON Lines.
// blk-throttle traces (oracle throtl format, guest iomax): a header, then per
// IO the job, seq, recorded submit time, simulated throttle release and
// completion. guest iocost traces: 100 ms bins and vrate samples. guest
// writeback traces: one line per round with the owner and wbytes per cgroup.
// (The command's options are declared in commands/index.ts, which loads this
// module only when `replay` is the command.)
import { writeFileSync } from "node:fs";
import { bufreadReplayOption, kernelOption, periodTimerOption, seedOption } from "../options.js";
import { readTraceText, traceHandler } from "./compare.js";

export function replayAction(trace: string, o: { kernel?: string; output?: string; seed?: string; periodTimer: string; bufreadReplay?: string }): void {
  const text = readTraceText(trace);
  const h = traceHandler(text, trace);
  const lines = h.replay(text, trace, { kernel: kernelOption(o.kernel), seed: seedOption(o.seed), periodTimer: periodTimerOption(o.periodTimer), bufreadReplay: bufreadReplayOption(o.bufreadReplay) });
  const out = lines.join("\n") + "\n";
  if (o.output) writeFileSync(o.output, out);
  else process.stdout.write(out);
}
