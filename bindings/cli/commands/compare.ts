// `iosim compare TRACE... [--json]`: replay each recorded kernel trace and score
// the simulation against it. The trace kind is recognised from its header
// (bindings/oracle/registry.ts):
//   - blk-throttle traces (oracle throtl/*.jsonl, guest iomax): share of IOs
//     whose completion is within 4 ms (per throttle group, k-th against k-th),
//     error p50/p99/max, per-job total-time error, and an overall line against
//     the bar (>= 99% overall, every trace with >= 20 IOs >= 90%);
//   - guest iocost traces: B/A share, per-bin error, vrate trajectory, idle times;
//   - io.cost traces of `iosim record`: replayed as closed loops, per cgroup and
//     direction the IO share and each IO's latency against the model's (record-iocost.ts);
//   - guest writeback traces: owner per round, switch round, wbytes per owner;
//   - guest buffered-read traces: application reads within 4 ms (pooled bar
//     95%) and readahead bios' count and size distribution (5% per trace).
// Exit status: 0 all good, 1 the throttle or buffered-read bar is missed, 2 unreadable input.
// (The command's options are declared in commands/index.ts, which loads this
// module only when `compare`, `replay` or `explain` is the command.)
import "../../oracle/index.js"; // trace handlers: throttle, iocost, writeback
import { readTrace } from "../../oracle/traces.js";
import { compareTrace, overall, type TraceScore } from "../../oracle/compare.js";
import { formatScore } from "../../oracle/score.js";
import { handlerFor, traceHandlers } from "../../oracle/registry.js";
import { BIO_BAR, READ_BAR, type BufScore } from "../../oracle/bufread.js";

import { InputError } from "../../scenario/errors.js";
import { bufreadReplayOption, kernelOption, periodTimerOption, seedOption } from "../options.js";
import { readInputFile } from "../read-input.js";
import { progressBar, type ProgressSink } from "../progress.js";

const THROTTLE_KINDS = new Set(["throtl", "guest-iomax"]);

export function readTraceText(file: string): string {
  return readInputFile(file, "trace", file, "trace");
}

export function traceHandler(text: string, file: string) {
  const h = handlerFor(text, file);
  if (!h) {
    throw new InputError(`line 1 is not the header of a trace iosim knows (kinds: ${traceHandlers().map((x) => x.kind).join(", ")})`, file, 1);
  }
  return h;
}


/**
 * `sink`: the progress bar (on a terminal; nothing otherwise). Its fraction is
 * the traces' bytes replayed so far over all of them (a trace's replay time
 * grows with its IOs, its size with them too), its detail the trace count,
 * and it reaches 1 when the last trace is scored, before any output.
 */
export function compareAction(
  traces: string[],
  o: { kernel?: string; json?: boolean; seed?: string; periodTimer: string; bufreadReplay?: string },
  sink: ProgressSink = progressBar("compare"),
): void {
  const kernel = kernelOption(o.kernel);
  const periodTimer = periodTimerOption(o.periodTimer);
  const bufreadReplay = bufreadReplayOption(o.bufreadReplay);
  const seed = seedOption(o.seed);
  const throttle: TraceScore[] = [];
  const others: Array<{ file: string; kind: string; score: Record<string, unknown>; text: string }> = [];
  // every file is read and its throttle records parsed before any replay,
  // so a bad file late in the list does not throw away replays already run
  const inputs = traces.map((f) => {
    const text = readTraceText(f);
    const h = traceHandler(text, f);
    const trace = THROTTLE_KINDS.has(h.kind) ? readTrace(text, f) : undefined;
    // a parsed throttle trace no longer needs its text (272 MB for 2 M IOs): not kept through the replays
    return { f, text: trace ? "" : text, h, trace, bytes: text.length };
  });
  const total = inputs.reduce((a, x) => a + x.bytes, 0) || 1;
  let done = 0;
  try {
    for (const [i, { f, text, h, trace, bytes }] of inputs.entries()) {
      sink.update(done / total, `${i}/${inputs.length} traces`);
      if (trace !== undefined) throttle.push(compareTrace(trace, { kernel, seed }));
      else others.push({ file: f, kind: h.kind, ...h.compare(text, f, { kernel, seed, periodTimer, bufreadReplay }) });
      done += bytes;
    }
    sink.update(1, `${inputs.length}/${inputs.length} traces`);
  } finally {
    sink.stop();
  }
  const all = throttle.length ? overall(throttle) : undefined;
  if (o.json) {
    process.stdout.write(JSON.stringify({ traces: throttle, overall: all, others }, null, 2) + "\n");
  } else {
    for (const s of throttle) for (const p of s.parts) process.stdout.write(formatScore(p) + "\n");
    if (all) {
      process.stdout.write(`overall: ${all.matched}/${all.ios} IOs matched (${(100 * all.share).toFixed(2)}%)` +
        (all.weak.length ? `; below 90%: ${all.weak.join(", ")}` : "") + ` -> ${all.pass ? "PASS" : "FAIL"}\n`);
    }
    for (const x of others) process.stdout.write(`== ${x.file} (${x.kind})\n${x.text}\n`);
    // io.latency and wbt traces, pooled (bindings/oracle/rqos.ts)
    const rq = others.filter((x) => x.kind === "guest-iolat" || x.kind === "guest-wbt")
      .map((x) => x.score.total as { ios: number; matched: number });
    if (rq.length > 1) {
      const ios = rq.reduce((a, t) => a + t.ios, 0);
      const m = rq.reduce((a, t) => a + t.matched, 0);
      process.stdout.write(`io.latency/wbt traces pooled: ${m}/${ios} IOs matched within 4 ms (${(100 * m / (ios || 1)).toFixed(2)}%)\n`);
    }
  }
  // buffered reads: application reads pooled over the traces given, bios per trace
  const buf = others.filter((x) => x.kind === "guest-bufread").map((x) => x.score as unknown as BufScore);
  if (buf.length) {
    const ios = buf.reduce((a, s) => a + s.reads.ios, 0);
    const m = buf.reduce((a, s) => a + s.reads.matched, 0);
    const share = ios ? m / ios : 1;
    const bad = buf.filter((s) => !s.pass).map((s) => s.file);
    const ok = share >= READ_BAR && bad.length === 0;
    if (!o.json) {
      process.stdout.write(`buffered reads: ${m}/${ios} reads matched (${(100 * share).toFixed(2)}%, bar ${100 * READ_BAR}%)` +
        (bad.length ? `; bio count or sizes off by more than ${100 * BIO_BAR}%: ${bad.join(", ")}` : `; bio count and sizes within ${100 * BIO_BAR}% in every trace`) +
        ` -> ${ok ? "PASS" : "FAIL"}\n`);
    }
    if (!ok) process.exitCode = 1;
  }
  if (all && !all.pass) process.exitCode = 1;
}
