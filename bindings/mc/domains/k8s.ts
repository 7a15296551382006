// The Kubernetes domain: a volume-lifecycle replay scenario (bindings/k8s/,
// the format of bindings/k8s/scenarios/*.yaml), run by runK8sScenario().
//
// Any value of the scenario may be a distribution, so faults and timings
// become random variables, e.g. for the detach-backoff incident (seed 002):
//
//   timeline:
//     - after: adc.DetachFailed            # the failed detach
//       delay: {uniform: ["0ms", "5000ms"], name: landDelay}
//       action: createPod                  # the new pod lands on the node
//   version: {choice: ["1.22", "1.23"], name: version}
//   fixes: {"104526": {bernoulli: 0.5, name: fix104526}}
//   faults:
//     storage:
//       - {maybe: {op: detach, volume: disk-x, count: 1, error: "..."}, p: 0.3}
//
// Each run loads the sampled document with k8sScenarioFromValue (the k8s
// loader minus its YAML parse, so a sweep validates every sample with the
// same rules and error messages as `iosim k8s run`) and runs it with the run
// seed, keeping no log line: its `log:` / `noLog:` checks are decided as
// `iosim k8s run` decides them, with lines built only while a check waits
// for its text (k8sOutcome).
//
// Compiled once per worker (preparer): the loader reads each top-level key of
// a scenario into its own fields of K8sScenario (FIELDS_OF_KEY), so the keys
// that hold no distribution (objects, expect, symptom, clock, ... of the
// detach-backoff sweep) are loaded once into a frozen base scenario, and a run
// loads only its random keys (timeline, faults, fixes) and lays them over the
// base (k8sScenarioKeysFromValue: the loader restricted to those keys, which
// neither reads the others nor works out their defaults). Same loader, same
// checks in the same order, same error messages (the names the keys give, a
// sampled timeline's pod against the base's objects, are checked on each
// run's assembled scenario, after its load, as a whole load checks them); a
// scenario whose loaded form has a field this table does not know keeps the
// full per-run load. Frozen, because every run shares the base: a replay
// that wrote into it would throw (an error outcome) instead of leaking state
// into the next run.
//
// Outcome classes:
//   <invariant>               each violated invariant (pod-volumes-ready,
//                             attached-reported, liveness, ...)
//   expect:<expectation>      each failed expectation of the scenario
//   incident                  every `symptom:` check of the scenario held: the
//                             seed incident reproduced
// Metrics:
//   pod.<ns/name>.runningAtMs   simulated ms of the last transition to Running of a pod
//                               that is Running at the end (absent for a stuck pod)
//   pods.running                pods Running at the end
//   nodePatches, storageCalls, events   the run's counters (events: the replay's
//                               simulation events, the simulator's own work: idle
//                               skipping changes it, the cluster does not; the same
//                               with and without log lines, Sim.events)

import { stringify } from "yaml";
import { checkK8sReferences, k8sScenarioFromValue, k8sScenarioKeysFromValue } from "../../k8s/scenario/loader.js";
import { decideK8sLogChecks, finalPods, logChecksOf, runK8sScenario, type CheckResult } from "../../k8s/scenario/run.js";
import { deepFreeze } from "../../util/deep-freeze.js";
import { nsKey } from "../../k8s/api/types.js";
import type { K8sScenario } from "../../k8s/scenario/schema.js";
import type { Json } from "../distributions.js";
import { mcHeader, type McDomain, type McOutcome } from "../model.js";
import { boundedMemo } from "../../util/bounded-memo.js";

export const INCIDENT_CLASS = "incident";

export function k8sOutcome(sc: K8sScenario, runSeed: number): McOutcome {
  const r = runK8sScenario(sc, { seed: runSeed, logs: false, steps: true });
  // Log checks are decided, not passed unread: the run above builds no line,
  // so its log checks say "not checked". A log expectation is its own class,
  // and log symptoms matter when every other symptom held (the incident needs
  // them all); then decideK8sLogChecks replays the run matching lines against
  // the checks' texts until each is found. The replay does not
  // depend on logging, so its log checks are this run's (k8s/output/recorder.test.ts).
  let expectations = r.expectations;
  let symptoms = r.symptoms;
  const logChecks = logChecksOf(sc);
  if (logChecks.expect || (logChecks.symptom && allHeld(symptoms))) {
    const d = decideK8sLogChecks(sc, { seed: runSeed });
    expectations = merged(expectations, d.expectations);
    symptoms = merged(symptoms, d.symptoms);
  }
  const classes: string[] = [];
  for (const v of r.violations) if (v.kind === "invariant") classes.push(v.name);
  // (the run lists failed expectations after its invariants, in scenario order)
  for (const e of expectations) if (!e.held) classes.push(`expect:${e.name}`);
  if (symptoms.length > 0 && allHeld(symptoms)) classes.push(INCIDENT_CLASS);
  const metrics: Record<string, number> = {
    nodePatches: r.stats.nodePatches, storageCalls: r.stats.storageCalls, events: r.stats.events,
  };
  const running = new Map<string, number>();
  for (const s of r.steps) if (s.name === "kubelet.PodRunning") running.set(s.detail, s.t);
  let up = 0;
  // (the stored pods: their phases are those of r.objects, whose views this run need not build)
  for (const o of finalPods(r)) {
    if ((o.status as { phase?: string } | undefined)?.phase !== "Running") continue;
    up++;
    // only pods Running at the end: a stuck re-created pod must not report its predecessor's time
    const key = nsKey(o.metadata.namespace ?? "default", o.metadata.name);
    const t = running.get(key);
    if (t !== undefined) metrics[runningAtMetric(key)] = t;
  }
  metrics["pods.running"] = up;
  return { classes, metrics };
}

/** every check held */
function allHeld(cs: readonly CheckResult[]): boolean {
  for (let i = 0; i < cs.length; i++) if (!cs[i]!.held) return false;
  return true;
}

/** the run's checks with each unchecked one (a log check of a run without logs) replaced by the next decided one, in order */
function merged(all: readonly CheckResult[], logs: readonly CheckResult[]): CheckResult[] {
  const out: CheckResult[] = [];
  for (let i = 0, j = 0; i < all.length; i++) out.push(all[i]!.checked === false ? logs[j++]! : all[i]!);
  return out;
}

/**
 * `pod.<ns/name>.runningAtMs` of a pod's key, made once per pod key (a
 * metric name built anew each run is hashed and interned each time it
 * names a property).
 */
const runningAtMetric = boundedMemo(4096, (key: string): string => `pod.${key}.runningAtMs`);

/** Which fields of K8sScenario the loader fills from each top-level key of a scenario document. */
export const FIELDS_OF_KEY: Readonly<Record<string, readonly (keyof K8sScenario)[]>> = {
  name: ["name"], description: ["description"], incident: ["incident"], version: ["version"], fixes: ["fixes"],
  seed: ["seed"], duration: ["durationMs"], clock: ["clock"], settings: ["settings"], objects: ["objects"],
  timeline: ["timeline"], faults: ["storageFaults", "apiFaults", "watchFaults"], expect: ["expect"], symptom: ["symptom"],
};

/** A deep copy of a parsed document (plain values; anything else, e.g. a Date, by structuredClone). */
export function copyDoc<T>(v: T): T {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyDoc(v[i]);
    return out as T;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k in v) out[k] = copyDoc((v as Record<string, unknown>)[k]);
  return out as T;
}

export const k8sDomain: McDomain<K8sScenario> = {
  name: "k8s",
  replayCommand: "iosim k8s run",
  detect(doc) {
    if (!doc || typeof doc !== "object" || Array.isArray(doc)) return false;
    const o = doc as Record<string, Json>;
    return Array.isArray(o.objects) || Array.isArray(o.timeline);
  },
  prepare(doc, file, lines) {
    // the loader keeps references into the document and a run may touch them: give it its own copy
    return k8sScenarioFromValue(structuredClone(doc), file, lines);
  },
  preparer(doc, randomKeys, file, lines) {
    if (!doc || typeof doc !== "object" || Array.isArray(doc)) return undefined;
    if (randomKeys.some((k) => !(k in FIELDS_OF_KEY))) return undefined;
    // the constant keys (and `name`, which the loader requires) load once
    const constant: Record<string, Json> = {};
    for (const [k, v] of Object.entries(doc)) if (k === "name" || !randomKeys.includes(k)) constant[k] = copyDoc(v);
    // (its names are checked against the random keys' in each run: checkK8sReferences below)
    const base = k8sScenarioFromValue(constant, file, lines, { references: false });
    const known = new Set<string>(["file", ...Object.values(FIELDS_OF_KEY).flat()]);
    if (Object.keys(base).some((k) => !known.has(k))) return undefined;
    deepFreeze(base);
    const fields = randomKeys.flatMap((k) => FIELDS_OF_KEY[k]!);
    // the run's scenario: the base's fields in the base's order, the random ones
    // from this run's load (one object literal; a spread of the frozen base
    // and a store per field took ~0.3 us)
    const baseKeys = Object.keys(base);
    if (baseKeys.includes("__proto__") || fields.some((f) => !baseKeys.includes(f))) return undefined;
    const fromRun = new Set<string>(fields);
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const assemble = new Function("b", "p", `return { ${baseKeys.map((k) => `${JSON.stringify(k)}: ${fromRun.has(k) ? "p" : "b"}[${JSON.stringify(k)}]`).join(", ")} };`) as
      (b: K8sScenario, p: Record<string, unknown>) => K8sScenario;
    // copy the random keys' values only for a scenario whose loader writes into them
    let copy = false;
    const load = (o: Record<string, Json>, copying: boolean) => {
      // only the random keys, as the whole load would (the same checks, errors
      // and defaults); the loader reads no other key of the sample. No copy: a
      // sample's own nodes are new every run, and what it shares with other
      // samples (the template's literal parts) is frozen (TemplateModel), so a
      // write into one throws instead of leaking
      let doc = o;
      if (copying) {
        doc = {};
        for (const k of randomKeys) if (o[k] !== undefined) doc[k] = copyDoc(o[k]!);
      }
      return k8sScenarioKeysFromValue(doc, randomKeys, file, lines) as unknown as Record<string, unknown>;
    };
    return (d) => {
      const o = d as Record<string, Json>;
      let p: Record<string, unknown>;
      if (copy) p = load(o, true);
      else {
        try {
          p = load(o, false);
        } catch {
          // a loader that fills in a shared literal (e.g. a Pod volume's
          // `emptyDir:` null) works on copies from now on; a value it rejects
          // throws again here
          p = load(o, true);
          copy = true;
        }
      }
      const sc = assemble(base, p);
      // a sampled timeline, fault or check naming what the scenario never defines, as the whole load refuses it
      checkK8sReferences(sc, file, lines);
      return sc;
    };
  },
  run(sc, runSeed) {
    return k8sOutcome(sc, runSeed);
  },
  serialize(doc, runSeed, header, mc) {
    return mcHeader(header, mc) + stringify({ ...(doc as Record<string, Json>), seed: runSeed }, { lineWidth: 0 });
  },
};
