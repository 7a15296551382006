// Volume expansion on the controller side: kube-controller-manager's expand
// controller (pkg/controller/volume/expand/expand_controller.go) for in-tree
// plugins and the CSI external-resizer sidecar (kubernetes-csi/external-resizer)
// for CSI volumes, with the claim's status as pkg/volume/util/resize_util.go
// writes it. The node's half (NodeExpandVolume, resize2fs) is the kubelet's:
// kubelet/volume_manager.ts section 6.
//
// 1. What starts a resize. A user raises a bound claim's
//    spec.resources.requests.storage (the timeline's `resize` action: a PATCH
//    of the claim). The API server admits it only for a claim whose
//    StorageClass says allowVolumeExpansion: true, and only upwards
//    (PersistentVolumeClaimResize admission, ValidatePersistentVolumeClaimUpdate);
//    the scenario loader refuses the others (scenario/references.ts), as a
//    kubectl patch would be refused. A claim needs a resize while its request
//    is above status.capacity (the size the node has): both controllers below
//    watch claims and act on those.
//
// 2. In-tree plugins (aws-ebs, gce-pd, rbd, qcloud-cbs): the expand
//    controller's GenerateExpandVolumeFunc, one `expand_volume` operation per
//    volume under nestedpendingoperations (key: the volume's unique name;
//    exponential backoff 500 ms .. 2m2s on error, the failure logged as every
//    operation's): if the PV is smaller than the request, ExpandVolumeDevice
//    (the cloud's resize call, op `expandVolume`, steps
//    `cloud.ExpandVolume*`), then UpdatePVSize (the PV's spec.capacity).
//    A filesystem volume of a plugin that RequiresFSResize (all of these) is
//    then marked for the node: MarkForFSResize, condition
//    FileSystemResizePending "Waiting for user to (re-)start a pod to finish
//    file system resize of volume on node."; a block volume is done at once:
//    MarkResizeFinished (status.capacity = the new size) and the event
//    VolumeResizeSuccessful. An error is the Warning VolumeResizeFailed
//    `error expanding volume "ns/claim" of plugin "kubernetes.io/aws-ebs": ...`.
//    For a CSI volume the controller only says it waits: the Normal event
//    ExternalExpanding "waiting for an external controller to expand this PVC".
//
// 3. CSI (external-resizer, component `csi-resizer`): markPVCResizeInProgress
//    (condition Resizing; event Resizing "External resizer is resizing volume
//    PV"), ControllerExpandVolume (op `controllerExpand`, steps
//    `csi.ControllerExpand*`, a CSI call with the sidecar's --timeout, 10 s),
//    then the PV's capacity ("Update capacity of PV succeeded") and, when the
//    driver answers node_expansion_required (every driver here, unless its
//    CSIDriver has the annotation `iosim.dev/node-expansion: "false"`),
//    markPVCAsFSResizeRequired: condition FileSystemResizePending and the
//    event FileSystemResizeRequired "Require file system resize of volume on
//    node"; otherwise markPVCResizeFinished: status.capacity and the event
//    VolumeResizeSuccessful "Resize volume succeeded". An error is the Warning
//    VolumeResizeFailed `resize volume "PV" by resizer "DRIVER" failed: rpc
//    error: ...`, retried after the workqueue's backoff (1 s doubling to 5 min).
//
// 4. RecoverVolumeExpansionFailure (switch of that name; alpha 1.23 off,
//    beta 1.32 on). With it both controllers first write
//    status.allocatedResources (the size being expanded to) and
//    status.allocatedResourceStatuses.storage: ControllerResizeInProgress,
//    then NodeResizePending when the node must finish (the kubelet moves it
//    to NodeResizeInProgress, NodeResizeInfeasible; kubelet/volume_manager.ts
//    section 6), ControllerResizeInfeasible on a final controller error, and
//    clear both when the resize finishes. The field names are 1.28's
//    (1.23-1.27 had a single status.resizeStatus, not modelled); so is the
//    kubelet's pre-check, read at master (node_expander.go runPreCheck).
//    Reducing the request back after a failure (the feature's point) is not
//    modelled: the loader refuses any shrink.
//
// Not modelled: the expand controller's pre-1.16 design (a resize map
// polled by a 1 s loop: the modern workqueue controller stands for every
// release), the storage-resizer annotation, volume attribute classes, the
// external-resizer's leader election and its own versions (one behaviour
// for every release, read at v1.11).
//
// Worked example (1.25, CSI, online). A pod runs with claim data (10Gi).
// At 60 s the claim is resized to 20Gi. The expand controller records
// ExternalExpanding; the external-resizer marks Resizing, calls
// ControllerExpandVolume (1 s), sets the PV to 20Gi and the claim's
// condition FileSystemResizePending. The kubelet's populator sees the PV
// bigger than the claim's status.capacity for a mounted volume
// (MarkFSResizeRequired); its reconciler runs ExpandInUseVolume:
// NodeExpandVolume (500 ms), events FileSystemResizeSuccessful on the pod
// and the claim, and MarkFSResizeFinished: status.capacity 20Gi, no
// condition. On 1.14 (ExpandInUsePersistentVolumes off) the claim keeps
// FileSystemResizePending until the pod is deleted and a new one mounts it.

import { ApiError, type Informer } from "../api/apiserver.js";
import { parseQuantity } from "../api/quantity.js";
import type { KObj } from "../api/types.js";
import type { Ctx } from "../engine/context.js";
import { Done, FailureMessages, NestedPendingOperations } from "../util/nestedpendingoperations.js";
import { perform } from "../volume/operation.js";
import { isBlockVolume } from "../volume/plugins.js";

export const FS_RESIZE_PENDING_MESSAGE = "Waiting for user to (re-)start a pod to finish file system resize of volume on node.";

/** the claim's requested size, its status capacity and the PV's, in bytes (NaN when absent) */
export function sizes(pvc: KObj | undefined, pv: KObj | undefined): { request: number; status: number; pv: number } {
  return {
    request: parseQuantity(pvc?.spec?.resources?.requests?.storage) ?? NaN,
    status: parseQuantity(pvc?.status?.capacity?.storage) ?? NaN,
    pv: parseQuantity(pv?.spec?.capacity?.storage) ?? NaN,
  };
}

/** the in-tree plugin of a PV that can expand (ExpandableVolumePlugin), or null; "kubernetes.io/csi" for CSI */
export function expandPluginOf(pv: KObj | undefined): string | null {
  const s = pv?.spec;
  if (!s) return null;
  if (s.csi) return "kubernetes.io/csi";
  if (s.awsElasticBlockStore) return "kubernetes.io/aws-ebs";
  if (s.gcePersistentDisk) return "kubernetes.io/gce-pd";
  if (s.rbd) return "kubernetes.io/rbd";
  if (s.qcloudCbs) return "cloud.tencent.com/qcloud-cbs";
  return null;
}

/** the storage backend's id of a PV's volume (the disk, the CSI handle, rbd:POOL/IMAGE) */
export function backendIdOfPV(pv: KObj): string {
  const s = pv.spec ?? {};
  if (s.csi?.volumeHandle) return s.csi.volumeHandle;
  if (s.rbd) return `rbd:${s.rbd.pool ?? "rbd"}/${s.rbd.image}`;
  if (s.awsElasticBlockStore) return s.awsElasticBlockStore.volumeID;
  if (s.gcePersistentDisk) return s.gcePersistentDisk.pdName;
  if (s.qcloudCbs) return s.qcloudCbs.cbsDiskId;
  return pv.metadata.name;
}

/** a claim condition as resize_util.go writes it */
function condition(type: string, now: number, message?: string): Record<string, unknown> {
  return { type, status: "True", lastProbeTime: null, lastTransitionTime: now, ...(message !== undefined ? { message } : {}) };
}

/** the claim's conditions without `types`, plus `add` */
function withConditions(st: any, drop: readonly string[], add: Record<string, unknown> | null): Array<Record<string, unknown>> {
  const out = ((st?.conditions ?? []) as Array<Record<string, unknown>>).filter((c) => !drop.includes(c.type as string));
  if (add !== null) out.push(add);
  return out;
}

const RESIZE_CONDITIONS = ["Resizing", "FileSystemResizePending", "ControllerResizeError", "NodeResizeError"] as const;

/**
 * The claim status writes of resize_util.go, each a PATCH of the claim's
 * status (the error, if any, returned: the caller logs and retries).
 */
export const ResizeUtil = {
  /** markPVCResizeInProgress (external-resizer): condition Resizing; with RecoverVolumeExpansionFailure allocatedResources */
  markResizeInProgress(ctx: Ctx, key: string, size: string, recover: boolean): void {
    ctx.api.patch("PersistentVolumeClaim", key, (d) => {
      d.status = Object.assign({}, d.status, { conditions: withConditions(d.status, ["Resizing"], condition("Resizing", ctx.sim.now)) });
      if (recover) Object.assign(d.status, { allocatedResources: { storage: size }, allocatedResourceStatuses: { storage: "ControllerResizeInProgress" } });
      return true;
    });
  },
  /** MarkForFSResize / markPVCAsFSResizeRequired: condition FileSystemResizePending */
  markForFSResize(ctx: Ctx, key: string, recover: boolean): void {
    ctx.api.patch("PersistentVolumeClaim", key, (d) => {
      // (MergeResizeConditionOnPVC keeps a condition already there: the patch then changes nothing and is not sent)
      const has = ((d.status?.conditions ?? []) as Array<{ type: string }>).some((c) => c.type === "FileSystemResizePending");
      if (has && (!recover || d.status?.allocatedResourceStatuses?.storage === "NodeResizePending")) return false;
      d.status = Object.assign({}, d.status, { conditions: withConditions(d.status, RESIZE_CONDITIONS, condition("FileSystemResizePending", ctx.sim.now, FS_RESIZE_PENDING_MESSAGE)) });
      if (recover) d.status.allocatedResourceStatuses = { storage: "NodeResizePending" };
      return true;
    });
  },
  /** MarkResizeFinished / MarkFSResizeFinished: status.capacity = size, the resize conditions and statuses gone */
  markResizeFinished(ctx: Ctx, key: string, size: string): void {
    ctx.api.patch("PersistentVolumeClaim", key, (d) => {
      const st = Object.assign({}, d.status, { capacity: Object.assign({}, d.status?.capacity, { storage: size }), conditions: withConditions(d.status, RESIZE_CONDITIONS, null) });
      delete st.allocatedResourceStatuses;
      d.status = st;
      return true;
    });
  },
  /** a controller error: with RecoverVolumeExpansionFailure a final one is ControllerResizeInfeasible */
  markControllerResizeFailed(ctx: Ctx, key: string, final: boolean): void {
    ctx.api.patch("PersistentVolumeClaim", key, (d) => {
      d.status = Object.assign({}, d.status, { allocatedResourceStatuses: { storage: final ? "ControllerResizeInfeasible" : "ControllerResizeInProgress" } });
      return true;
    });
  },
  /** util.UpdatePVSize */
  updatePVSize(ctx: Ctx, pvName: string, size: string): void {
    ctx.api.patch("PersistentVolume", pvName, (d) => {
      d.spec = Object.assign({}, d.spec, { capacity: Object.assign({}, d.spec?.capacity, { storage: size }) });
      return true;
    });
  },
};

/** `persistentvolumeclaim/NAME`, the events' object */
function claimObject(pvc: KObj): string {
  return `persistentvolumeclaim/${pvc.metadata.name}`;
}

/**
 * kube-controller-manager's expand controller: in-tree plugins expand here,
 * CSI volumes are left to the external-resizer (section 2).
 */
export class ExpandController {
  private inf: Informer | null = null;
  private dead = false;
  private readonly npo: NestedPendingOperations;
  readonly component = "kube-controller-manager";

  constructor(private readonly ctx: Ctx) {
    const failures = new FailureMessages(ctx.profile);
    this.npo = new NestedPendingOperations(ctx.sim, ctx.profile, ctx.timers.INITIAL_DURATION_BEFORE_RETRY_MS, ctx.timers.MAX_DURATION_BEFORE_RETRY_MS, (f) => {
      if (this.dead) return;
      ctx.out.on && ctx.out.log(this.component, "E", `nestedpendingoperations.go:${ctx.profile.npoLogLine}`, failures.message(f, ctx.out.goTime(f.retryAt, this.component)));
    }, ctx.sim.group("expand-controller/operations"), ctx.out);
  }
  /**
   * A failed operation's claim comes back: syncHandler's error is a
   * rate-limited requeue (5 ms doubling), refused while the operation backs
   * off, so the claim is handled again at the first instant its backoff
   * allows (500 ms doubling to 2m2s, the npo's own: mirrored here per volume).
   */
  private readonly backoffMs = new Map<string, number>();
  private requeue(volumeName: string, key: string): void {
    const t = this.ctx.timers;
    const d = Math.min(2 * (this.backoffMs.get(volumeName) ?? t.INITIAL_DURATION_BEFORE_RETRY_MS / 2), t.MAX_DURATION_BEFORE_RETRY_MS);
    this.backoffMs.set(volumeName, d);
    this.ctx.sim.after(d + 1, () => this.sync(key));
  }

  start(): void {
    const { ctx } = this;
    this.inf = ctx.api.informer(
      ["PersistentVolumeClaim", "PersistentVolume"],
      ctx.watchLatency(this.component),
      ctx.watchExtra(this.component),
      (type, obj) => {
        if (type !== "DELETED" && obj.kind === "PersistentVolumeClaim") this.sync(`${obj.metadata.namespace}/${obj.metadata.name}`);
      },
      () => {
        for (const o of this.inf!.cache.list("PersistentVolumeClaim")) this.sync(`${o.metadata.namespace}/${o.metadata.name}`);
      },
      ctx.sim.group("expand-controller"),
    );
  }

  stop(): void {
    this.dead = true;
    if (this.inf) this.ctx.api.stopInformer(this.inf);
  }

  /** syncHandler of one claim */
  private sync(key: string): void {
    if (this.dead) return;
    const { ctx } = this;
    const pvc = this.inf!.cache.get("PersistentVolumeClaim", key);
    const pvName = pvc?.spec?.volumeName as string | undefined;
    if (!pvc || !pvName) return;
    const pv = this.inf!.cache.get("PersistentVolume", pvName);
    const s = sizes(pvc, pv);
    if (!(s.request > s.status)) return;
    const plugin = expandPluginOf(pv);
    if (plugin === null || pv === undefined) return;
    if (plugin === "kubernetes.io/csi") {
      ctx.out.event("Normal", "ExternalExpanding", claimObject(pvc), "waiting for an external controller to expand this PVC", "volume_expand", pvc.metadata.namespace, pvc.metadata.uid);
      return;
    }
    const volumeName = `${plugin}/${backendIdOfPV(pv)}`;
    this.npo.run({ volumeName, podName: "", nodeName: "" }, "expand_volume", this.expandVolume, { key, pvName, plugin, volumeName }, this);
  }

  /** GenerateExpandVolumeFunc's operation */
  private expandVolume(op: Done, a: { key: string; pvName: string; plugin: string; volumeName: string }): void {
    const { ctx } = this;
    // (the operation reads the claim and PV it was generated with: the cache's at its start)
    const pvc = this.inf!.cache.get("PersistentVolumeClaim", a.key);
    const pv = this.inf!.cache.get("PersistentVolume", a.pvName);
    if (!pvc || !pv) return op.done(null);
    const s = sizes(pvc, pv);
    const newSize = String(pvc.spec.resources.requests.storage);
    const recover = ctx.profile.fix.RecoverVolumeExpansionFailure;
    const c = this.component;
    const qualified = `${pvc.metadata.namespace}/${pvc.metadata.name}`;
    const finish = (): void => {
      try {
        if (!isBlockVolume({ name: pv.metadata.name, pv, readOnly: false })) ResizeUtil.markForFSResize(ctx, a.key, recover);
        else {
          ResizeUtil.markResizeFinished(ctx, a.key, newSize);
          ctx.out.event("Normal", "VolumeResizeSuccessful", claimObject(pvc), `ExpandVolume succeeded for volume ${qualified}`, "volume_expand", pvc.metadata.namespace, pvc.metadata.uid);
        }
      } catch (e) {
        // (MarkForFSResize's error is logged and the operation still succeeds; a resync tries again)
        ctx.out.on && ctx.out.log(c, "W", "operation_generator.go:1682", `Error updating pvc ${qualified} condition for fs resize : ${(e as Error).message}`);
      }
      ctx.steps.step("expand.ExpandVolumeSucceeded", a.pvName);
      this.backoffMs.delete(a.volumeName);
      op.done(null);
    };
    ctx.steps.step("expand.ExpandVolumeStarted", a.pvName);
    if (!(s.pv < s.request)) return finish();
    if (recover) {
      try {
        ctx.api.patch("PersistentVolumeClaim", a.key, (d) => {
          d.status = Object.assign({}, d.status, { allocatedResources: { storage: newSize }, allocatedResourceStatuses: { storage: "ControllerResizeInProgress" } });
          return true;
        });
      } catch {
        /* retried with the operation */
      }
    }
    const id = backendIdOfPV(pv);
    const plan = ctx.backend.call("expandVolume", id, "", a.plugin);
    perform(ctx, "expandVolume", plan, false, id, () => null, (err) => {
      if (this.dead) return;
      if (err !== null) {
        const msg = `error expanding volume ${JSON.stringify(qualified)} of plugin ${JSON.stringify(a.plugin)}: ${err.text}`;
        ctx.out.event("Warning", "VolumeResizeFailed", claimObject(pvc), msg, "volume_expand", pvc.metadata.namespace, pvc.metadata.uid);
        if (recover) {
          try {
            ResizeUtil.markControllerResizeFailed(ctx, a.key, true);
          } catch {
            /* as upstream: logged, the operation's error stands */
          }
        }
        ctx.steps.step("expand.ExpandVolumeFailed", a.pvName);
        op.done(msg);
        return this.requeue(a.volumeName, a.key);
      }
      ctx.out.on && ctx.out.log(c, "I", "operation_generator.go:1651", `ExpandVolume succeeded for volume ${qualified}`);
      try {
        ResizeUtil.updatePVSize(ctx, a.pvName, newSize);
      } catch (e) {
        const msg = `Error updating PV spec capacity for volume ${JSON.stringify(qualified)} with : ${(e as Error).message}`;
        ctx.steps.step("expand.ExpandVolumeFailed", a.pvName);
        op.done(msg);
        return this.requeue(a.volumeName, a.key);
      }
      ctx.out.on && ctx.out.log(c, "I", "operation_generator.go:1663", `ExpandVolume.UpdatePV succeeded for volume ${qualified}`);
      finish();
    });
  }
}

interface ResizeWork {
  pending: boolean;
  retryMs: number;
  retryAt: number;
}

/** kubernetes-csi/external-resizer for every CSI driver of the run (section 3) */
export class ExternalResizer {
  private inf: Informer | null = null;
  private readonly work = new Map<string, ResizeWork>();
  private dead = false;
  readonly component = "csi-resizer";

  constructor(private readonly ctx: Ctx) {}

  start(): void {
    const { ctx } = this;
    ctx.out.processStarted(this.component);
    this.inf = ctx.api.informer(
      ["PersistentVolumeClaim", "PersistentVolume", "CSIDriver"],
      ctx.watchLatency(this.component),
      ctx.watchExtra(this.component),
      (type, obj) => {
        if (type !== "DELETED" && obj.kind === "PersistentVolumeClaim") this.sync(`${obj.metadata.namespace}/${obj.metadata.name}`);
      },
      () => {
        for (const o of this.inf!.cache.list("PersistentVolumeClaim")) this.sync(`${o.metadata.namespace}/${o.metadata.name}`);
      },
      ctx.sim.group(this.component),
    );
  }

  stop(): void {
    this.dead = true;
    if (this.inf) this.ctx.api.stopInformer(this.inf);
  }

  private requeue(key: string, w: ResizeWork): void {
    const { ctx } = this;
    w.retryMs = w.retryMs === 0 ? ctx.timers.EXTERNAL_RESIZER_RETRY_START_MS : Math.min(2 * w.retryMs, ctx.timers.EXTERNAL_RESIZER_RETRY_MAX_MS);
    w.retryAt = ctx.sim.now + w.retryMs;
    ctx.sim.after(w.retryMs, () => this.sync(key));
  }

  /** the controller's syncPVC */
  private sync(key: string): void {
    if (this.dead) return;
    const { ctx } = this;
    const pvc = this.inf!.cache.get("PersistentVolumeClaim", key);
    const pvName = pvc?.spec?.volumeName as string | undefined;
    if (!pvc || !pvName) return;
    const pv = this.inf!.cache.get("PersistentVolume", pvName);
    if (!pv?.spec?.csi) return;
    const s = sizes(pvc, pv);
    // (a claim waiting for the node, FileSystemResizePending with the PV grown, is the kubelet's)
    if (!(s.request > s.status) || !(s.pv < s.request)) return;
    let w = this.work.get(key);
    if (w === undefined) this.work.set(key, (w = { pending: false, retryMs: 0, retryAt: 0 }));
    if (w.pending || ctx.sim.now < w.retryAt) return;
    const driver = String(pv.spec.csi.driver);
    const c = this.component;
    const source = `external-resizer ${driver}`;
    const newSize = String(pvc.spec.resources.requests.storage);
    const recover = ctx.profile.fix.RecoverVolumeExpansionFailure;
    ctx.out.on && ctx.out.log(c, "I", "controller.go:295", `Started PVC processing ${JSON.stringify(key)}`);
    try {
      ResizeUtil.markResizeInProgress(ctx, key, newSize, recover);
    } catch (e) {
      ctx.out.on && ctx.out.log(c, "E", "controller.go:312", `Mark pvc ${JSON.stringify(key)} as resizing failed: ${(e as Error).message}`);
      if (e instanceof ApiError) this.requeue(key, w);
      return;
    }
    ctx.out.event("Normal", "Resizing", claimObject(pvc), `External resizer is resizing volume ${pvName}`, source, pvc.metadata.namespace, pvc.metadata.uid);
    w.pending = true;
    const handle = String(pv.spec.csi.volumeHandle);
    const plan = ctx.backend.call("controllerExpand", handle, "", "kubernetes.io/csi");
    ctx.steps.step("expand.ExpandVolumeStarted", pvName);
    perform(ctx, "controllerExpand", plan, true, handle, () => null, (err) => {
      if (this.dead) return;
      w!.pending = false;
      if (err !== null) {
        const rpc = `rpc error: code = ${err.code ?? "Internal"} desc = ${err.text}`;
        const msg = `resize volume ${JSON.stringify(pvName)} by resizer ${JSON.stringify(driver)} failed: ${rpc}`;
        ctx.out.event("Warning", "VolumeResizeFailed", claimObject(pvc), msg, source, pvc.metadata.namespace, pvc.metadata.uid);
        ctx.out.on && ctx.out.log(c, "E", "controller.go:282", `Error syncing PVC: ${msg}`);
        if (recover) {
          try {
            ResizeUtil.markControllerResizeFailed(ctx, key, !err.nonFinal);
          } catch {
            /* logged upstream; the retry writes it again */
          }
        }
        ctx.steps.step("expand.ExpandVolumeFailed", pvName);
        this.requeue(key, w!);
        return;
      }
      w!.retryMs = 0;
      w!.retryAt = 0;
      ctx.out.on && ctx.out.log(c, "I", "controller.go:483", `Resize volume succeeded for volume ${JSON.stringify(pvName)}, start to update PV's capacity`);
      try {
        ResizeUtil.updatePVSize(ctx, pvName, newSize);
        ctx.out.on && ctx.out.log(c, "I", "controller.go:489", `Update capacity of PV ${JSON.stringify(pvName)} to ${newSize} succeeded`);
        const drv = this.inf!.cache.get("CSIDriver", driver);
        const nodeExpansion = drv?.metadata.annotations?.["iosim.dev/node-expansion"] !== "false";
        if (nodeExpansion) {
          ResizeUtil.markForFSResize(ctx, key, recover);
          ctx.out.on && ctx.out.log(c, "I", "controller.go:515", `Mark PVC ${JSON.stringify(key)} as file system resize required`);
          ctx.out.event("Normal", "FileSystemResizeRequired", claimObject(pvc), "Require file system resize of volume on node", source, pvc.metadata.namespace, pvc.metadata.uid);
        } else {
          ResizeUtil.markResizeFinished(ctx, key, newSize);
          ctx.out.on && ctx.out.log(c, "I", "controller.go:546", `Resize PVC ${JSON.stringify(key)} finished`);
          ctx.out.event("Normal", "VolumeResizeSuccessful", claimObject(pvc), "Resize volume succeeded", source, pvc.metadata.namespace, pvc.metadata.uid);
        }
      } catch (e) {
        ctx.out.on && ctx.out.log(c, "E", "controller.go:282", `Error syncing PVC: ${(e as Error).message}`);
        this.requeue(key, w!);
        return;
      }
      ctx.steps.step("expand.ExpandVolumeSucceeded", pvName);
    }, undefined, ctx.timers.EXTERNAL_RESIZER_TIMEOUT_MS);
  }
}

/** whether a scenario resizes a claim (the expansion machinery runs only then: other runs stay as they were) */
export function scenarioResizes(timeline: ReadonlyArray<{ action: { kind: string } }>): boolean {
  for (const it of timeline) if (it.action.kind === "resize") return true;
  return false;
}
