// Run a scenario: build the cluster (API server, storage backend, one host and
// kubelet per node, the controller-manager's attach/detach controller, the
// external-attacher), play the timeline, then check invariants and
// expectations.
//
// Invariants (each failure carries a plain-language explanation built from the
// run's causal notes):
//   pod-volumes-ready      a pod never starts without its volumes attached and mounted
//   rwo-single-node        an RWO volume is never attached to two nodes
//   attached-reported      every attached volume in use on a node is in its
//                          node.status.volumesAttached within NODE_STATUS_GRACE_MS
//   released-after-pods    nothing stays attached (or mapped) to a node where no pod
//                          uses it for longer than the version's timeouts
//                          (6 min max wait for unmount + 2m2s backoff + 1 min)
//   no-orphaned-mounts     nothing stays mounted under a deleted pod's directory
//   liveness               a pod whose spec has been stable for LIVENESS_MS runs
// "Longer than" is judged at the end of the run, so a scenario must run long
// enough past its last action (the built-ins run 20-25 simulated minutes,
// which idle-skipping makes cheap).

import { podStatusView, volumeStatusViews } from "../api/podstatus.js";
import { ApiError, ApiServer, isNotFound, type WatchType } from "../api/apiserver.js";
import { parseQuantity } from "../api/quantity.js";
import { keyOf, kindSlot, KObj, nsKey, plainKeyOf, PodVolume, Taint, wireObj } from "../api/types.js";
import { AttachDetachController } from "../attachdetach/attach_detach_controller.js";
import { ExternalAttacher } from "../csi/external_attacher.js";
import { ExpandController, ExternalResizer, scenarioResizes } from "../expand/expand_controller.js";
import { DEFAULT_TIMERS, TimerConfig } from "../engine/config.js";
import { type Ctx, type Monitor, Steps } from "../engine/context.js";
import { Rng, Sim } from "../engine/sim.js";
import { Backend, type BackendVolume } from "../host/backend.js";
import { Host } from "../host/mount.js";
import { Kubelet } from "../kubelet/kubelet.js";
import { NodeLifecycleController } from "../nodelifecycle/node_lifecycle_controller.js";
import { PodGCController } from "../podgc/gc_controller.js";
import { Scheduler } from "../scheduler/scheduler.js";
import { K8sEvent, LogLine, LogNeedle, Recorder, relTime } from "../output/recorder.js";
import { FIXES, FixId, FixOverrides, Profile, resolveProfile } from "../versions/profile.js";
import { createCloudDiskPlugin, createLocalPlugin, LOCAL_PLUGIN_FIELDS, type LocalPluginKind } from "../volume/clouddisk.js";
import { createCSIPlugin } from "../volume/csi.js";
import { PluginMgr } from "../volume/plugins.js";
import { AWS_EBS_PLUGIN, driverOf, GCE_PD_PLUGIN, isMigrationEnabledForPlugin, MIGRATED_PLUGINS_ANNOTATION, MIGRATIONS, migratedPluginsAnnotation, pvVolumeHandle, translateInlineVolume } from "../volume/csimigration.js";
import { createRBDPlugin } from "../volume/rbd.js";
import type { Check, Expectation, K8sScenario, TimelineItem } from "./schema.js";

/** timeline actions that are API writes and nothing else (see ClusterRun.act) */
const API_ACTIONS: ReadonlySet<string> = new Set(["createPod", "create", "deletePod", "delete", "nodeNotReady", "nodeReady", "taintNode", "untaintNode"]);

export const NODE_STATUS_GRACE_MS = 60_000;
/** kube-controller-manager --leader-elect-renew-deadline, --leader-elect-retry-period (defaults) */
const LEADER_ELECT_RENEW_DEADLINE_MS = 10_000;
const LEADER_ELECT_RETRY_PERIOD_MS = 2_000;
export const LIVENESS_MS = 5 * 60_000;

export interface Violation {
  /** invariant or expectation name */
  name: string;
  kind: "invariant" | "expectation";
  /** simulated ms when it was established */
  timeMs: number;
  time: string;
  explanation: string;
}

export interface CheckResult {
  name: string;
  held: boolean;
  detail: string;
  line?: number;
  /** false for a `log:` / `noLog:` check of a run without logs (`logs: false`): it was not checked, and is reported as held */
  checked?: false;
}

export interface K8sRunOptions {
  version?: string;
  fixes?: FixOverrides;
  seed?: number;
  /**
   * build log lines (default true); false: none (the benchmark), and `log:` /
   * `noLog:` checks are not checked (`checked: false`); "checks": keep no
   * line but decide the scenario's log checks exactly as with true, building
   * lines only until every check's text is found (the Monte Carlo setting;
   * output/recorder.ts)
   */
  logs?: boolean | "checks";
  /** run every loop at every period (reference mode for the idle-skip test) */
  tickEveryPeriod?: boolean;
  /** record every step in the result's `steps` (default false; always when the scenario has a `step:` check) */
  steps?: boolean;
}

export interface K8sRunResult {
  scenario: string;
  version: string;
  fixes: Record<FixId, boolean>;
  timeline: K8sEvent[];
  /** every event occurrence in time order (before the recorder's aggregation) */
  occurrences: Array<{ t: number; event: K8sEvent }>;
  logs: LogLine[];
  objects: KObj[];
  violations: Violation[];
  expectations: CheckResult[];
  symptoms: CheckResult[];
  steps: Array<{ t: number; name: string; detail: string }>;
  stats: {
    endMs: number;
    events: number;
    nodePatches: number;
    storageCalls: number;
    /** calls[op][volume][node]: every storage and node-local call (volume/operation.ts), in the order first made */
    calls: Record<string, Record<string, Record<string, number>>>;
  };
  /** (k8s-releases) how long each pod waited for its containers, in creation order */
  podWaits: PodWait[];
}

/**
 * A pod's wait (k8s-releases): from its creation, and from its kubelet's
 * first sync (the time in ContainerCreating), to its first Running status,
 * or to the end of the run (`waiting`) or its deletion (`deleted`) if it
 * never ran. Times in simulated ms.
 */
export interface PodWait {
  /** namespace/name */
  pod: string;
  uid: string;
  node: string;
  createdAt: number;
  /** the kubelet's first sync of it (ContainerCreating from here); null if no kubelet synced it */
  syncedAt: number | null;
  runningAt: number | null;
  /** running: ran; waiting: still not running at the end; deleted: deleted before it ran */
  state: "running" | "waiting" | "deleted";
  /** creation to Running, to the end, or to the deletion */
  waitedMs: number;
  /** the kubelet's first sync to Running (or to the end or the deletion); null if never synced */
  containerCreatingMs: number | null;
}

/** the local (non-attachable) plugins' kinds: `kubernetes.io/<kind>/<pod uid>-<volume>` */
const LOCAL_KINDS = Object.keys(LOCAL_PLUGIN_FIELDS) as LocalPluginKind[];

/** The volume plugins; they keep no state of their own (it lives on the hosts and in the API), so every run shares them. */
const PLUGINS: PluginMgr =
  new PluginMgr([
    createCSIPlugin(),
    createRBDPlugin(),
    createCloudDiskPlugin("aws-ebs"),
    createCloudDiskPlugin("gce-pd"),
    createCloudDiskPlugin("qcloud-cbs"),
    createLocalPlugin("host-path"),
    createLocalPlugin("empty-dir"),
    createLocalPlugin("secret"),
    createLocalPlugin("configmap"),
    createLocalPlugin("projected"),
    createLocalPlugin("downward-api"),
  ]);

const NO_GATES: Readonly<Record<string, boolean>> = Object.freeze({});
/**
 * The scenario has a PV (among its objects or created by its timeline) with
 * an in-tree source that migrates to CSI (volume/csimigration.ts): only then
 * do kubelets write CSINode objects, which no loop of another run reads.
 */
function hasMigratableVolume(sc: K8sScenario): boolean {
  const inTree = (s: Record<string, any> | undefined): boolean => !!s?.awsElasticBlockStore || !!s?.gcePersistentDisk;
  // a PV with an in-tree source, or a pod with an inline one (TranslateInTreeInlineVolumeToCSI)
  const pv = (o: KObj): boolean =>
    o.kind === "PersistentVolume" ? inTree(o.spec) : o.kind === "Pod" && ((o.spec?.volumes ?? []) as Array<Record<string, any>>).some(inTree);
  if (sc.objects.some(pv)) return true;
  return sc.timeline.some((t) => (t.action.kind === "create" || t.action.kind === "createPod") && pv(t.action.manifest));
}

/**
 * What a run asks of its scenario's shape before it starts: whether a check
 * counts steps, whether the timeline resizes a claim, whether a PV can
 * migrate to CSI, whether a pod waits for the scheduler. Each is a scan of
 * the scenario's lists; a sweep replays one scenario thousands of times, so
 * they are worked out once per scenario object and kept while the lists are
 * the same (a caller that gives the scenario a new timeline or new objects
 * gets them worked out again).
 */
interface ScenarioFacts {
  objects: K8sScenario["objects"];
  timeline: K8sScenario["timeline"];
  expect: K8sScenario["expect"];
  symptom: K8sScenario["symptom"];
  stepCheck: boolean;
  resizes: boolean;
  migratable: boolean;
  scheduler: boolean;
}
const scenarioFacts = new WeakMap<K8sScenario, ScenarioFacts>();
function factsOf(sc: K8sScenario): ScenarioFacts {
  const f = scenarioFacts.get(sc);
  if (f !== undefined && f.objects === sc.objects && f.timeline === sc.timeline && f.expect === sc.expect && f.symptom === sc.symptom) return f;
  const made: ScenarioFacts = {
    objects: sc.objects,
    timeline: sc.timeline,
    expect: sc.expect,
    symptom: sc.symptom,
    stepCheck: hasStepCheck(sc.expect) || hasStepCheck(sc.symptom),
    resizes: scenarioResizes(sc.timeline),
    migratable: hasMigratableVolume(sc),
    scheduler: needsScheduler(sc),
  };
  scenarioFacts.set(sc, made);
  return made;
}

/** storage backend id of a pod volume (csi handle, disk id, rbd:pool/image), or null */
function backendId(v: PodVolume, ns: string, api: ApiServer, run?: Ctx): string | null {
  let src: Record<string, any> | undefined = v as unknown as Record<string, any>;
  if (v.persistentVolumeClaim) {
    const pvc = api.tryGet("PersistentVolumeClaim", nsKey(ns, v.persistentVolumeClaim.claimName));
    const pv = pvc?.spec?.volumeName ? api.tryGet("PersistentVolume", pvc.spec.volumeName) : undefined;
    if (!pv) return null;
    src = pv.spec;
    // a migrated PD is its CSI handle to the storage backend (volume/csimigration.ts section 4)
    if (src?.gcePersistentDisk && run?.migration?.volumes && isMigrationEnabledForPlugin(run.profile, GCE_PD_PLUGIN)) return pvVolumeHandle(pv)!;
  }
  if (!src) return null;
  // a migrated inline PD is its translated handle too (zones/UNSPECIFIED: volume/csimigration.ts section 2b)
  if (!v.persistentVolumeClaim && src.gcePersistentDisk && run?.migration?.volumes && isMigrationEnabledForPlugin(run.profile, GCE_PD_PLUGIN)) return translateInlineVolume(v).spec.csi.volumeHandle;
  if (src.csi?.volumeHandle) return src.csi.volumeHandle;
  if (src.rbd) return `rbd:${src.rbd.pool ?? "rbd"}/${src.rbd.image}`;
  if (src.awsElasticBlockStore) return src.awsElasticBlockStore.volumeID;
  if (src.gcePersistentDisk) return src.gcePersistentDisk.pdName;
  if (src.qcloudCbs) return src.qcloudCbs.cbsDiskId;
  return null;
}

/**
 * Whether the volume is attached at the storage backend before a pod may use
 * it: not a CSI volume whose CSIDriver says attachRequired: false (no
 * ControllerPublish, no VolumeAttachment: the node plugin alone makes it
 * available, csi_attacher.go's "skip attach" path)
 */
function attachExpected(v: PodVolume, ns: string, api: ApiServer): boolean {
  let src: Record<string, any> | undefined = v as unknown as Record<string, any>;
  if (v.persistentVolumeClaim) {
    const pvc = api.tryGet("PersistentVolumeClaim", nsKey(ns, v.persistentVolumeClaim.claimName));
    src = pvc?.spec?.volumeName ? api.tryGet("PersistentVolume", pvc.spec.volumeName)?.spec : undefined;
  }
  const driver = src?.csi?.driver;
  return driver === undefined || api.tryGet("CSIDriver", driver)?.spec?.attachRequired !== false;
}

/**
 * Profiles are resolved once per (version, fix overrides) and shared by the
 * runs that ask for the same: a Monte Carlo sweep runs thousands of replays
 * on a handful of them. A profile is never written to.
 *
 * Looked up by version, then by the overrides as a number: a base-3 digit
 * per fix of FIXES, the only ones resolveProfile reads (0 none, 1 on, 2 off;
 * any falsy value counts as off, as in the key string this replaced). No
 * key is built and hashed, and the overrides are read by id alone: a
 * sweep's `fixes` has dictionary elements ("104526" is an array index), and
 * a for-in over its keys to see whether it had any was ~1 % of a run.
 */
const profiles = new Map<string, Map<number | string, Profile>>();
/** DEFAULT_TIMERS unfrozen: copying a frozen object is a slow path in V8 */
const TIMER_DEFAULTS: TimerConfig = { ...DEFAULT_TIMERS };
/** The run's timers: the defaults themselves when the scenario overrides none (no component writes them). */
function timersFor(overrides: Partial<TimerConfig>): TimerConfig {
  return hasKeys(overrides) ? { ...TIMER_DEFAULTS, ...overrides } : TIMER_DEFAULTS;
}
function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}
function profileFor(version: string | undefined, a: FixOverrides, b: FixOverrides | undefined): Profile {
  // (base-3 digits in blocks of 30 fixes: 3^30 * 2 stays an exact double; a
  // second block, rarely non-zero, makes the key a string)
  let code = 0;
  let high = 0;
  // (no overrides, every seed replay: nothing to read. An empty object's
  // for-in is a few ns; the id reads below are ~30 megamorphic keyed misses)
  if (hasKeys(a) || (b !== undefined && hasKeys(b)))
    for (let i = 0, digit = 1; i < FIXES.length; i++, digit = i % 30 === 0 ? 1 : digit * 3) {
      const id = FIXES[i]!.id;
      const v = b !== undefined && id in b ? b[id] : a[id];
      if (v === undefined) continue;
      if (i < 30) code += v ? digit : 2 * digit;
      else high += v ? digit : 2 * digit;
    }
  const key: number | string = high === 0 ? code : `${code}:${high}`;
  let byCode = profiles.get(version ?? "");
  if (byCode === undefined) {
    if (profiles.size > 64) profiles.clear();
    profiles.set(version ?? "", (byCode = new Map()));
  }
  let p = byCode.get(key);
  if (p === undefined) {
    if (byCode.size > 256) byCode.clear();
    // not frozen: V8 copies frozen objects ({...o}) on a slow path
    byCode.set(key, (p = resolveProfile(version, key === 0 ? {} : { ...a, ...(b ?? {}) })));
  }
  return p;
}

/**
 * Run a scenario. A `between: [A, B]` timeline item is first resolved to
 * "after the count-th A, plus a delay": a probe run (the same scenario with
 * the items before it, without it and the later between-items) gives the
 * time tA of that A and tB of the first B after it (or the end of the run if
 * B never comes), and the delay is drawn uniformly from [0, tB - tA) ms with
 * a PRNG seeded by the run's seed and the item's index. The replay is
 * deterministic, so the real run is identical to the probe up to that
 * instant. Items are resolved in timeline order, one probe each; an item
 * whose A never happens never fires.
 */
export function runK8sScenario(sc: K8sScenario, opts: K8sRunOptions = {}): K8sRunResult {
  const o = ownOptions(opts);
  return runResolved(resolveBetween(sc, o), o);
}

/**
 * The caller's options copied into an object of our own before any of them
 * is read. An options object made by spread with a field added
 * (`{ ...opts, version }`, as a benchmark or sweep loop writes it) gets a
 * new hidden class in every call in V8 (the clone's map has no transition
 * tree to share), so each of the run's option reads missed its inline cache
 * and filled the global stub cache with one-off maps: measured 10-15 %
 * slower replays than with a literal `{ logs: false, version }`.
 * Object.assign copies by the source's descriptors without an inline cache,
 * into `{}`, whose map comes from the shared transition tree (the same for
 * the same keys in the same order); ~10 ns for a literal's options.
 */
function ownOptions<T extends object>(opts: T): T {
  return Object.assign({}, opts);
}

/**
 * The scenario's `log:` / `noLog:` checks alone (its expectations' and its
 * symptoms', in scenario order; the other checks are left out), decided as
 * runK8sScenario with logs decides them, in a run that keeps no line, stops
 * building lines once every check's text is found (a found text decides its
 * check for good: seed 002 on 1.22 finds both of its symptoms' texts by
 * +3m28.420s of its 25 minutes) and builds no result beyond them. What
 * bindings/mc asks after a run without logs.
 *
 * The run is not cut short there: a replay stopped mid-run (`sim.stopped`)
 * measured 2-4x slower a call than one run to its end, with 13-14
 * mark-compacts in 12,000 calls against 1. The cause is V8's allocation-site
 * pretenuring: a stopped run's allocations are mostly the cluster it builds
 * first, which lives to the end, so V8 learns to allocate those sites in the
 * old generation, which then fills with dead runs. Under node
 * --no-allocation-site-pretenuring the stopped loop took 118 us a call
 * against 165 us for runs to the end (and 276-467 us stopped with
 * pretenuring on); a library cannot set that flag for its host, so the run
 * goes on to the end without logs (k8s README, "Measured").
 */
export function decideK8sLogChecks(sc: K8sScenario, opts: Omit<K8sRunOptions, "logs"> = {}): K8sLogChecks {
  // (the copy is the run's own options object, as ownOptions makes it)
  return runResolved(resolveBetween(sc, opts), Object.assign({}, opts, CHECKS_ONLY), true);
}

const CHECKS_ONLY: K8sRunOptions = { logs: "checks" };
const STEPS_ON: K8sRunOptions = { steps: true };

/** `between:` items resolved to `after:` (see runK8sScenario) */
function resolveBetween(sc: K8sScenario, opts: K8sRunOptions): K8sScenario {
  if (!hasBetween(sc.timeline)) return sc;
  const seed = opts.seed ?? sc.seed;
  let timeline = sc.timeline;
  for (let i = 0; i < timeline.length; i++) {
    const it = timeline[i]!;
    if (!it.between) continue;
    const { from, to, count } = it.between;
    const probe = runResolved({ ...sc, timeline: timeline.filter((x, j) => j < i || !x.between) }, Object.assign({}, opts, STEPS_ON));
    let seen = 0;
    let ia = -1;
    for (let k = 0; k < probe.steps.length && ia < 0; k++) if (probe.steps[k]!.name === from && ++seen === count) ia = k;
    let resolved: TimelineItem | null = null;
    if (ia >= 0) {
      const tA = probe.steps[ia]!.t;
      let tB = sc.durationMs;
      for (let k = ia + 1; k < probe.steps.length; k++)
        if (probe.steps[k]!.name === to) {
          tB = probe.steps[k]!.t;
          break;
        }
      const rng = new Rng(((seed >>> 0) ^ Math.imul(i + 1, 0x9e3779b1) ^ 0x62657477) >>> 0);
      resolved = { line: it.line, action: it.action, after: { step: from, count, delayMs: tB > tA ? rng.int(tB - tA) : 0 } };
    }
    timeline = [...timeline.slice(0, i), ...(resolved ? [resolved] : []), ...timeline.slice(i + 1)];
    if (!resolved) i--;
  }
  return { ...sc, timeline };
}

/**
 * One run. `logChecksOnly` (decideK8sLogChecks): give only the log checks
 * (expectations and symptoms); the rest of the result is left empty.
 */
function runResolved(sc: K8sScenario, opts: K8sRunOptions): K8sRunResult;
function runResolved(sc: K8sScenario, opts: K8sRunOptions, logChecksOnly: true): K8sLogChecks;
function runResolved(sc: K8sScenario, opts: K8sRunOptions, logChecksOnly = false): K8sRunResult | K8sLogChecks {
  const run = new ClusterRun(sc, opts, logChecksOnly);
  run.play();
  if (logChecksOnly) return logChecksResult(sc, run.needles!);
  return run.result();
}

/**
 * One run: the cluster, the bookkeeping for the invariants, the timeline's
 * actions and the end-of-run checks. It is also the components' context
 * (Ctx) and monitor: one object per run whose parts are prototype methods,
 * not a closure per part made in every run (each closure's first call goes
 * through V8's lazy-compile stub, and its context is one more allocation).
 */
class ClusterRun implements Ctx, Monitor {
  // ---- Ctx (what every component shares) ----
  readonly sim: Sim;
  readonly api: ApiServer;
  readonly backend: Backend;
  readonly hosts = new Map<string, Host>();
  readonly profile: Profile;
  readonly timers: TimerConfig;
  readonly out: Recorder;
  readonly steps: Steps;
  readonly monitor: Monitor;
  readonly propagationDelayMs: number;
  readonly kubeletRoot: string;
  /** the run resizes a claim (expand/): only then do the expansion controllers run */
  readonly expansion: boolean;
  readonly migration: Ctx["migration"];

  readonly needles: LogNeedle[] | null;
  /** what the run reads of its scenario's shape (factsOf) */
  private readonly facts: ScenarioFacts;
  readonly violations: Violation[] = [];
  private readonly byComponentSet: boolean;

  // ---- bookkeeping for the invariants ----
  /** backend id -> node -> last time a pod using it on that node went away */
  private readonly lastPodGone = new Map<string, Map<string, number>>();
  private readonly podGoneAt = new Map<string, number>();
  private readonly nodeStatusChangedAt = new Map<string, number>();
  private nodePatches = 0;

  // ---- the cluster's processes ----
  private adc: AttachDetachController | null = null;
  private adcStarts = 0;
  /** the controller-manager's other controllers that decide incidents (podgc/, nodelifecycle/) */
  private podgc: PodGCController | null = null;
  /** kube-controller-manager's expand controller (runs that resize a claim only) */
  private expander: ExpandController | null = null;
  private nlcImpl: NodeLifecycleController | undefined = undefined;
  /** the node lifecycle controller (made by the first kubelet stop: most runs have none) */
  private get nlc(): NodeLifecycleController {
    return (this.nlcImpl ??= new NodeLifecycleController(this, (node, status, reason) => this.setReady(node, status, reason)));
  }
  private readonly kubelets = new Map<string, Kubelet>();
  /** (made by the first mount holder: most runs have none) */
  private holders: Map<string, string> | undefined = undefined;
  /** the end of the run (play) */
  private end = 0;

  constructor(
    readonly sc: K8sScenario,
    opts: K8sRunOptions,
    /** decideK8sLogChecks: give only the log checks (see runResolved) */
    private readonly logChecksOnly: boolean,
  ) {
    this.profile = profileFor(opts.version ?? sc.version, sc.fixes, opts.fixes);
    this.timers = timersFor(sc.settings.timers);
    const sim = (this.sim = new Sim({ seed: opts.seed ?? sc.seed, tickEveryPeriod: opts.tickEveryPeriod }));
    if (sc.settings.interleave === true) sim.interleave = true;
    this.needles = opts.logs === "checks" ? logNeedles(sc) : null;
    // (a run that gives its log checks alone keeps no events: nothing reads them)
    this.out = new Recorder(this.needles ?? opts.logs !== false, sc.clock, () => sim.now, !logChecksOnly);
    const api = (this.api = new ApiServer(sim));
    const backend = (this.backend = new Backend(sim));
    Object.assign(backend.latency, sc.settings.latencies);
    if (sc.settings.pluginLatencies !== undefined) backend.pluginLatency = new Map(Object.entries(sc.settings.pluginLatencies));
    for (const f of sc.storageFaults) backend.faults.push({ ...f });
    // a `step:` check counts the steps, so a scenario with one records them whatever `steps` says
    // (a run that gives its log checks alone gives no steps and decides no step check: none recorded)
    const facts = factsOf(sc);
    this.facts = facts;
    this.steps = new Steps(sim, !logChecksOnly && ((opts.steps ?? false) || facts.stepCheck));
    this.kubeletRoot = sc.settings.kubeletRoot;
    this.byComponentSet = hasKeys(sc.settings.watchLatencyByComponent);
    this.monitor = this;
    this.propagationDelayMs = sc.settings.propagationDelayMs;
    this.expansion = facts.resizes;
    this.migration = {
      gates: sc.settings.featureGates ?? NO_GATES,
      kubeletGates: sc.settings.kubeletFeatureGates,
      drivers: sc.settings.csiMigrationDrivers ?? true,
      volumes: false,
    };
    // (a run where no process migrates and no in-tree plugin is unregistered is as it was before migration was modelled: no CSINode objects)
    const kg = sc.settings.kubeletFeatureGates;
    this.migration.volumes =
      facts.migratable &&
      (MIGRATIONS.some((m) => isMigrationEnabledForPlugin(this.profile, m.plugin) || isMigrationEnabledForPlugin(this.profile, m.plugin, kg)) || Object.values(this.migration.gates).some((x) => x));
    // (the invariants' bookkeeping, here and in podStarting, only reads the
    // run; a run that gives its log checks alone checks no invariant and has
    // none). The hooks are bound to a const before they are stored (README,
    // "The garbage collector trap"): an API or backend calls its hook on
    // itself, so these two are closures.
    if (!logChecksOnly) {
      const onApiWrite: ApiServer["onWrite"] = (type, obj, old) => this.onApiWrite(type, obj, old);
      const onBackendAttach: Backend["onAttach"] = (v, node) => this.onBackendAttach(v, node);
      api.onWrite = onApiWrite;
      backend.onAttach = onBackendAttach;
    }
  }

  // ---- Ctx ----

  /** extra watch delay for a component at `now` (scenario watch-delay faults) */
  watchExtra(component: string): (now: number) => number {
    const sc = this.sc;
    if (sc.watchFaults.length === 0) return NO_EXTRA_DELAY;
    const fs = sc.watchFaults.filter((f) => component === f.component || component.startsWith(`${f.component}/`) || f.component === "*");
    if (fs.length === 0) return NO_EXTRA_DELAY;
    return (now) => {
      let x = 0;
      for (const f of fs) if (now >= f.fromMs && now < f.untilMs) x += f.extraMs;
      return x;
    };
  }

  /** watch latency of a component's informers */
  watchLatency(component: string): number {
    const settings = this.sc.settings;
    const byComponent = settings.watchLatencyByComponent;
    // (usually empty: a lookup of a missing key is slow in V8)
    if (!this.byComponentSet) return settings.watchLatencyMs ?? this.timers.WATCH_LATENCY_MS;
    const own = byComponent[component];
    if (own !== undefined) return own;
    const slash = component.indexOf("/");
    return byComponent[slash < 0 ? component : component.slice(0, slash)] ?? settings.watchLatencyMs ?? this.timers.WATCH_LATENCY_MS;
  }

  // ---- bookkeeping for the invariants (Monitor and the hooks) ----

  /** Monitor: a pod's containers are about to start on node */
  podStarting(podKey: string, uid: string, node: string): void {
    if (!this.logChecksOnly) this.checkPodStart(podKey, uid, node);
  }

  /** a pod of `pods` on `node`, not being deleted, uses backend volume `id` */
  private usedOn(pods: readonly KObj[], node: string, id: string): boolean {
    for (let i = 0; i < pods.length; i++) {
      const p = pods[i]!;
      if (p.spec.nodeName === node && p.metadata.deletionTimestamp === undefined && this.podUses(p, id)) return true;
    }
    return false;
  }

  /**
   * (k8s-releases) released-after-pods follows the release's own rules: a
   * release with #110721 (1.25+) never force-detaches a volume its kubelet
   * still reports in use from a Ready node, and --disable-force-detach-on-timeout
   * never does it on the timer at all; the volume staying attached there is
   * upstream's correct behaviour (the kubelet's unmount is what is stuck, which
   * no-orphaned-mounts and the kubelet's own errors show), not a leak.
   */
  private keptByReleaseRules(node: string, id: string): boolean {
    const fix = this.profile.fix;
    if (!this.profile.has.pr110721 && !fix["disable-force-detach-on-timeout"]) return false;
    const n = this.api.tryGet("Node", node);
    if (!n) return false;
    const inUse = (n.status?.volumesInUse ?? []) as string[];
    if (!inUse.some((u) => u.endsWith(`^${id}`) || u.endsWith(`/${id}`))) return false;
    if (fix["disable-force-detach-on-timeout"]) return true;
    const conds = (n.status?.conditions ?? []) as Array<{ type: string; status: string }>;
    return conds.some((c) => c.type === "Ready" && c.status === "True");
  }

  // ---- pod waits (k8s-releases) ----
  /** by UID: each pod's creation, first Running and deletion, as the API saw them */
  private readonly podWaitsByUID = new Map<string, { pod: string; node: string; createdAt: number; runningAt: number | null; deletedAt: number | null }>();
  private trackPodWait(type: WatchType, obj: KObj, old: KObj | undefined): void {
    const uid = obj.metadata.uid;
    let w = this.podWaitsByUID.get(uid);
    if (w === undefined) {
      if (type === "DELETED") return;
      w = { pod: keyOf(obj), node: obj.spec?.nodeName ?? "", createdAt: obj.metadata.creationTimestamp ?? this.sim.now, runningAt: null, deletedAt: null };
      this.podWaitsByUID.set(uid, w);
    }
    if (w.runningAt === null && obj.status?.phase === "Running" && old?.status?.phase !== "Running") w.runningAt = this.sim.now;
    if (w.deletedAt === null && (type === "DELETED" || obj.metadata.deletionTimestamp !== undefined)) w.deletedAt = this.sim.now;
  }
  private podWaits(end: number): PodWait[] {
    const out: PodWait[] = [];
    for (const [uid, w] of this.podWaitsByUID) {
      const synced = this.out.podSyncedAt.get(uid);
      const syncedAt = synced === undefined ? null : synced;
      const state = w.runningAt !== null ? "running" : w.deletedAt !== null ? "deleted" : "waiting";
      const stop = w.runningAt ?? w.deletedAt ?? end;
      out.push({ pod: w.pod, uid, node: w.node, createdAt: w.createdAt, syncedAt, runningAt: w.runningAt, state, waitedMs: stop - w.createdAt, containerCreatingMs: syncedAt === null ? null : Math.max(0, stop - syncedAt) });
    }
    return out;
  }
  // ---- end pod waits ----

  /** a volume of `pod` is backend volume `id` */
  private podUses(pod: KObj, id: string): boolean {
    for (const v of (pod.spec?.volumes ?? []) as PodVolume[]) if (backendId(v, pod.metadata.namespace ?? "default", this.api, this) === id) return true;
    return false;
  }

  private onApiWrite(type: WatchType, obj: KObj, old: KObj | undefined): void {
    const now = this.sim.now;
    if (obj.kind === "Node") {
      this.nodePatches++;
      // a kubelet's unchanged report (only its heartbeat time is new) is not a change of status
      if (!heartbeatOnly(obj, old)) this.nodeStatusChangedAt.set(obj.metadata.name, now);
    }
    if (obj.kind === "Pod") this.trackPodWait(type, obj, old);
    if (obj.kind === "Pod" && (type === "DELETED" || obj.metadata.deletionTimestamp !== undefined)) {
      // (every status write of a terminating pod comes here: no arrays, no keys built)
      const vols = (obj.spec?.volumes ?? []) as PodVolume[];
      for (let i = 0; i < vols.length; i++) {
        const id = backendId(vols[i]!, obj.metadata.namespace ?? "default", this.api, this);
        if (id === null) continue;
        let byNode = this.lastPodGone.get(id);
        if (byNode === undefined) this.lastPodGone.set(id, (byNode = new Map()));
        byNode.set(obj.spec.nodeName, now);
      }
      if (type === "DELETED") this.podGoneAt.set(obj.metadata.uid, now);
    }
  }

  private onBackendAttach(v: BackendVolume, node: string): void {
    if (v.exclusive && v.attachedTo.size > 1)
      this.violations.push(violation("rwo-single-node", this.sim.now, `volume ${v.id} is attached to ${[...v.attachedTo].join(" and ")} at once although it is ReadWriteOnce (attached to ${node} last).`));
  }

  private checkPodStart(podKey: string, uid: string, node: string): void {
    const { api, backend } = this;
    const pod = api.tryGet("Pod", podKey);
    if (!pod) return;
    const kl = this.kubelets.get(node);
    const missing: string[] = [];
    for (const v of (pod.spec.volumes ?? []) as PodVolume[]) {
      const b = backendId(v, pod.metadata.namespace ?? "default", api, this);
      if (b !== null && !backend.volume(b).attachedTo.has(node) && !b.startsWith("csi-") && attachExpected(v, pod.metadata.namespace ?? "default", api)) missing.push(`${v.name} (not attached to ${node} at the storage backend)`);
    }
    // (a pod without volumes has none to mount: the volume manager keeps no entry for it)
    if (kl && (pod.spec.volumes?.length ?? 0) > 0) {
      const m = kl.vm.podVolumesMounted(uid);
      for (const x of m.unmounted) missing.push(`${x} (not mounted)`);
    }
    if (missing.length > 0)
      this.violations.push(violation("pod-volumes-ready", this.sim.now, `pod ${podKey} is starting its containers on ${node} while volumes ${missing.join(", ")}.`));
  }

  // ---- the run ----

  /** build the cluster, schedule the timeline and run to the end */
  play(): void {
    const { sc, sim, api, backend, out, hosts, kubeletRoot } = this;
    // ---- cluster ----
    for (let i = 0; i < sc.objects.length; i++) {
      const o = sc.objects[i]!;
      if (o.kind === "Node") hosts.set(o.metadata.name, new Host(o.metadata.name, kubeletRoot, sim));
    }
    for (const o of createOrder(sc.objects)) {
      const c = o;
      api.create(c, c.kind === "Pod" && !c.metadata.uid ? api.newUid("Pod") : undefined);
      if (c.kind === "PersistentVolume") {
        const modes = (c.spec.accessModes ?? []) as string[];
        // (a PV's spec holds the same source fields as a pod volume; backendId reads no other)
        const b = c.spec != null ? (c.spec.gcePersistentDisk && this.migration?.volumes && isMigrationEnabledForPlugin(this.profile, GCE_PD_PLUGIN) ? pvVolumeHandle(c)! : backendId(c.spec as PodVolume, "", api)) : null;
        if (b !== null) backend.volume(b, !(modes.includes("ReadWriteMany") || modes.includes("ReadOnlyMany")));
      }
    }
    // The scenario's objects are there when the run starts, not requests of the
    // run: its API faults apply from here on (a create fault from 0 s hit them
    // and was thrown out of the replay, `iosim: internal error`)
    // the CSINode each running kubelet has written (volume/csimigration.ts): the
    // cluster runs before the replay starts, so its nodes' drivers are registered
    if (this.migration?.volumes) {
      const ann = migratedPluginsAnnotation(this.profile, this.migration.kubeletGates);
      for (const n of hosts.keys()) {
        if (sc.settings.noKubelet.includes(n) || api.tryGet("CSINode", n) !== undefined) continue;
        const drivers = this.migration.drivers ? MIGRATIONS.map((m) => ({ name: m.driver, nodeID: n })) : [];
        api.create({ apiVersion: "storage.k8s.io/v1", kind: "CSINode", metadata: { name: n, uid: "", resourceVersion: "", annotations: { [MIGRATED_PLUGINS_ANNOTATION]: ann } }, spec: { drivers } });
      }
    }
    for (const f of sc.apiFaults) api.faults.push({ ...f });
    if (this.expansion) this.claimCapacities();
    this.startADC();
    const attacher = new ExternalAttacher(this);
    attacher.start();
    if (this.expansion) new ExternalResizer(this).start();
    for (const n of hosts.keys()) if (!sc.settings.noKubelet.includes(n)) this.startKubelet(n);
    // the scheduler runs only where some pod does not name its node (scheduler/)
    if (this.facts.scheduler) new Scheduler(this).start();
    for (let i = 0; i < sc.objects.length; i++) {
      const o = sc.objects[i]!;
      if (o.kind !== "Pod" || !o.spec.nodeName) continue;
      const key = plainKeyOf(o);
      out.event("Normal", "Scheduled", `pod/${o.metadata.name}`, `Successfully assigned ${key} to ${o.spec.nodeName}`, "default-scheduler", o.metadata.namespace, api.tryGet("Pod", key)?.metadata.uid);
    }

    // ---- timeline ----
    for (let i = 0; i < sc.timeline.length; i++) {
      const it = sc.timeline[i]!;
      if (it.atMs !== undefined) sim.call(it.atMs, actNow, new TimelineAct(this, it.action));
      else if (it.after) {
        const { step, count, delayMs } = it.after;
        this.steps.on(step, stepTriggered, new StepTrigger(this, it.action, count, delayMs));
      }
    }

    const endMs = sim.run(sc.durationMs);
    this.end = Math.max(endMs, sc.durationMs);
    sim.now = this.end;
  }

  /**
   * A bound claim's status.capacity, as the PV controller sets it when it
   * binds (the replay has none): its PV's spec.capacity. Written only in runs
   * that resize (expand/), whose controllers compare it with the request.
   */
  private claimCapacities(): void {
    const { api } = this;
    for (const o of api.list("PersistentVolumeClaim")) {
      const pv = o.spec?.volumeName ? api.tryGet("PersistentVolume", String(o.spec.volumeName)) : undefined;
      if (!pv?.spec?.capacity?.storage || o.status?.capacity?.storage) continue;
      api.patch("PersistentVolumeClaim", keyOf(o), (d) => {
        d.status = Object.assign({}, d.status, { phase: "Bound", accessModes: pv.spec.accessModes ?? d.spec?.accessModes, capacity: { storage: pv.spec.capacity.storage } });
        return true;
      });
    }
  }

  private startADC(): void {
    this.adcStarts++;
    this.adc = new AttachDetachController(this, PLUGINS);
    this.adc.start();
    this.podgc = new PodGCController(this, this.adc);
    this.podgc.start();
    if (this.expansion) {
      this.expander = new ExpandController(this);
      this.expander.start();
    }
  }
  /** kube-controller-manager exits: its controllers' state goes with it */
  private stopControllerManager(): void {
    this.adc?.stop();
    this.adc = null;
    this.podgc?.stop();
    this.podgc = null;
    this.expander?.stop();
    this.expander = null;
  }
  /** Sim.call's function for a controller-manager restart (made once) */
  private static startADCIfDown(run: ClusterRun): void {
    if (!run.adc) run.startADC();
  }

  private startKubelet(node: string): void {
    if (this.kubelets.has(node) || !this.hosts.has(node) || this.nodesOff?.has(node)) return;
    const k = new Kubelet(this, node, PLUGINS);
    this.kubelets.set(node, k);
    this.nlcImpl?.kubeletStarted(node);
    k.start();
  }

  private crashKubelet(node: string, line = `systemd[1]: kubelet.service: Main process exited, code=killed, status=9/KILL`): void {
    const k = this.kubelets.get(node);
    if (!k) return;
    k.stop();
    this.kubelets.delete(node);
    this.out.on && this.out.raw(`kubelet/${node}`, "E", line);
    // the node lifecycle controller's grace period starts (nodelifecycle/)
    this.nlc.kubeletStopped(node);
  }
  /** Sim.call's function for a kubelet restart (made once) */
  private static startKubeletOf(t: NodeTimer): void {
    t.run.startKubelet(t.node);
  }

  private setReady(node: string, status: "True" | "False" | "Unknown", reason: string): void {
    try {
      this.api.patch("Node", node, (d) => {
        const conds = (d.status?.conditions ?? []) as Array<{ type: string; status: string }>;
        if (conds.find((c) => c.type === "Ready")?.status === status) return false;
        d.status = Object.assign({}, d.status, { conditions: [...conds.filter((c) => c.type !== "Ready"), { type: "Ready", status, reason }] });
        return true;
      });
      this.out.event(status === "True" ? "Normal" : "Normal", status === "True" ? "NodeReady" : "NodeNotReady", `node/${node}`, `Node ${node} status is now: ${status === "True" ? "NodeReady" : "NodeNotReady"}`, "node-controller");
    } catch {
      /* node gone */
    }
  }

  /**
   * A timeline action the API server refused (a scenario's API fault, or a
   * node that is gone): as kubectl, the action did not happen and the run goes
   * on; the refusal is a causal note. It was thrown out of the replay
   * (`iosim: internal error`, exit 3).
   */
  private refused(what: string, e: unknown): void {
    if (!(e instanceof ApiError)) throw e;
    this.out.note("timeline", `${what} failed: ${e.message}`);
  }

  act(a: TimelineItem["action"]): void {
    const { sim, api, out, hosts } = this;
    // An action through the API server (create, delete, node conditions,
    // taints) wakes exactly the loops that read what it writes, as any API
    // write does (engine/sim.ts section 3). The others change what no wake
    // group covers (a kubelet or the controller-manager going or coming, a
    // process's mount namespace) and wake every loop.
    if (!API_ACTIONS.has(a.kind)) sim.bump();
    switch (a.kind) {
      case "createPod":
      case "create": {
        const c = a.manifest;
        const uid = c.kind === "Pod" ? api.newUid("Pod") : undefined;
        try {
          api.create(c, uid);
          if (c.kind === "Pod" && c.spec.nodeName) out.event("Normal", "Scheduled", `pod/${c.metadata.name}`, `Successfully assigned ${plainKeyOf(c)} to ${c.spec.nodeName}`, "default-scheduler", c.metadata.namespace, uid);
        } catch (e) {
          out.note("timeline", `create ${plainKeyOf(c)} failed: ${(e as Error).message}`);
        }
        break;
      }
      case "deletePod":
        try {
          api.delete("Pod", a.pod, a.graceSeconds);
        } catch (e) {
          if (!isNotFound(e)) this.refused(`delete pod ${a.pod}`, e);
        }
        break;
      case "delete":
        try {
          api.delete(a.objectKind, a.name);
        } catch (e) {
          if (!isNotFound(e)) this.refused(`delete ${a.objectKind} ${a.name}`, e);
        }
        break;
      case "resize":
        // kubectl patch pvc: spec.resources.requests.storage (the loader checked admission's rules)
        try {
          api.patch("PersistentVolumeClaim", a.claim, (d) => {
            d.spec = Object.assign({}, d.spec, { resources: Object.assign({}, d.spec?.resources, { requests: Object.assign({}, d.spec?.resources?.requests, { storage: a.size }) }) });
            return true;
          });
        } catch (e) {
          this.refused(`resize persistentvolumeclaim ${a.claim} to ${a.size}`, e);
        }
        break;
      case "crashKubelet":
        this.crashKubelet(a.node);
        break;
      case "startKubelet":
        this.startKubelet(a.node);
        break;
      case "restartKubelet":
        this.crashKubelet(a.node);
        // (the CSI node plugins' pods restarted too: they register again this long after the kubelet starts)
        if (a.csiNodeRegistrationMs !== undefined) {
          const h = this.hosts.get(a.node);
          if (h) h.csiRegisteredAt = sim.now + a.downMs + a.csiNodeRegistrationMs;
        }
        sim.call(sim.now + a.downMs, ClusterRun.startKubeletOf, new NodeTimer(this, a.node, 0));
        break;
      case "crashControllerManager":
        this.stopControllerManager();
        break;
      case "startControllerManager":
        if (!this.adc) this.startADC();
        break;
      case "restartControllerManager":
        this.stopControllerManager();
        sim.call(sim.now + a.downMs, ClusterRun.startADCIfDown, this);
        break;
      case "nodeNotReady":
        this.setReady(a.node, "False", "KubeletNotReady");
        break;
      case "nodeReady":
        this.setReady(a.node, "True", "KubeletReady");
        break;
      case "taintNode":
        try {
          api.patch("Node", a.node, (d) => {
            const t = ((d.spec?.taints ?? []) as Taint[]).filter((x) => x.key !== a.key);
            d.spec = Object.assign({}, d.spec, { taints: [...t, { key: a.key, value: a.value, effect: a.effect }] });
            return true;
          });
        } catch (e) {
          this.refused(`taint node ${a.node}`, e);
        }
        break;
      case "untaintNode":
        try {
          api.patch("Node", a.node, (d) => {
            const t = (d.spec?.taints ?? []) as Taint[];
            if (!t.some((x) => x.key === a.key)) return false;
            d.spec = Object.assign({}, d.spec, { taints: t.filter((x) => x.key !== a.key) });
            return true;
          });
        } catch (e) {
          this.refused(`untaint node ${a.node}`, e);
        }
        break;
      case "holdMount": {
        const h = hosts.get(a.node);
        if (!h) break;
        const id = `proc/${a.process}`;
        h.startNamespace(id, a.process, [], a.path, a.propagation, this.sc.settings.propagationDelayMs);
        (this.holders ??= new Map()).set(`${a.node}/${a.process}`, id);
        break;
      }
      case "releaseMount": {
        const id = this.holders?.get(`${a.node}/${a.process}`);
        if (id) hosts.get(a.node)?.stopNamespace(id);
        break;
      }
      case "rebootNode":
        if (this.powerOff(a.node, "reboot")) sim.call(sim.now + a.downMs, ClusterRun.bootNode, new NodeTimer(this, a.node, 0));
        break;
      case "shutdownNode":
        this.powerOff(a.node, "poweroff");
        break;
      case "startNode":
        if (this.nodesOff?.has(a.node)) this.boot(a.node);
        break;
      case "stopApiServer":
        this.apiDown();
        break;
      case "startApiServer":
        this.apiUp();
        break;
      case "restartApiServer":
        this.apiDown();
        sim.call(sim.now + a.downMs, ClusterRun.apiUpDue, this);
        break;
    }
  }

  // ---- nodes as hosts, and the API server as a process ----

  /** nodes powered off (made by the first shutdown or reboot) */
  private nodesOff: Set<string> | undefined = undefined;

  /**
   * A node goes down (reboot or power-off): the kubelet dies with the host,
   * every container and mount goes (Host.powerOff), and a kube-apiserver
   * static pod there stops. The node lifecycle controller's grace period
   * starts as for any kubelet that stops posting status.
   */
  private powerOff(node: string, how: "reboot" | "poweroff"): boolean {
    const h = this.hosts.get(node);
    if (!h || this.nodesOff?.has(node)) return false;
    (this.nodesOff ??= new Set()).add(node);
    this.crashKubelet(node, how === "reboot" ? `systemd-logind[812]: System is rebooting.` : `systemd-logind[812]: System is powering down.`);
    h.powerOff();
    this.out.note(`node:${node}`, `${node} ${how === "reboot" ? "rebooted" : "was powered off"}: its containers, mounts and device maps are gone; its pod directories stay on disk`);
    if (this.sc.settings.apiServer?.node === node) this.apiDown();
    return true;
  }
  /** Sim.call's function for the end of a reboot */
  private static bootNode(t: NodeTimer): void {
    t.run.boot(t.node);
  }
  /** the node is up again: its kubelet starts; CSI node plugins register later (settings.csiNodeRegistration); a static kube-apiserver starts */
  private boot(node: string): void {
    const h = this.hosts.get(node);
    if (!h || !this.nodesOff?.delete(node)) return;
    this.sim.bump();
    h.csiRegisteredAt = this.sim.now + this.sc.settings.csiNodeRegistrationMs;
    this.steps.step("node.Rebooted", node);
    if (!this.sc.settings.noKubelet.includes(node)) this.startKubelet(node);
    const as = this.sc.settings.apiServer;
    if (as?.node === node) this.sim.call(this.sim.now + as.startupMs, ClusterRun.apiUpDue, this);
  }

  /**
   * The API server stops. kube-controller-manager runs with leader election
   * (--leader-elect, the default): it renews its Lease every 2 s and exits
   * ("leaderelection lost") when it could not for --leader-elect-renew-deadline
   * (10 s); its supervisor (kubelet static pod, systemd) starts it again at
   * once, but the new process can only take the lease, and start its
   * controllers, once the API server answers (the old lease, last renewed
   * before the outage, has expired by then: --leader-elect-lease-duration
   * 15 s); it acquires it at its next retry (--leader-elect-retry-period, 2 s).
   * So an outage longer than 10 s restarts every controller of the
   * controller-manager, with what that loses (attach_detach_controller.ts).
   */
  private apiDown(): void {
    if (this.api.down) return;
    this.api.goDown();
    this.apiDownSince = this.sim.now;
    this.out.on && this.out.raw("kube-apiserver", "E", "kube-apiserver stopped");
    this.out.note("apiserver", "the kube-apiserver stopped: every request fails with connection refused until it is back");
    this.steps.step("apiserver.Down", "");
    this.sim.call(this.sim.now + LEADER_ELECT_RENEW_DEADLINE_MS, ClusterRun.leaseRenewDeadline, new NodeTimer(this, "", this.sim.now));
  }
  private apiUp(): void {
    const as = this.sc.settings.apiServer;
    // a static pod runs only while its node is up
    if (!this.api.down || (as !== undefined && this.nodesOff?.has(as.node))) return;
    this.api.comeUp();
    this.apiDownSince = -1;
    this.out.on && this.out.raw("kube-apiserver", "I", "kube-apiserver is serving again");
    this.steps.step("apiserver.Up", "");
    if (this.kcmLostLease) {
      this.kcmLostLease = false;
      this.sim.call(this.sim.now + LEADER_ELECT_RETRY_PERIOD_MS, ClusterRun.startADCIfDown, this);
    }
  }
  /** when the API server went down (-1: up) */
  private apiDownSince = -1;
  /** kube-controller-manager exited for its lease and waits for the API server to take it again */
  private kcmLostLease = false;
  /** the renew deadline after an API server stop at `token` */
  private static leaseRenewDeadline(t: NodeTimer): void {
    const run = t.run;
    if (run.apiDownSince !== t.token || !run.adc) return;
    run.out.on && run.out.log("kube-controller-manager", "E", "leaderelection.go:330", `error retrieving resource lock kube-system/kube-controller-manager: Get "https://10.96.0.1:443/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager?timeout=5s": dial tcp 10.96.0.1:443: connect: connection refused`);
    run.out.on && run.out.log("kube-controller-manager", "E", "controllermanager.go:294", "leaderelection lost");
    run.out.note("kube-controller-manager", "kube-controller-manager lost its leader election lease (no renewal for 10 s while the API server was down) and exited; its controllers start again when it takes the lease back");
    run.stopControllerManager();
    run.kcmLostLease = true;
  }
  /** Sim.call's function for an API server restart or a static pod's start */
  private static apiUpDue(run: ClusterRun): void {
    run.apiUp();
  }

  // ---- end-of-run invariants, expectations and the result ----

  /** the causal notes about any of `subjects`, the last four distinct ones, as sentences */
  private notesFor(...subjects: string[]): string {
    const ns = this.out.notes.filter((n) => subjects.some((s) => n.subject.includes(s) || n.text.includes(s)));
    const seen = new Set<string>();
    const uniq = ns.filter((n) => (seen.has(n.text) ? false : (seen.add(n.text), true)));
    return uniq
      .slice(-4)
      .map((n) => ` At +${relTime(n.t)}: ${n.text}.`)
      .join("");
  }

  /**
   * released-after-pods: a volume still attached that the running
   * attach/detach controller does not track at all will never be detached;
   * say why (attach_detach_controller.ts).
   */
  private forgottenByADC(id: string, node: string, hasVA: boolean): string {
    const adc = this.adc;
    if (id.startsWith("rbd:") || !adc || this.adcStarts < 2 || adc.populatedAtMs < 0 || adc.tracksVolume(id, node)) return "";
    const lostDetach = this.out.notes.some((n) => n.text.startsWith("kube-controller-manager stopped while its DetachVolume of ") && (n.text.includes(`/${id} from ${node}`) || n.text.includes(`^${id} from ${node}`)));
    const vaText = !hasVA
      ? "no VolumeAttachment records it (an in-tree plugin has none)"
      : this.profile.processVolumeAttachmentsAtStart
        ? "its VolumeAttachment did not bring it back"
        : "this version does not read VolumeAttachments at start-up (processVolumeAttachments, PR #96617, came in 1.21)";
    return (
      ` The attach/detach controller running now does not know the volume: it rebuilt its actual state of world at +${relTime(adc.populatedAtMs)} from node.status.volumesAttached, which does not list it, ${vaText}, and no pod wants it, so nothing will ever detach it.` +
      (lostDetach
        ? ` Real Kubernetes does the same: the reconciler takes a volume off node.status.volumesAttached before it calls DetachVolume, and a controller-manager restart in between loses the detach (kubernetes/kubernetes#81097, #92145; #104526 does not change this).`
        : "")
    );
  }

  /** the end-of-run invariants, the expectations and symptoms, and the result */
  result(): K8sRunResult {
    const { sc, api, backend, out, hosts, timers, profile, violations, steps, end, kubeletRoot } = this;
    const pods = api.list("Pod");
    const releaseBound = timers.ADC_MAX_WAIT_FOR_UNMOUNT_MS + timers.MAX_DURATION_BEFORE_RETRY_MS + 60_000;
    for (const node of hosts.keys()) {
      // (read only for a volume attached where a pod wants it)
      let reported: ReadonlyArray<{ name: string }> | undefined;
      // attached-reported: volumes pods on this node want, attached at the backend, missing from node status
      for (const pod of pods) {
        if (pod.spec.nodeName !== node || pod.metadata.deletionTimestamp !== undefined) continue;
        for (const v of (pod.spec.volumes ?? []) as PodVolume[]) {
          const b = backendId(v, pod.metadata.namespace ?? "default", api, this);
          if (b === null || !backend.volume(b).attachedTo.has(node)) continue;
          const unique = uniqueNameOf(v, pod, api, this);
          if (!unique) continue;
          reported ??= (api.tryGet("Node", node)?.status?.volumesAttached ?? []) as Array<{ name: string }>;
          if (listsVolume(reported, unique)) continue;
          const statusAt = this.nodeStatusChangedAt.get(node) ?? 0;
          const createdAt = pod.metadata.creationTimestamp ?? 0;
          const attachedAt = backend.volume(b).changedAt;
          const since = Math.max(statusAt, createdAt, attachedAt);
          if (end - since > NODE_STATUS_GRACE_MS)
            violations.push(
              lazyViolation("attached-reported", since + NODE_STATUS_GRACE_MS, () => {
                // `since` starts the grace period: the latest of the three, named as what it is
                // (the node's status may have changed since the volume left it, e.g. volumesInUse)
                const from =
                  since === attachedAt && attachedAt >= statusAt && attachedAt >= createdAt
                    ? `the backend's last attach or detach call on it, at +${relTime(since)}`
                    : since === createdAt && createdAt >= statusAt
                      ? `the pod's creation at +${relTime(since)}`
                      : `the node's status last changed, at +${relTime(since)}`;
                return `volume ${unique} is attached to ${node} and pod ${keyOf(pod)} there needs it, but node.status.volumesAttached does not list it, more than 60 s after ${from}, so the kubelet's VerifyControllerAttachedVolume keeps failing with "Volume not attached according to node status".${this.notesFor(unique)}`;
              }),
            );
        }
      }
    }
    // released-after-pods
    for (const v of backend.volumes.values()) {
      for (const node of v.attachedTo) {
        if (this.usedOn(pods, node, v.id)) continue;
        if (this.keptByReleaseRules(node, v.id)) continue;
        const since = Math.max(this.lastPodGone.get(v.id)?.get(node) ?? 0, v.changedAt);
        if (end - since > releaseBound) {
          violations.push(
            lazyViolation("released-after-pods", since + releaseBound, () => {
              const va = [...api.list("VolumeAttachment")].find((x) => x.spec.nodeName === node && pvVolumeHandle(api.tryGet("PersistentVolume", x.spec.source?.persistentVolumeName ?? "")) === v.id);
              const what = v.id.startsWith("rbd:") ? `rbd image ${v.id.slice(4)} is still mapped on ${node}` : `volume ${v.id} is still attached to ${node} at the storage backend${va ? ` (VolumeAttachment ${va.metadata.name} still exists, attached=${va.status?.attached})` : ""}`;
              return `${what}, although no pod on ${node} has used it since +${relTime(since)}; the version's timeouts (6 min max wait for unmount + 2m2s backoff + 1 min) have run out.${va ? this.notesFor(v.id, `va:${va.metadata.name}`) : this.notesFor(v.id)}${this.forgottenByADC(v.id, node, va !== undefined)}`;
            }),
          );
        }
      }
    }
    // no-orphaned-mounts
    const prefix = `${kubeletRoot}/pods/`;
    for (const [node, h] of hosts) {
      // a node that is powered off at the end cleans its disk when it boots (the kubelet's reconstruction): nothing to judge yet
      if (this.nodesOff?.has(node)) continue;
      // every mounted path, then every directory not mounted (one a plugin
      // wrote), under a pod no longer in the API, by pod UID (usually none: no map)
      let byUID: Map<string, string[]> | undefined;
      for (const p of h.mounts.keys()) {
        const uid = orphanUID(p, prefix, pods);
        if (uid !== undefined) byUID = withPath(byUID, uid, p);
      }
      for (const p of h.dirs.keys()) {
        if (h.mounts.has(p)) continue;
        const uid = orphanUID(p, prefix, pods);
        if (uid !== undefined && h.dirs.get(p)?.specName) byUID = withPath(byUID, uid, p);
      }
      if (byUID === undefined) continue;
      for (const [uid, paths] of byUID) {
        const since = this.podGoneAt.get(uid) ?? 0;
        if (end - since <= timers.MAX_DURATION_BEFORE_RETRY_MS + 60_000) continue;
        violations.push(
          lazyViolation("no-orphaned-mounts", since + timers.MAX_DURATION_BEFORE_RETRY_MS + 60_000, () => {
            const mounted = paths.filter((p) => h.mounts.has(p));
            return `pod ${uid} was deleted at +${relTime(since)} but ${mounted.length > 0 ? `${mounted.join(", ")} is still mounted` : `${paths.join(", ")} is still on disk`} on ${node}; nothing will clean it up.${this.notesFor(uid)}`;
          }),
        );
      }
    }
    // liveness
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp !== undefined) continue;
      const since = pod.metadata.creationTimestamp ?? 0;
      if (end - since <= LIVENESS_MS) continue;
      if (pod.status?.phase === "Running") continue;
      violations.push(
        lazyViolation("liveness", since + LIVENESS_MS, () => {
          const podVols = (pod.spec.volumes ?? []) as PodVolume[];
          const ns = pod.metadata.namespace ?? "default";
          const vols: string[] = [];
          // (a volume whose CSIDriver says attachRequired: false is never in volumesAttached)
          const attachable: string[] = [];
          for (const v of podVols) {
            const u = uniqueNameOf(v, pod, api, this);
            if (!u) continue;
            vols.push(u);
            if (attachExpected(v, ns, api)) attachable.push(u);
          }
          const node = pod.spec.nodeName;
          const reported = new Set(((api.tryGet("Node", node)?.status?.volumesAttached ?? []) as Array<{ name: string }>).map((v) => v.name));
          const missing = attachable.filter((v) => !reported.has(v) && !LOCAL_KINDS.some((k) => v.startsWith(`kubernetes.io/${k}/`)));
          return `pod ${keyOf(pod)} was created at +${relTime(since)} and is still ${pod.status?.phase ?? "Pending"} (ContainerCreating) at the end of the run${missing.length > 0 ? `; node.status.volumesAttached of ${node} lacks ${missing.join(", ")}` : ""}.${this.notesFor(...vols, pod.metadata.uid)}`;
        }),
      );
    }

    // ---- expectations ----
    const expectations = this.checked(sc.expect);
    for (const e of expectations)
      if (!e.held) violations.push({ name: e.name, kind: "expectation", timeMs: end, time: `+${relTime(end)}`, explanation: `expectation${e.line ? ` (${sc.file}:${e.line})` : ""} failed: ${e.detail}` });
    const symptoms = this.checked(sc.symptom);

    // (they mostly come in time order, and are a handful: sorted in place by insertion)
    sortByTime(violations);
    // the switches, the final objects and the occurrence pairs are built on
    // first read (see LazyParts)
    const r = { scenario: sc.name, version: profile.text } as K8sRunResult;
    new ResultParts(r, { profile, api, out, fixes: undefined, occurrences: undefined, objects: undefined });
    Object.defineProperty(r, "fixes", FIXES_PROPERTY);
    r.timeline = out.events;
    Object.defineProperty(r, "occurrences", OCCURRENCES_PROPERTY);
    r.logs = out.logs;
    Object.defineProperty(r, "objects", OBJECTS_PROPERTY);
    r.violations = violations;
    r.expectations = expectations;
    r.symptoms = symptoms;
    r.steps = steps.seen;
    const stats = { endMs: end, events: this.sim.events, nodePatches: this.nodePatches, storageCalls: backend.calls } as K8sRunResult["stats"];
    // calls: built on first read (most sweeps never read it), from the backend's counts
    new StatsParts(stats, backend);
    Object.defineProperty(stats, "calls", CALLS_PROPERTY);
    r.stats = stats;
    r.podWaits = this.podWaits(end);
    return r;
  }

  /** es.map(evalCheck) (a loop: see hasStepCheck) */
  private checked(es: readonly Expectation[]): CheckResult[] {
    const out: CheckResult[] = [];
    for (let i = 0; i < es.length; i++) out.push(this.evalCheck(es[i]!));
    return out;
  }

  private evalCheck(e: Expectation): CheckResult {
    const r = e.fromMs !== undefined || e.untilMs !== undefined ? this.checkWindow(e.check, e.fromMs ?? 0, e.untilMs ?? Infinity) : this.check(e.check);
    const res: CheckResult = { name: e.name, held: r.held, detail: r.detail, line: e.line };
    if (r.checked === false) res.checked = false;
    return res;
  }

  /**
   * (k8s-releases) A check bounded in time: events and steps that happen in
   * [from, until); a pod's first Running at or before `until`.
   */
  private checkWindow(c: Check, from: number, until: number): { held: boolean; detail: string; checked?: false } {
    const span = `in [+${relTime(from)}, ${until === Infinity ? "end" : `+${relTime(until)}`})`;
    switch (c.kind) {
      case "event":
      case "noEvent": {
        const occ = this.out.occurrences;
        const evs = this.out.events;
        let hit: { t: number; e: K8sEvent } | null = null;
        for (let i = 0; i < occ.length && hit === null; i += 2) {
          const t = occ[i]!;
          if (t < from || t >= until) continue;
          const e = evs[occ[i + 1]!]!;
          if (e.reason === c.reason && (!c.object || e.object === c.object) && (!c.contains || e.message.includes(c.contains))) hit = { t, e };
        }
        return { held: c.kind === "event" ? hit !== null : hit === null, detail: hit ? `event ${hit.e.reason} ${hit.e.object} at +${relTime(hit.t)}: ${hit.e.message}` : `no ${c.reason} event${c.object ? ` on ${c.object}` : ""} ${span}` };
      }
      case "step": {
        const n = this.steps.seen.filter((s) => s.name === c.name && s.t >= from && s.t < until).length;
        return { held: n >= (c.min ?? 1) && (c.max === undefined || n <= c.max), detail: `step ${c.name} seen ${n} times ${span}` };
      }
      case "podRunning":
      case "podNotRunning": {
        let runningAt: number | null = null;
        for (const w of this.podWaitsByUID.values()) if (w.pod === c.pod && w.runningAt !== null && (runningAt === null || w.runningAt < runningAt)) runningAt = w.runningAt;
        const ran = runningAt !== null && runningAt <= until;
        return { held: c.kind === "podRunning" ? ran : !ran, detail: runningAt === null ? `pod ${c.pod} never Running` : `pod ${c.pod} Running at +${relTime(runningAt)}${ran ? "" : `, after +${relTime(until)}`}` };
      }
      default:
        return this.check(c);
    }
  }

  /** a pod absent at the end: deleted, or never created (an `after:` whose step never came) */
  private absentPod(key: string): string {
    for (const w of this.podWaitsByUID.values()) if (w.pod === key) return "(deleted)";
    return "(never created: no create of it in the timeline fired)";
  }

  private check(c: Check): { held: boolean; detail: string; checked?: false } {
    const { api, out, hosts, needles, steps } = this;
    switch (c.kind) {
      case "podPhase": {
        const p = api.tryGet("Pod", c.pod);
        return { held: p?.status?.phase === c.phase, detail: `pod ${c.pod} phase ${p ? p.status?.phase : this.absentPod(c.pod)}` };
      }
      case "podRunning":
      case "podNotRunning": {
        const p = api.tryGet("Pod", c.pod);
        const running = p?.status?.phase === "Running";
        return { held: c.kind === "podRunning" ? running : !running, detail: `pod ${c.pod} phase ${p ? p.status?.phase : this.absentPod(c.pod)}` };
      }
      case "podGone":
        return { held: !api.tryGet("Pod", c.pod), detail: `pod ${c.pod} ${api.tryGet("Pod", c.pod) ? "still exists" : "is gone"}` };
      case "log":
      case "noLog": {
        if (needles !== null) return logCheck(c, needleOf(needles, c).hit);
        if (!out.on) return LOG_NOT_CHECKED;
        return logCheck(c, out.logs.find((l) => l.text.includes(c.contains) && (!c.component || l.component.startsWith(c.component))));
      }
      case "event":
      case "noEvent": {
        const hit = out.events.find((e) => e.reason === c.reason && (!c.object || e.object === c.object) && (!c.contains || e.message.includes(c.contains)));
        return { held: c.kind === "event" ? !!hit : !hit, detail: hit ? `event ${hit.reason} ${hit.object}: ${hit.message}` : `no ${c.reason} event${c.object ? ` on ${c.object}` : ""}` };
      }
      case "nodeVolumesAttached": {
        const names = ((api.tryGet("Node", c.node)?.status?.volumesAttached ?? []) as Array<{ name: string }>).map((v) => v.name);
        const ok = (!c.contains || names.includes(c.contains)) && (!c.lacks || !names.includes(c.lacks));
        return { held: ok, detail: `node ${c.node} volumesAttached=[${names.join(", ")}]` };
      }
      case "volumeAttachment": {
        const vas = api.list("VolumeAttachment").filter((x) => x.spec.nodeName === c.node && (x.metadata.name === c.volumeHandle || (x.spec.source?.inlineVolumeSpec?.csi?.volumeHandle ?? pvVolumeHandle(api.tryGet("PersistentVolume", x.spec.source?.persistentVolumeName ?? ""))) === c.volumeHandle));
        return { held: (vas.length > 0) === c.exists, detail: vas.length > 0 ? `VolumeAttachment ${vas[0]!.metadata.name} exists (attached=${vas[0]!.status?.attached})` : "no VolumeAttachment" };
      }
      case "hostMount": {
        const h = hosts.get(c.node);
        const hit = h ? [...h.mounts.keys()].find((p) => p.includes(c.pathContains)) : undefined;
        return { held: !!hit === c.present, detail: hit ? `mounted: ${hit}` : `nothing mounted at a path containing ${c.pathContains}` };
      }
      case "hostPath": {
        const h = hosts.get(c.node);
        const hit = h ? [...h.dirs.keys()].find((p) => p.includes(c.pathContains)) : undefined;
        return { held: !!hit === c.present, detail: hit ? `present: ${hit}` : `no kubelet path containing ${c.pathContains}` };
      }
      case "claim": {
        const pvc = api.tryGet("PersistentVolumeClaim", c.claim);
        const cap = (pvc?.status?.capacity?.storage ?? null) as string | null;
        const conds = ((pvc?.status?.conditions ?? []) as Array<{ type: string }>).map((x) => x.type);
        const ok =
          pvc !== undefined &&
          (c.capacity === undefined || (cap !== null && parseQuantity(cap) === parseQuantity(c.capacity))) &&
          (c.condition === undefined || conds.includes(c.condition)) &&
          (c.noCondition === undefined || !conds.includes(c.noCondition));
        return { held: ok, detail: pvc === undefined ? `claim ${c.claim} does not exist` : `claim ${c.claim} status.capacity.storage=${cap ?? "(none)"} conditions=[${conds.join(", ")}]` };
      }
      case "rbdMapped": {
        const h = hosts.get(c.node);
        const dev = h?.rbdDeviceFor(c.image) ?? "";
        return { held: (dev !== "") === c.mapped, detail: dev ? `${c.image} mapped at ${dev}` : `${c.image} not mapped` };
      }
      case "step": {
        const n = steps.seen.filter((s) => s.name === c.name).length;
        const ok = n >= (c.min ?? 1) && (c.max === undefined || n <= c.max);
        return { held: ok, detail: `step ${c.name} seen ${n} times` };
      }
      case "calls": {
        let n = 0;
        const byVolume = this.backend.callCounts.get(c.op);
        if (byVolume !== undefined)
          for (const [volume, byNode] of byVolume) {
            if (c.volume !== undefined && volume !== c.volume) continue;
            for (const [node, k] of byNode) if (c.node === undefined || node === c.node) n += k;
          }
        const ok = n >= (c.min ?? 1) && (c.max === undefined || n <= c.max);
        return { held: ok, detail: `${c.op} called ${n} times${c.volume !== undefined ? ` on ${c.volume}` : ""}${c.node !== undefined ? ` from ${c.node}` : ""}` };
      }
    }
  }
}

/** a log check's answer in a run without logs (read, never changed) */
const LOG_NOT_CHECKED: { held: boolean; detail: string; checked?: false } = { held: true, detail: "logs off: not checked", checked: false };

/** a timeline action due at its time (`at:`), or after its step's delay */
class TimelineAct {
  constructor(
    readonly run: ClusterRun,
    readonly action: TimelineItem["action"],
  ) {}
}
function actNow(x: TimelineAct): void {
  x.run.act(x.action);
}

/** an `after:` item: acts on the count-th time its step is seen (or that plus delayMs), once */
class StepTrigger {
  seen = 0;
  fired = false;
  constructor(
    readonly run: ClusterRun,
    readonly action: TimelineItem["action"],
    readonly count: number,
    readonly delayMs: number,
  ) {}
}
function stepTriggered(t: StepTrigger): void {
  if (t.fired || ++t.seen < t.count) return;
  t.fired = true;
  if (t.delayMs === 0) t.run.act(t.action);
  else t.run.sim.call(t.run.sim.now + t.delayMs, actNow, new TimelineAct(t.run, t.action));
}

/** a node's timer: a kubelet's restart, or the node lifecycle controller's grace period after its crash (`token`: the crash's time) */
class NodeTimer {
  constructor(
    readonly run: ClusterRun,
    readonly node: string,
    readonly token: number,
  ) {}
}

/**
 * The parts of a run result built on first read. The switches are copied
 * from the shared profile only when asked for (the copy of an object keyed by
 * PR numbers is slow, and sweeps rarely read it); likewise the final objects
 * and the occurrence pairs (the API store is not written after the run, so a
 * later read sees the same objects): a sweep that reads only violations and
 * stats skips all three.
 *
 * They are own enumerable accessors (JSON and spreads see them as before)
 * whose getter and setter are shared by every result and find the run in a
 * private field (ResultParts). Not an object literal with `get fixes()`: V8
 * keeps a literal's accessors in the object's own hidden class, so a fresh
 * closure per run made a new hidden class per run, and hidden classes live in
 * old space, where they kept the run's closures, and through them the whole
 * replay, alive through every young-generation GC until the next full one.
 */
interface LazyParts {
  profile: Profile;
  api: ApiServer;
  out: Recorder;
  fixes: Record<FixId, boolean> | undefined;
  occurrences: Array<{ t: number; event: K8sEvent }> | undefined;
  objects: KObj[] | undefined;
}
/**
 * Gives a plain object a private field: a base class constructor that returns
 * another object makes `super()` hand that object to the subclass, whose
 * field initialisers then add its private fields to it. A private field is a
 * property of the object's own hidden class like any other (shared by every
 * result, no closure), invisible to JSON, spreads, Object.keys and equality
 * checks, and stored without a runtime call: the slot was a non-enumerable
 * symbol-keyed property before, and Object.defineProperty is a call into the
 * runtime (~0.15 us each).
 */
class Stamp {
  constructor(o: object) {
    return o;
  }
}
class ResultParts extends Stamp {
  #parts: LazyParts;
  constructor(r: object, parts: LazyParts) {
    super(r);
    this.#parts = parts;
  }
  static of(r: object): LazyParts {
    return (r as ResultParts).#parts;
  }
}
const lazyOf = ResultParts.of;
const FIXES_PROPERTY: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: object): Record<FixId, boolean> {
    const z = lazyOf(this);
    return (z.fixes ??= copyFixes(z.profile.fix));
  },
  set(this: object, v: Record<FixId, boolean>) {
    lazyOf(this).fixes = v;
  },
};
const OCCURRENCES_PROPERTY: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: object): Array<{ t: number; event: K8sEvent }> {
    const z = lazyOf(this);
    return (z.occurrences ??= pairs(z.out.occurrences, z.out.events));
  },
  set(this: object, v: Array<{ t: number; event: K8sEvent }>) {
    lazyOf(this).occurrences = v;
  },
};
/**
 * A stored object as the result shows it: its metadata as the API shows it
 * (the store's is a Meta: api/types.ts wireObj), and spec and status of its
 * own. The store shares them with the request bodies (cloneObj), which for
 * the scenario's objects are its manifests, so a caller editing a result's
 * object in place would otherwise edit the scenario, and its next run would
 * create the edited object.
 */
function resultObj(o: KObj): KObj {
  const w = wireObj(o);
  const c = w === o ? Object.assign({}, o) : w;
  if (c.spec !== undefined) c.spec = structuredClone(c.spec);
  if (c.status !== undefined) c.status = structuredClone(c.status);
  return c;
}
/** stats.calls's source, a private field stamped onto the stats (Stamp: no Object.defineProperty of a symbol-keyed slot per run) */
class StatsParts extends Stamp {
  #backend: Backend;
  constructor(stats: object, backend: Backend) {
    super(stats);
    this.#backend = backend;
  }
  static of(stats: object): Backend {
    return (stats as StatsParts).#backend;
  }
}
/** stats.calls, as Backend.callsTable gives it, on first read (then a plain value) */
const CALLS_PROPERTY: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: object): unknown {
    const value = StatsParts.of(this).callsTable();
    Object.defineProperty(this, "calls", { value, enumerable: true, writable: true, configurable: true });
    return value;
  },
};

const OBJECTS_PROPERTY: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: object): KObj[] {
    const z = lazyOf(this);
    if (z.objects === undefined) {
      const objs: KObj[] = [];
      for (const kind of OBJECT_KINDS) z.api.listInto(kind, objs);
      // status fields the API would show that no write in the replay made (api/podstatus.ts)
      const minor = z.profile.version.minor;
      for (let i = 0; i < objs.length; i++) if (objs[i]!.kind === "Pod") objs[i] = podStatusView(objs[i]!, z.out.podSyncedAt.get(objs[i]!.metadata.uid), minor);
      volumeStatusViews(objs);
      for (let i = 0; i < objs.length; i++) objs[i] = resultObj(objs[i]!);
      z.objects = objs;
    }
    return z.objects;
  },
  set(this: object, v: KObj[]) {
    lazyOf(this).objects = v;
  },
};

/**
 * The run's final Pods as the API store holds them, in the order `objects`
 * lists them, without building `objects` (every object's view: a sweep reads
 * the pods' names and phases alone, bindings/mc/domains/k8s.ts). The views of
 * `objects` add the status the kubelet would have written (podStatusView)
 * but keep each pod's phase, so a phase read here is the one `objects`
 * shows; once `objects` is built (or set), its pods are given.
 */
export function finalPods(r: K8sRunResult): KObj[] {
  const z = lazyOf(r);
  const pods: KObj[] = [];
  if (z.objects !== undefined) {
    for (const o of z.objects) if (o.kind === "Pod") pods.push(o);
  } else z.api.listInto("Pod", pods);
  return pods;
}

const NO_EXTRA_DELAY = (_now: number): number => 0;

/** the order of the result's final objects, by kind */
const OBJECT_KINDS: readonly KObj["kind"][] = ["Node", "Pod", "PersistentVolume", "PersistentVolumeClaim", "VolumeAttachment", "CSIDriver", "CSINode"];

/** the order objects are created in at the start of a run (the kinds with a kindSlot: createOrder) */
const CREATE_ORDER: readonly KObj["kind"][] = ["CSIDriver", "Node", "PersistentVolume", "PersistentVolumeClaim", "VolumeAttachment", "Pod"];
/**
 * The pod UID of a path under `prefix` (the kubelet's pods directory) whose
 * pod is not among `pods`, or undefined (not under it, or a live pod's). The
 * UID is the path's next segment; it is compared with each pod's in place, so
 * a live pod's path costs no substring.
 */
function orphanUID(p: string, prefix: string, pods: readonly KObj[]): string | undefined {
  if (!p.startsWith(prefix)) return undefined;
  const slash = p.indexOf("/", prefix.length);
  const end = slash < 0 ? p.length : slash;
  for (let i = 0; i < pods.length; i++) {
    const uid = pods[i]!.metadata.uid;
    if (uid.length === end - prefix.length && p.startsWith(uid, prefix.length)) return undefined;
  }
  return p.slice(prefix.length, end);
}

/** `byUID` (made if undefined) with `p` added to `uid`'s paths */
function withPath(byUID: Map<string, string[]> | undefined, uid: string, p: string): Map<string, string[]> {
  const m = byUID ?? new Map<string, string[]>();
  const a = m.get(uid);
  if (a) a.push(p);
  else m.set(uid, [p]);
  return m;
}

/** whether node.status.volumesAttached lists the volume of unique name `unique` */
function listsVolume(attached: ReadonlyArray<{ name: string }>, unique: string): boolean {
  for (let i = 0; i < attached.length; i++) if (attached[i]!.name === unique) return true;
  return false;
}

/*
 * The scenario's arrays are walked by index: a sweep's base scenario is
 * frozen, and V8's some/map/for-of over a frozen array take a slow path
 * (some: ~140 ns for four elements against ~40 unfrozen).
 */

/** a `step:` check among `es` (counts steps: the run records them) */
function hasStepCheck(es: readonly Expectation[]): boolean {
  for (let i = 0; i < es.length; i++) if (es[i]!.check.kind === "step") return true;
  return false;
}

/** a pod of objects: or of a timeline create that does not name its node */
function needsScheduler(sc: K8sScenario): boolean {
  for (let i = 0; i < sc.objects.length; i++) if (sc.objects[i]!.kind === "Pod" && !sc.objects[i]!.spec?.nodeName) return true;
  for (let i = 0; i < sc.timeline.length; i++) {
    const a = sc.timeline[i]!.action;
    if ((a.kind === "create" || a.kind === "createPod") && a.manifest.kind === "Pod" && !a.manifest.spec?.nodeName) return true;
  }
  return false;
}

/** a `between:` item in the timeline */
function hasBetween(timeline: readonly TimelineItem[]): boolean {
  for (let i = 0; i < timeline.length; i++) if (timeline[i]!.between) return true;
  return false;
}

/** es.map(evalCheck) */
function checked(es: readonly Expectation[], evalCheck: (e: Expectation) => CheckResult): CheckResult[] {
  const out: CheckResult[] = [];
  for (let i = 0; i < es.length; i++) out.push(evalCheck(es[i]!));
  return out;
}

/** a `log:` / `noLog:` check (decided from log lines) */
export function isLogCheck(c: Check): c is Check & { kind: "log" | "noLog" } {
  return c.kind === "log" || c.kind === "noLog";
}

/** one needle per distinct text and component of the scenario's `log:` / `noLog:` checks */
function logNeedles(sc: K8sScenario): LogNeedle[] {
  const out: LogNeedle[] = [];
  addNeedles(out, sc.expect);
  addNeedles(out, sc.symptom);
  return out;
}
function addNeedles(out: LogNeedle[], es: readonly Expectation[]): void {
  for (let i = 0; i < es.length; i++) {
    const c = es[i]!.check;
    if (isLogCheck(c) && !hasNeedle(out, c)) out.push({ contains: c.contains, component: c.component || undefined, hit: null });
  }
}
function hasNeedle(needles: readonly LogNeedle[], c: { contains: string; component?: string }): boolean {
  for (let i = 0; i < needles.length; i++) if (needles[i]!.contains === c.contains && needles[i]!.component === (c.component || undefined)) return true;
  return false;
}

/** the needle of a log check (logNeedles made one for each) */
function needleOf(needles: readonly LogNeedle[], c: { contains: string; component?: string }): LogNeedle {
  return needles.find((n) => n.contains === c.contains && n.component === (c.component || undefined))!;
}

/** a `log:` / `noLog:` check decided by the first line that contains its text (none: undefined) */
function logCheck(c: Check & { kind: "log" | "noLog" }, hit: LogLine | null | undefined): { held: boolean; detail: string } {
  return { held: c.kind === "log" ? !!hit : !hit, detail: hit ? `log: ${hit.text.slice(0, 240)}` : `no log line contains ${JSON.stringify(c.contains)}` };
}

/** decideK8sLogChecks' answer */
export interface K8sLogChecks {
  expectations: CheckResult[];
  symptoms: CheckResult[];
}

/** the log checks of a run that matched lines against `needles` */
function logChecksResult(sc: K8sScenario, needles: readonly LogNeedle[]): K8sLogChecks {
  return { expectations: decidedLogChecks(sc.expect, needles), symptoms: decidedLogChecks(sc.symptom, needles) };
}
/** the log checks among `es`, in order, decided by `needles` (a loop: flatMap is a slow builtin) */
function decidedLogChecks(es: readonly Expectation[], needles: readonly LogNeedle[]): CheckResult[] {
  const out: CheckResult[] = [];
  for (let i = 0; i < es.length; i++) {
    const e = es[i]!;
    if (!isLogCheck(e.check)) continue;
    const r = logCheck(e.check, needleOf(needles, e.check).hit);
    out.push({ name: e.name, held: r.held, detail: r.detail, line: e.line });
  }
  return out;
}

/** whether a scenario has `log:` / `noLog:` checks among its expectations (`expect`) or symptoms (`symptom`) */
export function logChecksOf(sc: K8sScenario): { expect: boolean; symptom: boolean } {
  return { expect: hasLogCheck(sc.expect), symptom: hasLogCheck(sc.symptom) };
}
function hasLogCheck(es: readonly Expectation[]): boolean {
  for (let i = 0; i < es.length; i++) if (isLogCheck(es[i]!.check)) return true;
  return false;
}

/**
 * The scenario's objects in creation order: by CREATE_ORDER, file order within
 * a kind (what a stable sort by the kind's index gives, kinds outside the list
 * first), without the sort's comparator calls.
 */
function createOrder(objs: readonly KObj[]): KObj[] {
  const outp: KObj[] = [];
  // (CREATE_ORDER holds the kinds with a kindSlot: a switch on the length instead of includes' calls)
  for (let i = 0; i < objs.length; i++) if (kindSlot(objs[i]!.kind) < 0) outp.push(objs[i]!);
  for (let k = 0; k < CREATE_ORDER.length; k++) {
    const kind = CREATE_ORDER[k]!;
    for (let i = 0; i < objs.length; i++) if (objs[i]!.kind === kind) outp.push(objs[i]!);
  }
  return outp;
}

/** the run's switches, a copy of the shared profile's */
function copyFixes(fix: Record<FixId, boolean>): Record<FixId, boolean> {
  const out = {} as Record<FixId, boolean>;
  for (const f of FIXES) out[f.id] = fix[f.id];
  return out;
}

function pairs(flat: readonly number[], events: readonly K8sEvent[]): Array<{ t: number; event: K8sEvent }> {
  const outp: Array<{ t: number; event: K8sEvent }> = [];
  for (let i = 0; i < flat.length; i += 2) outp.push({ t: flat[i]!, event: events[flat[i + 1]!]! });
  return outp;
}

/**
 * `vs` in time order, stable (as Array.prototype.sort by timeMs), by
 * insertion: a run has a handful, mostly in order already, and V8's sort
 * with a comparator costs ~1 us to set up for five.
 */
function sortByTime(vs: Violation[]): void {
  for (let i = 1; i < vs.length; i++) {
    const v = vs[i]!;
    let j = i;
    while (j > 0 && vs[j - 1]!.timeMs > v.timeMs) {
      vs[j] = vs[j - 1]!;
      j--;
    }
    vs[j] = v;
  }
}

function violation(name: string, timeMs: number, explanation: string): Violation {
  return { name, kind: "invariant", timeMs, time: `+${relTime(timeMs)}`, explanation };
}

/**
 * An end-of-run violation whose explanation is written on first read. The
 * explanations quote the run's causal notes and objects, which no longer
 * change once the run is over, so a later read gives the same text; a sweep
 * that reads only the names (bindings/mc) never builds them. `explanation` is
 * an own enumerable accessor (JSON, spreads and equality see it like a
 * field) with a getter shared by every violation, the text or its builder in
 * a private field (Explanation): not a literal with `get explanation()` (a fresh
 * closure there makes a hidden class per run: see LazyParts).
 */
function lazyViolation(name: string, timeMs: number, explain: () => string): Violation {
  const v = { name, kind: "invariant", timeMs, time: `+${relTime(timeMs)}` } as Violation;
  new Explanation(v, explain);
  Object.defineProperty(v, "explanation", EXPLANATION_PROPERTY);
  return v;
}
/** a violation's explanation or its builder, in a private field (see ResultParts) */
class Explanation extends Stamp {
  #text: string | (() => string);
  constructor(v: object, explain: () => string) {
    super(v);
    this.#text = explain;
  }
  static get(v: object): string {
    const e = v as Explanation;
    const x = e.#text;
    return typeof x === "string" ? x : (e.#text = x());
  }
  static set(v: object, text: string): void {
    (v as Explanation).#text = text;
  }
}
const EXPLANATION_PROPERTY: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: object): string {
    return Explanation.get(this);
  },
  set(this: object, text: string) {
    Explanation.set(this, text);
  },
};

function uniqueNameOf(v: PodVolume, pod: KObj, api: ApiServer, run?: Ctx): string | null {
  let src: Record<string, any> = v as unknown as Record<string, any>;
  if (v.persistentVolumeClaim) {
    // (the interned key: a fresh string would be hashed on every lookup)
    const pvc = api.tryGet("PersistentVolumeClaim", nsKey(pod.metadata.namespace as string, v.persistentVolumeClaim.claimName));
    const pv = pvc?.spec?.volumeName ? api.tryGet("PersistentVolume", pvc.spec.volumeName) : undefined;
    if (!pv) return null;
    src = pv.spec;
  }
  if (src.csi?.volumeHandle) return `kubernetes.io/csi/${src.csi.driver}^${src.csi.volumeHandle}`;
  if (src.csi) return `kubernetes.io/csi/${pod.metadata.uid}-${v.name}`;
  // a PV or an inline volume the kubelet migrates goes by its CSI driver's name (volume/csimigration.ts)
  if (run?.migration?.volumes && (src.awsElasticBlockStore || src.gcePersistentDisk)) {
    const plugin = src.awsElasticBlockStore ? AWS_EBS_PLUGIN : GCE_PD_PLUGIN;
    if (isMigrationEnabledForPlugin(run.profile, plugin, run.migration.kubeletGates)) {
      if (!v.persistentVolumeClaim) return `kubernetes.io/csi/${driverOf(plugin)}^${translateInlineVolume(v).spec.csi.volumeHandle}`;
      const pv = api.tryGet("PersistentVolume", api.tryGet("PersistentVolumeClaim", nsKey(pod.metadata.namespace as string, v.persistentVolumeClaim.claimName))!.spec.volumeName)!;
      return `kubernetes.io/csi/${driverOf(plugin)}^${pvVolumeHandle(pv)}`;
    }
  }
  if (src.rbd) return `kubernetes.io/rbd/${src.rbd.pool ?? "rbd"}:${src.rbd.image}`;
  if (src.awsElasticBlockStore) return `kubernetes.io/aws-ebs/${src.awsElasticBlockStore.volumeID}`;
  if (src.gcePersistentDisk) return `kubernetes.io/gce-pd/${src.gcePersistentDisk.pdName}`;
  if (src.qcloudCbs) return `kubernetes.io/qcloud-cbs/${src.qcloudCbs.cbsDiskId}`;
  for (const kind of LOCAL_KINDS) if (src[LOCAL_PLUGIN_FIELDS[kind]]) return `kubernetes.io/${kind}/${pod.metadata.uid}-${v.name}`;
  return null;
}

/**
 * (k8s-releases) A Node write that changed nothing but its Ready condition's
 * lastHeartbeatTime (a kubelet's report of an unchanged status,
 * kubelet/kubelet.ts syncNodeStatus).
 */
function heartbeatOnly(obj: KObj, old: KObj | undefined): boolean {
  if (old === undefined || obj.spec !== old.spec) return false;
  const a = obj.status, b = old.status;
  if (a === b) return true;
  if (a === undefined || b === undefined || a.volumesAttached !== b.volumesAttached || a.volumesInUse !== b.volumesInUse) return false;
  const ra = readyOf(a.conditions), rb = readyOf(b.conditions);
  return ra === rb && (a.conditions?.length ?? 0) === (b.conditions?.length ?? 0);
}
function readyOf(conds: Array<{ type: string; status: string }> | undefined): string | undefined {
  if (conds === undefined) return undefined;
  for (let i = 0; i < conds.length; i++) if (conds[i]!.type === "Ready") return conds[i]!.status;
  return undefined;
}
