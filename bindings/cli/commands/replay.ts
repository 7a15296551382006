// `iosim replay TRACE`: replay a recorded kernel trace and print JSON Lines.
// blk-throttle traces (oracle throtl format, guest iomax): a header, then per
// IO the job, seq, recorded submit time, simulated throttle release and
// completion. guest iocost traces: 100 ms bins and vrate samples. guest
// writeback traces: one line per round with the owner and wbytes per cgroup.
// (The command's options are declared in commands/index.ts, which loads this
// module only when `replay` is the command.)
import { closeSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { bufreadReplayOption, kernelOption, periodTimerOption, seedOption } from "../options.js";
import { readTraceText, traceHandler } from "./compare.js";

export function replayAction(trace: string, o: { kernel?: string; output?: string; seed?: string; periodTimer: string; bufreadReplay?: string }): void {
  const text = readTraceText(trace);
  const h = traceHandler(text, trace);
  const lines = h.replay(text, trace, { kernel: kernelOption(o.kernel), seed: seedOption(o.seed), periodTimer: periodTimerOption(o.periodTimer), bufreadReplay: bufreadReplayOption(o.bufreadReplay) });
  // written a few MiB at a time: one string of a 2 M-IO replay's lines (~400 MB) is near V8's
  // longest; --output goes to a temporary name, renamed when complete
  const tmp = o.output ? `${o.output}.${process.pid}.tmp` : undefined;
  const fd = tmp ? openSync(tmp, "w") : undefined;
  try {
    for (let i = 0; i < lines.length; ) {
      let chunk = "";
      while (i < lines.length && chunk.length < 4 << 20) chunk += lines[i++] + "\n";
      if (fd !== undefined) writeSync(fd, chunk);
      else process.stdout.write(chunk);
    }
    if (fd !== undefined) {
      closeSync(fd);
      renameSync(tmp!, o.output!);
    }
  } catch (e) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // closed already
      }
      rmSync(tmp!, { force: true });
    }
    throw e;
  }
}
