// Compare: replay each trace and score it, per trace part (a guest file's
// cases are scored one by one) and over everything.

import { readTrace, type RecordedTrace } from "./traces.js";
import { replayTrace, replayLines, calibrateClock, type ReplayOpts, type ReplayRun } from "./replay.js";
import { scoreSims, formatScore, type Score } from "./score.js";
import { registerTraceHandler, type TraceHandler } from "./registry.js";
import type { KernelVersion } from "../scenario/types.js";
import { isRecordIocost } from "./record-iocost.js";

export interface TraceScore {
  file: string;
  parts: Score[];
  total: Score;
}

export function scoreRun(run: ReplayRun): TraceScore {
  const t = run.trace;
  const parts = t.parts.map((p) => scoreSims(p.name, run.sims.filter((s) => p.cgroups.includes(s.io.cgroup))));
  return { file: t.file, parts, total: scoreSims(t.name, run.sims) };
}

/** A trace without a jiffies map gets its tick phase calibrated first. */
export function calibrated(t: RecordedTrace, opts: ReplayOpts = {}): RecordedTrace {
  return calibrateClock(t, opts, (sims) => scoreSims(t.name, sims).matched);
}

export function compareTrace(t: RecordedTrace, opts: ReplayOpts = {}): TraceScore {
  return scoreRun(replayTrace(calibrated(t, opts), opts));
}

export interface Overall {
  ios: number;
  matched: number;
  share: number;
  /** parts (traces / guest cases) with >= 20 IOs below 90% */
  weak: string[];
  pass: boolean;
}

export function overall(scores: readonly TraceScore[]): Overall {
  let ios = 0;
  let matched = 0;
  const weak: string[] = [];
  for (const s of scores) {
    for (const p of s.parts) {
      ios += p.ios;
      matched += p.matched;
      if (p.ios >= 20 && p.share < 0.9) weak.push(p.name);
    }
  }
  const share = ios ? matched / ios : 1;
  return { ios, matched, share, weak, pass: ios > 0 && share >= 0.99 && weak.length === 0 };
}

function optsOf(o: { kernel?: string; seed?: number }): ReplayOpts {
  return { kernel: o.kernel as KernelVersion | undefined, seed: o.seed };
}

function handler(kind: RecordedTrace["kind"], detect: (h: Record<string, unknown>) => boolean): TraceHandler {
  return {
    kind,
    detect: (h) => detect(h),
    replay: (text, file, o) => replayLines(replayTrace(calibrated(readTrace(text, file), optsOf(o)), optsOf(o))),
    compare: (text, file, o) => {
      const s = compareTrace(readTrace(text, file), optsOf(o));
      return { score: s as unknown as Record<string, unknown>, text: s.parts.map(formatScore).join("\n") };
    },
  };
}

// (an `iosim record` trace of an io.cost scenario is record-iocost.ts's: a closed-loop replay)
registerTraceHandler(handler("throtl", (h) => h.type === "header" && typeof h.jiffies === "object" && !!h.scenario_spec && !isRecordIocost(h)));
registerTraceHandler(handler("guest-iomax", (h) => h.type === "test" && h.test === "iomax"));
