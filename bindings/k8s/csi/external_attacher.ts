// kubernetes-csi/external-attacher: the sidecar that turns VolumeAttachment
// objects into ControllerPublishVolume / ControllerUnpublishVolume calls.
//
// For a VolumeAttachment of its driver:
//   not attached, not deleted: add the finalizer external-attacher/<driver>
//     (an UPDATE from its cache: stale cache -> 409 Conflict -> requeue),
//     ControllerPublish, then status.attached = true (or status.attachError)
//   deleted (deletionTimestamp) with the finalizer: ControllerUnpublish, then
//     status.attached = false and drop the finalizer; the API server removes
//     the object when the last finalizer is gone (or status.detachError)
// Failures are retried per VolumeAttachment with exponential backoff from
// --retry-interval-start (1 s) to --retry-interval-max (5 min) [U defaults].
//
// A VolumeAttachment nobody deletes is never unpublished: that is seed 004's
// leak (the ADC deleted a non-existent name and believed it had detached).

import { ApiError, Informer } from "../api/apiserver.js";
import { cloneMeta, type KObj } from "../api/types.js";
import type { Ctx } from "../engine/context.js";
import { joinOnce } from "../volume/plugins.js";
import { boundedMemo } from "../../util/bounded-memo.js";
import { perform, type CallError } from "../volume/operation.js";
import { inTreePluginOf, translateInTreeSpecToCSI } from "../volume/csimigration.js";

interface Work {
  pending: boolean;
  retryMs: number;
  retryAt: number;
}

/** the attacher's finalizer, external-attacher/<driver with "/" as "-">, built once per driver */
const finalizerFor = boundedMemo(256, (driver: string): string => `external-attacher/${driver.replace(/\//g, "-")}`);

/** an event's object, volumeattachment/<name>, one string per name (the event recorder compares it with earlier events') */
const eventObject = boundedMemo(1024, (name: string): string => `volumeattachment/${name}`);

export class ExternalAttacher {
  private inf: Informer | null = null;
  private work = new Map<string, Work>();
  private dead = false;
  readonly component = "csi-attacher";

  constructor(private readonly ctx: Ctx) {}

  start(): void {
    const { ctx } = this;
    ctx.out.processStarted(this.component);
    this.inf = ctx.api.informer(
      ["VolumeAttachment", "PersistentVolume", "CSIDriver"],
      ctx.watchLatency(this.component),
      ctx.watchExtra(this.component),
      (type, obj) => {
        if (obj.kind === "VolumeAttachment" && type !== "DELETED") this.sync(obj.metadata.name);
        if (obj.kind === "VolumeAttachment" && type === "DELETED") this.work.delete(obj.metadata.name);
      },
      () => {
        for (const o of this.inf!.cache.list("VolumeAttachment")) this.sync(o.metadata.name);
      },
      // no loops of its own: its cache changes wake nobody
      ctx.sim.group(this.component),
    );
  }

  stop(): void {
    this.dead = true;
    if (this.inf) this.ctx.api.stopInformer(this.inf);
  }

  private handled(va: KObj): boolean {
    const drv = this.inf!.cache.get("CSIDriver", va.spec.attacher);
    return drv === undefined || drv.spec?.attachRequired !== false;
  }

  private w(name: string): Work {
    let w = this.work.get(name);
    if (!w) this.work.set(name, (w = { pending: false, retryMs: 0, retryAt: 0 }));
    return w;
  }

  private requeue(name: string, w: Work): void {
    const { ctx } = this;
    w.retryMs = w.retryMs === 0 ? ctx.timers.EXTERNAL_ATTACHER_RETRY_START_MS : Math.min(2 * w.retryMs, ctx.timers.EXTERNAL_ATTACHER_RETRY_MAX_MS);
    w.retryAt = ctx.sim.now + w.retryMs;
    ctx.sim.after(w.retryMs, () => this.sync(name));
  }

  private sync(name: string): void {
    if (this.dead) return;
    const { ctx } = this;
    const va = this.inf!.cache.get("VolumeAttachment", name);
    if (!va || !this.handled(va)) return;
    const w = this.w(name);
    if (w.pending || ctx.sim.now < w.retryAt) return;
    const deleting = va.metadata.deletionTimestamp !== undefined;
    const fin = finalizerFor(va.spec.attacher);
    const hasFin = (va.metadata.finalizers ?? []).includes(fin);
    if (!deleting && va.status?.attached) return;
    if (deleting && !hasFin) return;
    const inline: string | undefined = va.spec.source?.inlineVolumeSpec?.csi?.volumeHandle;
    const pv = inline === undefined ? this.inf!.cache.get("PersistentVolume", String(va.spec.source?.persistentVolumeName)) : undefined;
    // a migrated PV's in-tree source is translated as the kubelet and the controller do (csi-translation-lib; volume/csimigration.ts);
    // a migrated inline volume's VolumeAttachment carries the translated spec (csi_handler.go: inlineVolumeSpec.csi, since v1.2.0 #154)
    const handle: string = inline ?? pv?.spec?.csi?.volumeHandle ?? (pv !== undefined && inTreePluginOf({ name: pv.metadata.name, pv, readOnly: false }) !== null ? translateInTreeSpecToCSI({ name: pv.metadata.name, pv, readOnly: false }).pv!.spec.csi.volumeHandle : undefined) ?? va.spec.source?.persistentVolumeName ?? name;
    const node: string = va.spec.nodeName;
    const c = this.component;
    if (!deleting) {
      if (!hasFin) {
        const upd = cloneMeta(va);
        upd.metadata.finalizers = [...(va.metadata.finalizers ?? []), fin];
        try {
          ctx.api.update(upd);
        } catch (e) {
          ctx.out.on && ctx.out.wants(c) && ctx.out.log(c, "E", "csi_handler.go:226", `Error saving VolumeAttachment ${JSON.stringify(name)} as attached: ${(e as Error).message}`);
          if (e instanceof ApiError) this.requeue(name, w);
          return;
        }
        // continue on the next watch event with the finalizer in the cache
        return;
      }
      ctx.out.on && ctx.out.wants(c) && ctx.out.log(c, "I", "csi_handler.go:140", `Starting attach operation for ${JSON.stringify(name)}`);
      w.pending = true;
      // the driver's controller service serialises its calls per volume and
      // node (the CSI spec's advice; aws-ebs-csi-driver's inFlight): while an
      // earlier ControllerPublish or ControllerUnpublish is still running
      // (after the sidecar gave up on it at its --timeout), another is
      // answered at once with Aborted, a non-final error, and retried
      const busyKey = joinOnce(handle, "\0", node);
      const busy = ctx.backend.csiControllerBusy;
      const answered = (e: CallError | null): void => {
        if (this.dead) return;
        w.pending = false;
        const err = e === null ? null : e.text;
        const rpc = e === null ? "" : joinOnce(`rpc error: code = ${e.code ?? "Internal"} desc = `, "", e.text);
        try {
          ctx.api.patch("VolumeAttachment", name, (d) => {
            d.status = err
              ? Object.assign({}, d.status, { attached: false, attachError: { time: ctx.sim.now, message: rpc } })
              : { attached: true, attachmentMetadata: {} };
            return true;
          });
        } catch (e) {
          // (k8s-incidents) the status could not be saved (the API server is down or
          // refuses): logged and retried, as the attacher's workqueue does
          // (csi_handler.go: the item is re-queued with its backoff); an object gone is not retried
          if (e instanceof ApiError && e.reason !== "NotFound") {
            ctx.out.on && ctx.out.wants(c) && ctx.out.log(c, "E", "csi_handler.go:226", `Error saving VolumeAttachment ${JSON.stringify(name)} as attached: ${e.message}`);
            this.requeue(name, w);
            return;
          }
        }
        if (err) {
          ctx.out.on && ctx.out.wants(c) && ctx.out.log(c, "E", "csi_handler.go:600", `Error processing ${JSON.stringify(name)}: failed to attach: ${rpc}`);
          ctx.out.event("Warning", "FailedAttach", eventObject(name), err, "csi-attacher");
          this.requeue(name, w);
        } else {
          w.retryMs = 0;
          w.retryAt = 0;
          ctx.out.on && ctx.out.wants(c) && ctx.out.log(c, "I", "csi_handler.go:612", `Attached ${JSON.stringify(name)}`);
        }
      };
      if (busy.has(busyKey)) {
        ctx.backend.countCall("controllerPublish", handle, node);
        return answered(driverBusy(handle));
      }
      busy.add(busyKey);
      const r = ctx.backend.call("controllerPublish", handle, node, "kubernetes.io/csi");
      // (the controller service does the work whether or not this sidecar is still there to hear of it)
      perform(ctx, "controllerPublish", r, true, handle, () => ctx.backend.attach(handle, node, "Volume has been published to a different host already"), answered, () => busy.delete(busyKey), ctx.timers.EXTERNAL_ATTACHER_TIMEOUT_MS);
      return;
    }
    ctx.out.on && ctx.out.wants(c) && ctx.out.log(c, "I", "csi_handler.go:170", `Starting detach operation for ${JSON.stringify(name)}`);
    w.pending = true;
    const busyKey = joinOnce(handle, "\0", node);
    const busy = ctx.backend.csiControllerBusy;
    const answered = (e: CallError | null): void => {
      if (this.dead) return;
      w.pending = false;
      const rpc = e === null ? "" : `rpc error: code = ${e.code ?? "Internal"} desc = ${e.text}`;
      try {
        if (e !== null) {
          ctx.api.patch("VolumeAttachment", name, (d) => {
            d.status = Object.assign({}, d.status, { detachError: { time: ctx.sim.now, message: rpc } });
            return true;
          });
        } else {
          ctx.api.patch("VolumeAttachment", name, (d) => {
            d.status = { attached: false };
            d.metadata.finalizers = (d.metadata.finalizers ?? []).filter((f: string) => f !== fin);
            return true;
          });
        }
      } catch (e) {
        // (k8s-incidents) as above: a refused status write is retried; an object gone is not
        if (e instanceof ApiError && e.reason !== "NotFound") {
          ctx.out.on && ctx.out.wants(c) && ctx.out.log(c, "E", "csi_handler.go:245", `Error saving VolumeAttachment ${JSON.stringify(name)} as detached: ${e.message}`);
          this.requeue(name, w);
          return;
        }
      }
      if (e !== null) {
        ctx.out.on && ctx.out.wants(c) && ctx.out.log(c, "E", "csi_handler.go:640", `Error processing ${JSON.stringify(name)}: failed to detach: ${rpc}`);
        this.requeue(name, w);
      } else {
        ctx.out.on && ctx.out.wants(c) && ctx.out.log(c, "I", "csi_handler.go:652", `Detached ${JSON.stringify(name)}`);
      }
    };
    if (busy.has(busyKey)) {
      ctx.backend.countCall("controllerUnpublish", handle, node);
      return answered(driverBusy(handle));
    }
    busy.add(busyKey);
    const r = ctx.backend.call("controllerUnpublish", handle, node, "kubernetes.io/csi");
    perform(ctx, "controllerUnpublish", r, true, handle, () => {
      ctx.backend.detach(handle, node);
      return null;
    }, answered, () => busy.delete(busyKey), ctx.timers.EXTERNAL_ATTACHER_TIMEOUT_MS);
  }
}

/** the controller service's answer to a call for a volume and node it is still working on (Aborted: not final) */
function driverBusy(handle: string): CallError {
  return { text: `an operation with the given Volume ID ${handle} already exists`, code: "Aborted", nonFinal: true, timedOut: false };
}
