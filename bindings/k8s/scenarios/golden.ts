// The golden record of the built-in scenarios: what every run of them
// produces, so that work on speed can prove it changed no behaviour.
//
// golden.json (beside this file) holds, for every built-in scenario:
//   full     the complete result (timeline, occurrences, klog lines, final
//            objects, violations, expectations, symptoms, steps, stats) of
//            the affected version, the fixed version, and the affected
//            version with the fix switched on, with logs and steps recorded;
//   digests  the SHA-256 of the same serialization for many more runs:
//            every minor release 1.10 .. 1.31 (logs on), all switches on and
//            all off, and the Monte Carlo settings (logs off or only the log
//            checks, steps on) and the benchmark setting (logs off, steps
//            off) under several seeds.
//
// The record is produced by the code of the commit that wrote it, never by
// hand: `npm run build && node bindings/k8s/scenarios/golden.mjs`. Regenerate
// it only for an intended behaviour change, and say so in the commit.
// golden.test.ts replays every case and compares.
//
// `stats.events` (how many queue events the engine executed) is an engine
// cost, not behaviour, and is left out; everything else is compared exactly,
// including the order of keys in the final objects (the CLI prints them).

import { sha256Hex } from "../../util/sha256.js";
import { FIXES, MAX_MINOR, MIN_MINOR, type FixId } from "../versions/profile.js";
import { builtinK8sScenarios } from "../index.js";
import { runK8sScenario, type K8sRunOptions, type K8sRunResult } from "../scenario/run.js";

export interface GoldenCase {
  /** "<scenario> <label>", unique */
  id: string;
  scenario: string;
  opts: K8sRunOptions;
}

export interface GoldenRecord {
  full: Record<string, unknown>;
  digests: Record<string, string>;
}

const allFixes = (on: boolean): Record<FixId, boolean> => Object.fromEntries(FIXES.map((f) => [f.id, on])) as Record<FixId, boolean>;

/** The runs kept in full. */
export function fullCases(): GoldenCase[] {
  const out: GoldenCase[] = [];
  for (const sc of builtinK8sScenarios()) {
    const inc = sc.incident!;
    const base = { logs: true, steps: true };
    out.push({ id: `${sc.name} affected ${inc.affected}`, scenario: sc.name, opts: { ...base, version: inc.affected } });
    out.push({ id: `${sc.name} fixed ${inc.fixed}`, scenario: sc.name, opts: { ...base, version: inc.fixed } });
    out.push({ id: `${sc.name} affected ${inc.affected} +${inc.fix}`, scenario: sc.name, opts: { ...base, version: inc.affected, fixes: { [inc.fix]: true } } });
  }
  return out;
}

/** The runs kept as digests. */
export function digestCases(): GoldenCase[] {
  const out: GoldenCase[] = [];
  for (const sc of builtinK8sScenarios()) {
    const inc = sc.incident!;
    for (let minor = MIN_MINOR; minor <= MAX_MINOR; minor++) out.push({ id: `${sc.name} 1.${minor}`, scenario: sc.name, opts: { version: `1.${minor}`, logs: true, steps: true } });
    out.push({ id: `${sc.name} ${inc.affected} all-fixes-on`, scenario: sc.name, opts: { version: inc.affected, fixes: allFixes(true), logs: true, steps: true } });
    out.push({ id: `${sc.name} ${inc.fixed} all-fixes-off`, scenario: sc.name, opts: { version: inc.fixed, fixes: allFixes(false), logs: true, steps: true } });
    for (const version of [inc.affected, inc.fixed]) {
      for (const seed of [undefined, 1, 2, 3, 99]) {
        const s = seed === undefined ? "" : ` seed ${seed}`;
        out.push({ id: `${sc.name} ${version}${s} mc`, scenario: sc.name, opts: { version, seed, logs: false, steps: true } });
        out.push({ id: `${sc.name} ${version}${s} mc-log-checks`, scenario: sc.name, opts: { version, seed, logs: "checks", steps: true } });
        out.push({ id: `${sc.name} ${version}${s} bench`, scenario: sc.name, opts: { version, seed, logs: false } });
      }
    }
  }
  return out;
}

/** The result with the engine's event count left out (see the header). */
export function goldenView(r: K8sRunResult): unknown {
  const { events: _events, ...stats } = r.stats;
  void _events;
  return { ...r, stats };
}

export function runCase(c: GoldenCase): K8sRunResult {
  const sc = builtinK8sScenarios().find((s) => s.name === c.scenario);
  if (!sc) throw new Error(`golden: no built-in scenario ${c.scenario}`);
  return runK8sScenario(sc, c.opts);
}

export function digestOf(r: K8sRunResult): string {
  return sha256Hex(JSON.stringify(goldenView(r)));
}

export function goldenRecord(): GoldenRecord {
  const full: Record<string, unknown> = {};
  for (const c of fullCases()) full[c.id] = goldenView(runCase(c));
  const digests: Record<string, string> = {};
  for (const c of digestCases()) digests[c.id] = digestOf(runCase(c));
  return { full, digests };
}
