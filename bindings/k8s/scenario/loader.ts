// Load and validate a Kubernetes replay scenario from YAML. Every error names
// the file, the 1-based line and the field path, e.g.
//   seeds/002.yaml:41: timeline[3].at: expected a duration like "500ms" or "2m2s", got "soon"
// The `yaml` package gives every node a source range; a LineCounter turns the
// offsets into lines, and a walk over the document records the line of every
// field path. Once every key is loaded, the names the timeline, faults and
// checks give are checked against what the scenario defines (references.ts).

import { KUBELET_GATES, SCENARIO_GATES } from "../volume/csimigration.js";
import { shown } from "../../util/shown.js";
import { parseYaml, yamlToJS } from "../../util/yaml-guard.js";
import { LineCounter, parseDocument } from "yaml";
import { mergeProblem, PARSE_OPTIONS } from "../../util/yaml-merge.js";
import type { ApiFault } from "../api/apiserver.js";
import { canonicalKind, KINDS, KObj, Kind, manifestMeta, manifestObj, NAMESPACED } from "../api/types.js";
import { DEFAULT_TIMERS, TimerConfig } from "../engine/config.js";
import { formatGoDuration, parseDurationMs } from "../engine/sim.js";
import { STEP_NAMES } from "../engine/context.js";
import { deepFreeze } from "../../util/deep-freeze.js";
import { internStrings } from "../../util/intern.js";
import { InputError } from "../../scenario/errors.js";
import { lineOfPath, yamlFieldLines } from "../../util/line-of-path.js";
import { checkReferences } from "./references.js";
import { parseQuantity } from "../api/quantity.js";
import { BACKEND_OPS, BackendOp, CALL_OUTCOMES, CallOutcome, GRPC_CODES, GrpcCode, StorageFault } from "../host/backend.js";
import { badFixMessage, FixOverrides, isFixId, parseVersion } from "../versions/profile.js";
import type { WallClock } from "../output/recorder.js";
import type { Action, Check, Expectation, K8sScenario, TimelineItem, WatchFault } from "./schema.js";

/**
 * A bad k8s scenario: an InputError (so every command reports it as bad
 * input, exit 2), worded "file:line: field: detail" as klog-minded users read
 * it rather than InputError's "file:line (field): detail".
 */
export class ScenarioError extends InputError {
  declare readonly field: string;
  constructor(
    file: string,
    line: number | undefined,
    field: string,
    detail: string,
  ) {
    super(detail, file, line, field);
    this.message = `${file}${line !== undefined ? `:${line}` : ""}: ${field ? `${field}: ` : ""}${detail}`;
    this.name = "ScenarioError";
  }
}

type J = Record<string, unknown>;

class Cx {
  constructor(
    readonly file: string,
    readonly lines: Map<string, number>,
  ) {}
  line(path: string): number | undefined {
    return lineOfPath(this.lines, path);
  }
  fail(path: string, msg: string): never {
    throw new ScenarioError(this.file, this.line(path), path, msg);
  }
  dur(v: unknown, path: string): number {
    try {
      return parseDurationMs(v);
    } catch (e) {
      this.fail(path, (e as Error).message);
    }
  }
  str(v: unknown, path: string): string {
    if (typeof v !== "string" || v === "") this.fail(path, `expected a non-empty string, got ${shown(v)}`);
    return v;
  }
  /** a whole number >= min (YAML may give it as a string: "3") */
  int(v: unknown, path: string, min: number): number {
    const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < min) this.fail(path, `expected a whole number >= ${min}, got ${shown(v)}`);
    return n;
  }
  /** a step name a component announces (engine/context.ts STEP_NAMES) */
  step(v: unknown, path: string): string {
    const name = this.str(v, path);
    if (!(STEP_NAMES as readonly string[]).includes(name)) this.fail(path, `unknown step ${JSON.stringify(name)} (known: ${STEP_NAMES.join(", ")})`);
    return name;
  }
  /** a fault's count: a whole number >= 0, or "always" (the default) */
  times(v: unknown, path: string): number {
    return v === undefined || v === "always" ? Infinity : this.int(v, path, 0);
  }
  map(v: unknown, path: string): J {
    if (typeof v !== "object" || v === null || Array.isArray(v)) this.fail(path, `expected a mapping, got ${shown(v)}`);
    return v as J;
  }
  list(v: unknown, path: string): unknown[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(path, `expected a list`);
    return v;
  }
  /** true or false (YAML's own booleans: a quoted "false" or a YAML 1.1 `no` was read as true) */
  bool(v: unknown, path: string, dflt: boolean): boolean {
    if (v === undefined) return dflt;
    if (typeof v !== "boolean") this.fail(path, `expected true or false, got ${shown(v)}`);
    return v;
  }
  only(o: J, path: string, keys: readonly string[]): void {
    for (const k of Object.keys(o)) if (!keys.includes(k)) this.fail(path ? `${path}.${k}` : k, `unknown field (expected one of ${keys.join(", ")})`);
  }
}

const MAX_DURATION_MS = 876000 * 3600_000;

const TOP = ["name", "description", "incident", "version", "fixes", "seed", "duration", "clock", "settings", "objects", "timeline", "faults", "expect", "symptom"];

export function loadK8sScenario(text: string, file = "<scenario>"): K8sScenario {
  const { doc, lc, problem } = parseYaml(text);
  if (problem) throw new ScenarioError(file, problem.line, "", problem.message);
  return k8sScenarioFromValue(internStrings(yamlToJS(doc)), file, yamlFieldLines(doc.contents, lc, doc));
}

/**
 * The same, from an already-parsed document (Monte Carlo samples many without
 * re-parsing YAML). `references: false` leaves out the check that every name
 * the timeline, faults and checks give is one the scenario defines
 * (checkK8sReferences): for a document some of whose keys are loaded later
 * and apart (bindings/mc's frozen base, which then checks each run's whole
 * scenario).
 */
export function k8sScenarioFromValue(value: unknown, file = "<scenario>", lines = new Map<string, number>(), opts: { references?: boolean } = {}): K8sScenario {
  const cx = new Cx(file, lines);
  const sc = loadKeys(cx, value, null) as K8sScenario;
  if (opts.references !== false) checkReferences(sc, (path, msg) => cx.fail(path, msg));
  return sc;
}

/**
 * Refuse a loaded scenario whose timeline, faults or checks name a pod, node,
 * claim, volume, process or component it never defines (scenario/references.ts),
 * with the error a whole load gives: for scenarios loaded in parts
 * (k8sScenarioKeysFromValue over a base loaded with `references: false`).
 */
export function checkK8sReferences(sc: K8sScenario, file = sc.file, lines = new Map<string, number>()): void {
  const cx = new Cx(file, lines);
  checkReferences(sc, (path, msg) => cx.fail(path, msg));
}

/**
 * The fields of a scenario that some top-level keys of a document give
 * (`FIELDS_OF_KEY` of bindings/mc/domains/k8s.ts: e.g. "faults" gives
 * storageFaults, apiFaults and watchFaults), loaded exactly as
 * k8sScenarioFromValue loads them: the same checks in the same order, the same
 * defaults for a key the document lacks, the same errors. The other fields are
 * left undefined, and the other keys of the document are neither read nor
 * checked (`name` is not required unless asked for). For Monte Carlo, which
 * loads the keys that hold no distribution once and per run only the random
 * ones: a whole load per run also worked out every default it then threw
 * away (the clock's Date.parse, the version, the settings), ~1 us a run.
 * The names the keys give are not checked against each other (a sampled
 * timeline's pod against the base's objects): checkK8sReferences on the
 * assembled scenario does that.
 */
export function k8sScenarioKeysFromValue(value: unknown, keys: readonly string[], file = "<scenario>", lines = new Map<string, number>()): Partial<K8sScenario> {
  return loadKeys(new Cx(file, lines), value, keys);
}

/** The clock when a scenario gives none (parsed once: Date.parse is ~0.3 us). */
const DEFAULT_START = "2024-01-01T00:00:00Z";
const DEFAULT_START_MS = Date.parse(DEFAULT_START);
const DEFAULT_VERSION = "1.25";

/**
 * The loader: each top-level key in the order the errors have always been
 * checked (settings in two parts: its timers, latencies and per-component
 * watch latencies come before the objects, its other fields after the
 * duration). `keys` null: every key, else only those (the rest undefined).
 */
function loadKeys(cx: Cx, value: unknown, keys: readonly string[] | null): Partial<K8sScenario> {
  const root = cx.map(value, "");
  const all = keys === null;
  if (all) cx.only(root, "", TOP);
  const want = (k: string): boolean => all || keys.includes(k);

  const name = want("name") ? cx.str(root.name, "name") : undefined;
  let version: string | undefined;
  if (want("version")) {
    if (root.version === undefined) version = DEFAULT_VERSION;
    else {
      version = String(root.version);
      versionOf(cx, root.version, "version");
    }
  }
  let fixes: FixOverrides | undefined;
  if (want("fixes")) {
    fixes = {};
    if (root.fixes !== undefined) {
      const f = cx.map(root.fixes, "fixes");
      // (Object.keys: the order of Object.entries, without an array per entry)
      for (const k of Object.keys(f)) {
        const id = k.charCodeAt(0) === 35 /* # */ ? k.slice(1) : k;
        if (!isFixId(id)) cx.fail(`fixes.${k}`, badFixMessage("unknown fix", id).replace(/^unknown fix: /, ""));
        const v = f[k];
        // on/off as `--fix ID=on|off` takes them, or a YAML boolean; anything
        // else (`yes`, `1`, `enabled`) was read as off, whatever the version had
        if (v !== true && v !== false && v !== "on" && v !== "off") cx.fail(`fixes.${k}`, `expected on or off, got ${shown(v)}`);
        fixes[id as keyof FixOverrides] = v === true || v === "on";
      }
    }
  }
  const incident = want("incident") ? loadIncident(cx, root) : undefined;
  const clock = want("clock") ? loadClock(cx, root) : undefined;

  const wantSettings = want("settings");
  const settingsIn = !wantSettings || root.settings === undefined ? EMPTY : cx.map(root.settings, "settings");
  const timers: Partial<TimerConfig> = {};
  const latencies: Partial<Record<BackendOp, number>> = {};
  let pluginLatencies: Record<string, Partial<Record<BackendOp, number>>> | undefined;
  const wlc: Record<string, number> = {};
  if (wantSettings) {
    cx.only(settingsIn, "settings", ["watchLatency", "watchLatencyByComponent", "propagationDelay", "kubeletRoot", "timers", "latencies", "noKubelet", "csiNodeRegistration", "apiServer", "interleave", "featureGates", "kubeletFeatureGates", "csiMigrationDrivers"]);
    if (settingsIn.timers !== undefined) {
      for (const [k, v] of Object.entries(cx.map(settingsIn.timers, "settings.timers"))) {
        if (!(k in DEFAULT_TIMERS)) cx.fail(`settings.timers.${k}`, `unknown timer (known: ${Object.keys(DEFAULT_TIMERS).join(", ")})`);
        (timers as Record<string, number>)[k] = cx.dur(v, `settings.timers.${k}`);
      }
    }
    if (settingsIn.latencies !== undefined) {
      for (const [k, v] of Object.entries(cx.map(settingsIn.latencies, "settings.latencies"))) {
        if (k.startsWith("kubernetes.io/")) {
          // per plugin: {kubernetes.io/aws-ebs: {mountDevice: 3s}} (volume/operation.ts)
          const per: Partial<Record<BackendOp, number>> = {};
          for (const [op, d] of Object.entries(cx.map(v, `settings.latencies.${k}`))) {
            if (!BACKEND_OPS.includes(op as BackendOp)) cx.fail(`settings.latencies.${k}.${op}`, `unknown storage operation (known: ${BACKEND_OPS.join(", ")})`);
            per[op as BackendOp] = cx.dur(d, `settings.latencies.${k}.${op}`);
          }
          (pluginLatencies ??= {})[k] = per;
          continue;
        }
        if (!BACKEND_OPS.includes(k as BackendOp)) cx.fail(`settings.latencies.${k}`, `unknown storage operation (known: ${BACKEND_OPS.join(", ")}; or a plugin name, kubernetes.io/..., with its own)`);
        latencies[k as BackendOp] = cx.dur(v, `settings.latencies.${k}`);
      }
    }
    if (settingsIn.watchLatencyByComponent !== undefined)
      for (const [k, v] of Object.entries(cx.map(settingsIn.watchLatencyByComponent, "settings.watchLatencyByComponent"))) wlc[k] = cx.dur(v, `settings.watchLatencyByComponent.${k}`);
  }

  const objects = want("objects") ? cx.list(root.objects, "objects").map((o, i) => manifest(cx, o, `objects[${i}]`)) : undefined;
  // the API server keys an object by kind, namespace and name: a second of one key was a create the
  // set-up could not do ('nodes "x" already exists' thrown out of the replay, exit 3)
  if (objects !== undefined) {
    const seen = new Map<string, number>();
    objects.forEach((o, i) => {
      const md = o.metadata as { name: string; namespace?: string };
      const key = `${o.kind}/${md.namespace ?? ""}/${md.name}`;
      const first = seen.get(key);
      if (first !== undefined) cx.fail(`objects[${i}].metadata.name`, `a second ${o.kind} named ${JSON.stringify(md.namespace ? `${md.namespace}/${md.name}` : md.name)} (objects[${first}] is the first); object names are unique per kind${md.namespace ? " and namespace" : ""}`);
      seen.set(key, i);
    });
  }
  const timeline = want("timeline") ? cx.list(root.timeline, "timeline").map((t, i) => timelineItem(cx, t, `timeline[${i}]`)) : undefined;
  let storageFaults: StorageFault[] | undefined;
  let apiFaults: ApiFault[] | undefined;
  let watchFaults: WatchFault[] | undefined;
  if (want("faults")) {
    const faultsIn = root.faults === undefined ? EMPTY : cx.map(root.faults, "faults");
    cx.only(faultsIn, "faults", ["storage", "api", "watch"]);
    storageFaults = cx.list(faultsIn.storage, "faults.storage").map((f, i) => storageFault(cx, f, `faults.storage[${i}]`));
    apiFaults = cx.list(faultsIn.api, "faults.api").map((f, i) => apiFault(cx, f, `faults.api[${i}]`));
    watchFaults = cx.list(faultsIn.watch, "faults.watch").map((f, i) => watchFault(cx, f, `faults.watch[${i}]`));
  }

  // (seed before duration: the order the errors have always been checked in)
  const seed = !want("seed") ? undefined : root.seed === undefined ? 1 : cx.int(root.seed, "seed", 0);
  // an `at:` past the end of the run never fired, silently
  const durationMs = !want("duration") ? undefined : root.duration === undefined ? 20 * 60_000 : cx.dur(root.duration, "duration");
  // a run of no time replays nothing; a century is the most a replay's clock is asked to hold
  if (durationMs !== undefined && root.duration !== undefined && !(durationMs > 0 && durationMs <= MAX_DURATION_MS)) {
    cx.fail("duration", `a run lasts more than 0s and at most 876000h (100 years), got ${shown(root.duration)}`);
  }
  if (timeline !== undefined && durationMs !== undefined)
    for (let i = 0; i < timeline.length; i++) {
      const at = timeline[i]!.atMs;
      if (at !== undefined && at > durationMs) cx.fail(`timeline[${i}].at`, `${formatGoDuration(at)} is after the end of the run (duration ${formatGoDuration(durationMs)}${root.duration === undefined ? ", the default" : ""})`);
    }
  return {
    name,
    description: root.description === undefined || !want("description") ? undefined : String(root.description),
    incident,
    version,
    fixes,
    seed,
    durationMs,
    clock,
    settings: !wantSettings
      ? undefined
      : {
          watchLatencyMs: settingsIn.watchLatency === undefined ? undefined : cx.dur(settingsIn.watchLatency, "settings.watchLatency"),
          watchLatencyByComponent: wlc,
          propagationDelayMs: settingsIn.propagationDelay === undefined ? 0 : cx.dur(settingsIn.propagationDelay, "settings.propagationDelay"),
          kubeletRoot: settingsIn.kubeletRoot === undefined ? "/var/lib/kubelet" : cx.str(settingsIn.kubeletRoot, "settings.kubeletRoot"),
          timers,
          latencies,
          ...(pluginLatencies !== undefined ? { pluginLatencies } : {}),
          noKubelet: cx.list(settingsIn.noKubelet, "settings.noKubelet").map((x, i) => cx.str(x, `settings.noKubelet[${i}]`)),
          csiNodeRegistrationMs: settingsIn.csiNodeRegistration === undefined ? 0 : cx.dur(settingsIn.csiNodeRegistration, "settings.csiNodeRegistration"),
          apiServer: settingsIn.apiServer === undefined ? undefined : loadApiServerSetting(cx, settingsIn.apiServer),
          ...(settingsIn.interleave !== undefined ? { interleave: cx.bool(settingsIn.interleave, "settings.interleave", false) } : {}),
          ...(settingsIn.featureGates !== undefined ? { featureGates: loadGates(cx, settingsIn.featureGates, "settings.featureGates", SCENARIO_GATES) } : {}),
          ...(settingsIn.kubeletFeatureGates !== undefined ? { kubeletFeatureGates: loadGates(cx, settingsIn.kubeletFeatureGates, "settings.kubeletFeatureGates", KUBELET_GATES) } : {}),
          ...(settingsIn.csiMigrationDrivers !== undefined ? { csiMigrationDrivers: cx.bool(settingsIn.csiMigrationDrivers, "settings.csiMigrationDrivers", true) } : {}),
        },
    objects,
    timeline,
    storageFaults,
    apiFaults,
    watchFaults,
    expect: want("expect") ? cx.list(root.expect, "expect").map((e, i) => expectation(cx, e, `expect[${i}]`)) : undefined,
    symptom: want("symptom") ? cx.list(root.symptom, "symptom").map((e, i) => expectation(cx, e, `symptom[${i}]`)) : undefined,
    file: cx.file,
  };
}

/**
 * Check a Kubernetes version. Unquoted, YAML reads `1.20` as the number 1.2
 * (and `1.30` as 1.3), which was reported as "1.2 is outside the modelled
 * range" with no word of why: a number that is no version says to quote it.
 */
function versionOf(cx: Cx, v: unknown, path: string): void {
  try {
    parseVersion(String(v));
  } catch (e) {
    if (typeof v === "number") {
      const meant = /^\d+\.\d$/.test(String(v)) ? `${v}0` : String(v);
      cx.fail(path, `${(e as Error).message}: YAML reads an unquoted ${meant} as the number ${v}; quote the version, e.g. ${path.slice(path.lastIndexOf(".") + 1)}: "${meant}"`);
    }
    cx.fail(path, (e as Error).message);
  }
}

/** an absent mapping (never written to) */
const EMPTY: J = Object.freeze({}) as J;

/** settings.apiServer: {node, startup} (kube-apiserver as a static pod on that node) */
function loadApiServerSetting(cx: Cx, v: unknown): { node: string; startupMs: number } {
  const m = cx.map(v, "settings.apiServer");
  cx.only(m, "settings.apiServer", ["node", "startup"]);
  return { node: cx.str(m.node, "settings.apiServer.node"), startupMs: m.startup === undefined ? 15_000 : cx.dur(m.startup, "settings.apiServer.startup") };
}

function loadIncident(cx: Cx, root: J): K8sScenario["incident"] {
  if (root.incident === undefined) return undefined;
  const i = cx.map(root.incident, "incident");
  cx.only(i, "incident", ["seed", "title", "issue", "fix", "affected", "fixed", "symptom"]);
  const incident = {
    seed: String(i.seed ?? ""),
    title: cx.str(i.title, "incident.title"),
    issue: i.issue === undefined ? undefined : String(i.issue),
    fix: String(i.fix ?? ""),
    affected: String(i.affected ?? ""),
    fixed: String(i.fixed ?? ""),
    symptom: String(i.symptom ?? ""),
  };
  for (const k of ["affected", "fixed"] as const) versionOf(cx, i[k] ?? "", `incident.${k}`);
  return incident;
}

function loadClock(cx: Cx, root: J): WallClock {
  const clockIn = root.clock === undefined ? EMPTY : cx.map(root.clock, "clock");
  cx.only(clockIn, "clock", ["start", "utcOffset", "zone"]);
  let startUtcMs = DEFAULT_START_MS;
  if (clockIn.start !== undefined) {
    const startText = String(clockIn.start instanceof Date ? (clockIn.start as Date).toISOString() : clockIn.start);
    startUtcMs = Date.parse(startText);
    if (Number.isNaN(startUtcMs)) cx.fail("clock.start", `expected an RFC 3339 time, got ${shown(clockIn.start)}`);
  }
  let offsetMin = 0;
  let off = "+00:00";
  if (clockIn.utcOffset !== undefined) {
    off = String(clockIn.utcOffset);
    const om = /^([+-])(\d\d):?(\d\d)$/.exec(off);
    if (!om) cx.fail("clock.utcOffset", `expected "+08:00" or "-0700", got ${shown(off)}`);
    // UTC-12:00 to UTC+14:00 are the offsets in use; minutes below 60
    if (Number(om[3]) >= 60 || Number(om[2]) * 60 + Number(om[3]) > 14 * 60) cx.fail("clock.utcOffset", `an offset from UTC is at most 14 hours with minutes below 60, got ${shown(off)}`);
    offsetMin = (om[1] === "-" ? -1 : 1) * (Number(om[2]) * 60 + Number(om[3]));
  }
  return { startUtcMs, offsetMin, zone: clockIn.zone === undefined ? (offsetMin === 0 ? "UTC" : off.replace(":", "")) : String(clockIn.zone) };
}

/** feature gates a scenario sets that are not switches (volume/csimigration.ts): name -> true/false */
function loadGates(cx: Cx, v: unknown, path: string, known: readonly string[]): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [k, x] of Object.entries(cx.map(v, path))) {
    if (!known.includes(k)) cx.fail(`${path}.${k}`, `unknown feature gate (known here: ${known.join(", ")})`);
    out[k] = cx.bool(x, `${path}.${k}`, false);
  }
  return out;
}

const API_VERSIONS: Record<Kind, string[]> = {
  Node: ["v1"],
  Pod: ["v1"],
  PersistentVolume: ["v1"],
  PersistentVolumeClaim: ["v1"],
  VolumeAttachment: ["storage.k8s.io/v1", "storage.k8s.io/v1beta1"],
  CSIDriver: ["storage.k8s.io/v1", "storage.k8s.io/v1beta1"],
  StorageClass: ["storage.k8s.io/v1", "storage.k8s.io/v1beta1"],
  CSINode: ["storage.k8s.io/v1", "storage.k8s.io/v1beta1"],
};

/**
 * The identifying field of each volume source the replay reads (the API
 * server requires them: "spec.awsElasticBlockStore.volumeID: Required
 * value"); a source given as anything but a mapping, or without its field,
 * crashed the run instead of failing at its line.
 */
const SOURCE_ID_FIELDS: Readonly<Record<string, readonly string[]>> = {
  awsElasticBlockStore: ["volumeID"],
  gcePersistentDisk: ["pdName"],
  qcloudCbs: ["cbsDiskId"],
  rbd: ["image"],
  persistentVolumeClaim: ["claimName"],
  hostPath: ["path"],
  secret: ["secretName"],
  configMap: ["name"],
};
function checkVolumeSource(cx: Cx, owner: J, path: string, inline: boolean): void {
  for (const k of Object.keys(SOURCE_ID_FIELDS)) {
    if (owner[k] === undefined) continue;
    const src = cx.map(owner[k], `${path}.${k}`);
    for (const f of SOURCE_ID_FIELDS[k]!) cx.str(src[f], `${path}.${k}.${f}`);
    if (k === "rbd" && src.pool !== undefined) cx.str(src.pool, `${path}.rbd.pool`);
  }
  if (owner.csi !== undefined) {
    const c = cx.map(owner.csi, `${path}.csi`);
    cx.str(c.driver, `${path}.csi.driver`);
    if (!inline) cx.str(c.volumeHandle, `${path}.csi.volumeHandle`);
  }
  // (`emptyDir:` alone is YAML's null, an empty emptyDir to the API)
  if (owner.emptyDir !== undefined && owner.emptyDir !== null) cx.map(owner.emptyDir, `${path}.emptyDir`);
  for (const k of ["projected", "downwardAPI"]) if (owner[k] !== undefined) cx.map(owner[k], `${path}.${k}`);
}

const POD_VOLUME_SOURCES = ["persistentVolumeClaim", "csi", "rbd", "hostPath", "emptyDir", "secret", "configMap", "projected", "downwardAPI", "awsElasticBlockStore", "gcePersistentDisk", "qcloudCbs"] as const;

/**
 * Loads of frozen values, kept by the value. A frozen part of a document is
 * taken to be frozen all the way down, as the literal parts of a Monte Carlo
 * template are (bindings/mc freezeLiterals): every sample of the template
 * shares them, so each run's load of e.g. a timeline item's pod manifest
 * would otherwise check and build the same manifest again (~0.3 us). Only
 * successful loads are kept (a bad value throws the same error each time);
 * what is kept is frozen too, as its input was, so nothing that shares it
 * can change it. A manifest's load does not depend on where it is in the
 * document; a timeline item's does through its line only, so it is reused
 * when the line is the same.
 */
const frozenManifests = new WeakMap<object, KObj>();
const frozenTimelineItems = new WeakMap<object, TimelineItem>();
const isFrozenObject = (v: unknown): v is object => typeof v === "object" && v !== null && Object.isFrozen(v);

function manifest(cx: Cx, v: unknown, path: string): KObj {
  if (!isFrozenObject(v)) return loadManifest(cx, v, path, false);
  let m = frozenManifests.get(v);
  if (m === undefined) frozenManifests.set(v, (m = deepFreeze(loadManifest(cx, v, path, true))));
  return m;
}

function loadManifest(cx: Cx, v: unknown, path: string, frozen: boolean): KObj {
  const o = cx.map(v, path);
  const kind = cx.str(o.kind, `${path}.kind`) as Kind;
  if (!KINDS.includes(kind)) cx.fail(`${path}.kind`, `unsupported kind ${JSON.stringify(kind)} (supported: ${KINDS.join(", ")})`);
  const apiVersion = o.apiVersion === undefined ? API_VERSIONS[kind][0]! : cx.str(o.apiVersion, `${path}.apiVersion`);
  if (!API_VERSIONS[kind].includes(apiVersion)) cx.fail(`${path}.apiVersion`, `${kind} has apiVersion ${API_VERSIONS[kind].join(" or ")}, not ${apiVersion}`);
  const md = cx.map(o.metadata, `${path}.metadata`);
  const name = cx.str(md.name, `${path}.metadata.name`);
  const meta = {
    ...md,
    name,
    uid: md.uid === undefined ? "" : String(md.uid),
    resourceVersion: "",
    ...(kind === "Pod" || kind === "PersistentVolumeClaim" ? { namespace: md.namespace === undefined ? "default" : String(md.namespace) } : {}),
  } as KObj["metadata"];
  // the metadata as a Meta, whose wire form is the plain metadata above
  // (api/types.ts): the API server's copy of it on create is then a copy of
  // a Meta, whose reads see one class, instead of reads of plain metadata,
  // which comes in a hidden class per manifest key order (a megamorphic site,
  // ~2 % of a replay's instructions). A frozen manifest's wire form is frozen
  // too (deepFreeze does not reach it: a symbol key)
  if (frozen) Object.freeze(meta);
  // (an Obj: the same five keys in the same order, which the API server copies by constructor without checking them; api/types.ts cloneObj)
  const obj: KObj = manifestObj(apiVersion, canonicalKind(kind), manifestMeta(meta), o.spec === undefined ? {} : cx.map(o.spec, `${path}.spec`), o.status === undefined ? undefined : cx.map(o.status, `${path}.status`));
  if (kind === "Pod") {
    // (k8s-incidents) a pod without spec.nodeName is scheduled by the minimal kube-scheduler (scheduler/)
    if (obj.spec.nodeName !== undefined && (typeof obj.spec.nodeName !== "string" || obj.spec.nodeName === "")) cx.fail(`${path}.spec.nodeName`, "expected a node name (or no nodeName: the scheduler picks the node)");
    const containers = cx.list(obj.spec.containers, `${path}.spec.containers`);
    if (containers.length === 0) cx.fail(`${path}.spec.containers`, "a pod needs at least one container");
    // each container a mapping, its volumeMounts a list of mappings with a name (a null
    // container or mount, or a mapping for the list, crashed the run)
    const mountNames: Array<[string, string]> = [];
    for (let i = 0; i < containers.length; i++) {
      const cp = `${path}.spec.containers[${i}]`;
      const c = cx.map(containers[i], cp);
      const mounts = cx.list(c.volumeMounts, `${cp}.volumeMounts`);
      for (let j = 0; j < mounts.length; j++) {
        const mp = `${cp}.volumeMounts[${j}]`;
        mountNames.push([cx.str(cx.map(mounts[j], mp).name, `${mp}.name`), `${mp}.name`]);
      }
    }
    // an int64 of seconds in the Pod API ("30s" does not decode); a string or
    // fraction was read as no grace at all (the pod deleted at once)
    const tg = obj.spec.terminationGracePeriodSeconds;
    if (tg !== undefined && !(typeof tg === "number" && Number.isInteger(tg) && tg >= 0))
      cx.fail(`${path}.spec.terminationGracePeriodSeconds`, `expected a whole number of seconds >= 0 (the Pod API's int64), got ${shown(tg)}${typeof tg === "number" && tg < 0 ? " (a negative grace period is not modelled)" : ""}`);
    const vols = cx.list(obj.spec.volumes, `${path}.spec.volumes`) as J[];
    const volNames = new Set<string>();
    for (let i = 0; i < vols.length; i++) {
      const p = `${path}.spec.volumes[${i}]`;
      const vol = cx.map(vols[i], p);
      volNames.add(cx.str(vol.name, `${p}.name`));
      let srcs = 0;
      for (const k of POD_VOLUME_SOURCES) if (vol[k] !== undefined) srcs++;
      if (srcs !== 1) cx.fail(p, `a volume needs exactly one source (${POD_VOLUME_SOURCES.join(", ")}), found ${srcs}`);
      checkVolumeSource(cx, vol, p, true);
      if (vol.emptyDir === null) vol.emptyDir = {};
    }
    // the API server's validation: a volumeMount names a volume of the pod
    for (const [n, mp] of mountNames) if (!volNames.has(n)) cx.fail(mp, `Not found: ${JSON.stringify(n)} (no volume of the pod has that name${volNames.size > 0 ? `; the pod's volumes: ${[...volNames].join(", ")}` : ""})`);
    obj.status = { phase: "Pending" };
  }
  if (kind === "PersistentVolume") {
    const srcs = ["csi", "rbd", "awsElasticBlockStore", "gcePersistentDisk", "qcloudCbs"].filter((k) => obj.spec[k] !== undefined);
    if (srcs.length !== 1) cx.fail(`${path}.spec`, `a PersistentVolume needs exactly one source (csi, rbd, awsElasticBlockStore, gcePersistentDisk, qcloudCbs)`);
    checkVolumeSource(cx, obj.spec, `${path}.spec`, false);
    if (obj.spec.accessModes === null) cx.fail(`${path}.spec.accessModes`, "expected a list of access modes (ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod), got null");
    for (const m of cx.list(obj.spec.accessModes, `${path}.spec.accessModes`))
      if (!["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"].includes(String(m))) cx.fail(`${path}.spec.accessModes`, `unknown access mode ${JSON.stringify(m)}`);
  }
  if (kind === "Node") {
    const st = (obj.status ?? {}) as J;
    if (!st.conditions) st.conditions = [{ type: "Ready", status: "True", reason: "KubeletReady" }];
    obj.status = st;
  }
  if (kind === "VolumeAttachment" && !obj.status) obj.status = { attached: false };
  if (kind === "StorageClass") {
    // (storage.k8s.io/v1 StorageClass keeps its fields at the top level: the model reads them from spec)
    if (o.allowVolumeExpansion !== undefined && typeof o.allowVolumeExpansion !== "boolean") cx.fail(`${path}.allowVolumeExpansion`, `expected true or false, got ${shown(o.allowVolumeExpansion)}`);
    obj.spec = { provisioner: o.provisioner === undefined ? "" : cx.str(o.provisioner, `${path}.provisioner`), allowVolumeExpansion: o.allowVolumeExpansion === true };
  }
  if (kind === "PersistentVolumeClaim") {
    const st = (obj.spec as any).resources?.requests?.storage;
    if (st !== undefined && (parseQuantity(String(st)) === null)) cx.fail(`${path}.spec.resources.requests.storage`, `${shown(st)} is no storage size (e.g. 10Gi)`);
  }
  return obj;
}

function timelineItem(cx: Cx, v: unknown, path: string): TimelineItem {
  if (!isFrozenObject(v)) return loadTimelineItem(cx, v, path);
  const m = frozenTimelineItems.get(v);
  if (m !== undefined && m.line === cx.line(path)) return m;
  const item = deepFreeze(loadTimelineItem(cx, v, path));
  frozenTimelineItems.set(v, item);
  return item;
}

function loadTimelineItem(cx: Cx, v: unknown, path: string): TimelineItem {
  const o = cx.map(v, path);
  cx.only(o, path, ["at", "after", "between", "action", "pod", "node", "grace", "down", "manifest", "kind", "name", "key", "effect", "value", "process", "path", "propagation", "csiNodeRegistration", "delay", "count", "claim", "size"]);
  const item: Partial<TimelineItem> = { line: cx.line(path) };
  const nWhen = [o.at, o.after, o.between].filter((x) => x !== undefined).length;
  if (nWhen !== 1) cx.fail(path, `give exactly one of at, after, between`);
  if (o.at !== undefined) item.atMs = cx.dur(o.at, `${path}.at`);
  if (o.after !== undefined) {
    item.after = {
      step: cx.step(o.after, `${path}.after`),
      count: o.count === undefined ? 1 : cx.int(o.count, `${path}.count`, 1),
      delayMs: o.delay === undefined ? 0 : cx.dur(o.delay, `${path}.delay`),
    };
  }
  if (o.between !== undefined) {
    const b = cx.list(o.between, `${path}.between`);
    if (b.length !== 2) cx.fail(`${path}.between`, `expected [stepX, stepY]`);
    if (o.delay !== undefined) cx.fail(`${path}.delay`, "between: picks its own instant; delay is for after:");
    item.between = { from: cx.step(b[0], `${path}.between[0]`), to: cx.step(b[1], `${path}.between[1]`), count: o.count === undefined ? 1 : cx.int(o.count, `${path}.count`, 1) };
  }
  const a = cx.str(o.action, `${path}.action`);
  const node = (): string => cx.str(o.node, `${path}.node`);
  let action: Action;
  switch (a) {
    case "createPod":
    case "create":
      const m = manifest(cx, o.manifest, `${path}.manifest`);
      action = { kind: a, manifest: m };
      if (a === "createPod" && m.kind !== "Pod") cx.fail(`${path}.manifest.kind`, "createPod needs a Pod manifest");
      break;
    case "deletePod":
      // a bare number is ms in every duration of the format, but kubectl's
      // --grace-period=30 and gracePeriodSeconds are seconds: `grace: 30` gave the
      // containers 30 ms, so the grace period needs its unit
      // (0 is 0 in any unit)
      if ((typeof o.grace === "number" && o.grace !== 0) || (typeof o.grace === "string" && /^\s*\d+\s*$/.test(o.grace) && Number(o.grace) !== 0))
        cx.fail(`${path}.grace`, `give a unit, e.g. "${o.grace}s" (a bare number would be ms, not kubectl's --grace-period seconds)`);
      action = { kind: "deletePod", pod: podKey(cx.str(o.pod, `${path}.pod`)), graceSeconds: o.grace === undefined ? undefined : cx.dur(o.grace, `${path}.grace`) / 1000 };
      break;
    case "delete": {
      const k = cx.str(o.kind, `${path}.kind`) as Kind;
      if (!KINDS.includes(k)) cx.fail(`${path}.kind`, `unsupported kind ${k}`);
      // the API server keys a pod or claim by namespace/name: a bare name (as
      // deletePod takes it) never matched, and the NotFound was swallowed
      const name = cx.str(o.name, `${path}.name`);
      action = { kind: "delete", objectKind: k, name: NAMESPACED[k] ? podKey(name) : name };
      break;
    }
    case "crashKubelet":
    case "startKubelet":
    case "nodeNotReady":
    case "nodeReady":
      action = { kind: a, node: node() };
      break;
    case "restartKubelet":
      action = {
        kind: a,
        node: node(),
        downMs: o.down === undefined ? 2000 : cx.dur(o.down, `${path}.down`),
        ...(o.csiNodeRegistration === undefined ? {} : { csiNodeRegistrationMs: cx.dur(o.csiNodeRegistration, `${path}.csiNodeRegistration`) }),
      };
      break;
    case "crashControllerManager":
    case "startControllerManager":
      action = { kind: a };
      break;
    case "restartControllerManager":
      action = { kind: a, downMs: o.down === undefined ? 2000 : cx.dur(o.down, `${path}.down`) };
      break;
    case "taintNode": {
      const effect = o.effect === undefined ? "NoExecute" : String(o.effect);
      if (effect !== "NoExecute" && effect !== "NoSchedule") cx.fail(`${path}.effect`, "expected NoExecute or NoSchedule");
      action = { kind: a, node: node(), key: cx.str(o.key, `${path}.key`), effect, value: o.value === undefined ? undefined : String(o.value) };
      break;
    }
    case "untaintNode":
      action = { kind: a, node: node(), key: cx.str(o.key, `${path}.key`) };
      break;
    case "holdMount": {
      const prop = o.propagation === undefined ? "None" : String(o.propagation);
      if (prop !== "None" && prop !== "HostToContainer") cx.fail(`${path}.propagation`, "expected None or HostToContainer");
      action = { kind: a, node: node(), process: cx.str(o.process, `${path}.process`), path: o.path === undefined ? "/" : cx.str(o.path, `${path}.path`), propagation: prop };
      break;
    }
    case "releaseMount":
      action = { kind: a, node: node(), process: cx.str(o.process, `${path}.process`) };
      break;
    case "rebootNode":
      action = { kind: a, node: node(), downMs: o.down === undefined ? 60_000 : cx.dur(o.down, `${path}.down`) };
      break;
    case "shutdownNode":
    case "startNode":
      action = { kind: a, node: node() };
      break;
    case "stopApiServer":
    case "startApiServer":
      action = { kind: a };
      break;
    case "restartApiServer":
      action = { kind: a, downMs: o.down === undefined ? 10_000 : cx.dur(o.down, `${path}.down`) };
      break;
    case "resize": {
      // kubectl patch pvc CLAIM -p '{"spec":{"resources":{"requests":{"storage":"SIZE"}}}}'
      const size = o.size === undefined ? cx.fail(`${path}.size`, "resize needs the claim's new size, e.g. size: 20Gi") : String(o.size);
      if (parseQuantity(size) === null || parseQuantity(size) === 0)
        cx.fail(`${path}.size`, `${shown(o.size)} is no storage size (a quantity such as 20Gi, 512Mi, 100G; the API server answers "quantities must match the regular expression")`);
      action = { kind: a, claim: podKey(cx.str(o.claim, `${path}.claim`)), size };
      break;
    }
    default:
      cx.fail(
        `${path}.action`,
        `unknown action ${JSON.stringify(a)} (known: createPod, create, deletePod, delete, crashKubelet, startKubelet, restartKubelet, crashControllerManager, startControllerManager, restartControllerManager, nodeNotReady, nodeReady, taintNode, untaintNode, holdMount, releaseMount, rebootNode, shutdownNode, startNode, stopApiServer, startApiServer, restartApiServer, resize)`,
      );
  }
  // a field the action does not take was dropped (`{at: 60s, action:
  // restartKubelet, node: n1, delay: 4s}` restarted with the default 2 s down,
  // `count:` with `at:` fired once): refuse it
  const takes = ACTION_FIELDS[a]!;
  for (const k of Object.keys(o)) {
    if (k === "at" || k === "after" || k === "between" || k === "action") continue;
    if ((k === "delay" && o.after !== undefined) || (k === "count" && o.at === undefined) || takes.includes(k)) continue;
    cx.fail(`${path}.${k}`, k === "delay" || k === "count" ? `${k} is for ${k === "delay" ? "after:" : "after: and between:"}, not at:` : `${a} does not take ${k} (it takes ${takes.length > 0 ? takes.join(", ") : "no other field"})`);
  }
  item.action = action;
  return item as TimelineItem;
}

/** the fields each timeline action takes, besides at/after/between (+ delay, count) */
const ACTION_FIELDS: Record<string, readonly string[]> = {
  createPod: ["manifest"],
  create: ["manifest"],
  deletePod: ["pod", "grace"],
  delete: ["kind", "name"],
  crashKubelet: ["node"],
  startKubelet: ["node"],
  nodeNotReady: ["node"],
  nodeReady: ["node"],
  restartKubelet: ["node", "down", "csiNodeRegistration"],
  crashControllerManager: [],
  startControllerManager: [],
  restartControllerManager: ["down"],
  taintNode: ["node", "key", "effect", "value"],
  untaintNode: ["node", "key"],
  holdMount: ["node", "process", "path", "propagation"],
  releaseMount: ["node", "process"],
  rebootNode: ["node", "down"],
  shutdownNode: ["node"],
  startNode: ["node"],
  stopApiServer: [],
  startApiServer: [],
  restartApiServer: ["down"],
  resize: ["claim", "size"],
};

function podKey(s: string): string {
  return s.includes("/") ? s : `default/${s}`;
}

function window(cx: Cx, o: J, path: string): { fromMs: number; untilMs: number } {
  return {
    fromMs: o.from === undefined ? 0 : cx.dur(o.from, `${path}.from`),
    untilMs: o.until === undefined ? Infinity : cx.dur(o.until, `${path}.until`),
  };
}

function storageFault(cx: Cx, v: unknown, path: string): StorageFault {
  const o = cx.map(v, path);
  cx.only(o, path, ["op", "volume", "node", "error", "count", "from", "until", "latency", "outcome", "code"]);
  const op = cx.str(o.op, `${path}.op`) as BackendOp;
  if (!BACKEND_OPS.includes(op)) cx.fail(`${path}.op`, `unknown storage operation ${JSON.stringify(op)} (known: ${BACKEND_OPS.join(", ")})`);
  const outcome = o.outcome === undefined ? undefined : (cx.str(o.outcome, `${path}.outcome`) as CallOutcome);
  if (outcome !== undefined && !CALL_OUTCOMES.includes(outcome)) cx.fail(`${path}.outcome`, `unknown outcome ${JSON.stringify(outcome)} (known: ${CALL_OUTCOMES.join(", ")})`);
  if (o.error === undefined && o.latency === undefined && outcome === undefined) cx.fail(path, "a storage fault needs an error, a latency or an outcome");
  if (outcome === "error" && o.error === undefined) cx.fail(`${path}.error`, "outcome error needs the error's text");
  const code = o.code === undefined ? undefined : (cx.str(o.code, `${path}.code`) as GrpcCode);
  if (code !== undefined && !(GRPC_CODES as readonly string[]).includes(code)) cx.fail(`${path}.code`, `unknown gRPC code ${JSON.stringify(code)} (known: ${GRPC_CODES.join(", ")})`);
  return {
    ...(outcome !== undefined ? { outcome } : {}),
    ...(code !== undefined ? { code } : {}),
    op,
    volume: o.volume === undefined ? undefined : String(o.volume),
    node: o.node === undefined ? undefined : String(o.node),
    error: o.error === undefined ? undefined : String(o.error),
    count: cx.times(o.count, `${path}.count`),
    latencyMs: o.latency === undefined ? undefined : cx.dur(o.latency, `${path}.latency`),
    ...window(cx, o, path),
  };
}

function apiFault(cx: Cx, v: unknown, path: string): ApiFault {
  const o = cx.map(v, path);
  cx.only(o, path, ["verb", "kind", "name", "reason", "message", "count", "from", "until", "component", "subresource"]);
  const verb = cx.str(o.verb, `${path}.verb`);
  if (!["create", "update", "patch", "delete", "get"].includes(verb)) cx.fail(`${path}.verb`, "expected create, update, patch, delete or get");
  const kind = cx.str(o.kind, `${path}.kind`) as Kind;
  if (!KINDS.includes(kind)) cx.fail(`${path}.kind`, `unsupported kind ${kind}`);
  const reason = o.reason === undefined ? "InternalError" : String(o.reason);
  if (!["Conflict", "InternalError", "NotFound"].includes(reason)) cx.fail(`${path}.reason`, "expected Conflict, InternalError or NotFound");
  // the API server keys a pod or claim by namespace/name; a bare name (as the
  // timeline's `pod:` takes it) never matched, so the fault never fired
  const name = o.name === undefined ? undefined : cx.str(String(o.name), `${path}.name`);
  return {
    verb: verb as ApiFault["verb"],
    kind,
    name: name === undefined || !NAMESPACED[kind] ? name : podKey(name),
    reason: reason as ApiFault["reason"],
    message: o.message === undefined ? undefined : String(o.message),
    count: cx.times(o.count, `${path}.count`),
    ...window(cx, o, path),
    ...apiFaultScope(cx, o, path),
  };
}

/**
 * (k8s-releases) An API fault's client and subresource: `component:`
 * kube-controller-manager, csi-attacher, kubelet or kubelet/NODE;
 * `subresource: status` (nodes/status, pods/status) or "" (the object itself).
 */
function apiFaultScope(cx: Cx, o: Record<string, unknown>, path: string): { component?: string; subresource?: string } {
  const out: { component?: string; subresource?: string } = {};
  if (o.component !== undefined) {
    const c = cx.str(o.component, `${path}.component`);
    const head = c.includes("/") ? c.slice(0, c.indexOf("/")) : c;
    if (!["kube-controller-manager", "csi-attacher", "kubelet"].includes(head) || (head !== "kubelet" && c !== head))
      cx.fail(`${path}.component`, `expected kube-controller-manager, csi-attacher, kubelet or kubelet/NODE, got ${JSON.stringify(c)}`);
    out.component = c;
  }
  if (o.subresource !== undefined) {
    const r = o.subresource === null ? "" : String(o.subresource);
    if (r !== "status" && r !== "") cx.fail(`${path}.subresource`, `expected status (nodes/status, pods/status) or "" (the object itself), got ${JSON.stringify(o.subresource)}`);
    out.subresource = r;
  }
  return out;
}

function watchFault(cx: Cx, v: unknown, path: string): WatchFault {
  const o = cx.map(v, path);
  cx.only(o, path, ["component", "delay", "from", "until"]);
  return { component: cx.str(o.component, `${path}.component`), extraMs: cx.dur(o.delay, `${path}.delay`), ...window(cx, o, path) };
}

/**
 * A log component a check may name: the components that log (the
 * attach/detach controller's kube-controller-manager, the external attacher,
 * each node's kubelet and rbd CLI), alone or with the node (`kubelet/n1`).
 * A check matches lines whose component starts with it, so a misspelt one
 * matched nothing: its log: check failed and its noLog: check held unread.
 */
const LOG_COMPONENTS = ["kube-controller-manager", "csi-attacher", "csi-resizer", "kubelet", "rbd"];
function logComponent(cx: Cx, v: unknown, path: string): string {
  const c = cx.str(v, path);
  const slash = c.indexOf("/");
  const head = slash < 0 ? c : c.slice(0, slash);
  if (!LOG_COMPONENTS.includes(head) || (slash >= 0 && (head === "kube-controller-manager" || head === "csi-attacher" || head === "csi-resizer" || slash === c.length - 1)))
    cx.fail(path, `unknown component ${JSON.stringify(c)} (known: ${LOG_COMPONENTS.join(", ")}, kubelet/NODE, rbd/NODE)`);
  return c;
}

const POD_PHASES = ["Pending", "Running", "Succeeded", "Failed", "Unknown"];

/** the field a check given as a plain string (`podRunning: web-0`) names */
const SHORTHAND_FIELD: Record<string, string | undefined> = { podPhase: "pod", podRunning: "pod", podNotRunning: "pod", podGone: "pod", log: "contains", noLog: "contains", event: "reason", noEvent: "reason", step: "name" };
/** each check's fields */
const CHECK_FIELDS: Record<string, readonly string[]> = {
  podPhase: ["pod", "phase"],
  podRunning: ["pod", "until"],
  podNotRunning: ["pod", "until"],
  podGone: ["pod"],
  log: ["contains", "component"],
  noLog: ["contains", "component"],
  event: ["reason", "object", "contains", "from", "until"],
  noEvent: ["reason", "object", "contains", "from", "until"],
  nodeVolumesAttached: ["node", "contains", "lacks"],
  volumeAttachment: ["volumeHandle", "node", "exists"],
  hostMount: ["node", "pathContains", "present"],
  rbdMapped: ["node", "image", "mapped"],
  hostPath: ["node", "pathContains", "present"],
  claim: ["claim", "capacity", "condition", "noCondition"],
  step: ["name", "min", "max", "from", "until"],
  calls: ["op", "volume", "node", "min", "max"],
};

const CHECKS = ["podPhase", "podRunning", "podNotRunning", "podGone", "log", "noLog", "event", "noEvent", "nodeVolumesAttached", "volumeAttachment", "hostMount", "rbdMapped", "hostPath", "claim", "step", "calls"];

function expectation(cx: Cx, v: unknown, path: string): Expectation {
  const o = cx.map(v, path);
  const keys = Object.keys(o).filter((k) => k !== "name");
  if (keys.length !== 1 || !CHECKS.includes(keys[0]!)) cx.fail(path, `expected one check of: ${CHECKS.join(", ")}`);
  const kind = keys[0]!;
  const p = `${path}.${kind}`;
  const raw = o[kind];
  // `podRunning: web-0`, `event: FailedMount`, `log: "text"`, `step: NAME`:
  // the string is the check's one main field and nothing else (it was every
  // field at once, so `event: X` also asked for X in the message and
  // `noEvent: X` held while X events were there)
  let a: J;
  if (typeof raw === "string") {
    const field = SHORTHAND_FIELD[kind];
    if (field === undefined) cx.fail(p, `expected a mapping (${CHECK_FIELDS[kind]!.join(", ")}), got ${shown(raw)}`);
    a = { [field]: raw };
  } else {
    a = cx.map(raw, p);
    // a misspelt field was dropped and the check decided without it
    // (`nodeVolumesAttached: {node: n1, contain: X}` held whatever n1 had)
    cx.only(a, p, CHECK_FIELDS[kind]!);
  }
  let check: Check;
  switch (kind) {
    case "podPhase":
      check = { kind, pod: podKey(cx.str(a.pod, `${p}.pod`)), phase: cx.str(a.phase, `${p}.phase`) };
      // core/v1 PodPhase: any other text (`running`) never matched
      if (!POD_PHASES.includes(check.phase)) cx.fail(`${p}.phase`, `unknown pod phase ${JSON.stringify(check.phase)} (known: ${POD_PHASES.join(", ")})`);
      break;
    case "podRunning":
    case "podNotRunning":
    case "podGone":
      check = { kind, pod: podKey(cx.str(a.pod, `${p}.pod`)) };
      break;
    case "log":
    case "noLog":
      check = { kind, contains: cx.str(a.contains, `${p}.contains`), component: a.component === undefined ? undefined : logComponent(cx, a.component, `${p}.component`) };
      break;
    case "event":
    case "noEvent":
      check = { kind, reason: cx.str(a.reason, `${p}.reason`), object: a.object === undefined ? undefined : String(a.object), contains: a.contains === undefined ? undefined : String(a.contains) };
      break;
    case "nodeVolumesAttached":
      if (a.contains === undefined && a.lacks === undefined) cx.fail(p, "give contains or lacks (a volume's unique name, e.g. kubernetes.io/csi/DRIVER^HANDLE)");
      check = { kind, node: cx.str(a.node, `${p}.node`), contains: a.contains === undefined ? undefined : String(a.contains), lacks: a.lacks === undefined ? undefined : String(a.lacks) };
      break;
    case "volumeAttachment":
      check = { kind, volumeHandle: cx.str(a.volumeHandle, `${p}.volumeHandle`), node: cx.str(a.node, `${p}.node`), exists: cx.bool(a.exists, `${p}.exists`, true) };
      break;
    case "hostMount":
      check = { kind, node: cx.str(a.node, `${p}.node`), pathContains: cx.str(a.pathContains, `${p}.pathContains`), present: cx.bool(a.present, `${p}.present`, true) };
      break;
    case "rbdMapped":
      check = { kind, node: cx.str(a.node, `${p}.node`), image: cx.str(a.image, `${p}.image`), mapped: cx.bool(a.mapped, `${p}.mapped`, true) };
      break;
    case "hostPath":
      check = { kind, node: cx.str(a.node, `${p}.node`), pathContains: cx.str(a.pathContains, `${p}.pathContains`), present: cx.bool(a.present, `${p}.present`, true) };
      break;
    case "claim": {
      if (a.capacity === undefined && a.condition === undefined && a.noCondition === undefined) cx.fail(p, "give capacity (status.capacity.storage), condition or noCondition (a condition type, e.g. FileSystemResizePending)");
      if (a.capacity !== undefined && parseQuantity(String(a.capacity)) === null) cx.fail(`${p}.capacity`, `${shown(a.capacity)} is no storage size (e.g. 20Gi)`);
      check = {
        kind,
        claim: podKey(cx.str(a.claim, `${p}.claim`)),
        ...(a.capacity !== undefined ? { capacity: String(a.capacity) } : {}),
        ...(a.condition !== undefined ? { condition: cx.str(a.condition, `${p}.condition`) } : {}),
        ...(a.noCondition !== undefined ? { noCondition: cx.str(a.noCondition, `${p}.noCondition`) } : {}),
      };
      break;
    }
    case "calls": {
      const op = cx.str(a.op, `${p}.op`);
      if (!BACKEND_OPS.includes(op as BackendOp)) cx.fail(`${p}.op`, `unknown storage operation ${JSON.stringify(op)} (known: ${BACKEND_OPS.join(", ")})`);
      const max = a.max === undefined ? undefined : cx.int(a.max, `${p}.max`, 0);
      const min = a.min === undefined ? Math.min(1, max ?? 1) : cx.int(a.min, `${p}.min`, 0);
      if (max !== undefined && a.min !== undefined && min > max) cx.fail(`${p}.max`, `max ${max} is below min ${min}: the check could never hold`);
      check = { kind: "calls", op, volume: a.volume === undefined ? undefined : String(a.volume), node: a.node === undefined ? undefined : String(a.node), min, max };
      break;
    }
    default: {
      const max = a.max === undefined ? undefined : cx.int(a.max, `${p}.max`, 0);
      // min defaults to 1 ("it happens"), but `{name: X, max: 0}` says "never": a
      // default above the max made that check fail whatever the run did
      const min = a.min === undefined ? Math.min(1, max ?? 1) : cx.int(a.min, `${p}.min`, 0);
      if (max !== undefined && a.min !== undefined && min > max) cx.fail(`${p}.max`, `max ${max} is below min ${min}: the check could never hold`);
      check = { kind: "step", name: cx.step(a.name, `${p}.name`), min, max };
    }
  }
  const e: Expectation = { check, name: o.name === undefined ? `${kind} ${JSON.stringify(raw)}` : String(o.name), line: cx.line(path) };
  // (k8s-releases) a check bounded in time
  if (typeof raw !== "string" && (a.from !== undefined || a.until !== undefined)) {
    const w = window(cx, a, p);
    if (w.untilMs <= w.fromMs) cx.fail(`${p}.until`, `until must come after from`);
    if (a.from !== undefined) e.fromMs = w.fromMs;
    if (a.until !== undefined) e.untilMs = w.untilMs;
  }
  return e;
}
