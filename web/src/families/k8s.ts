// Kubernetes incident replay: the volume lifecycle (attach/detach controller,
// kubelet volume manager, CSI, rbd) replayed from a timeline YAML, with a
// Kubernetes version and fix switches, and the invariants it checks.
// Uses the package's k8s API (bindings/k8s: builtinK8sScenarios,
// loadK8sScenario, runK8sScenario, FIXES); no file system, no WASM.
//
// Version and fixes: a scenario runs at the release its timeline names
// (`version:`, which may be a patch release such as 1.22.3); the page's
// version selector shows it and reruns at any other release 1.10-1.35, and
// each run's label says which it ran and what the timeline names. The
// version decides which upstream fixes are in (e.g. #104526 since 1.23.0 /
// 1.22.4 / 1.21.7); a checked fix is forced on whatever the version. The
// comparison defaults to the incident's "fixed" version, so one click shows
// the incident and its absence side by side.
//
// Panels: the verdict (the first violated invariant or expectation and its
// explanation, or "all invariants held"), every check with held / broken,
// and a swimlane per reporting component (attachdetach-controller, kubelet,
// ...) of the Kubernetes events, warnings in amber, error log lines in red,
// with the violation marked.
// Worked example: rbd-unmap-busy on 1.14 — kubelet's UnmountDevice fails
// with EBUSY at the first unmap, the retry cannot find the device, and the
// "device eventually unmapped" invariant breaks; on 1.16 (fix #79940) it
// holds.

import type { K8sRunResult, K8sScenario } from "../../../bindings/k8s/index.js";
import { k8s, InputError } from "../iosim.js";
import { resultHash } from "../../../bindings/report/result-hash.js";
import type { CalloutPanel, Family, FamilyInfo, LaneEvent, Panel, RunView, SwimlanePanel, TablePanel } from "./types.js";

export const TIMELINE_FILE = "timeline.yaml";
const MAX_EVENTS_PER_LANE = 400;

/** every modelled release, 1.10 to the newest (bindings/k8s/versions/profile.ts) */
function versions(): string[] {
  const out: string[] = [];
  for (let m = k8s.MIN_MINOR; m <= k8s.MAX_MINOR; m++) out.push(`1.${m}`);
  return out;
}

function fmtMs(ms: number): string {
  if (ms >= 60_000) return `${Math.floor(ms / 60_000)}m${((ms % 60_000) / 1000).toFixed(1)}s`;
  return `${(ms / 1000).toFixed(3)} s`;
}

export function k8sScenarioFor(text: string | undefined, name: string): K8sScenario {
  if (text !== undefined && text !== k8s.BUILTIN_YAML[name as keyof typeof k8s.BUILTIN_YAML]) {
    return k8s.loadK8sScenario(text, TIMELINE_FILE);
  }
  const sc = k8s.builtinK8sScenario(name);
  if (!sc) throw new InputError(`no built-in Kubernetes scenario "${name}"`, "url", undefined, "scenario");
  return sc;
}

export function runK8s(text: string | undefined, name: string, version: string, fixes: string[], seed: number): K8sRunResult {
  return runK8sNamed(text, name, version, fixes, seed).r;
}

/** the run, and the version the scenario names (its `version:`) */
function runK8sNamed(text: string | undefined, name: string, version: string, fixes: string[], seed: number): { r: K8sRunResult; named: string } {
  const sc = k8sScenarioFor(text, name);
  const overrides = Object.fromEntries(fixes.map((f) => [f, true]));
  return { r: k8s.runK8sScenario(sc, { version, fixes: overrides, seed }), named: sc.version };
}

function view(r: K8sRunResult, name: string, seed: number, named?: string): RunView {
  const panels: Panel[] = [];
  const v = r.violations[0];
  panels.push({
    kind: "callout", id: "verdict", level: v ? "fail" : "ok",
    title: v ? `${v.kind === "invariant" ? "Invariant" : "Expectation"} broken: ${v.name} (at ${v.time})` : "All invariants and expectations held",
    text: v ? v.explanation : `${r.expectations.length} expectations and the lifecycle invariants held for ${fmtMs(r.stats.endMs)} of simulated time.`,
  } satisfies CalloutPanel);
  const byComponent = new Map<string, LaneEvent[]>();
  const lane = (n: string) => {
    if (!byComponent.has(n)) byComponent.set(n, []);
    return byComponent.get(n)!;
  };
  for (const o of r.occurrences) {
    const e = o.event;
    lane(e.source || "events").push({ tNs: o.t * 1e6, label: e.reason, level: e.type === "Warning" ? "warn" : "info", detail: `${e.object}: ${e.message}` });
  }
  for (const l of r.logs) if (l.severity === "E") lane(l.component).push({ tNs: l.t * 1e6, label: "error", level: "error", detail: l.text });
  for (const [, evs] of byComponent) {
    evs.sort((a, b) => a.tNs - b.tNs);
    if (evs.length > MAX_EVENTS_PER_LANE) evs.splice(MAX_EVENTS_PER_LANE, evs.length - MAX_EVENTS_PER_LANE);
  }
  panels.push({
    kind: "swimlane", id: "timeline", title: "Timeline per component (events; error log lines in red)", endNs: r.stats.endMs * 1e6,
    lanes: [...byComponent.entries()].map(([n, events]) => ({ name: n, events })),
    marker: v ? { tNs: v.timeMs * 1e6, label: v.name } : undefined,
  } satisfies SwimlanePanel);
  const checks = [...r.expectations, ...r.symptoms];
  const summary: TablePanel = {
    kind: "table", id: "checks", title: "Invariants and expectations",
    columns: ["check", "kind", "held", "when / detail"],
    rows: [
      ...r.violations.filter((x) => x.kind === "invariant").map((x) => ({ key: x.name, cells: [x.name, "invariant", "broken", `${x.time}: ${x.explanation}`] })),
      ...checks.map((c) => ({ key: c.name, cells: [c.name, r.symptoms.includes(c) ? "symptom" : "expectation", c.held ? "held" : "broken", c.detail] })),
    ],
  };
  const fixesOn = Object.entries(r.fixes).filter(([, on]) => on).map(([id]) => `#${id}`);
  // the release it ran at, and whether that is the one the timeline names
  const asNamed = named === undefined ? "" : sameRelease(named, r.version) ? ", as the timeline names" : `; the timeline names ${named}`;
  const label = `Kubernetes ${r.version}${fixesOn.length ? ` (fixes ${fixesOn.join(" ")}${asNamed})` : ` (no fixes${asNamed})`}`;
  return {
    family: "k8s", scenario: name, label, seed, hash: resultHash(r),
    wallMs: 0, simulatedNs: r.stats.endMs * 1e6, events: r.stats.events,
    summary, panels, warnings: [],
  } satisfies RunView;
}

/** "1.22" names 1.22.0 */
function sameRelease(a: string, b: string): boolean {
  const norm = (v: string) => (v.split(".").length === 2 ? `${v}.0` : v);
  return norm(a) === norm(b);
}

export const k8sFamily: Family = {
  id: "k8s",
  title: "Kubernetes incidents",
  async load(): Promise<FamilyInfo> {
    const scenarios = k8s.builtinK8sScenarios().map((sc) => ({
      id: sc.name,
      title: sc.incident ? `${sc.incident.title.slice(0, 60)}${sc.incident.title.length > 60 ? "…" : ""}` : sc.name,
      description: `${sc.description ?? ""}${sc.incident ? ` — affected ${sc.incident.affected}, fixed in ${sc.incident.fixed} (#${sc.incident.fix})` : ""}`,
      files: { [TIMELINE_FILE]: k8s.BUILTIN_YAML[sc.name as keyof typeof k8s.BUILTIN_YAML] ?? "" },
      // run at the release the timeline names (its `version:`), compared with the fixed one
      version: sc.version,
      compareVersion: sc.incident?.fixed,
    }));
    return {
      id: "k8s", title: "Kubernetes incidents", available: true, versions: versions(), defaultVersion: "1.22", versionLabel: "Kubernetes",
      fixes: k8s.FIXES.map((f) => ({ id: f.id, label: `#${f.id}`, detail: f.title })),
      files: [{ name: TIMELINE_FILE, syntax: "Kubernetes timeline YAML" }], scenarios,
      versionIn: { file: TIMELINE_FILE, key: "version" },
    };
  },
  async run(req): Promise<RunView> {
    const t0 = performance.now();
    const { r, named } = runK8sNamed(req.files?.[TIMELINE_FILE], req.scenario, req.version, req.fixes, req.seed);
    const v = view(r, req.scenario, req.seed, named);
    v.wallMs = performance.now() - t0;
    return v;
  },
};
