// iosim's Kubernetes volume-lifecycle replay: the programmatic API.
//
// Pure TypeScript, no Node-only APIs (file reading is in cli.ts), so it runs
// in a browser and in Monte Carlo workers. Deterministic for a given seed.
//
//   import { builtinK8sScenarios, runK8sScenario } from "iosim/k8s";
//   const sc = builtinK8sScenarios().find((s) => s.name === "detach-backoff-node-status")!;
//   const r = runK8sScenario(sc, { version: "1.22" });
//   r.violations  // [] when every invariant and expectation holds

import { loadK8sScenario } from "./scenario/loader.js";
import type { K8sScenario } from "./scenario/schema.js";
import { BUILTIN_YAML } from "./scenarios/builtin.generated.js";

export { loadK8sScenario, ScenarioError } from "./scenario/loader.js";
export { runK8sScenario, decideK8sLogChecks, logChecksOf, LIVENESS_MS, NODE_STATUS_GRACE_MS } from "./scenario/run.js";
export type { K8sRunOptions, K8sRunResult, K8sLogChecks, Violation, CheckResult } from "./scenario/run.js";
export type { K8sScenario, Incident, Action, Check, Expectation, TimelineItem } from "./scenario/schema.js";
export { resolveProfile, parseFixOverrides, FIXES, parseVersion, MIN_MINOR, MAX_MINOR } from "./versions/profile.js";
export type { FixId, FixOverrides, Profile } from "./versions/profile.js";
export { DEFAULT_TIMERS } from "./engine/config.js";
export type { TimerConfig } from "./engine/config.js";
export { formatEvents, relTime } from "./output/recorder.js";
export type { K8sEvent, LogLine } from "./output/recorder.js";
export { diffK8sRuns, formatK8sDiff, type K8sDiff, type K8sDivergence, type K8sDiffLine } from "./diff.js";

let cache: K8sScenario[] | null = null;
/** built-ins parsed one at a time (builtinK8sScenario), by file name; the full list takes them over */
const parsed = new Map<string, K8sScenario>();

function builtinFile(file: string): K8sScenario {
  let sc = parsed.get(file);
  if (sc === undefined) parsed.set(file, (sc = loadK8sScenario(BUILTIN_YAML[file]!, `builtin:${file}.yaml`)));
  return sc;
}

/** The built-in incident scenarios (parsed once, from strings embedded at build time). */
export function builtinK8sScenarios(): K8sScenario[] {
  if (!cache) cache = Object.keys(BUILTIN_YAML).map(builtinFile);
  return cache;
}

/**
 * A built-in scenario by name, or undefined. Each built-in's file is named
 * after its scenario (builtin.test.ts), so the file of that name is parsed
 * alone: `iosim k8s run NAME` parsed all 23 (~0.2 s, cold) to find one.
 */
export function builtinK8sScenario(name: string): K8sScenario | undefined {
  if (cache === null && Object.hasOwn(BUILTIN_YAML, name)) {
    const sc = builtinFile(name);
    if (sc.name === name) return sc;
  }
  return builtinK8sScenarios().find((s) => s.name === name);
}

export { BUILTIN_YAML };
