// Why did this bio wait? A reading of the throttle core's decision trace for
// one bio, in words:
//
//   IO r#10 arrived at 0.62 ms (jiffy j+0) in cgroup a (R).
//   At a: over the iops limit. The slice started at j+0 and, rounded up to
//   whole slices (25 jiffies), allows 10 IOs; 10 were already dispatched, so
//   this is the 11th. It waits 25 jiffies, until j+25.
//   The pending timer was armed to fire at the tick of j+26.
//   Dispatched from a at j+26 (104.0 ms); left blk-throttle at 104.3 ms;
//   completed at 104.4 ms.

import { Simulation } from "../engine/simulation.js";
import "../engine/modules/index.js"; // control modules (io.max, blkio.throttle.*)
import type { Decision } from "./decisions.js";
import { readDecisionTrace } from "./decisions.js";
import { readTrace } from "./traces.js";
import { replayTrace } from "./replay.js";
import { calibrated } from "./compare.js";
import { scenarioFromThrotlJson } from "./throtl-scenario.js";
import type { ScenarioWithThrottle } from "../engine/modules/throttle.js";
import { InputError } from "../scenario/errors.js";
import { explainRecordIocost, isRecordIocost } from "./record-iocost.js";

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] ?? "th";
  return `${n}${s}`;
}

/** Explain one bio from the decision trace; `base` is the jiffy shown as j+0. */
export function explainDecisions(all: readonly Decision[], job: string, seq: number, base: bigint, slice: number,
  times: { completeNs?: number } = {}): string[] {
  const mine = all.filter((d) => d.job === job && d.seq === seq);
  if (mine.length === 0) return [`no throttle decision was recorded for ${job}#${seq} (its cgroup has no limit on this device, or the IO does not exist)`];
  const ms = (t: number) => `${(t / 1e6).toFixed(2)} ms`;
  const jj = (j: bigint) => `j${j - base >= 0n ? "+" : ""}${j - base}`;
  const out: string[] = [];
  let lastQueueJ = 0n;
  for (const d of mine) {
    const where = d.cgroup === null ? "" : d.cgroup === "" ? "the root cgroup" : `cgroup ${d.cgroup}`;
    switch (d.kind) {
      case "arrive":
        out.push(`IO ${job}#${seq} (${d.dir}) entered blk-throttle at ${ms(d.timeNs)} (jiffy ${jj(d.jiffies)}) in ${where}.`);
        break;
      case "pass":
        out.push(`At ${where}: within the limits (slice ${jj(d.sliceStart)}..${jj(d.sliceEnd)}, ${d.allowed > 0 ? `allowed ${d.allowed}, ` : ""}this was the ${ordinal(d.dispatched + 1)} in it): passed at once.`);
        break;
      case "bypass":
        out.push(`At ${where}: over the limit but REQ_META/REQ_SWAP: charged and let through (later IO pays the debt).`);
        break;
      case "queue": {
        lastQueueJ = d.jiffies;
        if (d.reason === "fifo") {
          out.push(`At ${where}: bios were already waiting in this direction, and blk-throttle is FIFO: queued behind them.`);
        } else {
          const elapsed = Number(d.jiffies - d.sliceStart);
          const what = d.reason === "bps" ? "bytes" : "IOs";
          const rounded = Math.max(slice, Math.ceil((elapsed + (d.reason === "iops" ? 1 : 0)) / slice) * slice);
          out.push(`At ${where}: over the ${d.reason} limit. The slice started at ${jj(d.sliceStart)}; ${elapsed} jiffies in, rounded up to whole slices (${rounded} jiffies), it allows ${d.allowed} ${what}; ${d.dispatched} ${what} were already dispatched${d.reason === "iops" ? `, so this is the ${ordinal(d.dispatched + 1)}` : ""}. It waits ${d.waitJiffies} jiffies, until ${jj(d.jiffies + BigInt(d.waitJiffies))}.`);
        }
        break;
      }
      case "dispatch":
        out.push(`The pending timer fired at ${jj(d.jiffies)} (${ms(d.timeNs)}): dispatched from ${where}${lastQueueJ ? `, ${Number(d.jiffies - lastQueueJ)} jiffies after it was queued` : ""}${d.sliceStart ? ` (slice from ${jj(d.sliceStart)})` : ""}.`);
        break;
      case "release":
        out.push(`The kthrotld work submitted it at ${ms(d.timeNs)}.`);
        break;
    }
  }
  // the timer armed right after this bio was queued, if any
  const q = mine.find((d) => d.kind === "queue" && d.reason !== "fifo");
  if (q) {
    const t = all.find((d) => d.kind === "timer" && d.timeNs === q.timeNs && d.jiffies === q.jiffies);
    if (t) out.splice(out.indexOf(out.find((l) => l.includes("It waits"))!) + 1, 0,
      `The pending timer was armed for it; the timer wheel fires it at the tick of ${jj(t.jiffies + BigInt(t.waitJiffies))}${t.reason === "cap" ? " (capped at 8 slices ahead)" : ""}.`);
  }
  if (times.completeNs !== undefined) out.push(`It completed at ${ms(times.completeNs)}.`);
  return out;
}

/** `iosim explain`: a recorded trace (replayed) or an oracle throtl scenario, given as text (`file` names it in errors). */
export function explainText(text: string, file: string, job: string, seq: number): string[] {
  const first = text.slice(0, text.indexOf("\n") >= 0 ? text.indexOf("\n") : text.length);
  let isTrace = false;
  try {
    const h = JSON.parse(first);
    isTrace = h.type === "header" || h.type === "test";
  } catch {
    isTrace = false;
  }
  if (isTrace && isRecordIocost(JSON.parse(first))) return explainRecordIocost(text, file, job, seq);
  if (isTrace) {
    const t = calibrated(readTrace(text, file));
    const run = replayTrace(t, { trace: true });
    const list = [...t.ios.filter((io) => io.job === job)].sort((a, b) => a.submitNs - b.submitNs || a.seq - b.seq);
    const simSeq = list.findIndex((io) => io.seq === seq);
    if (simSeq < 0) throw new InputError(`no IO ${job}#${seq} in the trace`, file, undefined, "--job/--seq");
    const base = run.decisions!.find((d) => d.kind === "arrive")?.jiffies ?? 0n;
    const sim = run.sims.find((s) => s.io.job === job && s.io.seq === seq);
    const lines = explainDecisions(run.decisions!, job, simSeq, base, 25, { completeNs: sim?.completeNs });
    if (sim) lines.push(`The kernel completed it at ${(sim.io.completeNs / 1e6).toFixed(2)} ms (recorded).`);
    return lines;
  }
  const s = scenarioFromThrotlJson(text, file) as ScenarioWithThrottle;
  s.throttle = { ...(s.throttle ?? {}), trace: true };
  s.record = true;
  const sim = new Simulation(s);
  const res = sim.runToEnd();
  const dec = readDecisionTrace(sim);
  const base = dec.find((d) => d.kind === "arrive")?.jiffies ?? 0n;
  const rec = res.records?.find((r) => r.job === job && r.seq === seq);
  return explainDecisions(dec, job, seq, base, 25, { completeNs: rec?.completeNs });
}
