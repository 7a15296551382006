// pkg/kubelet/volumemanager: the kubelet's desired and actual state of the
// world, its populator, its reconciler and reconstruction after a restart.
//
// 1. Desired state (DSW): (pod, volume) pairs for pods the kubelet runs, each
//    with reportedInUse (the volume has been published in
//    node.status.volumesInUse). Filled every 100 ms by the populator from the
//    pod manager; a pod's volumes leave once its containers are all stopped
//    (or it is gone). Since 1.22 the populator does not (re)add a pod whose
//    deletion has begun (ShouldPodContainersBeTerminating).
//
// 2. Actual state (ASW): volume -> {attached, devicePath, deviceMounted,
//    pods mounted}. Lost on a kubelet restart; rebuilt by reconstruction.
//    node.status.volumesInUse is the DSW's attachable volumes plus, since
//    #71145 (1.13; switch `71145`, issue #70319), every volume the ASW knows
//    attached; before, only the globally mounted ones, so a volume whose
//    MountDevice (format and mount) was still running left the list when its
//    pod was deleted, and the attach/detach controller detached it under
//    mkfs (built-in detach-while-formatting).
//
// 3. Reconciler, every 100 ms: unmount (pod, volume) pairs not desired
//    (TearDown), mount desired ones (VerifyControllerAttachedVolume -> waits for
//    node.status.volumesAttached; then MountVolume = WaitForAttach,
//    MountDevice, SetUp), then UnmountDevice volumes no pod uses.
//    Each attach waits for two status round trips (kubelet -> volumesInUse ->
//    ADC attaches -> volumesAttached -> kubelet). Since #106853 (1.24; switch
//    `106853`) VerifyControllerAttachedVolume only starts once the volume is
//    reportedInUse ("lets not spin a goroutine and unnecessarily trigger
//    exponential backoff", reconciler.go waitForVolumeAttach). Before, it
//    started at once and failed ("Volume has not been added to the list of
//    VolumesInUse in the node's volume status") into the exponential backoff
//    of the volume's key (500 ms, doubling), which the "Volume not attached
//    according to node status" failures that follow share: the mount starts
//    at the first retry after both status round trips, up to one backoff
//    step later than on 1.24.
//
// 4. Reconstruction (syncStates), once the populator has added pods after a
//    restart: for each pods/<uid>/volumes/<plugin>/<name> dir on disk, rebuild
//    the spec from what the plugin left there and add it to the ASW so the
//    reconciler can unmount it. If that fails and no pod wants the volume,
//    cleanupMounts runs one UnmountVolume with a synthetic name and no ASW
//    entry; if that fails nothing ever retries it (seed 000/003).
//    Before #108997 the unique name of a CSI inline volume was asked of
//    GetVolumeName (plugin looked up by name -> "attachable"), which fails:
//    "unexpected api.CSIVolumeSource found in volume.Spec".
//    A volume on disk whose pod is in the DSW is skipped ("it will be
//    mounted the usual way"); since #110670 (1.25; switch `110670`, issues
//    #96635, #70044) it is remembered (skippedDuringReconstruction) and,
//    once the ASW knows it attached, each of its pods not mounted yet gets an
//    uncertain mount and its device an uncertain device mount
//    (processReconstructedVolumes, after every pass): a remount that fails
//    after the restart (a CSI node plugin not registered yet) and a pod
//    deleted meanwhile still get TearDown and UnmountDevice. Before, nothing
//    ever unmounted them (built-in kubelet-restart-remount-fails).
//
//    Since NewVolumeManagerReconstruction (#113262; switch `113262`: 1.27.0
//    and 1.27.1, off again in 1.27.2 by #117752, on from 1.28, GA 1.30)
//    reconstruction runs at the reconciler's first pass whatever the DSW
//    holds, and every volume it rebuilds goes into the ASW as an uncertain
//    mount of its pod (its device as an uncertain device mount): a pod that
//    wants it mounts it again without VerifyControllerAttachedVolume, a pod
//    gone gets TearDown and UnmountDevice; unmounts and the cleanup of
//    volumes that failed wait until the populator has added pods and
//    node.status has given the device paths (reconcileNew).
//
// 5. Uncertain device and volume mounts (#82492, 1.18.0; switch `82492`).
//    Every MountDevice/SetUp and their unmounts are operations whose calls
//    take time and may time out (volume/operation.ts). When a CSI NodeStage
//    or NodePublish ends with a non-final error (DeadlineExceeded,
//    Unavailable, Aborted, ResourceExhausted, Canceled), the driver may have
//    done or still be doing the work. Since 1.18 the kubelet then records
//    the device mount (`deviceUncertain`) or the pod's volume mount
//    (`uncertainPods`) as uncertain: the pod still waits (an uncertain mount
//    is not mounted for WaitForAttachAndMount), a retry calls MountDevice /
//    SetUp again, and once no pod wants the volume the reconciler calls
//    TearDown / UnmountDevice for it (NodeUnpublish / NodeUnstage, which the
//    driver answers Aborted while its own call is still running: retried with
//    backoff). A final error after an uncertain one marks the device or the
//    pod's mount unmounted again (markDeviceErrorState, markVolumeErrorState:
//    the driver has said it did not do the work), so no UnmountDevice /
//    TearDown follows. Before 1.18 a failed MountDevice / SetUp leaves no trace: on
//    pod deletion the volume is dropped without UnmountDevice or TearDown, and
//    a stage or publish the driver completes afterwards stays mounted for
//    ever (built-in csi-nodestage-timeout). On a kubelet restart the
//    uncertain marks, in memory, are lost in every release; reconstruction
//    finds a pod's volume from its directory, which SetUp writes (with
//    vol_data.json) before NodePublish, and follows its release's rules
//    (section 4); a staging mount with no pod directory left is found by no
//    modelled release (upstream reconstructs device mounts only since 1.26's
//    NewVolumeManagerReconstruction, not modelled). In-tree plugins return
//    plain errors, which are final: no uncertain state.
//    Since #100183 (1.21; switch `100183`, issue #100182) a failed
//    UnmountDevice or TearDown, final error or not, leaves the device or the
//    pod's mount uncertain too: a pod that wants the volume again gets
//    MountDevice (NodeStage) before SetUp. Before, the device stayed
//    "globally mounted" after a NodeUnstage that timed out at the kubelet but
//    unstaged in the driver, and the next pod got NodePublish alone, a bind
//    of an empty staging directory (volume/csi.ts section 5; built-in
//    csi-unstage-error-no-restage). Block volumes' Unmap* failures, which
//    #100183 marks as well, are not (unmapDevice keeps its state).
//
// 6. Volume expansion, the node's half (expand/expand_controller.ts has the
//    controllers'). A volume needs the node when its PV's spec.capacity is
//    above its claim's status.capacity (nodeExpandVolume reads the claim
//    with a GET, the PV from the informer). During a mount the kubelet
//    grows the filesystem right after MountDevice (at the staging path), or,
//    when nothing was staged in this mount (a CSI driver without
//    NodeStage, a device already mounted), after SetUp; an error fails the
//    mount ("MountVolume.MountDevice failed while expanding volume",
//    "MountVolume.Setup failed while expanding volume") and the mount is
//    retried with backoff. Since #100567 (1.22) the SetUp that preceded such
//    a failure is recorded as an uncertain mount (section 5), so the pod's
//    deletion tears it down; before, nothing records it. A mounted volume is
//    grown online (ExpandInUseVolume, operation `volume_fs_resize` under the
//    volume's key) once the populator finds it bigger than its claim
//    (checkVolumeFSResize, MarkFSResizeRequired: here at the populator's
//    next pass after the informer delivers the PV or claim; upstream at the
//    pod's next sync, ReprocessPod, up to the 1-minute resync later), if
//    the kubelet expands in-use volumes (ExpandInUsePersistentVolumes, on
//    from 1.15) of that plugin (CSI: ExpandCSIVolumes, on from 1.16). The
//    call is CSI NodeExpandVolume (`nodeExpand`) or an in-tree plugin's
//    resize2fs (`resizeFs`); success is FileSystemResizeSuccessful on the pod
//    and the claim and MarkFSResizeFinished (status.capacity = the PV's, the
//    conditions gone); an online failure is VolumeResizeFailed on the pod.
//    FailedPrecondition ("volume in use"): since #92986 (1.19) the volume is
//    marked for this node (MarkForInUseExpansionError: no online retry) and
//    a mount goes on; before, it is an error like any other. With
//    RecoverVolumeExpansionFailure (1.32) the kubelet expands only a claim
//    whose allocatedResourceStatuses says NodeResizePending or
//    NodeResizeInProgress (runPreCheck; anything else is assumed finished),
//    marks it NodeResizeInProgress first, and after a final error writes
//    NodeResizeInfeasible (InvalidArgument, OutOfRange: never tried again)
//    or the condition NodeResizeError.
//
// 7. Interleave points (settings.interleave; volume/operation.ts section 3).
//    Upstream's reconciler works from copies: GetAllMountedVolumes (unmount
//    pass), PodExistsInVolume per desired volume (mount pass),
//    GetUnmountedVolumes (device pass), while the operations it started run
//    in goroutines. With interleave the pass takes those copies and, between
//    each entry of the copy and the pending check or Run that follows, is an
//    interleave point where one of the node's calls due now may end:
//    a TearDown ending there starts a second UnmountVolume, a MountVolume a
//    second SetUp/NodePublish (upstream's SetUp of a mounted volume returns
//    at once, a CSI driver gets a second NodePublish), and a MountVolume whose
//    MountDevice landed but whose SetUp failed makes the device pass mark the
//    volume detached from its copy ("not globally mounted"): the global mount
//    leaks, the volume leaves volumesInUse and the controller detaches the
//    disk under it. MarkVolumeAsDetached (DeleteVolume) refuses an entry that
//    has mounted pods, so a SetUp that succeeded keeps it. Since #128219
//    (1.32; switch `128219`, issue #127520) the device pass reads the actual
//    state again after IsOperationPending (GetAttachedVolume) and unmounts
//    the device the operation mounted: no stale copy decides there. Worked example
//    (1.22, test/k8s/interleave.test.ts): an EBS pod is deleted 1 s into a
//    3 s MountDevice that ends at 7.020 s, on the reconciler's grid; SetUp
//    fails once. Seed 3: the end is drawn late and lands at the device
//    pass's point: "Volume detached" at 7.020 s, the mount under
//    plugins/kubernetes.io/aws-ebs/mounts/vol-1 stays, and the disk is
//    detached from under it; seeds that land it before or after the pass see
//    the device mounted and UnmountDevice it.
//
// Worked example (seed 003, 1.23): pod fio-test with inline CSI volume "data"
// is deleted at 60 s; its container takes 30 s to stop. kubelet restarts at
// 61 s..64 s. At ~66 s reconstruction fails for "data", the pod is
// terminating so it is not in the DSW, cleanupMounts -> NodeUnpublish fails
// ("contains a filesystem in use": the container still holds it) ->
// "Operation for {volumeName:data podName:<uid> nodeName:} failed" and no
// retry. At 90 s the container exits; the pod object is deleted (the ASW knows
// no mounts for it) and pods/<uid>/volumes/kubernetes.io~csi/data/mount stays
// mounted for ever. With #108997 the volume is reconstructed into the ASW and
// the reconciler retries the TearDown with backoff until it succeeds at ~90 s.

import type { KObj, PodVolume } from "../api/types.js";
import type { DirInfo } from "../host/mount.js";
import type { Ctx } from "../engine/context.js";
import type { WakeGroup } from "../engine/sim.js";
import { errorText, type ErrorText } from "../util/exponentialbackoff.js";
import { Done, FailureMessages, goQuote, NestedPendingOperations } from "../util/nestedpendingoperations.js";
import { attachDetachKey, mountVolumeKey, unmountDeviceKey, unmountVolumeKey, verifyControllerAttachedVolumeKey } from "../util/operationexecutor.js";
import { backendIdOfPV, expandPluginOf, ResizeUtil, sizes } from "../expand/expand_controller.js";
import { csiErrorText, perform } from "../volume/operation.js";
import { kubeletVolumeSpec } from "../volume/csimigration.js";
import { isBlockVolume, isMultiAttachAllowed, PluginEnv, PluginError, PluginMgr, specForPodVolume, uniqueNameFromSpec, uniqueNameWithPod, uniqueVolumeName, VolumePlugin, VolumeSpec } from "../volume/plugins.js";

export interface DesiredVolume {
  volumeName: string;
  podUID: string;
  podKey: string;
  /** the pod's name for the volume (OuterVolumeSpecName) */
  outer: string;
  spec: VolumeSpec;
  plugin: VolumePlugin;
  attachable: boolean;
  deviceMountable: boolean;
  reportedInUse: boolean;
}

export interface ActualVolume {
  volumeName: string;
  spec: VolumeSpec;
  plugin: VolumePlugin;
  attachable: boolean;
  deviceMountable: boolean;
  devicePath: string;
  deviceMounted: boolean;
  /** DeviceMountUncertain (#82492, 1.18+): a MountDevice ended with a non-final error; the device may be mounted */
  deviceUncertain: boolean;
  deviceMountPath: string;
  /** podUID -> spec name mounted for it */
  pods: Map<string, string>;
  /** VolumeMountUncertain (#82492): podUID -> spec name whose SetUp ended with a non-final error (null: none yet) */
  uncertainPods: Map<string, string> | null;
  /** MarkFSResizeRequired (section 6): the PV grew past the claim's status.capacity while mounted */
  fsResizeRequired: boolean;
  /** MarkForInUseExpansionError (#92986): NodeExpand answered FailedPrecondition; not expanded again on this node */
  inUseExpansionError: boolean;
}

export interface PodLookup {
  pods(): Iterable<KObj>;
  pod(uid: string): KObj | undefined;
  lookup(kind: "PersistentVolumeClaim" | "PersistentVolume", key: string): KObj | undefined;
  /** containers of the pod are all stopped (runtime view) */
  containersStopped(uid: string): boolean;
}

export class VolumeManager {
  /** podUID -> volumeName -> entry */
  readonly dsw = new Map<string, Map<string, DesiredVolume>>();
  readonly asw = new Map<string, ActualVolume>();
  readonly npo: NestedPendingOperations;
  /** the reconciler alone reads the pending operations: their changes wake only it (engine/sim.ts section 3) */
  readonly opsWake: WakeGroup;
  /** see the constructor's `wake` */
  private readonly wake: WakeGroup;
  hasAddedPods = false;
  statesSynced = false;
  private processedPods = new Set<string>();
  readonly env: PluginEnv;
  /** its events' source (one string: the event recorder compares it with earlier events') */
  private readonly eventSource: string;
  dead = false;

  constructor(
    private readonly ctx: Ctx,
    private readonly nodeName: string,
    private readonly component: string,
    private readonly plugins: PluginMgr,
    private readonly pods: PodLookup,
    /**
     * the loops that read the desired and actual state and the sync flags:
     * the kubelet's reconciler, pod workers and node status loop (the
     * populator, their only other writer, reads none of it); the host's
     * group if not given
     */
    wake?: WakeGroup,
  ) {
    this.env = { ctx, component, nodeName, host: ctx.hosts.get(nodeName)! };
    this.eventSource = `kubelet, ${nodeName}`;
    this.wake = wake ?? this.env.host!.wake;
    this.opsWake = ctx.sim.group(`${component}/operations`);
    const failures = new FailureMessages(ctx.profile);
    this.npo = new NestedPendingOperations(ctx.sim, ctx.profile, ctx.timers.INITIAL_DURATION_BEFORE_RETRY_MS, ctx.timers.MAX_DURATION_BEFORE_RETRY_MS, (f) => {
      if (this.dead) return;
      const p = ctx.profile;
      ctx.out.on &&
        ctx.out.log(
          component,
          "E",
          `nestedpendingoperations.go:${p.npoLogLine}`,
          failures.message(f, ctx.out.goTime(f.retryAt, component)),
        );
    }, this.opsWake, ctx.out, (own, operationName) => {
      const pod = own.podName === "" ? "" : ` of pod ${own.podName}`;
      ctx.out.note(`volume:${own.volumeName}`, () => `the kubelet on ${nodeName} ran a second ${operationName}${pod} beside one still pending under the same nestedpendingoperations key (before #110951 a run takes over the first matching entry that is idle, even when a later one is pending); a completion acts on the first entry under its key, so an entry is left pending with nothing running, and every later mount or unmount of ${own.volumeName} on ${nodeName} that meets it is refused as "already exists", without a log line`);
    });
  }

  private log(sev: "I" | "W" | "E", src: string, msg: string): void {
    this.ctx.out.on && this.ctx.out.log(this.component, sev, src, msg);
  }

  private detail(volumeName: string, specName: string, podKey: string, podUID: string): string {
    // the same few volumes are told of at every retry while logging: built once each (four JSON quotings a line cost ~0.6 us)
    const byVolume = this.details?.get(podUID);
    const hit = byVolume?.get(volumeName);
    if (hit !== undefined && hit.specName === specName && hit.podKey === podKey) return hit.text;
    const text = `for volume ${JSON.stringify(specName)} (UniqueName: ${JSON.stringify(volumeName)}) pod ${JSON.stringify(podKey.split("/").pop())} (UID: ${JSON.stringify(podUID)}) `;
    if (byVolume === undefined) (this.details ??= new Map()).set(podUID, new Map([[volumeName, { specName, podKey, text }]]));
    else byVolume.set(volumeName, { specName, podKey, text });
    return text;
  }
  /** detail()'s texts by pod UID and volume (made by the first: a run without logs has none) */
  private details: Map<string, Map<string, { specName: string; podKey: string; text: string }>> | undefined = undefined;

  // ---- desired state populator ------------------------------------------

  /** the claim and volume lookup specForPodVolume is given (one closure per volume manager, not per volume and pass) */
  private readonly lookup = (kind: "PersistentVolumeClaim" | "PersistentVolume", key: string): KObj | undefined => this.pods.lookup(kind, key);

  populate(): void {
    const { ctx } = this;
    // findAndRemoveDeletedPods
    for (const uid of this.dsw.keys()) {
      const vols = this.dsw.get(uid)!;
      const pod = this.pods.pod(uid);
      const gone = !pod || ((pod.metadata.deletionTimestamp !== undefined || isTerminal(pod)) && this.pods.containersStopped(uid));
      if (!gone) continue;
      this.dsw.delete(uid);
      this.processedPods.delete(uid);
      if (vols.size > 0) ctx.sim.bump(this.wake);
    }
    // findAndAddNewPods
    for (const pod of this.pods.pods()) {
      const uid = pod.metadata.uid;
      if (this.processedPods.has(uid)) continue;
      if (isTerminal(pod)) continue;
      // (#114326, 1.27: on the first pass after a start, before reconstruction, a
      // terminating pod whose containers may still run is added, so reconstruction
      // does not take its volumes for orphans while a container still uses them)
      if (pod.metadata.deletionTimestamp !== undefined && ((ctx.profile.dswSkipsTerminatingPods && (this.hasAddedPods || !ctx.profile.has.pr114326)) || this.pods.containersStopped(uid))) continue;
      let vols = this.dsw.get(uid);
      let complete = true;
      for (const v of (pod.spec?.volumes ?? []) as PodVolume[]) {
        const podSpec = specForPodVolume(v, pod.metadata.namespace ?? "default", this.lookup);
        if (typeof podSpec === "string") {
          complete = false;
          continue;
        }
        // an in-tree spec the kubelet's own gates migrate is the CSI driver's (volume/csimigration.ts)
        const spec = kubeletVolumeSpec(ctx, podSpec);
        if (spec === null) continue;
        const plugin = this.plugins.findBySpec(spec);
        if (!plugin) continue;
        const volumeName = uniqueVolumeName(plugin, spec, uid, ctx);
        if (!vols) this.dsw.set(uid, (vols = new Map()));
        if (!vols.has(volumeName)) {
          vols.set(volumeName, {
            volumeName,
            podUID: uid,
            podKey: `${pod.metadata.namespace}/${pod.metadata.name}`,
            outer: v.name,
            spec,
            plugin,
            attachable: plugin.isAttachable(spec, ctx),
            deviceMountable: plugin.isDeviceMountable(spec, ctx),
            reportedInUse: false,
          });
          ctx.sim.bump(this.wake);
        }
      }
      if (complete) {
        this.processedPods.add(uid);
        ctx.sim.bump(this.wake);
      }
    }
    if (!this.hasAddedPods) {
      this.hasAddedPods = true;
      ctx.sim.bump(this.wake);
    }
    if (ctx.expansion === true) this.checkVolumeFSResize();
  }

  /**
   * Whether the informer's delivery of `pod` (replacing `prev`, the cached
   * object, if any) can change what the next populate() does. Of a pod it
   * has processed (same UID, same spec), populate() asks one thing: is it
   * gone, i.e. deleted or terminal with its containers stopped; it asks only
   * while the pod has volumes in the desired state. So such a delivery
   * matters only if it changes "deleted or terminal" while the containers
   * are stopped (their stopping later wakes the populator through the
   * runtime's group). The kubelet wakes the populator for the deliveries
   * that matter (engine/sim.ts section 3): most of a node's Pod deliveries
   * are the kubelet's own status writes coming back.
   */
  podDeliveryMatters(pod: KObj, prev: KObj | undefined): boolean {
    const uid = pod.metadata.uid;
    if (prev === undefined || prev.metadata.uid !== uid || prev.spec !== pod.spec || !this.processedPods.has(uid)) return true;
    if (!this.dsw.has(uid)) return false;
    const was = prev.metadata.deletionTimestamp !== undefined || isTerminal(prev);
    const is = pod.metadata.deletionTimestamp !== undefined || isTerminal(pod);
    return was !== is && this.pods.containersStopped(uid);
  }

  /**
   * DesiredStateOfWorld.AddPodToVolume: what the populator does for one
   * volume of a pod, for upstream's tests (bindings/k8s/volume/testing.ts).
   * Returns the volume's unique name, or throws when no plugin supports it.
   */
  addPodToVolume(pod: KObj, spec: VolumeSpec, outerVolumeSpecName: string): string {
    const { ctx } = this;
    const uid = pod.metadata.uid;
    const plugin = this.plugins.findBySpec(spec);
    if (!plugin) throw new PluginError(`failed to get Plugin from volumeSpec for volume ${JSON.stringify(spec.name)} err=no volume plugin matched`);
    const volumeName = uniqueVolumeName(plugin, spec, uid, ctx);
    let vols = this.dsw.get(uid);
    if (!vols) this.dsw.set(uid, (vols = new Map()));
    const prev = vols.get(volumeName);
    vols.set(volumeName, {
      volumeName,
      podUID: uid,
      podKey: `${pod.metadata.namespace ?? ""}/${pod.metadata.name}`,
      outer: outerVolumeSpecName,
      spec,
      plugin,
      attachable: plugin.isAttachable(spec, ctx),
      deviceMountable: plugin.isDeviceMountable(spec, ctx),
      reportedInUse: prev?.reportedInUse ?? false,
    });
    ctx.sim.bump(this.wake);
    return volumeName;
  }

  /** DesiredStateOfWorld.DeletePodFromVolume */
  deletePodFromVolume(podUID: string, volumeName: string): void {
    const vols = this.dsw.get(podUID);
    if (vols?.delete(volumeName)) {
      if (vols.size === 0) this.dsw.delete(podUID);
      this.ctx.sim.bump(this.wake);
    }
  }

  /**
   * volumesInUse: attachable volumes in the DSW or the ASW. The ASW part is
   * GetAttachedVolumes since #71145 (1.13, issue #70319): every volume the
   * kubelet knows attached, a MountDevice (format and mount) still running
   * included. Before, it was GetGloballyMountedVolumes: a volume whose
   * MountDevice had not finished left volumesInUse as soon as its pod left
   * the DSW, and the attach/detach controller detached it under the format.
   */
  /**
   * The sorted list the node status reports (GetVolumesInUse). Built into a
   * scratch array each pass; when it equals the last list given, that list
   * is given again (never changed in place: it may be the stored Node's
   * volumesInUse), so an unchanged status pass allocates nothing.
   */
  getVolumesInUse(): readonly string[] {
    // (a new array each call: emptying a kept one, `length = 0`, is a call into V8's runtime)
    const s: string[] = [];
    const attached = this.ctx.profile.has.pr71145;
    for (const vols of this.dsw.values()) for (const v of vols.values()) if ((v.attachable || v.deviceMountable) && !s.includes(v.volumeName)) s.push(v.volumeName);
    for (const v of this.asw.values()) if ((v.attachable || v.deviceMountable) && (attached || v.deviceMounted) && !s.includes(v.volumeName)) s.push(v.volumeName);
    if (s.length > 1) s.sort();
    const last = this.inUseLast;
    if (last !== null && last.length === s.length) {
      let same = true;
      for (let i = 0; i < s.length; i++)
        if (s[i] !== last[i]) {
          same = false;
          break;
        }
      if (same) return last;
    }
    return (this.inUseLast = s);
  }
  private inUseLast: readonly string[] | null = null;

  markVolumesAsReportedInUse(list: readonly string[]): void {
    for (const vols of this.dsw.values())
      for (const v of vols.values())
        if (!v.reportedInUse && list.includes(v.volumeName)) {
          v.reportedInUse = true;
          this.ctx.sim.bump(this.wake);
        }
  }

  /** podVolumesMounted(uid).unmounted is empty, without building the lists */
  podVolumesAllMounted(uid: string): boolean {
    const vols = this.dsw.get(uid);
    if (!vols) return false;
    for (const v of vols.values()) {
      const a = this.asw.get(v.volumeName);
      if (!a || !a.pods.has(uid)) return false;
    }
    return true;
  }

  /** every volume of the pod is mounted for it */
  podVolumesMounted(uid: string): { unmounted: string[]; unattached: string[] } {
    const unmounted: string[] = [];
    const unattached: string[] = [];
    const vols = this.dsw.get(uid);
    if (!vols) return { unmounted: ["<pending>"], unattached: [] };
    for (const v of vols.values()) {
      const a = this.asw.get(v.volumeName);
      if (!a || !a.pods.has(uid)) {
        const outer = outerName(v);
        unmounted.push(outer);
        if (!a) unattached.push(outer);
      }
    }
    return { unmounted: unmounted.sort(), unattached: unattached.sort() };
  }

  /** mounted volumes the ASW knows for a pod (PodResourcesAreReclaimed) */
  podHasMountedVolumes(uid: string): boolean {
    for (const v of this.asw.values()) if (v.pods.has(uid) || (v.uncertainPods !== null && v.uncertainPods.has(uid))) return true;
    return false;
  }

  // ---- reconciler ---------------------------------------------------------

  reconcile(): void {
    if (this.ctx.profile.has.pr113262) return this.reconcileNew();
    if (!this.statesSynced && this.hasAddedPods) {
      this.statesSynced = true;
      this.ctx.sim.bump(this.wake);
      this.reconstruct();
    }
    if (this.unmountVolumes()) return;
    if (this.mountAttachVolumes()) return;
    this.unmountDetachDevices();
    if (this.skippedDuringReconstruction !== null && this.skippedDuringReconstruction.size > 0) this.processReconstructedVolumes();
  }

  // ---- NewVolumeManagerReconstruction (#113262; section 4) ----------------

  /** runNew's reconstructVolumes has run (at the reconciler's first pass) */
  private reconstructedAtStart = false;
  /** volumesNeedUpdateFromNodeStatus: reconstructed volumes whose devicePath and attachability node.status gives (null: none left) */
  private volumesNeedUpdateFromNodeStatus: string[] | null = null;

  /**
   * reconciler_new.go runNew / reconcileNew (NewVolumeManagerReconstruction,
   * #113262): reconstruction runs once before the first pass, whatever the
   * populator has done, and puts every volume it rebuilds into the actual
   * state as uncertain (reconstruct_new.go updateStates); unmounts wait until
   * the populator has added pods and node.status has given the reconstructed
   * volumes' device paths (readyToUnmount); the volumes that failed
   * reconstruction are cleaned up then (cleanOrphanVolumes); the states count
   * as synced (volumesInUse reported) once the device paths are in.
   */
  private reconcileNew(): void {
    if (!this.reconstructedAtStart) {
      this.reconstructedAtStart = true;
      this.ctx.sim.bump(this.wake);
      this.reconstructVolumesNew();
    }
    const ready = this.hasAddedPods && this.volumesNeedUpdateFromNodeStatus === null;
    if (ready && this.unmountVolumes()) return;
    if (this.mountAttachVolumes()) return;
    if (ready) {
      this.unmountDetachDevices();
      if (this.volumesFailedReconstruction.length > 0) this.cleanOrphanVolumes();
    }
    if (this.volumesNeedUpdateFromNodeStatus !== null) this.updateReconstructedFromNodeStatus();
    if (this.volumesNeedUpdateFromNodeStatus === null && !this.statesSynced) {
      // updateLastSyncTime: StatesHasBeenSynced, so the node status reports volumesInUse
      this.statesSynced = true;
      this.ctx.sim.bump(this.wake);
    }
  }

  /**
   * reconstruct.go reconstructVolume, which both reconstructions call: one
   * pod volume directory -> its plugin, spec, unique name and device mount
   * path; undefined for a directory that is not a pod volume, a block volume
   * (reconstructBlockVolume takes it), one the actual state already knows
   * (VolumeExistsWithSpecName; `uncertainToo`: reconstruct_new.go also counts
   * uncertain pods), and one that fails (remembered in
   * volumesFailedReconstruction: "Remember to check DSW after it's fully
   * populated", cleaned up once every directory has been seen).
   */
  private reconstructVolume(
    dir: string,
    info: DirInfo,
    uncertainToo: boolean,
  ): { uid: string; specName: string; spec: VolumeSpec; plugin: VolumePlugin; volumeName: string; attachable: boolean; deviceMountable: boolean; dmp: string } | undefined {
    const { ctx } = this;
    if (!info.podUID || !info.specName) return undefined;
    if (info.data.volumeName !== undefined && dir.includes(`/pods/${info.podUID}/volumeDevices/`)) {
      this.reconstructBlockVolume(info.podUID, info.specName, info.plugin, info.data);
      return undefined;
    }
    if (!dir.includes(`/pods/${info.podUID}/volumes/`)) return undefined;
    const uid = info.podUID;
    const specName = info.specName;
    const plugin = this.plugins.findByName(info.plugin);
    if (!plugin) return undefined;
    for (const a of this.asw.values()) if (a.pods.get(uid) === specName || (uncertainToo && a.uncertainPods?.get(uid) === specName)) return undefined;
    let spec: VolumeSpec;
    let volumeName: string;
    let attachable: boolean;
    let deviceMountable: boolean;
    try {
      spec = plugin.constructVolumeSpec(this.env, specName, uid);
      if (ctx.profile.has.pr108997) {
        attachable = plugin.isAttachable(spec, ctx);
        deviceMountable = plugin.isDeviceMountable(spec, ctx);
      } else {
        // FindAttachablePluginByName / FindDeviceMountablePluginByName
        attachable = plugin.attachableByName;
        deviceMountable = plugin.attachableByName;
      }
      if (attachable || deviceMountable) {
        try {
          volumeName = uniqueNameFromSpec(plugin, spec);
        } catch (e) {
          throw new PluginError(`failed to GetVolumeName from volumePlugin for volumeSpec ${JSON.stringify(specName)} err=${(e as Error).message}`);
        }
      } else volumeName = uniqueNameWithPod(plugin, uid, spec);
      if (!ctx.profile.has.pr108997 && plugin.name === "kubernetes.io/csi" && !this.env.host!.isMountPoint(`${dir}/mount`))
        throw new PluginError(`volume: ${JSON.stringify(specName)} is not mounted`);
    } catch (e) {
      this.volumesFailedReconstruction.push({ podName: uid, volumeSpecName: specName, pluginName: plugin.name, err: (e as Error).message });
      return undefined;
    }
    const dmp = deviceMountable && plugin.getDeviceMountPath ? plugin.getDeviceMountPath(this.env, spec) : "";
    return { uid, specName, spec, plugin, volumeName, attachable, deviceMountable, dmp };
  }

  /**
   * reconstruct_new.go reconstructVolumes / updateStates: each pod volume
   * directory not in the actual state is rebuilt (as section 4, with
   * #108997's rules, which every release with #113262 has) and added as an
   * uncertain mount of its pod, its device (if the plugin mounts one) as an
   * uncertain device mount: a pod that wants it mounts it again (MountDevice,
   * SetUp), one that does not gets TearDown and UnmountDevice. A directory
   * that fails is kept for cleanOrphanVolumes. Mapped block volumes go
   * through reconstructBlockVolume as before (added as mapped).
   */
  private reconstructVolumesNew(): void {
    const { ctx } = this;
    const host = this.env.host!;
    const names: string[] = [];
    for (const [dir, info] of host.dirs) {
      const r = this.reconstructVolume(dir, info, true);
      if (r === undefined) continue;
      const { uid, specName, spec, plugin, volumeName, attachable, deviceMountable, dmp } = r;
      // AddAttachUncertainReconstructedVolume (devicePath from node.status later)
      let a = this.asw.get(volumeName);
      if (a === undefined) {
        a = { volumeName, spec, plugin, attachable, deviceMountable, devicePath: "", deviceMounted: false, deviceUncertain: false, deviceMountPath: "", pods: new Map(), uncertainPods: null, fsResizeRequired: false, inUseExpansionError: false };
        this.asw.set(volumeName, a);
      }
      // CheckAndMarkVolumeAsUncertainViaReconstruction
      (a.uncertainPods ??= new Map()).set(uid, specName);
      (this.reconstructedPods ??= new Set()).add(`${volumeName}\0${uid}`);
      // MarkDeviceAsUncertain
      if (deviceMountable && dmp !== "" && !a.deviceMounted) {
        a.deviceUncertain = true;
        a.deviceMountPath = dmp;
        (this.reconstructedDevices ??= new Set()).add(volumeName);
      }
      if (!names.includes(volumeName)) names.push(volumeName);
      // (its V(2) lines, "Volume is marked as uncertain and added into the actual state", are not printed: their line numbers were not read)
      ctx.sim.bump(this.wake);
    }
    if (names.length > 0) this.volumesNeedUpdateFromNodeStatus = names;
  }

  /** reconstruct_new.go updateReconstructedFromNodeStatus: device paths and attachability from node.status.volumesAttached */
  private updateReconstructedFromNodeStatus(): void {
    let node: KObj;
    try {
      node = this.ctx.api.get("Node", this.nodeName);
    } catch {
      // "This may repeat few times per second until kubelet is able to read its own status"
      this.ctx.sim.wakeAt(this.ctx.sim.now + 1);
      return;
    }
    for (const volumeName of this.volumesNeedUpdateFromNodeStatus!) {
      const a = this.asw.get(volumeName);
      if (a === undefined) continue;
      const att = attachedEntry(node, volumeName);
      if (att) a.devicePath = att.devicePath;
      // UpdateReconstructedVolumeAttachability
      a.attachable = att !== undefined;
    }
    this.volumesNeedUpdateFromNodeStatus = null;
    this.ctx.sim.bump(this.wake);
  }

  /**
   * Volumes reconstruction found on disk for a pod the DSW already had
   * (#110670, 1.25; issues #96635, #70044): reconstruction skips them on the
   * assumption that the reconciler will mount them, and since #110670 it
   * remembers them (reconciler.go skippedDuringReconstruction). Before, a
   * mount that then failed (a CSI node plugin not registered yet after the
   * restart) left the pod's mount known to no one: once the pod was gone
   * nothing unmounted it.
   */
  private skippedDuringReconstruction: Map<string, { deviceMountPath: string; pods: Map<string, string> }> | null = null;
  /** pod mounts ("volume\0uid") and devices processReconstructedVolumes marked uncertain (IsVolumeReconstructed, IsVolumeDeviceReconstructed) */
  private reconstructedPods: Set<string> | null = null;
  private reconstructedDevices: Set<string> | null = null;
  private reconstructedPod(volumeName: string, uid: string): boolean {
    return this.reconstructedPods !== null && this.reconstructedPods.has(`${volumeName}\0${uid}`);
  }

  /**
   * reconciler_common.go processReconstructedVolumes: a skipped volume the
   * ASW now knows attached gets, for each of its pods not mounted yet, an
   * uncertain pod mount (CheckAndMarkVolumeAsUncertainViaReconstruction),
   * and its device, if not mounted, an uncertain device mount
   * (CheckAndMarkDeviceUncertainViaReconstruction): TearDown and
   * UnmountDevice then run when no pod wants it.
   */
  private processReconstructedVolumes(): void {
    for (const [volumeName, g] of this.skippedDuringReconstruction!) {
      const a = this.asw.get(volumeName);
      if (a === undefined) continue;
      this.skippedDuringReconstruction!.delete(volumeName);
      let added = 0;
      for (const [uid, specName] of g.pods) {
        if (a.pods.has(uid) || a.uncertainPods?.has(uid)) continue;
        (a.uncertainPods ??= new Map()).set(uid, specName);
        (this.reconstructedPods ??= new Set()).add(`${volumeName}\0${uid}`);
        added++;
      }
      if (added === 0) continue;
      if (a.deviceMountable && !a.deviceMounted && !a.deviceUncertain && g.deviceMountPath !== "") {
        a.deviceUncertain = true;
        a.deviceMountPath = g.deviceMountPath;
        (this.reconstructedDevices ??= new Set()).add(volumeName);
      }
      this.ctx.sim.bump(this.wake);
    }
  }

  /** an interleave point of the reconciler's pass (section 7); true: the pass must end (the kubelet stopped meanwhile) */
  private yieldPoint(): boolean {
    return this.ctx.sim.yieldPoint() || this.dead;
  }

  // The three passes below only look: starting an operation is a method of
  // its own (operationExecutor.UnmountVolume, VerifyControllerAttachedVolume,
  // MountVolume, UnmountDevice), so the closures an operation needs capture
  // that method's variables, and a pass that starts nothing allocates none.

  private unmountVolumes(): boolean {
    if (this.ctx.sim.interleave) return this.unmountVolumesCopy();
    for (const a of this.asw.values()) {
      for (const uid of a.pods.keys()) {
        if (this.dsw.get(uid)?.has(a.volumeName)) continue;
        if (!this.npo.isOperationSafeToRetry(a.volumeName, uid, "", "volume_unmount")) continue;
        this.unmountVolume(a, uid, a.pods.get(uid)!);
      }
      // (GetAllMountedVolumes includes the uncertain mounts, #82492: they are torn down too)
      const unc = a.uncertainPods;
      if (unc !== null)
        for (const uid of unc.keys()) {
          if (a.pods.has(uid) || this.dsw.get(uid)?.has(a.volumeName)) continue;
          if (!this.npo.isOperationSafeToRetry(a.volumeName, uid, "", "volume_unmount")) continue;
          this.unmountVolume(a, uid, unc.get(uid)!);
        }
    }
    return false;
  }

  /**
   * unmountVolumes over a copy of the mounted volumes, as upstream's
   * GetAllMountedVolumes, with an interleave point between the copy's entry
   * and UnmountVolume (section 7): a TearDown that ends there leaves the
   * copy's entry stale, and a second UnmountVolume starts (a second
   * NodeUnpublish).
   */
  private unmountVolumesCopy(): boolean {
    const snap: Array<{ a: ActualVolume; uid: string; specName: string }> = [];
    for (const a of this.asw.values()) {
      for (const [uid, specName] of a.pods) snap.push({ a, uid, specName });
      if (a.uncertainPods !== null) for (const [uid, specName] of a.uncertainPods) if (!a.pods.has(uid)) snap.push({ a, uid, specName });
    }
    for (const { a, uid, specName } of snap) {
      if (this.dsw.get(uid)?.has(a.volumeName)) continue;
      if (this.yieldPoint()) return true;
      if (!this.npo.isOperationSafeToRetry(a.volumeName, uid, "", "volume_unmount")) continue;
      this.unmountVolume(a, uid, specName);
    }
    return false;
  }

  /** operationExecutor.UnmountVolume (TearDown) of a's mount for pod `uid` */
  private unmountVolume(a: ActualVolume, uid: string, specName: string): void {
    if (isBlockVolume(a.spec)) return this.unmapVolume(a, uid, specName);
    const key = unmountVolumeKey(a.volumeName, uid);
    const r = this.npo.run(key, "volume_unmount", (op) => {
      this.ctx.steps.step("kubelet.TearDownStarted", a.volumeName);
      a.plugin.tearDown(this.env, specName, uid, (err) => {
        if (this.dead) return;
        if (err) {
          this.ctx.steps.step("kubelet.TearDownFailed", a.volumeName);
          // MarkVolumeMountAsUncertain (#100183, 1.21): the kubelet cannot tell what the
          // failed TearDown left, so a pod that wants the volume again gets SetUp again
          if (this.ctx.profile.has.pr100183 && a.pods.delete(uid)) {
            (a.uncertainPods ??= new Map()).set(uid, specName);
            this.ctx.sim.bump(this.wake);
          }
          return op.done(() => `UnmountVolume.TearDown failed ${this.detail(a.volumeName, specName, uid, uid)}: ${errorText(err)}`);
        }
        if (a.pods.delete(uid)) this.ctx.sim.bump(this.wake);
        if (a.uncertainPods?.delete(uid)) this.ctx.sim.bump(this.wake);
        this.ctx.out.on && this.log("I", "operation_generator.go:910", `UnmountVolume.TearDown succeeded for volume ${JSON.stringify(a.volumeName)} (OuterVolumeSpecName: ${JSON.stringify(specName)}) pod ${JSON.stringify(uid)} (UID: ${JSON.stringify(uid)}). InnerVolumeSpecName ${JSON.stringify(specName)}. PluginName ${JSON.stringify(a.plugin.name)}, VolumeGidValue ""`);
        this.ctx.steps.step("kubelet.TearDownSucceeded", a.volumeName);
        op.done(null);
      });
    });
    if (r === null) this.ctx.out.on && this.log("I", "reconciler.go:211", vmMsg(this.ctx.profile.structuredLogs, `operationExecutor.UnmountVolume started ${this.detail(a.volumeName, specName, uid, uid)}`));
  }

  private mountAttachVolumes(): boolean {
    for (const vols of this.dsw.values()) {
      for (const v of vols.values()) {
        const a = this.asw.get(v.volumeName);
        if (a !== undefined && a.pods.has(v.podUID)) {
          // (PodExistsInVolume's fsResizeRequiredError: ExpandInUseVolume, section 6)
          if (a.fsResizeRequired && !a.inUseExpansionError && this.npo.isOperationSafeToRetry(v.volumeName, "", "", "volume_fs_resize")) this.expandInUseVolume(v, a);
          continue;
        }
        if (a === undefined && v.attachable && !this.controllerAttachDetachEnabled) {
          // kubelet-managed attach (--enable-controller-attach-detach=false): the kubelet attaches itself
          if (this.npo.isOperationSafeToRetry(v.volumeName, "", isMultiAttachAllowed(v.spec) ? this.nodeName : "", "volume_attach")) this.attachVolume(v);
          continue;
        }
        // interleave point: between PodExistsInVolume (`a`, read above) and
        // the operation's Run; a MountVolume ending here leaves `a` stale and
        // a second one starts (section 7)
        if (this.yieldPoint()) return true;
        // (#106853, 1.24: an attachable volume not reported in use yet is skipped
        // without an operation; before, VerifyControllerAttachedVolume ran and failed)
        const waitsForInUse = v.attachable && !v.reportedInUse && this.ctx.profile.has.pr106853;
        if (a !== undefined || (v.attachable && !waitsForInUse)) {
          // would the operation start? (the same answer, and wake-up, as Run's refusal, without building the operation)
          const podName = a !== undefined && !(v.attachable || v.deviceMountable) ? v.podUID : "";
          if (!this.npo.isOperationSafeToRetry(v.volumeName, podName, "", a !== undefined ? "volume_mount" : "verify_controller_attached_volume")) continue;
        }
        if (a === undefined) {
          if (!v.attachable) {
            this.asw.set(v.volumeName, newActual(v, ""));
            this.ctx.sim.bump(this.wake);
            continue;
          }
          if (waitsForInUse) continue;
          this.verifyControllerAttachedVolume(v);
          continue;
        }
        this.startMountVolume(v, a);
      }
    }
    return false;
  }

  /**
   * kubelet-managed attach and detach (a kubelet started with
   * --enable-controller-attach-detach=false, `controllerAttachDetachEnabled`
   * false): the reconciler attaches an attachable volume itself
   * (operationExecutor.AttachVolume, no wait for node status or for the
   * volume to be reported in use) and, once its device is unmounted and no
   * pod wants it, detaches it (DetachVolume without the safe-to-detach
   * check). Only upstream's ported tests use it: no scenario setting turns
   * it on yet.
   */
  controllerAttachDetachEnabled = true;

  /** operationExecutor.AttachVolume (kubelet-managed attach) */
  private attachVolume(v: DesiredVolume): void {
    const key = attachDetachKey(v.volumeName, this.nodeName, v.spec);
    const r = this.npo.run(key, "volume_attach", (op) => {
      v.plugin.attach!(this.env, v.spec, this.nodeName, (err, devicePath) => {
        if (this.dead) return;
        if (err) return op.done(() => `AttachVolume.Attach failed ${this.desiredDetail(v)}: ${err}`);
        if (!this.asw.has(v.volumeName)) {
          this.asw.set(v.volumeName, newActual(v, devicePath ?? ""));
          this.ctx.sim.bump(this.wake);
        }
        this.ctx.out.on && this.log("I", "operation_generator.go:360", vmMsg(this.ctx.profile.structuredLogs, `AttachVolume.Attach succeeded ${this.desiredDetail(v)}`, v.podKey));
        op.done(null);
      });
    });
    if (r === null) this.ctx.out.on && this.log("I", "reconciler.go:247", vmMsg(this.ctx.profile.structuredLogs, `operationExecutor.AttachVolume started ${this.desiredDetail(v)}`, v.podKey));
  }

  /** operationExecutor.DetachVolume (kubelet-managed detach) of a volume whose device is unmounted */
  private detachVolume(a: ActualVolume): void {
    const key = attachDetachKey(a.volumeName, this.nodeName, a.spec);
    const r = this.npo.run(key, "volume_detach", (op) => {
      a.plugin.detach!(this.env, a.plugin.getVolumeName(a.spec), this.nodeName, (err) => {
        if (this.dead) return;
        if (err) return op.done(() => `DetachVolume.Detach failed ${this.deviceDetail(a)}: ${errorText(err)}`);
        this.asw.delete(a.volumeName);
        this.ctx.sim.bump(this.wake);
        this.ctx.out.on && this.log("I", "operation_generator.go:472", `DetachVolume.Detach succeeded ${this.deviceDetail(a)}`);
        op.done(null);
      });
    });
    if (r === null) this.ctx.out.on && this.log("I", "reconciler.go:338", vmMsg(this.ctx.profile.structuredLogs, `operationExecutor.DetachVolume started ${this.deviceDetail(a)}`));
  }

  /** the kubelet detaches `a` itself once its device is unmounted */
  private kubeletDetaches(a: ActualVolume): boolean {
    return !this.controllerAttachDetachEnabled && a.attachable && a.plugin.detach !== undefined;
  }

  /** operationExecutor.VerifyControllerAttachedVolume: wait for v in node.status.volumesAttached */
  private verifyControllerAttachedVolume(v: DesiredVolume): void {
    const key = verifyControllerAttachedVolumeKey(v.volumeName);
    const r = this.npo.run(key, "verify_controller_attached_volume", this.runVerifyControllerAttachedVolume, v, this);
    if (r === null) this.ctx.out.on && this.log("I", "reconciler.go:238", this.verifyStartedMsg(this.desiredDetail(v), v.podKey));
  }
  /** the operation itself (a kubelet waiting for node status runs it at every retry) */
  private runVerifyControllerAttachedVolume(op: Done, v: DesiredVolume): void {
    const { ctx } = this;
    // GenerateVerifyControllerAttachedVolumeFunc: "do not proceed, return
    // error. Caller will log and retry" (before #106853 the reconciler starts
    // the operation for a volume not reported in use yet: it fails here, into
    // the backoff of the volume's key, which the waits for node status below
    // then share and double)
    if (!v.reportedInUse) {
      ctx.steps.step("kubelet.VolumeNotReportedInUse", v.volumeName);
      return op.done(() => `Volume has not been added to the list of VolumesInUse in the node's volume status ${this.desiredDetail(v)}`);
    }
    let node: KObj;
    try {
      node = ctx.api.get("Node", this.nodeName);
    } catch (e) {
      return op.done(() => `VerifyControllerAttachedVolume failed fetching node from API server ${this.desiredDetail(v)}: ${(e as Error).message}`);
    }
    const att = attachedEntry(node, v.volumeName);
    if (!att) {
      ctx.steps.step("kubelet.VolumeNotAttachedAccordingToNodeStatus", v.volumeName);
      return op.done(() => `Volume not attached according to node status ${this.desiredDetail(v)}`);
    }
    if (!this.asw.has(v.volumeName)) {
      this.asw.set(v.volumeName, newActual(v, att.devicePath));
      ctx.sim.bump(this.wake);
    }
    this.ctx.out.on && this.log("I", "operation_generator.go:1467", vmMsg(ctx.profile.structuredLogs, `Controller attach succeeded ${this.desiredDetail(v)}device path: ${JSON.stringify(att.devicePath)}`, v.podKey));
    op.done(null);
  }

  /** detail() of a desired volume */
  private desiredDetail(v: DesiredVolume): string {
    return this.detail(v.volumeName, v.spec.name, v.podKey, v.podUID);
  }

  /**
   * The "VerifyControllerAttachedVolume started" message: a kubelet waiting
   * for node status logs it at every retry for the same volume (detail()
   * gives the same text), so the last one is kept.
   */
  private verifyStartedMsg(det: string, podKey: string): string {
    const c = this.verifyStarted;
    if (c !== null && c.det === det && c.podKey === podKey) return c.msg;
    const msg = vmMsg(this.ctx.profile.structuredLogs, `operationExecutor.VerifyControllerAttachedVolume started ${det}`, podKey);
    this.verifyStarted = { det, podKey, msg };
    return msg;
  }
  private verifyStarted: { det: string; podKey: string; msg: string } | null = null;

  /** operationExecutor.MountVolume (WaitForAttach, MountDevice, SetUp) of v on a */
  private startMountVolume(v: DesiredVolume, a: ActualVolume): void {
    const det = (): string => this.detail(v.volumeName, v.spec.name, v.podKey, v.podUID);
    const key = mountVolumeKey(v.volumeName, v.podUID, v.attachable, v.deviceMountable);
    const r = isBlockVolume(v.spec) ? this.npo.run(key, "map_volume", (op) => this.mapVolume(v, a, det, op)) : this.npo.run(key, "volume_mount", (op) => this.mountVolume(v, a, det, op));
    if (r === null) this.ctx.out.on && this.log("I", "reconciler.go:262", vmMsg(this.ctx.profile.structuredLogs, `operationExecutor.MountVolume started ${det()}`, v.podKey));
  }

  private mountVolume(v: DesiredVolume, a: ActualVolume, det: () => string, op: Done): void {
    const p = v.plugin;
    /** the expansion during the mount is done (section 6: after MountDevice, else after SetUp) */
    let resizeDone = false;
    const setUp = (): void => {
      this.ctx.steps.step("kubelet.SetUpStarted", v.volumeName);
      p.setUp(this.env, v.spec, v.podUID, a.deviceMountPath, (err, _r, uncertain) => {
        if (this.dead) return;
        if (err) {
          this.ctx.steps.step("kubelet.SetUpFailed", v.volumeName);
          // MarkVolumeMountAsUncertain (#82492): the pod's unmount will call TearDown
          if (uncertain === true && !a.pods.has(v.podUID) && !a.uncertainPods?.has(v.podUID)) {
            (a.uncertainPods ??= new Map()).set(v.podUID, v.spec.name);
            this.ctx.sim.bump(this.wake);
          } else if (uncertain !== true && this.ctx.profile.has.pr82492 && !this.reconstructedPod(v.volumeName, v.podUID) && a.uncertainPods?.delete(v.podUID)) {
            // markVolumeErrorState: a final error after an uncertain mount marks the volume unmounted (no TearDown),
            // unless reconstruction put it there (#110670: IsVolumeReconstructed leaves it uncertain)
            this.ctx.sim.bump(this.wake);
          }
          this.mountFailedEvent(v, `MountVolume.SetUp failed for volume ${JSON.stringify(outerName(v))} : ${err}`);
          return op.done(() => `MountVolume.SetUp failed ${det()}: ${err}`);
        }
        this.ctx.steps.step("kubelet.SetUpSucceeded", v.volumeName);
        if (this.ctx.expansion === true && !resizeDone) {
          // "We need to call resizing here again in case resizing was not done during device mount" (no staging)
          this.nodeExpand(v, a, (e) => {
            if (this.dead) return;
            if (e === null) return mounted();
            this.ctx.out.on && this.log("E", "operation_generator.go:718", `MountVolume.NodeExpandVolume failed with ${e}`);
            // #100567: SetUp succeeded, so the mount is recorded, as uncertain: the pod does not start and its deletion tears it down
            if (this.ctx.profile.has.pr100567 && !a.pods.has(v.podUID) && !a.uncertainPods?.has(v.podUID)) {
              (a.uncertainPods ??= new Map()).set(v.podUID, v.spec.name);
              this.ctx.sim.bump(this.wake);
            }
            this.mountFailedEvent(v, `MountVolume.Setup failed while expanding volume for volume ${JSON.stringify(outerName(v))} : ${e}`);
            op.done(() => `MountVolume.Setup failed while expanding volume ${det()}: ${e}`);
          });
          return;
        }
        mounted();
      });
    };
    const mounted = (): void => {
      if (a.uncertainPods?.delete(v.podUID)) this.ctx.sim.bump(this.wake);
      if (!a.pods.has(v.podUID)) {
        a.pods.set(v.podUID, v.spec.name);
        this.ctx.sim.bump(this.wake);
      }
      this.ctx.out.on && this.log("I", "operation_generator.go:756", vmMsg(this.ctx.profile.structuredLogs, `MountVolume.SetUp succeeded ${det()}`, v.podKey));
      op.done(null);
    };
    const mountDevice = (devicePath: string): void => {
      if (!v.deviceMountable || a.deviceMounted || !p.mountDevice) return setUp();
      const dmp = p.getDeviceMountPath!(this.env, v.spec);
      this.ctx.steps.step("kubelet.MountDeviceStarted", v.volumeName);
      p.mountDevice(this.env, v.spec, devicePath, dmp, (err, _r, uncertain) => {
        if (this.dead) return;
        if (err) {
          this.ctx.steps.step("kubelet.MountDeviceFailed", v.volumeName);
          // MarkDeviceAsUncertain (#82492): a volume no pod wants any more gets UnmountDevice
          if (uncertain === true && !a.deviceUncertain) {
            a.deviceUncertain = true;
            a.deviceMountPath = dmp;
            this.ctx.sim.bump(this.wake);
          } else if (uncertain !== true && a.deviceUncertain && this.ctx.profile.has.pr82492 && !(this.ctx.profile.has.pr122211 && this.reconstructedDevices?.has(a.volumeName) === true)) {
            // (#122211, 1.30: a device reconstruction marked uncertain stays so: IsVolumeDeviceReconstructed)
            // markDeviceErrorState: "Only devices which were uncertain can be marked as unmounted" after a final error
            a.deviceUncertain = false;
            this.ctx.sim.bump(this.wake);
          }
          this.mountFailedEvent(v, `MountVolume.MountDevice failed for volume ${JSON.stringify(outerName(v))} : ${err}`);
          return op.done(() => `MountVolume.MountDevice failed ${det()}: ${err}`);
        }
        this.ctx.steps.step("kubelet.MountDeviceSucceeded", v.volumeName);
        a.deviceUncertain = false;
        a.deviceMounted = true;
        a.deviceMountPath = dmp;
        this.ctx.sim.bump(this.wake);
        this.ctx.out.on && this.log("I", "operation_generator.go:631", vmMsg(this.ctx.profile.structuredLogs, `MountVolume.MountDevice succeeded ${det()}device mount path ${JSON.stringify(dmp)}`, v.podKey));
        if (this.ctx.expansion === true) {
          // resizeFileSystem / nodeExpandVolume at the staging path, right after MountDevice (section 6)
          this.nodeExpand(v, a, (e) => {
            if (this.dead) return;
            if (e !== null) {
              this.ctx.out.on && this.log("E", "operation_generator.go:668", `MountVolume.NodeExpandVolume failed with ${e}`);
              this.mountFailedEvent(v, `MountVolume.MountDevice failed while expanding volume for volume ${JSON.stringify(outerName(v))} : ${e}`);
              return op.done(() => `MountVolume.MountDevice failed while expanding volume ${det()}: ${e}`);
            }
            resizeDone = true;
            setUp();
          });
          return;
        }
        setUp();
      });
    };
    if (v.deviceMountable && !a.deviceMountPath && p.getDeviceMountPath) a.deviceMountPath = p.getDeviceMountPath(this.env, v.spec);
    if (v.attachable && !a.deviceMounted && p.waitForAttach) {
      p.waitForAttach(this.env, v.spec, a.devicePath, (err, devicePath) => {
        if (this.dead) return;
        if (err) return op.done(() => `MountVolume.WaitForAttach failed ${det()}: ${errorText(err)}`);
        if (devicePath) a.devicePath = devicePath;
        this.ctx.out.on && this.log("I", "operation_generator.go:587", vmMsg(this.ctx.profile.structuredLogs, `MountVolume.WaitForAttach succeeded ${det()}DevicePath ${JSON.stringify(a.devicePath)}`, v.podKey));
        mountDevice(a.devicePath);
      });
      return;
    }
    mountDevice(a.devicePath);
  }

  // ---- volume expansion on the node (section 6) ---------------------------------

  /** the claim a desired volume's pod names (its PersistentVolumeClaim volume), as ns/name, or null */
  private claimKeyOf(v: DesiredVolume): string | null {
    const ref = v.spec.pv?.spec?.claimRef as { namespace?: string; name: string } | undefined;
    if (ref?.name) return `${ref.namespace ?? "default"}/${ref.name}`;
    const pod = this.pods.pod(v.podUID);
    const vol = ((pod?.spec?.volumes ?? []) as PodVolume[]).find((x) => x.name === v.outer);
    return vol?.persistentVolumeClaim ? `${pod!.metadata.namespace ?? "default"}/${vol.persistentVolumeClaim.claimName}` : null;
  }

  /**
   * The populator's checkVolumeFSResize: a volume mounted for a pod whose PV
   * is now bigger than its claim's status.capacity needs the node's resize
   * (MarkFSResizeRequired), if this kubelet expands in-use volumes
   * (ExpandInUsePersistentVolumes) of that plugin (ExpandCSIVolumes for CSI).
   */
  private checkVolumeFSResize(): void {
    const { ctx } = this;
    if (!ctx.profile.fix.ExpandInUsePersistentVolumes) return;
    for (const vols of this.dsw.values())
      for (const v of vols.values()) {
        const a = this.asw.get(v.volumeName);
        if (a === undefined || !a.pods.has(v.podUID) || a.fsResizeRequired || a.inUseExpansionError || v.spec.pv === undefined || v.spec.readOnly) continue;
        const plugin = expandPluginOf(v.spec.pv);
        if (plugin === null || (plugin === "kubernetes.io/csi" && !ctx.profile.fix.ExpandCSIVolumes)) continue;
        const key = this.claimKeyOf(v);
        const pvc = key === null ? undefined : this.pods.lookup("PersistentVolumeClaim", key);
        const pv = this.pods.lookup("PersistentVolume", v.spec.pv.metadata.name);
        const s = sizes(pvc, pv);
        if (!(s.status < s.pv)) continue;
        a.fsResizeRequired = true;
        ctx.sim.bump(this.wake);
      }
  }

  /** operationExecutor.ExpandInUseVolume: GenerateExpandInUseVolumeFunc of a mounted volume (online expansion) */
  private expandInUseVolume(v: DesiredVolume, a: ActualVolume): void {
    const r = this.npo.run({ volumeName: v.volumeName, podName: "", nodeName: "" }, "volume_fs_resize", (op) => {
      this.nodeExpand(v, a, (e) => {
        if (this.dead) return;
        if (e !== null) {
          this.ctx.out.on && this.log("E", "operation_generator.go:2058", `NodeExpandVolume.NodeExpandVolume failed ${this.desiredDetail(v)}: ${e}`);
          this.ctx.out.event("Warning", "VolumeResizeFailed", `pod/${v.podKey.split("/").pop()}`, `NodeExpandVolume.NodeExpandVolume failed for volume ${JSON.stringify(outerName(v))} : ${e}`, this.eventSource, v.podKey.split("/")[0], v.podUID);
          return op.done(() => `NodeExpandVolume.NodeExpandVolume failed ${this.desiredDetail(v)}: ${e}`);
        }
        op.done(null);
      });
    });
    if (r === null) this.ctx.out.on && this.log("I", "reconciler.go:277", vmMsg(this.ctx.profile.structuredLogs, `Starting operationExecutor.ExpandInUseVolume ${this.desiredDetail(v)}`, v.podKey));
  }

  /**
   * nodeExpandVolume (operation_generator.go; node_expander.go with
   * RecoverVolumeExpansionFailure): grow the filesystem to the PV's size if
   * the claim's status.capacity is smaller: CSI NodeExpandVolume (op
   * `nodeExpand`) or the in-tree plugin's resize2fs (op `resizeFs`). `done`
   * gets null when the volume is expanded or needs nothing (the caller goes
   * on), or the error the caller fails with.
   */
  private nodeExpand(v: DesiredVolume, a: ActualVolume, done: (err: string | null) => void): void {
    const { ctx } = this;
    const pv0 = v.spec.pv;
    const plugin = pv0 === undefined ? null : expandPluginOf(pv0);
    // (not an ExpandableVolumePlugin: an inline volume, a plugin without expansion, CSI before ExpandCSIVolumes)
    if (pv0 === undefined || plugin === null || (plugin === "kubernetes.io/csi" && !ctx.profile.fix.ExpandCSIVolumes)) return done(null);
    const key = this.claimKeyOf(v);
    if (key === null) return done(null);
    let pvc: KObj;
    try {
      pvc = ctx.api.get("PersistentVolumeClaim", key);
    } catch (e) {
      return done(`MountVolume.NodeExpandVolume get PVC failed : ${(e as Error).message}`);
    }
    const pv = this.pods.lookup("PersistentVolume", pv0.metadata.name) ?? pv0;
    const s = sizes(pvc, pv);
    if (!(s.status < s.pv) || v.spec.readOnly) {
      a.fsResizeRequired = false;
      return done(null);
    }
    const newSize = String(pv.spec.capacity.storage);
    const recover = ctx.profile.fix.RecoverVolumeExpansionFailure;
    if (recover) {
      // runPreCheck: only a claim the resize controller marked for the node; otherwise assumed finished
      const rs = (pvc.status?.allocatedResourceStatuses?.storage ?? "") as string;
      if (rs !== "NodeResizePending" && rs !== "NodeResizeInProgress") {
        ctx.out.on && this.log("I", "node_expander.go:111", `NodeExpandVolume is not allowed to proceed for volume ${v.volumeName} with resizeStatus ${rs}`);
        a.fsResizeRequired = false;
        return done(null);
      }
      try {
        ctx.api.patch("PersistentVolumeClaim", key, (d) => {
          d.status = Object.assign({}, d.status, { allocatedResourceStatuses: { storage: "NodeResizeInProgress" } });
          return true;
        });
      } catch (e) {
        return done(`MountVolume.NodeExpandVolume failed to mark node expansion in progress: ${(e as Error).message}`);
      }
    }
    const csi = plugin === "kubernetes.io/csi";
    const id = backendIdOfPV(pv);
    ctx.steps.step("kubelet.NodeExpandStarted", v.volumeName);
    const plan = ctx.backend.call(csi ? "nodeExpand" : "resizeFs", id, this.nodeName, plugin);
    perform(ctx, csi ? "nodeExpand" : "resizeFs", plan, csi, id, () => null, (err) => {
      if (this.dead) return;
      if (err !== null) {
        ctx.steps.step("kubelet.NodeExpandFailed", v.volumeName);
        const text = csi ? `Expander.NodeExpand failed to expand the volume : ${csiErrorText(err)}` : err.text;
        const final = err.code === null || !err.nonFinal;
        if (recover && final) {
          // MarkVolumeExpansionFailedWithFinalError; an infeasible error (InvalidArgument, OutOfRange) stops the node's retries
          const infeasible = err.code === "InvalidArgument" || err.code === "OutOfRange";
          try {
            ctx.api.patch("PersistentVolumeClaim", key, (d) => {
              d.status = infeasible
                ? Object.assign({}, d.status, { allocatedResourceStatuses: { storage: "NodeResizeInfeasible" } })
                : Object.assign({}, d.status, {
                    conditions: [
                      ...((d.status?.conditions ?? []) as Array<{ type: string }>).filter((c) => c.type !== "NodeResizeError"),
                      { type: "NodeResizeError", status: "True", lastProbeTime: null, lastTransitionTime: ctx.sim.now, message: text },
                    ],
                  });
              return true;
            });
          } catch {
            /* logged upstream; the retry writes it again */
          }
        }
        if (ctx.profile.has.pr92986 && err.code === "FailedPrecondition") {
          // volume in use: not retried on this node, and the mount goes on
          a.inUseExpansionError = true;
          a.fsResizeRequired = false;
          ctx.out.on && this.log("E", "operation_generator.go:1974", `MountVolume.NodeExapndVolume failed with ${text}`);
          return done(null);
        }
        return done(text);
      }
      ctx.steps.step("kubelet.NodeExpandSucceeded", v.volumeName);
      const msg = `MountVolume.NodeExpandVolume succeeded for volume ${JSON.stringify(v.spec.name)} ${ctx.profile.version.minor >= 24 ? this.nodeName : ""}`;
      const podName = v.podKey.split("/").pop()!;
      ctx.out.event("Normal", "FileSystemResizeSuccessful", `pod/${podName}`, msg, this.eventSource, v.podKey.split("/")[0], v.podUID);
      ctx.out.event("Normal", "FileSystemResizeSuccessful", `persistentvolumeclaim/${key.split("/")[1]}`, msg, this.eventSource, key.split("/")[0], pvc.metadata.uid);
      ctx.out.on && this.log("I", "operation_generator.go:1990", vmMsg(ctx.profile.structuredLogs, `MountVolume.NodeExpandVolume succeeded ${this.desiredDetail(v)}`, v.podKey));
      try {
        ResizeUtil.markResizeFinished(ctx, key, newSize);
      } catch (e) {
        return done(`mountVolume.NodeExpandVolume update PVC status failed : ${(e as Error).message}`);
      }
      a.fsResizeRequired = false;
      done(null);
    });
  }

  // ---- volumeMode: Block (operation_generator.go GenerateMapVolumeFunc,
  // GenerateUnmapVolumeFunc, GenerateUnmapDeviceFunc) ---------------------
  //
  // MapVolume: WaitForAttach (attachable plugins), then, once per volume,
  // SetUpDevice (CSI NodeStageVolume) at the global map path
  // plugins/<plugin>/volumeDevices/<volume>, which from then on stands for
  // the device ("device mounted" in the actual state); then per pod
  // MapPodDevice (CSI NodePublishVolume) and util.MapBlockVolume: the pod's
  // device map path pods/<uid>/volumeDevices/<plugin dir>/<spec name> and the
  // global map path's link for the pod (<global map path>/<uid>), both to
  // the device. UnmapVolume removes the two links and calls UnmapPodDevice
  // (NodeUnpublishVolume); UnmapDevice, once no pod has the volume mapped,
  // calls TearDownDevice (NodeUnstageVolume) and removes the global map path.
  // The keys are MountVolume's, UnmountVolume's and UnmountDevice's
  // (util/operationexecutor.ts). A kubelet restart reconstructs a mapped
  // volume from the pod's device map path (reconstructBlockVolume). Not
  // modelled: the loop device AttachFileDevice holds on the global map path.
  // A plugin without block support fails MapVolume as upstream does a plugin
  // without a BlockVolumeMapper.
  //
  // Worked example (a GCE PD PV with volumeMode: Block, controller attach):
  // the pod's volume is reported in use, node status lists it, MapVolume
  // waits for the attach (devicePath /dev/disk/by-id/virtio-disk-1), makes
  // plugins/kubernetes.io/gce-pd/volumeDevices/disk-1 and its pod link, and
  // pods/<uid>/volumeDevices/kubernetes.io~gce-pd/<pv>; the pod starts. When
  // it is deleted UnmapVolume removes both links, UnmapDevice the global map
  // path, and the controller detaches the disk.

  /** the global map path of a block volume */
  private globalMapPath(p: VolumePlugin, spec: VolumeSpec): string {
    return p.getGlobalMapPath ? p.getGlobalMapPath(this.env, spec) : `${this.ctx.kubeletRoot}/plugins/${p.name}/volumeDevices/${p.getVolumeName(spec)}`;
  }

  /** the pod's device map path (util.MapBlockVolume's podVolumeMapPath) */
  private podDeviceMapPath(p: VolumePlugin, podUID: string, specName: string): string {
    return `${this.ctx.kubeletRoot}/pods/${podUID}/volumeDevices/${p.dirName}/${specName}`;
  }

  /** operationExecutor.MountVolume of a block volume: MapVolume */
  private mapVolume(v: DesiredVolume, a: ActualVolume, det: () => string, op: Done): void {
    const p = v.plugin;
    const host = this.env.host!;
    const mapPodDevice = p.mapPodDevice;
    if (!mapPodDevice) return op.done(() => `MapVolume.FindMapperPluginBySpec failed to find BlockVolumeMapper plugin. Volume plugin is nil. ${det()}`);
    const gmp = this.globalMapPath(p, v.spec);
    const mapPod = (devicePath: string): void => {
      mapPodDevice.call(p, this.env, v.spec, v.podUID, devicePath, (err, publishPath) => {
        if (this.dead) return;
        if (err) {
          this.mountFailedEvent(v, `MapVolume.MapPodDevice failed for volume ${JSON.stringify(outerName(v))} : ${err}`, "FailedMapVolume");
          return op.done(() => `MapVolume.MapPodDevice failed ${det()}: ${err}`);
        }
        // util.MapBlockVolume: the pod's link and the global map path's link for the pod
        const device = publishPath || devicePath;
        const podMap = this.podDeviceMapPath(p, v.podUID, v.spec.name);
        // (what reconstruction reads back after a kubelet restart)
        host.mkdir(podMap, { plugin: p.name, podUID: v.podUID, specName: v.spec.name, data: { device, volumeName: v.volumeName, pv: v.spec.pv?.metadata.name ?? "" } });
        host.mkdir(`${gmp}/${v.podUID}`, { plugin: p.name, podUID: v.podUID, data: { device } });
        if (!a.pods.has(v.podUID)) {
          a.pods.set(v.podUID, v.spec.name);
          this.ctx.sim.bump(this.wake);
        }
        this.ctx.out.on && this.log("I", "operation_generator.go:1010", vmMsg(this.ctx.profile.structuredLogs, `MapVolume.MapPodDevice succeeded ${det()}volumeMapPath ${JSON.stringify(podMap)}`, v.podKey));
        op.done(null);
      });
    };
    const setUpDevice = (devicePath: string): void => {
      if (a.deviceMounted) return mapPod(devicePath);
      const staged = (err: string | null): void => {
        if (this.dead) return;
        if (err) {
          this.mountFailedEvent(v, `MapVolume.SetUpDevice failed for volume ${JSON.stringify(outerName(v))} : ${err}`, "FailedMapVolume");
          return op.done(() => `MapVolume.SetUpDevice failed ${det()}: ${err}`);
        }
        host.mkdir(gmp, { plugin: p.name, data: { device: devicePath } });
        a.deviceMounted = true;
        a.deviceMountPath = gmp;
        this.ctx.sim.bump(this.wake);
        mapPod(devicePath);
      };
      if (p.setUpDevice) p.setUpDevice(this.env, v.spec, devicePath, gmp, staged);
      else staged(null);
    };
    if (v.attachable && p.waitForAttach) {
      p.waitForAttach(this.env, v.spec, a.devicePath, (err, devicePath) => {
        if (this.dead) return;
        if (err) return op.done(() => `MapVolume.WaitForAttach failed ${det()}: ${errorText(err)}`);
        if (devicePath) a.devicePath = devicePath;
        this.ctx.out.on && this.log("I", "operation_generator.go:587", vmMsg(this.ctx.profile.structuredLogs, `MapVolume.WaitForAttach succeeded ${det()}DevicePath ${JSON.stringify(a.devicePath)}`, v.podKey));
        setUpDevice(a.devicePath);
      });
      return;
    }
    setUpDevice(a.devicePath);
  }

  /** operationExecutor.UnmountVolume of a block volume: UnmapVolume */
  private unmapVolume(a: ActualVolume, uid: string, specName: string): void {
    const p = a.plugin;
    const key = unmountVolumeKey(a.volumeName, uid);
    const r = this.npo.run(key, "unmap_volume", (op) => {
      const host = this.env.host!;
      // util.UnmapBlockVolume: the pod's link and the global map path's link for the pod
      host.rmdir(this.podDeviceMapPath(p, uid, specName));
      host.rmdir(`${this.globalMapPath(p, a.spec)}/${uid}`);
      const unmapped = (err: ErrorText | null): void => {
        if (this.dead) return;
        if (err) return op.done(() => `UnmapVolume.UnmapPodDevice failed ${this.detail(a.volumeName, specName, uid, uid)}: ${errorText(err)}`);
        if (a.pods.delete(uid)) this.ctx.sim.bump(this.wake);
        this.ctx.out.on && this.log("I", "operation_generator.go:1124", `UnmapVolume succeeded for volume ${JSON.stringify(a.volumeName)} (OuterVolumeSpecName: ${JSON.stringify(specName)}) pod ${JSON.stringify(uid)} (UID: ${JSON.stringify(uid)}). InnerVolumeSpecName ${JSON.stringify(specName)}. PluginName ${JSON.stringify(p.name)}, VolumeGidValue ""`);
        op.done(null);
      };
      if (p.unmapPodDevice) p.unmapPodDevice(this.env, specName, uid, unmapped);
      else unmapped(null);
    });
    if (r === null) this.ctx.out.on && this.log("I", "reconciler.go:211", vmMsg(this.ctx.profile.structuredLogs, `operationExecutor.UnmapVolume started ${this.detail(a.volumeName, specName, uid, uid)}`));
  }

  /** operationExecutor.UnmountDevice of a block volume: UnmapDevice */
  private unmapDevice(a: ActualVolume): void {
    const key = unmountDeviceKey(a.volumeName);
    const r = this.npo.run(key, "unmap_device", (op) => {
      const p = a.plugin;
      const unstaged = (err: ErrorText | null): void => {
        if (this.dead) return;
        if (err) return op.done(() => `UnmapDevice.TearDownDevice failed ${this.deviceDetail(a)}: ${errorText(err)}`);
        this.env.host!.rmdir(a.deviceMountPath);
        a.deviceMounted = false;
        if (!this.kubeletDetaches(a)) this.asw.delete(a.volumeName);
        this.ctx.sim.bump(this.wake);
        this.ctx.out.on && this.log("I", "operation_generator.go:1232", `UnmapDevice succeeded ${this.deviceDetail(a)}`);
        this.ctx.out.on && this.log("I", "reconciler.go:326", vmMsg(this.ctx.profile.structuredLogs, `Volume detached for volume ${JSON.stringify(a.spec.name)} (UniqueName: ${JSON.stringify(a.volumeName)}) on node ${JSON.stringify(this.nodeName)} DevicePath ${JSON.stringify(a.devicePath)}`));
        op.done(null);
      };
      if (p.tearDownDevice) p.tearDownDevice(this.env, a.deviceMountPath, a.devicePath, unstaged);
      else unstaged(null);
    });
    if (r === null) this.ctx.out.on && this.log("I", "reconciler.go:313", vmMsg(this.ctx.profile.structuredLogs, `operationExecutor.UnmapDevice started ${this.deviceDetail(a)}`));
  }

  private mountFailedEvent(v: DesiredVolume, msg: string, reason = "FailedMount"): void {
    this.ctx.out.event("Warning", reason, `pod/${v.podKey.split("/").pop()}`, msg, this.eventSource, v.podKey.split("/")[0], v.podUID);
  }

  private unmountDetachDevices(): void {
    // (deleting the entry being visited does not disturb a Map's iteration;
    // with interleave, a copy, as upstream's GetUnmountedVolumes)
    for (const a of this.ctx.sim.interleave ? [...this.asw.values()] : this.asw.values()) {
      if (a.pods.size > 0 || (a.uncertainPods !== null && a.uncertainPods.size > 0)) continue;
      let desired = false;
      for (const vols of this.dsw.values()) if (vols.has(a.volumeName)) desired = true;
      if (desired) continue;
      // the copy's device state (GetUnmountedVolumes' AttachedVolume)
      let deviceMounted = a.deviceMounted;
      let deviceUncertain = a.deviceUncertain;
      // interleave point: between GetUnmountedVolumes and IsOperationPending
      // a MountVolume may end (a MountDevice that landed, a SetUp that
      // failed): the copy still says "not device-mounted" (section 7)
      if (this.yieldPoint()) return;
      if (this.npo.isOperationPending(a.volumeName, "", "")) continue;
      if (this.ctx.profile.has.pr128219) {
        // #128219 (1.32): "Re-read the actual state of the world, maybe the volume got mounted
        // in the meantime" (GetAttachedVolume; safe: no operation is pending and only this pass starts one)
        const live = this.asw.get(a.volumeName);
        deviceMounted = live !== undefined && live.deviceMounted;
        deviceUncertain = live !== undefined && live.deviceUncertain;
      }
      if (deviceMounted && isBlockVolume(a.spec)) {
        this.unmapDevice(a);
        continue;
      }
      if (!deviceMounted && !deviceUncertain && this.kubeletDetaches(a)) {
        this.detachVolume(a);
        continue;
      }
      if ((!deviceMounted && !deviceUncertain) || !a.plugin.unmountDevice) {
        if (a.deviceMountPath !== "" && !a.deviceMounted && this.env.host!.isMountPoint(a.deviceMountPath))
          this.ctx.out.note(`volume:${a.volumeName}`, `the kubelet on ${this.nodeName} dropped ${a.volumeName} without UnmountDevice: its MountDevice had failed, so the volume was not known as device-mounted, but ${a.deviceMountPath} is mounted (the driver finished staging after the kubelet gave up; uncertain device mounts since #82492, 1.18)`);
        else if (a.deviceMounted && a.deviceMountPath !== "" && this.env.host!.isMountPoint(a.deviceMountPath))
          this.ctx.out.note(`volume:${a.volumeName}`, `the kubelet on ${this.nodeName} dropped ${a.volumeName} without UnmountDevice: its reconciler's copy of the actual state (GetUnmountedVolumes) was taken before a MountVolume whose MountDevice landed ended, so ${a.deviceMountPath} stays mounted (a completion between two reads of one pass)`);
        // MarkVolumeAsDetached -> DeleteVolume, which refuses an entry that has mounted pods (the error is ignored)
        if (a.pods.size === 0 && (a.uncertainPods === null || a.uncertainPods.size === 0)) this.asw.delete(a.volumeName);
        this.ctx.sim.bump(this.wake);
        // GenerateMsgDetailed("Volume detached", fmt.Sprintf("DevicePath %q", ...)), as kubelets from 1.10 on print it
        this.ctx.out.on && this.log("I", "reconciler.go:326", vmMsg(this.ctx.profile.structuredLogs, `Volume detached for volume ${JSON.stringify(a.spec.name)} (UniqueName: ${JSON.stringify(a.volumeName)}) on node ${JSON.stringify(this.nodeName)} DevicePath ${JSON.stringify(a.devicePath)}`));
        continue;
      }
      this.unmountDevice(a);
    }
  }

  /** operationExecutor.UnmountDevice of a's device mount */
  private unmountDevice(a: ActualVolume): void {
    const key = unmountDeviceKey(a.volumeName);
    const r = this.npo.run(key, "unmount_device", this.runUnmountDevice, a, this);
    if (r === null) this.ctx.out.on && this.log("I", "reconciler.go:313", vmMsg(this.ctx.profile.structuredLogs, `operationExecutor.UnmountDevice started ${this.deviceDetail(a)}`));
  }
  /** the operation itself */
  private runUnmountDevice(op: Done, a: ActualVolume): void {
    const { ctx } = this;
    ctx.steps.step("kubelet.UnmountDeviceStarted", a.volumeName);
    a.plugin.unmountDevice!(this.env, a.deviceMountPath, (err) => {
      if (this.dead) return;
      if (err) {
        ctx.steps.step("kubelet.UnmountDeviceFailed", a.volumeName);
        // MarkDeviceAsUncertain (#100183, 1.21; issue #100182): a failed UnmountDevice,
        // final error or not, may have unstaged the device (a NodeUnstage that timed out
        // and finished in the driver), so a pod that wants the volume again gets
        // MountDevice (NodeStage) before SetUp. Before, the device stays "globally
        // mounted" and the next pod gets NodePublish alone.
        if (ctx.profile.has.pr100183 && a.deviceMounted) {
          a.deviceMounted = false;
          a.deviceUncertain = true;
          ctx.sim.bump(this.wake);
        }
        return op.done(() => `UnmountDevice failed ${this.deviceDetail(a)}: ${errorText(err)}`);
      }
      // isDeviceOpened: the device is still open elsewhere on the node; the caller logs
      // and retries. Since #107789 (1.24; switch `107789`) the device mount is marked
      // uncertain, so a pod that wants the volume again gets MountDevice; before, the
      // ASW still says "globally mounted" although the global mount is gone, and the
      // next pod's SetUp binds a path that is not mounted
      if (a.plugin.deviceOpened !== undefined && a.plugin.deviceOpened(this.env, a.devicePath)) {
        ctx.steps.step("kubelet.UnmountDeviceFailed", a.volumeName);
        if (ctx.profile.has.pr107789 && a.deviceMounted) {
          a.deviceMounted = false;
          a.deviceUncertain = true;
          ctx.sim.bump(this.wake);
        }
        return op.done(() => `UnmountDevice failed ${this.deviceDetail(a)}: the device is in use when it was no longer expected to be in use`);
      }
      ctx.steps.step("kubelet.UnmountDeviceSucceeded", a.volumeName);
      a.deviceMounted = false;
      a.deviceUncertain = false;
      // (the kubelet detaching itself: the next pass detaches it, upstream's MarkVolumeAsDetached comes after)
      if (!this.kubeletDetaches(a)) this.asw.delete(a.volumeName);
      ctx.sim.bump(this.wake);
      this.ctx.out.on && this.log("I", "operation_generator.go:1010", `UnmountDevice succeeded ${this.deviceDetail(a)}`);
      // upstream's next reconciler pass marks the volume detached and logs it (reconciler.go
      // unmountDetachDevices); the replay drops the entry here, so the line is logged here too
      this.ctx.out.on && !this.kubeletDetaches(a) && this.log("I", "reconciler.go:326", vmMsg(ctx.profile.structuredLogs, `Volume detached for volume ${JSON.stringify(a.spec.name)} (UniqueName: ${JSON.stringify(a.volumeName)}) on node ${JSON.stringify(this.nodeName)} DevicePath ${JSON.stringify(a.devicePath)}`));
      op.done(null);
    });
  }
  /** GenerateMsgDetailed's detail of a device (un)mount */
  private deviceDetail(a: ActualVolume): string {
    return `for volume ${JSON.stringify(a.spec.name)} (UniqueName: ${JSON.stringify(a.volumeName)}) on node ${JSON.stringify(this.nodeName)} `;
  }

  // ---- reconstruction -------------------------------------------------------

  private reconstruct(): void {
    const { ctx } = this;
    const host = this.env.host!;
    // (nothing in this loop makes or removes a directory: the cleanups
    // cleanOrphanVolumes starts run later, and no timeline action a step can fire touches them)
    for (const [dir, info] of host.dirs) {
      const r = this.reconstructVolume(dir, info, false);
      if (r === undefined) continue;
      const { uid, specName, spec, plugin, volumeName, attachable, deviceMountable, dmp } = r;
      const desired = this.dsw.get(uid)?.get(volumeName);
      if (desired) {
        desired.reportedInUse = true;
        if (ctx.profile.has.pr110670) {
          const skipped = (this.skippedDuringReconstruction ??= new Map());
          let g = skipped.get(volumeName);
          if (g === undefined) skipped.set(volumeName, (g = { deviceMountPath: dmp, pods: new Map() }));
          g.pods.set(uid, specName);
        }
        continue;
      }
      const a: ActualVolume = {
        volumeName,
        spec,
        plugin,
        attachable,
        deviceMountable,
        devicePath: "",
        deviceMounted: dmp !== "" && host.isMountPoint(dmp),
        deviceUncertain: false,
        deviceMountPath: dmp,
        pods: new Map([[uid, specName]]),
        uncertainPods: null,
        fsResizeRequired: false,
        inUseExpansionError: false,
      };
      const prev = this.asw.get(volumeName);
      if (prev) prev.pods.set(uid, specName);
      else this.asw.set(volumeName, a);
      ctx.sim.bump(this.wake);
      this.ctx.out.on && this.log("I", "reconciler.go:620", `Volume is reconstructed: volume ${JSON.stringify(volumeName)} for pod ${uid} (spec name ${JSON.stringify(specName)})`);
    }
    this.cleanOrphanVolumes();
  }

  /**
   * Reconstruction of a mapped block volume from the pod's device map path
   * (upstream reads pods/<uid>/volumeDevices/<plugin dir>/<spec> too, and the
   * plugin's ConstructBlockVolumeSpec): the volume's unique name and PV are
   * the ones MapVolume left there, the PV's source is read from the informer
   * cache (upstream's plugins rebuild it from their own files), the device
   * counts as set up while its global map path exists.
   */
  private reconstructBlockVolume(uid: string, specName: string, pluginName: string, data: Record<string, string>): void {
    const { ctx } = this;
    const host = this.env.host!;
    const plugin = this.plugins.findByName(pluginName);
    const volumeName = data.volumeName!;
    if (!plugin) return;
    if (this.asw.get(volumeName)?.pods.has(uid)) return;
    if (!ctx.profile.has.pr83451) {
      // Before #83451 (1.17) the existence check looked for a symlink at the pod's device map
      // directory (GetPodDeviceMapPath's dir, not joined with the link's name): never one, so every
      // mapped volume fails reconstruction; a pod still wanting it maps it again, a deleted pod's is
      // "cleaned up" as a filesystem mount (cleanupMounts), which unmaps nothing (issue #83445)
      this.volumesFailedReconstruction.push({ podName: uid, volumeSpecName: specName, pluginName, err: `Volume: ${JSON.stringify(volumeName)} is not mounted` });
      return;
    }
    const pv = data.pv ? this.pods.lookup("PersistentVolume", data.pv) : undefined;
    if (!pv) {
      this.volumesFailedReconstruction.push({ podName: uid, volumeSpecName: specName, pluginName, err: `failed to construct the block volume spec: persistentvolume ${JSON.stringify(data.pv ?? "")} not found` });
      return;
    }
    const desired = this.dsw.get(uid)?.get(volumeName);
    if (desired) {
      desired.reportedInUse = true;
      return;
    }
    const spec: VolumeSpec = { name: pv.metadata.name, pv, readOnly: false };
    const gmp = this.globalMapPath(plugin, spec);
    const prev = this.asw.get(volumeName);
    if (prev) prev.pods.set(uid, specName);
    else
      this.asw.set(volumeName, {
        volumeName,
        spec,
        plugin,
        attachable: plugin.isAttachable(spec, ctx),
        deviceMountable: plugin.isDeviceMountable(spec, ctx),
        devicePath: data.device ?? "",
        deviceMounted: host.dirs.has(gmp),
        deviceUncertain: false,
        deviceMountPath: gmp,
        pods: new Map([[uid, specName]]),
        uncertainPods: null,
        fsResizeRequired: false,
        inUseExpansionError: false,
      });
    ctx.sim.bump(this.wake);
    this.ctx.out.on && this.log("I", "reconciler.go:620", `Volume is reconstructed: volume ${JSON.stringify(volumeName)} for pod ${uid} (spec name ${JSON.stringify(specName)})`);
  }

  /**
   * volumesFailedReconstruction: pod volumes reconstruction could not
   * rebuild (upstream keeps this list from 1.27, reconstruct.go; before, its
   * syncStates did the same per volume): cleanOrphanVolumes cleans up those no
   * pod of the desired state wants and empties it.
   */
  volumesFailedReconstruction: Array<{ podName: string; volumeSpecName: string; pluginName: string; err: string }> = [];

  /** cleanOrphanVolumes: one cleanupMounts for each failed volume no pod wants */
  cleanOrphanVolumes(): void {
    const { ctx } = this;
    const structured = ctx.profile.structuredLogs;
    const failed = this.volumesFailedReconstruction;
    this.volumesFailedReconstruction = [];
    for (const { podName: uid, volumeSpecName: specName, pluginName, err } of failed) {
      const plugin = this.plugins.findByName(pluginName);
      if (!plugin) continue;
      const inDSW = [...(this.dsw.get(uid)?.values() ?? [])].some((d) => d.spec.name === specName || d.spec.inline?.name === specName);
      if (inDSW) {
        this.ctx.out.on && this.log("I", "reconciler.go:383", structured ? `"Volume exists in desired state, skip cleaning up mounts" podName=${uid} volumeSpecName=${JSON.stringify(specName)}` : `Volume exists in desired state (volume.SpecName=${specName}, pod.UID=${uid}), skip cleaning up mounts`);
        continue;
      }
      this.ctx.out.on && this.log(
        "I",
        "reconciler.go:388",
        structured
          ? `"Could not construct volume information, cleaning up mounts" podName=${uid} volumeSpecName=${JSON.stringify(specName)} err=${JSON.stringify(err)}`
          : `Could not construct volume information, cleanup the mounts. (pod.UID ${uid}, volume.SpecName ${specName}): ${err}`,
      );
      const node = this.nodeName;
      ctx.out.note(`pod:${uid}`, () => `after the kubelet restart on ${node}, volume "${specName}" of pod ${uid} could not be reconstructed (${err}); the pod is terminating so no pod wants it, and the kubelet tries exactly once to clean it up (cleanupMounts)`);
      ctx.steps.step("kubelet.ReconstructFailed", specName);
      this.cleanupMounts(plugin, uid, specName);
    }
  }

  private cleanupMounts(plugin: VolumePlugin, uid: string, specName: string): void {
    const structured = this.ctx.profile.structuredLogs;
    this.ctx.out.on && this.log(
      "I",
      "reconciler.go:421",
      structured
        ? `"Reconciler sync states: could not find volume information in desired state, clean up the mount points" podName=${uid} volumeSpecName=${JSON.stringify(specName)}`
        : `Reconciler sync states: could not find volume information in desired state, clean up the mount points podName=${uid} volumeSpecName=${specName}`,
    );
    const det = (): string => `for volume "" (UniqueName: ${JSON.stringify(specName)}) pod ${JSON.stringify(uid)} (UID: ${JSON.stringify(uid)}) `;
    const key = unmountVolumeKey(specName, uid);
    this.npo.run(key, "volume_unmount", (op) => {
      this.ctx.out.on && this.log("E", "operation_generator.go:952", `UnmountVolume.MarkVolumeMountAsUncertain failed ${det()}: no volume with the name ${JSON.stringify(specName)} exists in the list of attached volumes`);
      plugin.tearDown(this.env, specName, uid, (err) => {
        if (this.dead) return;
        if (err) {
          this.ctx.steps.step("kubelet.CleanupMountsFailed", specName);
          return op.done(() => `UnmountVolume.TearDown failed ${det()}: ${errorText(err)}`);
        }
        op.done(null);
      });
    });
  }
}

/**
 * A GenerateMsgDetailed line as the volume manager logs it: klog.Infof of the
 * text, or from 1.21 (Profile.structuredLogs) klog.InfoS of the same text,
 * quoted, with `pod="ns/name"` where upstream passes klog.KObj(pod) (the
 * mount path's lines; the unmount path's have no pod key), as 1.2x kubelets
 * print `reconciler.go:...] "operationExecutor.VerifyControllerAttachedVolume
 * started for volume \"x\" (UniqueName: \"...\") pod \"p\" (UID: \"...\") "
 * pod="ns/p"` and `"operationExecutor.UnmountVolume started for volume ..."`.
 * UnmountVolume.TearDown succeeded and UnmountDevice succeeded stay
 * klog.Infof text in every release.
 */
function vmMsg(structured: boolean, text: string, podKey?: string): string {
  if (!structured) return text;
  return podKey === undefined ? goQuote(text) : `${goQuote(text)} pod=${goQuote(podKey)}`;
}

/** node.status.volumesAttached's entry for volumeName, if any (a loop: no closure per retry of a kubelet waiting for node status) */
function attachedEntry(node: KObj, volumeName: string): { name: string; devicePath: string } | undefined {
  const list = node.status?.volumesAttached as Array<{ name: string; devicePath: string }> | undefined;
  if (list === undefined) return undefined;
  for (let i = 0; i < list.length; i++) if (list[i]!.name === volumeName) return list[i];
  return undefined;
}

function newActual(v: DesiredVolume, devicePath: string): ActualVolume {
  return {
    volumeName: v.volumeName,
    spec: v.spec,
    plugin: v.plugin,
    attachable: v.attachable,
    deviceMountable: v.deviceMountable,
    devicePath,
    deviceMounted: false,
    deviceUncertain: false,
    deviceMountPath: "",
    pods: new Map(),
    uncertainPods: null,
    fsResizeRequired: false,
    inUseExpansionError: false,
  };
}

function outerName(v: DesiredVolume): string {
  return v.outer;
}

export function isTerminal(pod: KObj): boolean {
  return pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
}
