// pkg/controller/volume/attachdetach/reconciler: every 100 ms, detach what is
// attached but no longer desired, then attach what is desired but not
// attached, then flush node status.
//
// 1. Detach phase, per (volume, node) attached in the ASW and not desired:
//
//    before #104526 (<= 1.22.3)              with #104526 (1.23+, 1.22.4+)
//    skip if an op is pending                 skip if an op is pending OR backing off
//    set detachRequestedTime                  (same)
//    wait while mountedByNode, unless timed   (same; force rules below)
//      out (6 min)
//    RemoveVolumeFromReportAsAttached         (same)
//    UpdateNodeStatuses() (all nodes)         UpdateNodeStatusForNode (1.24+)
//    DetachVolume; a backoff error is         DetachVolume; ANY error re-adds
//      ignored: nothing re-adds the volume      the volume to the report list
//
//    Seed 002, worked through (1.22.0, 100 ms grid): t=60.0 s the detach is
//    started after the volume was taken off node.status; at 62.0 s the cloud
//    answers "cvm is detaching disk" -> re-added, backoff 500 ms. Pass 62.1 s
//    removes it again and patches node.status without it; DetachVolume is
//    refused (backoff) and the refusal ignored. At 62.3 s the StatefulSet pod
//    is back on the node: from now on the volume is desired, the detach phase
//    skips it, the attach phase finds it Attached and only resets the detach
//    timer. Nothing ever re-adds it: node.status.volumesAttached lacks it for
//    ever and the kubelet reports "Volume not attached according to node
//    status". With #104526 the pass at 62.1 s sees the backoff and touches
//    nothing, so node.status keeps the volume.
//
// 2. Force detach after ADC_MAX_WAIT_FOR_UNMOUNT_MS (6 min) with mountedByNode
//    still true: always before #110721 (1.25); since then only when the node is
//    not Ready. --disable-force-detach-on-timeout (1.30) turns the timer off.
//    The out-of-service taint (its key, any effect) forces the detach at once
//    (1.26+ by default). With both, the log line is the timeout's.
//    A forced detach skips the verify-safe-to-detach GET of the node.
//
// 3. Attach phase: skip if an op is pending on the volume (node-scoped for
//    multi-attach volumes). Attached -> ResetDetachRequestTime ("touch").
//    An RWO volume attached elsewhere -> one Multi-Attach error event.
//    Otherwise AttachVolume.

//
// 4. Interleave points (settings.interleave; volume/operation.ts section 3):
//    (a) after GetAttachedVolumes, before each volume's pending check, (b)
//    between the detach and attach loops, (c) after GetVolumesToAttach,
//    before each pending check, (d) before UpdateNodeStatuses. At each a
//    call of the controller's due now may end, nested in the pass, which
//    then works from its copy (GetAttachedVolumes: attachedVolumeRef). At
//    (a) a detach that ends leaves the copy listing a detached volume:
//    before #94599 (1.20.0, 1.19.8, 1.18.16; issue #93902) SetDetachRequestTime
//    fails ("Cannot trigger detach because it fails to set detach request
//    time with error ... is no longer attached to the node"), since it the
//    pass reads GetAttachState again and skips the volume. Worked example:
//    versions/scenarios/adc-detach-interleave.yaml, seed 5.

import type { KObj } from "../api/types.js";
import { hasOutOfServiceTaint, nodeReady } from "../api/types.js";
import type { TimerConfig } from "../engine/config.js";
import type { StepName } from "../engine/context.js";
import { formatGoDuration, type Sim } from "../engine/sim.js";
import type { Recorder } from "../output/recorder.js";
import type { RunResult } from "../util/nestedpendingoperations.js";
import type { Profile } from "../versions/profile.js";
import { isMultiAttachAllowed } from "../volume/plugins.js";
import { attachedVolumeRef, type ActualStateOfWorld, type AttachedVolumeRef } from "./cache/actual_state_of_world.js";
import type { DesiredStateOfWorld, VolumeToAttach } from "./cache/desired_state_of_world.js";
import type { NodeStatusUpdater } from "./statusupdater.js";

export interface AttacherDetacher {
  attachVolume(v: VolumeToAttach): RunResult;
  detachVolume(av: AttachedVolumeRef, verifySafeToDetach: boolean): RunResult;
  isOperationPending(volumeName: string, podName: string, nodeName: string): boolean;
  isOperationSafeToRetry(volumeName: string, podName: string, nodeName: string, operationName: string): boolean;
}

/** corelisters.NodeLister: a node from the controller's informer cache */
export interface NodeLister {
  getNode(name: string): KObj | undefined;
}

/** the controller's event recorder, for the FailedAttachVolume / Multi-Attach events on pods */
export interface PodEventRecorder {
  /** an event on each pod, given as uid -> "ns/name" (a DSW entry's scheduledPods) */
  podEvents(pods: ReadonlyMap<string, string>, type: "Normal" | "Warning", reason: string, message: string): void;
}

/**
 * What the reconciler is given. The parts are objects with methods (in a
 * run, the controller and the run's Steps), not closures: a controller is
 * built per run, and closures made for it would be too.
 */
export interface ReconcilerDeps {
  sim: Sim;
  profile: Profile;
  timers: TimerConfig;
  out: Recorder;
  component: string;
  asw: ActualStateOfWorld;
  dsw: DesiredStateOfWorld;
  nodeLister: NodeLister;
  ad: AttacherDetacher;
  statusUpdater: NodeStatusUpdater;
  recorder: PodEventRecorder;
  steps: { step(name: StepName, detail: string): void };
}

export interface Reconciler {
  reconcile(): void;
  /** reportMultiAttachError (upstream's tests call it directly) */
  reportMultiAttachError(v: VolumeToAttach, nodes: readonly string[]): void;
}

export function volDetail(av: { volumeName: string; spec?: { name: string } | undefined }, node: string, from = "on"): string {
  return `for volume ${JSON.stringify(av.spec?.name ?? "")} (UniqueName: ${JSON.stringify(av.volumeName)}) ${from} node ${JSON.stringify(node)} `;
}

export function createReconciler(d: ReconcilerDeps): Reconciler {
  return new reconciler(d);
}

/** reconciler.go's reconciler: one object per controller, its phases methods (no closures per controller and run) */
class reconciler implements Reconciler {
  private readonly sim: Sim;
  private readonly profile: Profile;
  private readonly timers: TimerConfig;
  private readonly out: Recorder;
  private readonly component: string;
  private readonly asw: ActualStateOfWorld;
  private readonly dsw: DesiredStateOfWorld;
  private readonly ad: AttacherDetacher;
  private readonly fixed: boolean;
  // (volume, node) pairs whose detach has been refused since the last one
  // started: the refusal (and a force detach's timeout) is noted and stepped
  // once per failed detach, not at every pass that meets it again. Those
  // later passes change nothing and so are idle (engine/sim.ts section 3):
  // ticking every period runs them, skipping idle ticks does not, and a step
  // recorded by them would differ between the two (an `after:
  // adc.DetachSkippedAfterRemove` item with them)
  private refused: Set<string> | undefined = undefined; // (made by the first refusal: most runs have none)

  constructor(private readonly d: ReconcilerDeps) {
    this.sim = d.sim;
    this.profile = d.profile;
    this.timers = d.timers;
    this.out = d.out;
    this.component = d.component;
    this.asw = d.asw;
    this.dsw = d.dsw;
    this.ad = d.ad;
    this.fixed = d.profile.has.pr104526;
  }

  reconcile(): void {
    const il = this.sim.interleave;
    if (this.detachPhase()) return;
    // interleave point (b): a detach ending here lets this pass's attach
    // phase start the attach it would otherwise skip as pending
    if (il && this.sim.yieldPoint()) return;
    if (this.attachPhase(il)) return;
    // interleave point (d): an attach ending here is in this pass's node status update
    if (il && this.sim.yieldPoint()) return;
    this.d.statusUpdater.updateNodeStatuses();
  }

  private detachPhase(): boolean {
    const { sim, asw, dsw } = this;
    if (sim.interleave) {
      // GetAttachedVolumes: a copy, as upstream's, since an operation may
      // now complete inside the pass (yieldPoint) and change the ASW
      const snap: AttachedVolumeRef[] = [];
      for (const vol of asw.attachedVolumes.values()) for (const nat of vol.nodesAttachedTo.values()) snap.push(attachedVolumeRef(vol, nat));
      for (const av of snap) {
        if (dsw.volumeExists(av.volumeName, av.nodeName)) continue;
        if (this.detachOne(av)) return true;
      }
      return false;
    }
    // GetAttachedVolumes, snapshotting only the entries not desired: nothing in
    // this loop changes the ASW's entries synchronously (operations complete
    // in later events), so a snapshot taken as we go equals one taken first
    for (const vol of asw.attachedVolumes.values()) for (const nat of vol.nodesAttachedTo.values()) {
      if (dsw.volumeExists(vol.volumeName, nat.nodeName)) continue;
      this.detachOne(attachedVolumeRef(vol, nat));
    }
    return false;
  }

  /** the detach phase for one attached volume no longer desired (`av`: the pass's copy); true: the pass must end (yieldPoint) */
  private detachOne(av: AttachedVolumeRef): boolean {
    const { sim, profile, timers, out, component, asw, ad, fixed, d } = this;
    {
      const keyNode = isMultiAttachAllowed(av.spec) ? av.nodeName : "";
      // interleave point (a): between GetAttachedVolumes and the pending
      // check a detach of this volume may complete (issue #93902)
      if (sim.yieldPoint()) return true;
      if (fixed) {
        if (!ad.isOperationSafeToRetry(av.volumeName, "", keyNode, "volume_detach")) return false;
      } else if (ad.isOperationPending(av.volumeName, "", keyNode)) return false;
      // #94599 (1.20.0, 1.19.8, 1.18.16): the detach marks the ASW before
      // it completes, so the copy may list a volume detached since: read
      // the ASW again (reconciler.go: GetAttachState == AttachStateDetached,
      // "Volume detached--skipping", V(5)). Before it SetDetachRequestTime
      // fails on the missing entry and the pass logs an error.
      if (profile.has.pr94599 && asw.getAttachState(av.volumeName, av.nodeName) === "Detached") return false;
      const elapsed = asw.setDetachRequestTime(av.volumeName, av.nodeName);
      if (elapsed < 0) {
        out.on && out.wants(component) && out.log(component, ...adcSetDetachRequestTimeFailedLine(av, profile));
        d.steps.step("adc.SetDetachRequestTimeFailed", av.volumeName);
        return false;
      }
      const requested = sim.now - elapsed;
      const timeout = elapsed > timers.ADC_MAX_WAIT_FOR_UNMOUNT_MS;
      const node = d.nodeLister.getNode(av.nodeName);
      const healthy = nodeReady(node);
      const forceOnTimeout = timeout && !profile.fix["disable-force-detach-on-timeout"];
      const forceDetach = profile.has.pr110721 ? !healthy && forceOnTimeout : forceOnTimeout;
      const oos = profile.fix["out-of-service"] && hasOutOfServiceTaint(node);
      if (av.mountedByNode && !forceDetach && !oos) {
        if (!timeout && !profile.fix["disable-force-detach-on-timeout"]) sim.wakeAt(requested + timers.ADC_MAX_WAIT_FOR_UNMOUNT_MS + 1);
        return false;
      }
      // a pass that meets the same refusal again changes nothing and records nothing (see `refused`)
      const refusedKey = `${av.volumeName}\0${av.nodeName}`;
      // (this.refused, not a copy taken at the pass's start: the first refusal makes the set mid-pass)
      const refused = this.refused;
      const again = refused !== undefined && refused.has(refusedKey) && !ad.isOperationSafeToRetry(av.volumeName, "", keyNode, "volume_detach");
      if (timeout && av.mountedByNode && forceDetach && !again) d.steps.step("adc.ForceDetachTimeout", av.volumeName);

      const rmErr = asw.removeVolumeFromReportAsAttached(av.volumeName, av.nodeName);
      if (rmErr) {
        out.on && out.wants(component) && out.log(component, ...adcRemoveFromReportFailedLine(av, rmErr, profile));
        // the next pass logs this again: it is not idle (engine/sim.ts section 3)
        sim.wakeAt(sim.now + 1);
      }
      if (!asw.isInReport(av.volumeName, av.nodeName) && !fixed)
        out.note(`volume:${av.volumeName}`, () => `the attach/detach controller removed ${av.volumeName} from ${av.nodeName}'s report list (node.status.volumesAttached) before starting its detach`);
      const upErr = profile.perNodeStatusUpdate ? d.statusUpdater.updateNodeStatusForNode(av.nodeName) : d.statusUpdater.updateNodeStatuses();
      if (upErr) {
        out.on && out.wants(component) && out.log(component, ...adcStatusUpdateFailedLine(av, upErr, profile, out, component));
        // #111205 (1.26.0, 1.25.1, 1.24.5, 1.23.11, 1.22.14): put it back, or a pod
        // that wants the volume again before the next pass finds it off node
        // status for good (issue #111000; reconciler.go reconcile, v1.26.0)
        if (profile.reAddOnStatusUpdateFailure) asw.addVolumeToReportAsAttached(av.volumeName, av.nodeName);
        return false;
      }
      const verifySafe = !(forceOnTimeout && timeout) && !oos;
      const r = ad.detachVolume(av, verifySafe);
      if (r === null) {
        if (refused !== undefined) refused.delete(refusedKey);
        // the timeout branch comes first, whether the node is tainted or not
        // (reconciler.go reconcile: `if !timeout` v1.25.0, `if
        // forceDetachTimeoutExpired` v1.30.0); each era's text: adcDetachStartedLine
        if (out.on && out.wants(component)) out.log(component, ...adcDetachStartedLine(verifySafe ? "verify" : forceOnTimeout && timeout ? "timeout" : "oos", av, profile, out, component, timers.ADC_MAX_WAIT_FOR_UNMOUNT_MS));
        return false;
      }
      if (fixed) {
        asw.addVolumeToReportAsAttached(av.volumeName, av.nodeName);
      } else if ((r === "ExponentialBackoff" || r === "AlreadyExists") && !again) {
        // expected errors, ignored: nothing puts the volume back on the report list
        (this.refused ??= new Set()).add(refusedKey);
        out.note(
          `volume:${av.volumeName}`,
          () => `a detach of ${av.volumeName} from ${av.nodeName} was refused (${r === "ExponentialBackoff" ? "previous detach failed, backing off" : "already running"}) after the volume had been removed from node.status.volumesAttached; the refusal is ignored and the volume is not re-added (fixed by #104526)`,
        );
        d.steps.step("adc.DetachSkippedAfterRemove", av.volumeName);
      }
    }
    return false;
  }

  private attachPhase(il: boolean): boolean {
    const { sim, profile, out, component, asw, dsw, ad, d } = this;
    for (const v of dsw.getVolumesToAttach()) {
      const multi = isMultiAttachAllowed(v.spec);
      // interleave point (c): between GetVolumesToAttach and the pending check
      if (il && sim.yieldPoint()) return true;
      if (ad.isOperationPending(v.volumeName, "", multi ? v.nodeName : "")) continue;
      const state = profile.attachUncertain ? asw.getAttachState(v.volumeName, v.nodeName) : asw.attachedVolumes.get(v.volumeName)?.nodesAttachedTo.has(v.nodeName) ? "Attached" : "Detached";
      if (state === "Attached") {
        asw.resetDetachRequestTime(v.volumeName, v.nodeName);
        continue;
      }
      // (the other nodes' list is built only when there is one: this runs for every volume at every pass)
      if (!multi && profile.version.minor >= 7 && asw.isAttachedElsewhere(v.volumeName, v.nodeName)) {
        if (!v.multiAttachErrorReported) {
          this.reportMultiAttachError(v, asw.getNodesForAttachedVolume(v.volumeName));
          dsw.setMultiAttachError(v.volumeName, v.nodeName);
        }
        continue;
      }
      const r = ad.attachVolume(v);
      if (r === null) out.on && out.wants(component) && out.log(component, ...adcAttachStartedLine(v, profile));
    }
    return false;
  }

  /**
   * reportMultiAttachError: the FailedAttachVolume event on the pods of `v`
   * and the administrator's log line; `nodes` are the nodes the volume is
   * attached to (`v`'s own is left out).
   */
  reportMultiAttachError(v: VolumeToAttach, nodes: readonly string[]): void {
    const { profile, out, component, dsw, d } = this;
    const otherNodes = nodes.filter((n) => n !== v.nodeName);
    const others = dsw.getVolumePodsOnNodes(otherNodes, v.volumeName);
    const prefix = `Multi-Attach error for volume ${JSON.stringify(v.spec.name)} `;
    if (others.length === 0) d.recorder.podEvents(v.scheduledPods, "Warning", "FailedAttachVolume", `${prefix}Volume is already exclusively attached to one node and can't be attached to another`);
    else if (others.every((k) => namespaceOf(k) === podNamespace(v.scheduledPods)))
      // every blocking pod in the namespace of every scheduled pod: one text for all (the common case)
      d.recorder.podEvents(v.scheduledPods, "Warning", "FailedAttachVolume", `${prefix}${usedByMessage(others, podNamespace(v.scheduledPods))}`);
    else
      // each scheduled pod gets its own text: pods of other namespaces are
      // counted, not named (PR #56288, 1.10: "user of a namespace should not
      // see names of pods in other namespaces")
      for (const [uid, key] of v.scheduledPods) d.recorder.podEvents(new Map([[uid, key]]), "Warning", "FailedAttachVolume", `${prefix}${usedByMessage(others, namespaceOf(key))}`);
    out.on && out.wants(component) && out.log(component, ...adcMultiAttachLine(v, others, otherNodes, profile));
  }
}

/** a pod key's namespace ("ns/name", or "name" for a pod without one: api/types.ts keyOf) */
function namespaceOf(key: string): string {
  const i = key.indexOf("/");
  return i < 0 ? "" : key.slice(0, i);
}

/** the one namespace of the scheduled pods, or "\u0000" when they are in several */
function podNamespace(pods: ReadonlyMap<string, string>): string {
  let ns: string | undefined;
  for (const key of pods.values()) {
    const n = namespaceOf(key);
    if (ns === undefined) ns = n;
    else if (ns !== n) return "\u0000";
  }
  return ns ?? "";
}

/**
 * reportMultiAttachError's text for a pod of namespace `ns`: the blocking
 * pods of its namespace by name, the others counted ("Volume is already used
 * by pod(s) a, b and 1 pod(s) in different namespaces"; reconciler.go since
 * PR #56288, 1.10).
 */
export function usedByMessage(others: readonly string[], ns: string): string {
  const local: string[] = [];
  let otherPods = 0;
  for (const k of others) {
    if (namespaceOf(k) === ns) local.push(k.slice(k.indexOf("/") + 1));
    else otherPods++;
  }
  if (local.length === 0) return `Volume is already used by ${otherPods} pod(s) in different namespaces`;
  const msg = `Volume is already used by pod(s) ${local.join(", ")}`;
  return otherPods > 0 ? `${msg} and ${otherPods} pod(s) in different namespaces` : msg;
}

// ---- the reconciler's log lines by release (Profile.adcLogs) ----------------
//
// What upstream's reconciler.go prints, per era (bindings/k8s/README.md, "What
// the log lines match"). Text (<= 1.23): klog.Infof/Warningf of
// GenerateMsgDetailed. Structured (1.24-1.26) and contextual (1.27-1.29):
// klog.InfoS / logger.Info with the whole cache struct as `volume=` (klog
// prints a struct value with %+v, unquoted: a pointer as 0xc..., a time.Time
// with its String(), as a v1.27 controller-manager printed
// `reconciler.go:273] "attacherDetacher.DetachVolume started"
// volume={AttachedVolume:{VolumeName:... VolumeSpec:0xc0025c0450 NodeName:...
// PluginIsAttachable:true DevicePath: DeviceMountPath: PluginName:
// SELinuxMountContext:} MountedByNode:false DetachRequestedTime:2023-06-19
// 08:07:20.940312466 +0000 UTC m=+6213.720318660}`); a Stringer such as a
// Duration is quoted (duration="6m0s"). Named (1.30+): `node`/`volumeName`
// keys and the controller's logger name, as a newer controller-manager
// printed `reconciler.go:360] "attacherDetacher.AttachVolume started"
// logger="persistentvolume-attach-detach-controller" volumeName="..."
// nodeName="k2" scheduledPods=["openstack/mariadb-server-0"]`. Line numbers:
// 273 and 385 are that v1.27 controller-manager's; 360 the newer one's; the
// others are counted from them in the source of the same era (v1.30's
// reconciler.go for "named"), and are approximate for the other releases.

type AdcLine = readonly [severity: "I" | "W" | "E", src: string, msg: string];

const ADC_LOGGER = `logger="persistentvolume-attach-detach-controller"`;
/** Go's zero time.Time, as String() prints it (a DetachRequestedTime not set yet) */
const GO_ZERO_TIME = "0001-01-01 00:00:00 +0000 UTC";

/** a *volume.Spec as %+v prints a pointer: made up, the same for a volume name within a run */
function goPointer(key: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return `0xc000${((h & 0xfffff) << 3).toString(16).padStart(6, "0")}`;
}

/** cache.AttachedVolume as klog prints it (%+v): the reconciler's snapshot, taken before this pass's SetDetachRequestTime */
export function goAttachedVolume(av: AttachedVolumeRef, profile: Profile, out: Recorder, component: string): string {
  const t = av.detachRequestedTime === 0 ? GO_ZERO_TIME : out.goTime(av.detachRequestedTime, component);
  // SELinuxMountContext: operationexecutor.AttachedVolume from 1.25 (KEP-1710)
  const selinux = profile.version.minor >= 25 ? " SELinuxMountContext:" : "";
  return `{AttachedVolume:{VolumeName:${av.volumeName} VolumeSpec:${goPointer(av.volumeName)} NodeName:${av.nodeName} PluginIsAttachable:true DevicePath:${av.devicePath} DeviceMountPath: PluginName:${selinux}} MountedByNode:${av.mountedByNode} DetachRequestedTime:${t}}`;
}

/**
 * cache.VolumeToAttach as klog prints it (%+v). Each scheduled pod is a
 * *v1.Pod, whose String() prints the whole object; only its ObjectMeta's
 * name, generateName (none), namespace, selfLink (none) and UID are kept,
 * the rest is elided as `...`.
 */
export function goVolumeToAttach(v: VolumeToAttach): string {
  let pods = "";
  for (const [uid, key] of v.scheduledPods) {
    const i = key.indexOf("/");
    pods += `${pods ? " " : ""}&Pod{ObjectMeta:{${key.slice(i + 1)}  ${key.slice(0, i)}  ${uid} ...} ...}`;
  }
  return `{VolumeToAttach:{MultiAttachErrorReported:${v.multiAttachErrorReported} VolumeName:${v.volumeName} VolumeSpec:${goPointer(v.volumeName)} NodeName:${v.nodeName} ScheduledPods:[${pods}]}}`;
}

/** klog.KObjSlice of "ns/name" keys as the text logger prints it: ["ns/a" "ns/b"] */
function goKObjSlice(keys: Iterable<string>): string {
  let s = "";
  for (const k of keys) s += `${s ? " " : ""}${JSON.stringify(k)}`;
  return `[${s}]`;
}

/**
 * The "DetachVolume started" line: after a verified detach, a timeout force
 * detach, or an out-of-service force detach. Until 1.29 upstream chooses by
 * `if !timeout`, so an out-of-service detach logs as a verified one
 * (reconciler.go v1.25.0); 1.30 has a message of its own for it.
 */
export function adcDetachStartedLine(kind: "verify" | "timeout" | "oos", av: AttachedVolumeRef, profile: Profile, out: Recorder, component: string, maxWaitMs: number): AdcLine {
  const era = profile.adcLogs;
  if (era === "text") {
    if (kind === "verify") return ["I", "reconciler.go:255", `attacherDetacher.DetachVolume started ${volDetail(av, av.nodeName)}`];
    if (kind === "timeout")
      return ["W", "reconciler.go:258", `attacherDetacher.DetachVolume started ${volDetail(av, av.nodeName)}This volume is not safe to detach, but maxWaitForUnmountDuration ${formatGoDuration(maxWaitMs)} expired, force detaching`];
    // no text-era release has the taint (1.26+ by default): a switch turned on by hand
    return ["W", "reconciler.go:258", `attacherDetacher.DetachVolume started: node has out-of-service taint, force detaching ${volDetail(av, av.nodeName)}`];
  }
  const timeoutMsg = `"attacherDetacher.DetachVolume started: this volume is not safe to detach, but maxWaitForUnmountDuration expired, force detaching"`;
  if (era === "named") {
    const keys = `node=${JSON.stringify(av.nodeName)} volumeName=${JSON.stringify(av.volumeName)}`;
    if (kind === "verify") return ["I", "reconciler.go:275", `"attacherDetacher.DetachVolume started" ${ADC_LOGGER} ${keys}`];
    if (kind === "timeout") return ["I", "reconciler.go:279", `${timeoutMsg} ${ADC_LOGGER} duration="${formatGoDuration(maxWaitMs)}" ${keys}`];
    return ["I", "reconciler.go:285", `"attacherDetacher.DetachVolume started: node has out-of-service taint, force detaching" ${ADC_LOGGER} ${keys}`];
  }
  const vol = `volume=${goAttachedVolume(av, profile, out, component)}`;
  if (kind === "timeout") return ["I", "reconciler.go:276", `${timeoutMsg} duration="${formatGoDuration(maxWaitMs)}" ${vol}`];
  return ["I", "reconciler.go:273", `"attacherDetacher.DetachVolume started" ${vol}`];
}

/** RemoveVolumeFromReportAsAttached failed: klog.V(5).Infof up to 1.26, logger.V(5).Info with node/volumeName/err keys from 1.27 (#113584) */
export function adcRemoveFromReportFailedLine(av: AttachedVolumeRef, err: string, profile: Profile): AdcLine {
  const era = profile.adcLogs;
  if (era === "text" || era === "structured")
    return ["I", "reconciler.go:213", `RemoveVolumeFromReportAsAttached failed while removing volume ${JSON.stringify(av.volumeName)} from node ${JSON.stringify(av.nodeName)} with: ${err}`];
  const keys = `node=${JSON.stringify(av.nodeName)} volumeName=${JSON.stringify(av.volumeName)} err=${JSON.stringify(err)}`;
  return era === "named" ? ["I", "reconciler.go:247", `"RemoveVolumeFromReportAsAttached failed while removing volume from node" ${ADC_LOGGER} ${keys}`] : ["I", "reconciler.go:245", `"RemoveVolumeFromReportAsAttached failed while removing volume from node" ${keys}`];
}

/** The node status update before a detach failed (ErrorS from 1.24, which always calls UpdateNodeStatusForNode). */
export function adcStatusUpdateFailedLine(av: AttachedVolumeRef, err: string, profile: Profile, out: Recorder, component: string): AdcLine {
  const era = profile.adcLogs;
  if (era === "text") return ["E", "reconciler.go:230", `UpdateNodeStatuses failed while attempting to report volume as attached ${volDetail(av, av.nodeName)}: ${err}`];
  const msg = `"UpdateNodeStatusForNode failed while attempting to report volume as attached" err=${JSON.stringify(err)}`;
  if (era === "named") return ["E", "reconciler.go:257", `${msg} ${ADC_LOGGER} node=${JSON.stringify(av.nodeName)} volumeName=${JSON.stringify(av.volumeName)}`];
  return ["E", "reconciler.go:255", `${msg} volume=${goAttachedVolume(av, profile, out, component)}`];
}

/**
 * SetDetachRequestTime failed: the pass's copy of the ASW lists a volume a
 * detach removed since (before #94599; issue #93902). klog.Errorf up to 1.23
 * (`failed to set detach request time with error: volume V is no longer
 * attached to the node "N"`, actual_state_of_world.go getNodeAndVolume),
 * ErrorS after. Line numbers approximate.
 */
export function adcSetDetachRequestTimeFailedLine(av: AttachedVolumeRef, profile: Profile): AdcLine {
  const err = `failed to set detach request time with error: volume ${av.volumeName} is no longer attached to the node ${JSON.stringify(av.nodeName)}`;
  const era = profile.adcLogs;
  if (era === "text") return ["E", "reconciler.go:178", `Cannot trigger detach because it fails to set detach request time with error ${err}`];
  return ["E", "reconciler.go:206", `"Cannot trigger detach because it fails to set detach request time with error" err=${JSON.stringify(err)}${era === "named" ? ` ${ADC_LOGGER}` : ""}`];
}

/** "AttachVolume started" */
export function adcAttachStartedLine(v: VolumeToAttach, profile: Profile): AdcLine {
  const era = profile.adcLogs;
  if (era === "text") return ["I", "reconciler.go:304", `attacherDetacher.AttachVolume started ${volDetail(v, v.nodeName, "from")}`];
  if (era === "structured") return ["I", "reconciler.go:348", `"attacherDetacher.AttachVolume started" volume=${goVolumeToAttach(v)}`];
  const keys = `volumeName=${JSON.stringify(v.volumeName)} nodeName=${JSON.stringify(v.nodeName)} scheduledPods=${goKObjSlice(v.scheduledPods.values())}`;
  return era === "named" ? ["I", "reconciler.go:360", `"attacherDetacher.AttachVolume started" ${ADC_LOGGER} ${keys}`] : ["I", "reconciler.go:348", `"attacherDetacher.AttachVolume started" ${keys}`];
}

/**
 * reportMultiAttachError's line for the administrator (the event has its own
 * text): `others` are the "ns/name" keys of the pods using the volume on the
 * other nodes, `nodes` those nodes.
 */
export function adcMultiAttachLine(v: VolumeToAttach, others: readonly string[], nodes: readonly string[], profile: Profile): AdcLine {
  const era = profile.adcLogs;
  if (era === "text") {
    // GenerateMsgDetailed("Multi-Attach error", ...), klog.Warningf (reconciler.go reportMultiAttachError, v1.22.0)
    const why = others.length > 0 ? `Volume is already used by pods ${others.join(", ")} on node ${nodes.join(", ")}` : `Volume is already exclusively attached to node ${nodes.join(", ")} and can't be attached to another`;
    return ["W", "reconciler.go:370", `Multi-Attach error ${volDetail(v, v.nodeName, "from")}${why}`];
  }
  const attachedTo = `attachedTo=[${nodes.join(" ")}]`;
  const logger = era === "named" ? ` ${ADC_LOGGER}` : "";
  const vol = `volume=${goVolumeToAttach(v)}`;
  const [ex, used] = era === "named" ? ["reconciler.go:397", "reconciler.go:433"] : ["reconciler.go:385", "reconciler.go:421"];
  if (others.length === 0) return ["I", ex, `"Multi-Attach error: volume is already exclusively attached and can't be attached to another node"${logger} ${attachedTo} ${vol}`];
  // klog.KObjs (a []ObjectRef, %+v) until 1.26, klog.KObjSlice after
  const pods = era === "structured" ? `[${others.join(" ")}]` : goKObjSlice(others);
  return ["I", used, `"Multi-Attach error: volume is already used by pods"${logger} pods=${pods} ${attachedTo} ${vol}`];
}
