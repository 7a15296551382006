// pkg/controller/volume/attachdetach: the attach/detach controller inside
// kube-controller-manager. This file wires the parts (caches, reconciler,
// status updater, populator, operation executor) and owns the informer
// handlers and the start-up sequence.
//
// Start-up (Run): wait for the informers to sync, populateActualStateOfWorld
// from every node's status.volumesAttached (spec unknown, attached confirmed,
// mountedByNode from volumesInUse), mark VolumeAttachments of volumes the ASW
// does not know as uncertain (PR #96617, 1.21+), populateDesiredStateOfWorld
// from the pods, then start the reconciler (100 ms), the DSW populator (1 min;
// full re-list every 3 min) and the reconciler sync (1 min,
// VerifyVolumesAreAttached).
//
// A controller-manager restart throws all of it away: in-flight operations
// are forgotten (their completions are dropped), backoff is reset, and the
// ASW is rebuilt from node status, which is how seed 002's stuck volume can
// recover (the volume missing from node status is re-attached).
//
// The same rebuild loses a detach that was in flight. The reconciler takes
// the volume off node.status.volumesAttached *before* DetachVolume runs
// (reconciler.go, 1.22 and still today), so a restart between the two leaves
// an in-tree volume nobody knows about: not in node status (so not in the new
// ASW), not wanted by a pod (so not in the DSW), and no VolumeAttachment for
// processVolumeAttachments to find (only CSI volumes have one). If the cloud
// refused or never got the lost call, the disk stays attached for ever; this
// is upstream behaviour (kubernetes/kubernetes#81097, #92145; the design
// problem is #44858), not a modelling gap. Worked example (the noisy detach-
// backoff sweep's shrunk repro, 1.22 with or without #104526): pod deleted at
// 60 s, unmounted at 61.1 s; at 70.12 s the reconciler patches the node
// without disk-7bfqsft5 and starts DetachVolume; the controller-manager
// restarts at that instant (down 1 s); the cloud answers "ResourceBusy" at
// 72.12 s to nobody; the new ADC (71.12 s) lists no volume on 10.0.0.12, and
// the disk is still attached when the run ends 25 min later.
// `detachesInFlight` and the notes below only explain this; no later
// incarnation reads them.

import { ApiError, ApiServer, Informer } from "../api/apiserver.js";
import { keyOf, Kind, KObj, PodVolume } from "../api/types.js";
import type { Ctx } from "../engine/context.js";
import type { Ticker, WakeGroup } from "../engine/sim.js";
import { errorText, type ErrorText } from "../util/exponentialbackoff.js";
import { type Done, FailureMessages, NestedPendingOperations, RunResult } from "../util/nestedpendingoperations.js";
import { adcOperationName, attachDetachKey } from "../util/operationexecutor.js";
import { isMultiAttachAllowed, joinOnce, PluginEnv, PluginMgr, specForPodVolume, uniqueNameFromSpec, VAWaiters, VolumePlugin, VolumeSpec } from "../volume/plugins.js";
import { perform } from "../volume/operation.js";
import { controllerVolumeSpec, inTreePluginRegistered, processVolumeAttachmentSpec } from "../volume/csimigration.js";
import { ActualStateOfWorld, AttachedVolumeRef } from "./cache/actual_state_of_world.js";
import { DesiredStateOfWorld, VolumeToAttach } from "./cache/desired_state_of_world.js";
import { type AttacherDetacher, createReconciler, type NodeLister, type PodEventRecorder, Reconciler, volDetail } from "./reconciler.js";
import { createNodeStatusUpdater, NodeStatusUpdater } from "./statusupdater.js";
import { boundedMemo } from "../../util/bounded-memo.js";

export const ADC_COMPONENT = "kube-controller-manager";
/** the names of the controller's wake groups (made once, not per controller) */
const OPS_GROUP = `${ADC_COMPONENT}/operations`;
const NODES_GROUP = `${ADC_COMPONENT}/nodes`;
const PODS_GROUP = `${ADC_COMPONENT}/pods`;
const UNREAD_GROUP = `${ADC_COMPONENT}/unread`;

/**
 * The object ("pod/<name>") and namespace of an event on the pod with DSW key
 * "namespace/name" (the name after the last "/", the namespace before the
 * first; a key without one is both). One pair of strings per key: the event
 * recorder compares them with its earlier events'.
 */
const podRef = boundedMemo(4096, (key: string): { object: string; namespace: string } => {
  const first = key.indexOf("/");
  return { object: `pod/${key.slice(key.lastIndexOf("/") + 1)}`, namespace: first < 0 ? key : key.slice(0, first) };
});

/** a volume name as Go's %q prints it, once per name */
const quoted = boundedMemo(4096, (name: string): string => JSON.stringify(name));

/** the SuccessfulAttachVolume event's message, once per volume name */
const attachSucceededMessage = boundedMemo(4096, (name: string): string => `AttachVolume.Attach succeeded for volume ${quoted(name)} `);
/**
 * The FailedAttachVolume text, one string per volume and error (joinOnce): a
 * failing attach retries with the same error, and the recorder compares each
 * event's text with the last one's (a new string equal to it is compared
 * character by character, through V8's runtime).
 */
function attachFailedMessage(name: string, err: string): string {
  return joinOnce(joinOnce("AttachVolume.Attach failed for volume ", "", quoted(name)), " : ", err);
}

/** util.IsPodTerminated: phase Failed/Succeeded, or deleted with no container running */
export function isPodTerminated(pod: KObj): boolean {
  const phase = pod.status?.phase;
  if (phase === "Failed" || phase === "Succeeded") return true;
  if (pod.metadata.deletionTimestamp === undefined) return false;
  const cs = (pod.status?.containerStatuses ?? []) as Array<{ state: Record<string, unknown> }>;
  return cs.every((c) => !c.state.running);
}

/** util.SplitUniqueName's plugin name: the unique name up to its second "/" (all of it with fewer) */
function splitUniqueNamePlugin(uniqueName: string): string {
  const first = uniqueName.indexOf("/");
  const second = first < 0 ? -1 : uniqueName.indexOf("/", first + 1);
  return second < 0 ? uniqueName : uniqueName.slice(0, second);
}

/**
 * The controller is also what its reconciler and status updater are given:
 * the attacherDetacher (its operation executor below), the node lister (its
 * informer cache) and the event recorder, as methods of the one object built
 * per run rather than closures per run.
 */
export class AttachDetachController implements AttacherDetacher, NodeLister, PodEventRecorder {
  readonly asw: ActualStateOfWorld;
  readonly dsw: DesiredStateOfWorld;
  readonly npo: NestedPendingOperations;
  private inf: Informer | null = null;
  private tickers: Ticker[] = [];
  private dead = false;
  private reconciler!: Reconciler;
  private statusUpdater!: NodeStatusUpdater;
  private readonly env: PluginEnv;
  private readonly vaWaiters = new VAWaiters();
  private lastFullList = 0;
  /** when run() rebuilt the caches (populateActualStateOfWorld) */
  populatedAtMs = -1;
  /** detaches sent to the plugin and not yet answered: "vol\u0000node" -> vol, node (for the crash note) */
  private readonly detachesInFlight = new Map<string, { volumeName: string; nodeName: string }>();
  /** the controller's loops, woken by its caches, operations and informer (engine/sim.ts section 3) */
  private readonly wake: WakeGroup;
  /** the reconciler alone reads the pending operations: their changes wake only it */
  private readonly opsWake: WakeGroup;
  /**
   * Narrower groups for informer deliveries: nodes are read from the cache by
   * the reconciler (node lister) alone, pods, claims and volumes by the
   * populator alone, VolumeAttachments and CSIDrivers by no loop (the
   * handlers act on them at delivery and wake the loops through the caches).
   */
  private readonly nodeWake: WakeGroup;
  private readonly podWake: WakeGroup;
  private readonly unreadWake: WakeGroup;

  constructor(
    private readonly ctx: Ctx,
    private readonly plugins: PluginMgr,
  ) {
    this.wake = ctx.sim.group(ADC_COMPONENT);
    this.opsWake = ctx.sim.group(OPS_GROUP);
    this.nodeWake = ctx.sim.group(NODES_GROUP);
    this.podWake = ctx.sim.group(PODS_GROUP);
    this.unreadWake = ctx.sim.group(UNREAD_GROUP);
    this.asw = new ActualStateOfWorld(ctx.sim, this.wake);
    this.dsw = new DesiredStateOfWorld(ctx.sim, this.wake);
    const failures = new FailureMessages(ctx.profile);
    this.npo = new NestedPendingOperations(ctx.sim, ctx.profile, ctx.timers.INITIAL_DURATION_BEFORE_RETRY_MS, ctx.timers.MAX_DURATION_BEFORE_RETRY_MS, (f) => {
      if (this.dead) return;
      const p = ctx.profile;
      ctx.out.on &&
        ctx.out.wants(ADC_COMPONENT) &&
        ctx.out.log(
          ADC_COMPONENT,
          "E",
          `nestedpendingoperations.go:${p.npoLogLine}`,
          failures.message(f, ctx.out.goTime(f.retryAt, ADC_COMPONENT)),
        );
    }, this.opsWake, ctx.out);
    this.env = { ctx, component: ADC_COMPONENT, vaWaiters: this.vaWaiters };
  }

  private cache(kind: Kind, key: string): KObj | undefined {
    return this.inf?.cache.get(kind, key);
  }

  start(): void {
    const { ctx } = this;
    ctx.out.processStarted(ADC_COMPONENT);
    // klog.Infof until the controller's contextual logging (#113584, 1.27): logger.Info, quoted, named from 1.30 (Profile.adcLogs)
    const adcLogs = ctx.profile.adcLogs;
    ctx.out.on &&
      ctx.out.log(ADC_COMPONENT, "I", "attach_detach_controller.go:328", adcLogs === "named" ? `"Starting attach detach controller" logger="persistentvolume-attach-detach-controller"` : adcLogs === "contextual" ? `"Starting attach detach controller"` : "Starting attach detach controller");
    this.statusUpdater = createNodeStatusUpdater(ctx.api, this.asw, this, ctx.profile, ctx.out, ADC_COMPONENT, ctx.sim);
    this.reconciler = createReconciler({
      sim: ctx.sim,
      profile: ctx.profile,
      timers: ctx.timers,
      out: ctx.out,
      component: ADC_COMPONENT,
      asw: this.asw,
      dsw: this.dsw,
      nodeLister: this,
      ad: this,
      statusUpdater: this.statusUpdater,
      recorder: this,
      steps: ctx.steps,
    });
    const c = "kube-controller-manager";
    this.inf = ctx.api.informer(
      ["Node", "Pod", "PersistentVolume", "PersistentVolumeClaim", "VolumeAttachment", "CSIDriver", "CSINode"],
      ctx.watchLatency(c),
      ctx.watchExtra(c),
      (type, obj, old) => {
        if (!this.inf?.synced) return;
        this.handle(type, obj, old);
        if (this.sharedListeners !== undefined) for (const l of this.sharedListeners) l(type, obj);
      },
      () => {
        this.run();
        if (this.sharedListeners !== undefined) for (const s of this.sharedSynced!) s();
      },
      this.wake,
      { Node: this.nodeWake, Pod: this.podWake, PersistentVolume: this.podWake, PersistentVolumeClaim: this.podWake, VolumeAttachment: this.unreadWake, CSIDriver: this.unreadWake, CSINode: this.podWake },
    );
  }

  // ---- the controller-manager's shared informers (k8s-incidents: podgc/) ----
  // Upstream's controllers share one SharedInformerFactory: the pod garbage
  // collector reads the same pod and node caches as this controller. Its
  // listeners are called after this controller's handler, for every delivery
  // once the caches synced, and at the sync itself; its loops wake with this
  // controller's node and pod groups.
  private sharedListeners: Array<(type: string, obj: KObj) => void> | undefined = undefined;
  private sharedSynced: Array<() => void> | undefined = undefined;
  /** subscribe another controller of the controller-manager to the shared informers */
  shareInformers(onEvent: (type: string, obj: KObj) => void, onSynced: () => void): void {
    (this.sharedListeners ??= []).push(onEvent);
    (this.sharedSynced ??= []).push(onSynced);
  }
  /** the shared informer cache (undefined before start) */
  get sharedCache(): Informer["cache"] | undefined {
    return this.inf?.cache;
  }
  /** the wake groups of the shared node and pod deliveries */
  get sharedWakes(): readonly WakeGroup[] {
    return [this.nodeWake, this.podWake];
  }
  // ---- end of the shared informers ----

  /** NodeLister: a node from the informer cache */
  getNode(name: string): KObj | undefined {
    return this.cache("Node", name);
  }

  /** PodEventRecorder: an event on each pod (uid -> "namespace/name", as the DSW's scheduledPods hold them) */
  podEvents(pods: ReadonlyMap<string, string>, type: "Normal" | "Warning", reason: string, msg: string): void {
    // (by key and lookup: an entries iteration allocates a pair per pod)
    for (const uid of pods.keys()) {
      const ref = podRef(pods.get(uid)!);
      this.ctx.out.event(type, reason, ref.object, msg, "attachdetach-controller", ref.namespace, uid);
    }
  }

  /** Crash: forget everything; pending operation completions are dropped. */
  stop(): void {
    this.dead = true;
    for (const { volumeName, nodeName } of this.detachesInFlight.values())
      this.ctx.out.note(
        `volume:${volumeName}`,
        `kube-controller-manager stopped while its DetachVolume of ${volumeName} from ${nodeName} was in flight, after it had taken the volume off ${nodeName}'s node.status.volumesAttached; the result of that call is lost with the process`,
      );
    this.detachesInFlight.clear();
    for (const t of this.tickers) t.stop();
    if (this.inf) this.ctx.api.stopInformer(this.inf);
  }

  private run(): void {
    if (this.dead) return;
    const { ctx } = this;
    this.populatedAtMs = ctx.sim.now;
    // populateActualStateOfWorld
    for (const o of this.inf!.cache.list("Node")) {
      const name = o.metadata.name;
      for (const av of (o.status?.volumesAttached ?? []) as Array<{ name: string; devicePath: string }>)
        this.asw.markVolumeAsAttached(av.name, undefined, name, av.devicePath);
      this.asw.setVolumesMountedByNode(name, o.status?.volumesInUse ?? []);
      this.dsw.addNode(name);
    }
    if (ctx.profile.processVolumeAttachmentsAtStart) {
      for (const va of this.inf!.cache.list("VolumeAttachment")) {
        const pvName = va.spec?.source?.persistentVolumeName;
        if (pvName === undefined && va.spec?.source?.inlineVolumeSpec !== undefined) {
          // a migrated inline volume's VolumeAttachment (volume/csimigration.ts section 2b): skipped; node status gave the ASW its volume
          ctx.out.on && ctx.out.wants(ADC_COMPONENT) && ctx.out.log(ADC_COMPONENT, "W", "attach_detach_controller.go:686", `Skipping the va as its pvName is nil, va.Name: ${JSON.stringify(va.metadata.name)}, nodeName: ${JSON.stringify(va.spec.nodeName)}`);
          continue;
        }
        const pv = pvName ? this.cache("PersistentVolume", pvName) : undefined;
        if (!pv) continue;
        // a migrated PV: named in-tree before #101737, skipped while its in-tree plugin is unregistered before #102176 (volume/csimigration.ts)
        const spec = processVolumeAttachmentSpec(ctx, { name: pv.metadata.name, pv, readOnly: false });
        if (spec === null) {
          ctx.out.on && ctx.out.wants(ADC_COMPONENT) && ctx.out.log(ADC_COMPONENT, "W", "attach_detach_controller.go:725", `Skipping processing the volume ${JSON.stringify(pvName)} on nodeName: ${JSON.stringify(va.spec.nodeName)}, no attacher interface found. err=no volume plugin matched`);
          this.noteSkippedAttachment(va.metadata.name, pvName, va.spec.nodeName);
          continue;
        }
        const plugin = this.plugins.findBySpec(spec);
        if (!plugin) continue;
        const vol = uniqueNameFromSpec(plugin, spec);
        if (this.asw.getAttachState(vol, va.spec.nodeName) === "Detached") {
          ctx.out.on && ctx.out.wants(ADC_COMPONENT) && ctx.out.log(ADC_COMPONENT, "I", "attach_detach_controller.go:766", `Marking volume attachment as uncertain as volume:${JSON.stringify(vol)} (${JSON.stringify(va.spec.nodeName)}) is not attached (Detached)`);
          this.asw.markVolumeAsUncertain(vol, spec, va.spec.nodeName);
        }
      }
    }
    // populateDesiredStateOfWorld
    for (const pod of this.inf!.cache.list("Pod")) this.podAdd(pod, true);
    this.lastFullList = ctx.sim.now;
    const now = ctx.sim.now;
    // the node status updater (reconciler) reads nodes, and VerifyVolumesAreAttached
    // (sync) VolumeAttachments, from the API store itself; sync also reads the
    // storage backend (in-tree disks)
    // (each pass a method called on its owner: Sim.loop)
    // (its passes have interleave points: reconciler.ts, engine/sim.ts yieldPoint)
    this.tickers.push(ctx.sim.interleavable(ctx.sim.loop("adc-reconciler", ctx.timers.ADC_RECONCILER_LOOP_PERIOD_MS, now, this.reconciler.reconcile, this.reconciler, this.wake, this.opsWake, this.nodeWake, ctx.api.storeReaders("Node")), ""));
    this.dswpStartMs = now + ctx.timers.ADC_DSWP_LOOP_SLEEP_MS;
    this.tickers.push(ctx.sim.loop("adc-dswp", ctx.timers.ADC_DSWP_LOOP_SLEEP_MS, this.dswpStartMs, this.populate, this, this.wake, this.podWake));
    this.tickers.push(ctx.sim.loop("adc-sync", ctx.timers.ADC_SYNC_PERIOD_MS, now + ctx.timers.ADC_SYNC_PERIOD_MS, this.sync, this, this.wake, ctx.api.storeReaders("VolumeAttachment"), ctx.backend.wake));
  }

  // ---- informer handlers ----------------------------------------------

  private handle(type: string, obj: KObj, old: KObj | undefined): void {
    switch (obj.kind) {
      case "Pod":
        if (type === "DELETED") this.podDelete(obj);
        else this.podAdd(obj, false);
        break;
      case "Node":
        if (type === "DELETED") {
          const err = this.dsw.deleteNode(obj.metadata.name);
          if (err) this.ctx.out.on && this.ctx.out.wants(ADC_COMPONENT) && this.ctx.out.log(ADC_COMPONENT, "I", "attach_detach_controller.go:560", `Error removing node ${JSON.stringify(obj.metadata.name)} from desired-state-of-world: ${err}`);
        } else {
          this.dsw.addNode(obj.metadata.name);
          if (type === "ADDED") this.asw.setNodeStatusUpdateNeeded(obj.metadata.name);
          this.asw.setVolumesMountedByNode(obj.metadata.name, obj.status?.volumesInUse ?? []);
        }
        break;
      case "PersistentVolumeClaim":
      case "PersistentVolume":
        if (type !== "DELETED" && old?.spec?.volumeName !== obj.spec?.volumeName) for (const pod of this.inf!.cache.list("Pod")) this.podAdd(pod, false);
        break;
      case "VolumeAttachment":
        this.vaWaiters.notify(obj.metadata.name, type === "DELETED" ? undefined : obj);
        break;
      default:
        break;
    }
  }

  /** the informer-cache lookup processPodVolumes hands to specForPodVolume (one closure per controller, not per volume) */
  private readonly cacheLookup = (kind: Kind, key: string): KObj | undefined => this.cache(kind, key);

  /**
   * util.ProcessPodVolumes: each volume of the pod that resolves to a spec
   * an attachable plugin supports is added to the DSW for the pod's node
   * (`add`) or deleted from it. At start-up (populateDesiredStateOfWorld) a
   * volume the ASW has attached there is marked attached again, with its spec.
   */
  private processPodVolumes(pod: KObj, node: string, add: boolean, atStartup: boolean): void {
    const vols = (pod.spec?.volumes ?? []) as PodVolume[];
    const namespace = pod.metadata.namespace ?? "default";
    const uid = pod.metadata.uid;
    for (let i = 0; i < vols.length; i++) {
      const podSpec = specForPodVolume(vols[i]!, namespace, this.cacheLookup);
      if (typeof podSpec === "string") continue;
      // translateInTreeSpecToCSIIfNeeded: the controller's gates and the node's CSINode (volume/csimigration.ts)
      const spec = controllerVolumeSpec(this.ctx, podSpec, node, this.ctx.migration?.volumes ? this.cache("CSINode", node) : undefined);
      if (spec === null) continue;
      if (typeof spec === "string") {
        if (add) this.ctx.out.on && this.ctx.out.wants(ADC_COMPONENT) && this.ctx.out.log(ADC_COMPONENT, "E", "util.go:230", `Error processing volume ${JSON.stringify(vols[i]!.name)} for pod ${JSON.stringify(keyOf(pod))}/${JSON.stringify(node)}: error performing CSI migration checks and translation for ${vols[i]!.persistentVolumeClaim ? `PVC ${JSON.stringify(`${namespace}/${vols[i]!.persistentVolumeClaim!.claimName}`)}` : `inline volume ${JSON.stringify(vols[i]!.name)}`}: ${spec}`);
        continue;
      }
      const plugin = this.plugins.findBySpec(spec);
      if (!plugin || !plugin.isAttachable(spec, this.ctx)) continue;
      const vol = uniqueNameFromSpec(plugin, spec);
      if (!add) {
        this.dsw.deletePod(uid, vol, node);
        continue;
      }
      const err = this.dsw.addPod(uid, keyOf(pod), spec, vol, node);
      if (err) this.ctx.out.on && this.ctx.out.wants(ADC_COMPONENT) && this.ctx.out.log(ADC_COMPONENT, "E", "util.go:220", `Failed to add volume ${JSON.stringify(spec.name)} for pod ${JSON.stringify(keyOf(pod))} to desiredStateOfWorld. ${err}`);
      if (atStartup && this.asw.getAttachState(vol, node) === "Attached") {
        const dp = this.asw.attachedVolumes.get(vol)?.devicePath ?? "";
        this.asw.markVolumeAsAttached(vol, spec, node, dp);
      }
    }
  }

  /** podAdd (and podUpdate): a terminated pod's volumes leave the DSW (DetermineVolumeAction) */
  private podAdd(pod: KObj, atStartup: boolean): void {
    const node = pod.spec?.nodeName as string | undefined;
    if (!node) return;
    this.processPodVolumes(pod, node, !isPodTerminated(pod), atStartup);
  }

  private podDelete(pod: KObj): void {
    const node = pod.spec?.nodeName as string | undefined;
    if (!node) return;
    this.processPodVolumes(pod, node, false, false);
  }

  /**
   * desiredStateOfWorldPopulator: findAndRemoveDeletedPods, and every 3 min
   * findAndAddActivePods. A list adds what the pods, claims and volumes in
   * the cache and the controller's caches call for, so once one has run, the
   * next finds nothing unless one of those changed in between (a bump into
   * the populator's wake groups or a global one): then no wake is set for
   * it, and when the populator next runs, the lists it slept through (idle,
   * every one) move `lastFullList` on as they would have when ticking every
   * period (engine/sim.ts section 3).
   */
  private populate(): void {
    for (const e of this.dsw.getPodToAdd()) {
      const pod = this.cache("Pod", e.podKey);
      if (!pod || pod.metadata.uid !== e.podUID || isPodTerminated(pod)) this.dsw.deletePod(e.podUID, e.volumeName, e.nodeName);
    }
    const now = this.ctx.sim.now;
    const retry = this.ctx.timers.ADC_DSWP_LIST_PODS_RETRY_MS;
    if (!this.listDue) for (let t = this.nextListAt(this.lastFullList); t < now; t = this.nextListAt(t)) this.lastFullList = t;
    if (now - this.lastFullList >= retry) {
      this.lastFullList = now;
      this.listedAtInputs = this.populatorInputs();
      for (const pod of this.inf!.cache.list("Pod")) this.podAdd(pod, false);
    }
    this.listDue = this.populatorInputs() !== this.listedAtInputs;
    if (this.listDue) this.ctx.sim.wakeAt(this.lastFullList + retry);
  }
  /** changes so far to what the populator reads (its wake groups, and global changes) */
  private populatorInputs(): number {
    return this.wake.bumps + this.podWake.bumps + this.ctx.sim.globalBumps;
  }
  /** the populator pass that lists the pods next after a list at `t`: its first grid point >= t + 3 min */
  private nextListAt(t: number): number {
    const period = this.ctx.timers.ADC_DSWP_LOOP_SLEEP_MS;
    return this.dswpStartMs + Math.ceil((t + this.ctx.timers.ADC_DSWP_LIST_PODS_RETRY_MS - this.dswpStartMs) / period) * period;
  }
  /** populatorInputs() when the pods were last listed (-1: not yet) */
  private listedAtInputs = -1;
  /** whether an input changed since the last list (so the next one may find something: a wake is set for it) */
  private listDue = true;
  /** the populator's first pass (its grid: dswpStartMs + k * ADC_DSWP_LOOP_SLEEP_MS) */
  private dswpStartMs = 0;

  /** reconciler sync: VerifyVolumesAreAttached */
  private sync(): void {
    // a scenario that gives VerifyVolumesAreAttached a latency or a fault makes each check a call of its own (volume/operation.ts)
    const timed = this.ctx.backend.modelled("verifyAttached");
    for (const av of this.asw.getAttachedVolumes()) {
      if (!av.spec || !av.attachedConfirmed) continue;
      const plugin = this.plugins.findBySpec(av.spec);
      if (!plugin?.volumeIsAttached) continue;
      if (timed) {
        this.verifyAttachedCall(plugin, av);
        // (a pass that makes calls is not idle: its next period makes them again, ticking or skipping)
        this.ctx.sim.wakeAt(this.ctx.sim.now + 1);
        continue;
      }
      if (!plugin.volumeIsAttached(this.env, av.spec, av.nodeName)) this.noLongerAttached(av);
    }
  }
  private noLongerAttached(av: { volumeName: string; nodeName: string; spec?: VolumeSpec }): void {
    this.ctx.out.on && this.ctx.out.wants(ADC_COMPONENT) && this.ctx.out.log(ADC_COMPONENT, "I", "operation_generator.go:194", `VerifyVolumesAreAttached determined volume ${JSON.stringify(av.spec!.name)} (spec.Name: ${JSON.stringify(av.spec!.name)}) is no longer attached to node ${JSON.stringify(av.nodeName)}, therefore it was marked as detached.`);
    this.asw.markVolumeAsDetached(av.volumeName, av.nodeName);
  }
  /** one volume's check as a call: the answer is the backend's at the call's end, applied then (an error keeps the volume as it is) */
  private verifyAttachedCall(plugin: VolumePlugin, av: { volumeName: string; nodeName: string; spec?: VolumeSpec }): void {
    const { ctx } = this;
    const name = av.volumeName.slice(plugin.name.length + 1);
    const id = name.includes("^") ? name.slice(name.indexOf("^") + 1) : name;
    const spec = av.spec!;
    perform(ctx, "verifyAttached", ctx.backend.call("verifyAttached", id, av.nodeName, plugin.name), plugin.name === "kubernetes.io/csi", id, () => null, (err) => {
      if (this.dead) return;
      if (err !== null) {
        ctx.out.on && ctx.out.wants(ADC_COMPONENT) && ctx.out.log(ADC_COMPONENT, "E", "operation_generator.go:176", `VolumesAreAttached failed for checking on node ${JSON.stringify(av.nodeName)} with: ${err.text}`);
        return;
      }
      const cur = this.asw.attachedVolumes.get(av.volumeName)?.nodesAttachedTo.get(av.nodeName);
      if (cur === undefined || !cur.attachedConfirmed) return;
      if (!plugin.volumeIsAttached!(this.env, spec, av.nodeName)) this.noLongerAttached(av);
    });
  }

  // ---- operation executor (operation_generator.go) --------------------
  // (AttacherDetacher: what the reconciler calls)

  isOperationPending(volumeName: string, podName: string, nodeName: string): boolean {
    return this.npo.isOperationPending(volumeName, podName, nodeName);
  }

  isOperationSafeToRetry(volumeName: string, podName: string, nodeName: string, operationName: string): boolean {
    const name = operationName === "volume_attach" || operationName === "volume_detach" ? adcOperationName(this.ctx.profile, operationName) : operationName;
    return this.npo.isOperationSafeToRetry(volumeName, podName, nodeName, name);
  }

  attachVolume(v: VolumeToAttach): RunResult {
    const key = attachDetachKey(v.volumeName, v.nodeName, v.spec);
    return this.npo.run(key, adcOperationName(this.ctx.profile, "volume_attach"), this.runAttachVolume, v, this);
  }
  /** the operation itself */
  private runAttachVolume(op: Done, v: VolumeToAttach): void {
    const { ctx } = this;
    const plugin = this.plugins.findBySpec(v.spec)!;
    ctx.steps.step("adc.AttachStarted", v.volumeName);
    plugin.attach!(this.env, v.spec, v.nodeName, (err, devicePath) => {
      if (this.dead) return;
      // (the events go to the pods scheduled now; marking the ASW does not change them)
      if (err) {
        if (ctx.profile.attachUncertain) this.asw.markVolumeAsUncertain(v.volumeName, v.spec, v.nodeName);
        this.podEvents(v.scheduledPods, "Warning", "FailedAttachVolume", attachFailedMessage(v.spec.name, err));
        ctx.steps.step("adc.AttachFailed", v.volumeName);
        // (the event has its own text; this one is read by the failure's log line alone)
        return op.done(() => `AttachVolume.Attach failed ${volDetail(v, v.nodeName, "from")}: ${err}`);
      }
      this.asw.markVolumeAsAttached(v.volumeName, v.spec, v.nodeName, devicePath ?? "");
      ctx.out.on && ctx.out.wants(ADC_COMPONENT) && ctx.out.log(ADC_COMPONENT, "I", "operation_generator.go:360", `AttachVolume.Attach succeeded ${volDetail(v, v.nodeName, "from")}`);
      this.podEvents(v.scheduledPods, "Normal", "SuccessfulAttachVolume", attachSucceededMessage(v.spec.name));
      ctx.steps.step("adc.AttachSucceeded", v.volumeName);
      op.done(null);
    });
  }

  detachVolume(av: AttachedVolumeRef, verifySafe: boolean): RunResult {
    const { ctx } = this;
    // without a spec (a volume known from node status alone) the plugin is found by the name's first two parts
    const pluginName = av.spec ? "" : splitUniqueNamePlugin(av.volumeName);
    let plugin = av.spec ? this.plugins.findBySpec(av.spec) : this.plugins.findByName(pluginName);
    // an in-tree plugin removed from the release or unregistered by a gate cannot detach (volume/csimigration.ts section 3)
    if (plugin !== undefined && ctx.migration?.volumes && !inTreePluginRegistered(ctx.profile, ctx.migration.gates, plugin.name)) plugin = undefined;
    const key = attachDetachKey(av.volumeName, av.nodeName, av.spec);
    return this.npo.run(key, adcOperationName(this.ctx.profile, "volume_detach"), (op) => {
      // a failure's text is read by its log line and its causal note alone: built when one of them is
      const fail = (err: ErrorText): void => {
        this.asw.addVolumeToReportAsAttached(av.volumeName, av.nodeName);
        ctx.steps.step("adc.DetachFailed", av.volumeName);
        ctx.out.note(`volume:${av.volumeName}`, () => `DetachVolume.Detach of ${av.volumeName} from ${av.nodeName} failed: ${errorText(err)}`);
        op.done(err);
      };
      if (!plugin?.detach) return fail(() => `DetachVolume.FindAttachablePluginBySpec failed ${volDetail(av, av.nodeName)}`);
      // verifyVolumeIsSafeToDetach (operation_generator.go, v1.22.0): a node the
      // API server does not know skips the check; any other error fails the
      // detach, which the volume's backoff then retries
      if (verifySafe) {
        let node: KObj | undefined;
        try {
          node = ctx.api.get("Node", av.nodeName);
        } catch (e) {
          if (!(e instanceof ApiError) || e.reason !== "NotFound") {
            const msg = (e as Error).message;
            return fail(() => `DetachVolume failed fetching node from API server ${volDetail(av, av.nodeName)}: ${msg}`);
          }
          ctx.out.on && ctx.out.wants(ADC_COMPONENT) && ctx.out.log(ADC_COMPONENT, "W", "operation_generator.go:1570", `Node not found on API server. DetachVolume will skip safe to detach check ${volDetail(av, av.nodeName)}`);
        }
        if (node && ((node.status?.volumesInUse ?? []) as string[]).includes(av.volumeName))
          return fail(() => `DetachVolume failed ${volDetail(av, av.nodeName)}: volume is still in use by node, according to Node status`);
        // klog.Infof(GenerateMsgDetailed("Verified volume is safe to detach", "")) at the end of
        // verifyVolumeIsSafeToDetach, text in every release (26 lines below the :1570 warning, v1.22.0)
        if (node) ctx.out.on && ctx.out.wants(ADC_COMPONENT) && ctx.out.log(ADC_COMPONENT, "I", "operation_generator.go:1596", `Verified volume is safe to detach ${volDetail(av, av.nodeName)}`);
      }
      const volumeName = av.spec ? plugin.getVolumeName(av.spec) : av.volumeName.slice(pluginName.length + 1);
      const flightKey = `${av.volumeName}\u0000${av.nodeName}`;
      this.detachesInFlight.set(flightKey, { volumeName: av.volumeName, nodeName: av.nodeName });
      ctx.steps.step("adc.DetachStarted", av.volumeName);
      plugin.detach(this.env, volumeName, av.nodeName, (err) => {
        if (this.dead) {
          ctx.out.note(
            `volume:${av.volumeName}`,
            err
              ? () => `the storage backend answered the lost DetachVolume of ${av.volumeName} from ${av.nodeName} with an error nobody receives: ${errorText(err)}`
              : `the lost DetachVolume of ${av.volumeName} from ${av.nodeName} completed at the storage backend after the controller-manager that sent it had stopped`,
          );
          return;
        }
        this.detachesInFlight.delete(flightKey);
        if (err) return fail(() => `DetachVolume.Detach failed ${volDetail(av, av.nodeName)}: ${errorText(err)}`);
        this.asw.markVolumeAsDetached(av.volumeName, av.nodeName);
        ctx.out.on && ctx.out.wants(ADC_COMPONENT) && ctx.out.log(ADC_COMPONENT, "I", "operation_generator.go:472", `DetachVolume.Detach succeeded ${volDetail(av, av.nodeName)}`);
        ctx.steps.step("adc.DetachSucceeded", av.volumeName);
        op.done(null);
      });
    });
  }

  /** (a method: a closure in processVolumeAttachments' loop would capture its loop variables) */
  private noteSkippedAttachment(vaName: string, pvName: string, node: string): void {
    const has102176 = this.ctx.profile.has.pr102176;
    this.ctx.out.note(`va:${vaName}`, () => `kube-controller-manager's start-up (processVolumeAttachments) skipped VolumeAttachment ${vaName} of PV ${pvName} on ${node}: the PV's in-tree plugin is unregistered and ${has102176 ? "its CSI migration is off" : "this version looks it up before asking the CSI migration (#102176, 1.21.2, translates it first)"}, so the volume is not marked uncertain and is never detached`);
  }

  /**
   * Observer query for end-of-run explanations: does this controller track
   * storage volume `backendId` on `node` at all (ASW or DSW)? Matches unique
   * names ending in "/<id>" (in-tree) or "^<id>" (CSI).
   */
  tracksVolume(backendId: string, node: string): boolean {
    const named = (u: string): boolean => u.endsWith(`/${backendId}`) || u.endsWith(`^${backendId}`);
    for (const [u, v] of this.asw.attachedVolumes) if (named(u) && v.nodesAttachedTo.has(node)) return true;
    return this.dsw.getVolumesToAttach().some((v) => v.nodeName === node && named(v.volumeName));
  }

  /** exposed for ApiServer-independent unit tests */
  get api(): ApiServer {
    return this.ctx.api;
  }
}
