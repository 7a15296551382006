// Where two runs of one scenario (two versions, or a fix on and off) part ways:
// the first event or log line that differs, compared in order with times.

import type { K8sRunResult } from "./scenario/run.js";
import { relTime } from "./output/recorder.js";

export interface K8sDiff {
  a: string;
  b: string;
  /** index of the first differing timeline entry, -1 if the event timelines agree */
  firstEvent: number;
  eventA?: string;
  eventB?: string;
  /** first differing log line (headers stripped of pid/timestamp), -1 if equal */
  firstLog: number;
  logA?: string;
  logB?: string;
  violationsA: string[];
  violationsB: string[];
}

const ev = (o: K8sRunResult["occurrences"][number]): string => `+${relTime(o.t)} ${o.event.type} ${o.event.reason} ${o.event.object}: ${o.event.message}`;
/** drop the klog date and pid, and version numbers, so only behaviour differs */
const strip = (s: string): string => s.replace(/^([IWE])\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ /, "$1 ").replace(/v1\.\d+\.\d+/g, "v1.x");

export function diffK8sRuns(a: K8sRunResult, b: K8sRunResult): K8sDiff {
  const ea = a.occurrences.map(ev);
  const eb = b.occurrences.map(ev);
  let fe = -1;
  for (let i = 0; i < Math.max(ea.length, eb.length); i++)
    if (ea[i] !== eb[i]) {
      fe = i;
      break;
    }
  const la = a.logs.map((l) => `+${relTime(l.t)} ${l.component} ${strip(l.text)}`);
  const lb = b.logs.map((l) => `+${relTime(l.t)} ${l.component} ${strip(l.text)}`);
  let fl = -1;
  for (let i = 0; i < Math.max(la.length, lb.length); i++)
    if (la[i] !== lb[i]) {
      fl = i;
      break;
    }
  return {
    a: a.version,
    b: b.version,
    firstEvent: fe,
    eventA: fe >= 0 ? ea[fe] ?? "(no more events)" : undefined,
    eventB: fe >= 0 ? eb[fe] ?? "(no more events)" : undefined,
    firstLog: fl,
    logA: fl >= 0 ? la[fl] ?? "(no more log lines)" : undefined,
    logB: fl >= 0 ? lb[fl] ?? "(no more log lines)" : undefined,
    violationsA: a.violations.map((v) => v.name),
    violationsB: b.violations.map((v) => v.name),
  };
}
