// `iosim replay TRACE`: replay a recorded kernel trace and print JSON Lines.
// blk-throttle traces (oracle throtl format, guest iomax): a header, then per
// IO the job, seq, recorded submit time, simulated throttle release and
// completion. guest iocost traces: 100 ms bins and vrate samples. guest
// writeback traces: one line per round with the owner and wbytes per cgroup.
// (The command's options are declared in commands/index.ts, which loads this
// module only when `replay` is the command.)
import { closeSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { bufreadReplayOption, kernelOption, periodTimerOption, seedOption } from "../options.js";
import { type ProgressSink, progressBar } from "../progress.js";
import { readTraceText, traceHandler } from "./compare.js";

/**
 * `sink`: the progress bar (on a terminal; nothing otherwise). A trace is
 * replayed in one simulation call, so the bar says what it is doing while the
 * trace is read and replayed (no fraction: no ETA is better than a wrong one),
 * then counts the lines written to --output and reaches 1 when the last is
 * out (on stdout, the bar is gone before the first line).
 */
export function replayAction(
  trace: string,
  o: { kernel?: string; output?: string; seed?: string; periodTimer: string; bufreadReplay?: string },
  sink: ProgressSink = progressBar("replay"),
): void {
  let lines: string[];
  try {
    sink.update(undefined, `reading ${trace}`);
    const text = readTraceText(trace);
    const h = traceHandler(text, trace);
    sink.update(undefined, `replaying a ${h.kind} trace`);
    lines = h.replay(text, trace, { kernel: kernelOption(o.kernel), seed: seedOption(o.seed), periodTimer: periodTimerOption(o.periodTimer), bufreadReplay: bufreadReplayOption(o.bufreadReplay) });
  } catch (e) {
    sink.stop();
    throw e;
  }
  // written a few MiB at a time: one string of a 2 M-IO replay's lines (~400 MB) is near V8's
  // longest; --output goes to a temporary name, renamed when complete
  const tmp = o.output ? `${o.output}.${process.pid}.tmp` : undefined;
  const fd = tmp ? openSync(tmp, "w") : undefined;
  // lines on stdout share the terminal with the bar: it is gone before the first
  if (fd === undefined) {
    sink.update(1, `${lines.length} lines`);
    sink.stop();
  }
  try {
    for (let i = 0; i < lines.length; ) {
      if (fd !== undefined) sink.update(i / lines.length, `${i}/${lines.length} lines written`);
      let chunk = "";
      while (i < lines.length && chunk.length < 4 << 20) chunk += lines[i++] + "\n";
      if (fd !== undefined) writeSync(fd, chunk);
      else process.stdout.write(chunk);
    }
    if (fd !== undefined) {
      closeSync(fd);
      renameSync(tmp!, o.output!);
    }
    sink.update(1, `${lines.length}/${lines.length} lines written`);
    sink.stop();
  } catch (e) {
    sink.stop();
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
