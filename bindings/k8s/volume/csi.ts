// pkg/volume/csi: the CSI volume plugin (attacher in the ADC, mounter and
// device mounter in the kubelet) and the node side of a CSI driver.
//
// 1. Names.
//    unique volume name   kubernetes.io/csi/<driver>^<volumeHandle>
//    GetVolumeName        <driver>^<volumeHandle>   (what Detach receives)
//    VolumeAttachment     csi-<hex sha256(volumeHandle + driver + nodeName)>,
//                         always 4 + 64 = 68 characters
//    ephemeral handle     csi-<hex sha256(podUID + specVolumeName)>
//
// 2. Seed 004 (#97230, fixed by #107025). Before the fix, Detach began with
//    `if isAttachmentName(volumeName)` = HasPrefix("csi-") && len == 68, a
//    leftover from when callers passed attachment IDs. Driver
//    "csi-unity.dellemc.com" (21 characters) + "^" + a 46-character handle is
//    exactly 68 and starts with "csi-": Detach then DELETEs a VolumeAttachment
//    named after the volume, gets 404, logs "not found, object deleted" and
//    reports success. The real csi-<sha> object stays attached for ever.
//
// 3. Seed 000/003 (#79980, fixed by #108997). GetVolumeName only understands
//    a PV source; for an inline CSIVolumeSource it fails with "unexpected
//    api.CSIVolumeSource found in volume.Spec". Reconstruction before the fix
//    called it for inline volumes because it looked the plugin up by name.
//
// 4. The node driver (NodeStage/NodePublish/NodeUnpublish/NodeUnstage) keeps
//    its state on the host: a staged PV is a mount of fs "csi:<handle>" at the
//    global mount; an ephemeral (inline) volume is a logical volume
//    "lv:<handle>" created by NodePublish and removed by NodeUnpublish, which
//    fails ("contains a filesystem in use") while a container still holds it.
//
// 5. NodePublish of a volume that is not staged (#100182). A driver with
//    STAGE_UNSTAGE_VOLUME publishes by bind-mounting its staging path into
//    the pod (aws-ebs-csi-driver, gcp-compute-persistent-disk-csi-driver
//    NodePublishVolume: mount --bind staging target; they do not check that
//    the staging path is a mount). When the kubelet skips NodeStage for a
//    volume the driver has unstaged (a NodeUnstage that timed out at the
//    kubelet but finished in the driver, before #100183), the bind is of an
//    empty directory on the node's root filesystem: the pod runs, and its
//    writes go to the node's disk (the data loss of #120455). The replay
//    mounts "rootfs:<staging path>" there and announces
//    `csi.NodePublishUnstaged`.

import { isNotFound } from "../api/apiserver.js";
import type { KObj } from "../api/types.js";
import type { Ctx } from "../engine/context.js";
import { sha256Hex } from "../../util/sha256.js";
import { intern } from "../../util/intern.js";
import type { Host } from "../host/mount.js";
import type { ErrorText } from "../util/exponentialbackoff.js";
import { joinInterned, joinOnce, PluginError, podVolumePaths, type Cb, type LazyCb, type PluginEnv, type VAWaiter, type VAWaiters, type VolumePlugin, type VolumeSpec } from "./plugins.js";
import { boundedMemo } from "../../util/bounded-memo.js";
import { busyText } from "../host/mount.js";
import { csiErrorText, perform, rpcError } from "./operation.js";
import { AWS_EBS_DRIVER, GCE_PD_DRIVER } from "./csimigration.js";

export const CSI_PLUGIN_NAME = "kubernetes.io/csi";

/** a migrated in-tree plugin's driver is deployed unless the scenario says it is not (settings.csiMigrationDrivers: volume/csimigration.ts) */
function migrationDriverDeployed(ctx: Ctx, driver: string): boolean {
  return ctx.migration === undefined || ctx.migration.drivers || (driver !== AWS_EBS_DRIVER && driver !== GCE_PD_DRIVER);
}
const DIR_NAME = "kubernetes.io~csi";

/**
 * csi_attacher.go getAttachmentName; memoised by its three parts (asked on
 * every attach, wait and detach, it would otherwise join and hash a new
 * string each time), so the same name is the same string object
 */
export function getAttachmentName(volName: string, csiDriverName: string, nodeName: string): string {
  let byDriver = attachmentNames.get(volName);
  if (byDriver === undefined) {
    if (attachmentNames.size >= 1024) attachmentNames.clear();
    attachmentNames.set(volName, (byDriver = new Map()));
  }
  let byNode = byDriver.get(csiDriverName);
  if (byNode === undefined) byDriver.set(csiDriverName, (byNode = new Map()));
  let name = byNode.get(nodeName);
  if (name === undefined) {
    if (byNode.size >= 1024) byNode.clear();
    byNode.set(nodeName, (name = intern(`csi-${sha256Memo(`${volName}${csiDriverName}${nodeName}`)}`)));
  }
  return name;
}
const attachmentNames = new Map<string, Map<string, Map<string, string>>>();

/** sha256Hex with a memo: the same few names (attachments, global mounts, ephemeral handles) are hashed on every pass */
function sha256Memo(text: string): string {
  let v = shaCache.get(text);
  if (v === undefined) {
    if (shaCache.size > 4096) shaCache.clear();
    shaCache.set(text, (v = sha256Hex(text)));
  }
  return v;
}
const shaCache = new Map<string, string>();

/** csi_attacher.go isAttachmentName (removed by #107025): 68 == "csi-" + len(sha256hash) */
export function isAttachmentName(unknownString: string): boolean {
  return unknownString.startsWith("csi-") && unknownString.length === 68;
}

/** csi_mounter.go makeVolumeHandle for ephemeral volumes */
export function makeVolumeHandle(podUID: string, volSourceSpecName: string): string {
  return `csi-${sha256Memo(`${podUID}${volSourceSpecName}`)}`;
}

const log = (msg: string): string => `kubernetes.io/csi: ${msg}`;

/** the staging directory of a global mount (".../globalmount" without its last part), one string per path */
const stagingDir = boundedMemo(4096, (deviceMountPath: string): string =>
  deviceMountPath.endsWith("/globalmount") ? deviceMountPath.slice(0, -"/globalmount".length) : deviceMountPath,
);

/** the PV's CSI source itself (never written: API objects are immutable), or null */
function pvSource(spec: VolumeSpec): { readonly driver: string; readonly volumeHandle: string } | null {
  const csi = spec.pv?.spec?.csi;
  return csi ? csi : null;
}

function driverObj(ctx: Ctx, driver: string): KObj | undefined {
  return ctx.api.tryGet("CSIDriver", driver);
}

function attachRequired(ctx: Ctx, driver: string): boolean {
  return driverObj(ctx, driver)?.spec?.attachRequired !== false;
}
function stageUnstage(ctx: Ctx, driver: string): boolean {
  return driverObj(ctx, driver)?.metadata.annotations?.["iosim.dev/stage-unstage"] !== "false";
}


/**
 * Attach waiting for its VolumeAttachment to be attached (or to fail, or to
 * time out): one record per wait holds what its check, its timeout and its
 * callback need, instead of a closure each (csi_attacher.go waitForVolumeAttachment).
 */
class AttachWait implements VAWaiter {
  private finished = false;
  constructor(
    private readonly done: Cb,
    readonly attachID: string,
    readonly volumeHandle: string,
    readonly waiters: VAWaiters,
  ) {}
  finish(err: string | null, devicePath?: string): void {
    if (this.finished) return;
    this.finished = true;
    this.done(err, devicePath);
  }
  check(va: KObj | undefined): boolean {
    if (!va) return false;
    if (va.metadata.deletionTimestamp !== undefined) {
      this.finish(log(`volume attachment ${this.attachID} is being deleted`));
      return true;
    }
    if (va.status?.attached) {
      this.finish(null, "");
      return true;
    }
    if (va.status?.attachError) {
      // verifyAttachmentStatus: errors.New(attachErr.Message), the
      // external-attacher's text as it is ("rpc error: code = ... desc = ...",
      // one prefix; csi_attacher.go since the lister wait, v1.22-v1.31)
      this.finish(va.status.attachError.message);
      return true;
    }
    return false;
  }
  /** (the timeout's event; one that finds the wait over has nothing to do) */
  static timeout(w: AttachWait): void {
    if (w.finished) return;
    w.waiters.remove(w.attachID, w);
    w.finish(log(`attachment timeout for volume ${w.volumeHandle}`));
  }
}

/** Detach waiting for its VolumeAttachment to be gone (csi_attacher.go waitForVolumeDetachment); see AttachWait. */
class DetachWait implements VAWaiter {
  private finished = false;
  constructor(
    private readonly done: LazyCb,
    readonly attachID: string,
    readonly volID: string,
    readonly timeoutMs: number,
    readonly waiters: VAWaiters,
  ) {}
  finish(err: ErrorText | null): void {
    if (this.finished) return;
    this.finished = true;
    this.done(err);
  }
  check(va: KObj | undefined): boolean {
    if (!va) {
      this.finish(null);
      return true;
    }
    if (va.status?.detachError) {
      const msg = va.status.detachError.message;
      const volID = this.volID;
      this.finish(() => log(`detacher.WaitForDetach failed for volume [${volID}]: ${msg}`));
      return true;
    }
    return false;
  }
  static timeout(w: DetachWait): void {
    if (w.finished) return;
    w.waiters.remove(w.attachID, w);
    const { timeoutMs, volID, attachID } = w;
    w.finish(() => log(`detacher.WaitForDetach timeout after ${timeoutMs / 1000}s [volume=${volID}; attachment.ID=${attachID}]`));
  }
}

export function createCSIPlugin(): VolumePlugin {
  const plugin: VolumePlugin = {
    name: CSI_PLUGIN_NAME,
    dirName: DIR_NAME,
    attachableByName: true,
    canSupport: (spec) => !!spec.pv?.spec?.csi || !!spec.inline?.csi,
    isAttachable: (spec, ctx) => {
      const s = pvSource(spec);
      return s !== null && attachRequired(ctx, s.driver);
    },
    isDeviceMountable: (spec) => pvSource(spec) !== null,
    getVolumeName(spec) {
      const s = pvSource(spec);
      if (!s) {
        if (spec.inline?.csi)
          throw new PluginError(log("plugin.GetVolumeName failed to extract volume source from spec: unexpected api.CSIVolumeSource found in volume.Spec"));
        throw new PluginError(log("plugin.GetVolumeName failed to extract volume source from spec: volume.Spec has no CSI source"));
      }
      return joinInterned(s.driver, "^", s.volumeHandle);
    },

    // ---- attach/detach controller ------------------------------------
    attach(env, spec, node, done) {
      const { ctx } = env;
      const s = pvSource(spec)!;
      if (!attachRequired(ctx, s.driver)) {
        ctx.out.on && ctx.out.log(env.component, "I", "csi_attacher.go:80", log(`skipping attach for driver ${s.driver}`));
        return done(null, "");
      }
      const attachID = getAttachmentName(s.volumeHandle, s.driver, node);
      let created: KObj | null;
      ctx.api.caller = env.component;
      try {
        created = ctx.api.createIfAbsent({
          apiVersion: "storage.k8s.io/v1",
          kind: "VolumeAttachment",
          metadata: { name: attachID, uid: "", resourceVersion: "" },
          // a migrated inline volume has no PV: the translated spec itself (csi_attacher.go InlineVolumeSpecForCSIMigration)
          spec: { attacher: s.driver, nodeName: node, source: spec.inlineMigration ? { inlineVolumeSpec: spec.pv!.spec } : { persistentVolumeName: spec.name } },
          status: { attached: false },
        });
      } catch (e) {
        return done(log(`attacher.Attach failed: ${(e as Error).message}`));
      } finally {
        ctx.api.caller = "";
      }
      if (created !== null) ctx.out.on && ctx.out.log(env.component, "I", "csi_attacher.go:110", log(`attachment [${attachID}] for volume [${s.volumeHandle}] created successfully`));
      else ctx.out.on && ctx.out.log(env.component, "I", "csi_attacher.go:103", log(`attachment [${attachID}] for volume [${s.volumeHandle}] already exists (will not be recreated)`));
      const wait = new AttachWait(done, attachID, s.volumeHandle, env.vaWaiters!);
      if (wait.check(ctx.api.tryGet("VolumeAttachment", attachID))) return;
      env.vaWaiters!.add(attachID, wait);
      ctx.sim.call(ctx.sim.now + ctx.timers.CSI_TIMEOUT_MS, AttachWait.timeout, wait);
    },

    detach(env, volumeName, node, done) {
      const { ctx } = env;
      let attachID: string;
      let volID: string;
      if (!ctx.profile.has.pr107025 && isAttachmentName(volumeName)) {
        // volumeName is taken to be an attachment ID (pre-#107025)
        attachID = volumeName;
        volID = volumeName;
      } else {
        const i = volumeName.indexOf("^");
        if (i < 0) return done(log("detacher.Detach failed: volumeName missing expected data"));
        const driverName = volumeName.slice(0, i);
        volID = volumeName.slice(i + 1);
        attachID = getAttachmentName(volID, driverName, node);
      }
      ctx.out.on &&
        ctx.out.log(env.component, "I", "round_trippers.go:420", `DELETE https://kube-apiserver:6443/apis/storage.k8s.io/v1/volumeattachments/${encodeURIComponent(attachID)}`);
      // (404 answered without an exception; an injected fault still throws, NotFound included)
      let found: boolean;
      ctx.api.caller = env.component;
      try {
        found = ctx.api.deleteIfPresent("VolumeAttachment", attachID) !== null;
      } catch (e) {
        if (!isNotFound(e)) {
          const msg = (e as Error).message;
          return done(() => log(`detacher.Detach failed to delete VolumeAttachment [${attachID}]: ${msg}`));
        }
        found = false;
      } finally {
        ctx.api.caller = "";
      }
      if (!found) {
        ctx.out.on && ctx.out.log(env.component, "I", "round_trippers.go:446", `Response Status: 404 Not Found in 8 milliseconds`);
        ctx.out.on && ctx.out.log(env.component, "I", "csi_attacher.go:411", log(`VolumeAttachment object [${attachID}] for volume [${volID}] not found, object deleted`));
        ctx.steps.step("csi.VolumeAttachmentNotFound", attachID);
        if (attachID === volumeName) {
          // the cause the invariants' explanations quote (seed 004): not a log line
          ctx.out.note(`volume:kubernetes.io/csi/${volumeName}`, () => {
            const i = volumeName.indexOf("^");
            const real = i < 0 ? "" : ` (${getAttachmentName(volumeName.slice(i + 1), volumeName.slice(0, i), node)})`;
            return `the CSI detacher took the volume name kubernetes.io/csi/${volumeName} (${volumeName.length} characters starting with "csi-") for a VolumeAttachment name (isAttachmentName; fixed by #107025), deleted volumeattachments/${volumeName}, got 404 Not Found and reported the detach from ${node} as done; the real VolumeAttachment${real} stays attached`;
          });
        }
        return done(null);
      }
      ctx.out.on && ctx.out.log(env.component, "I", "round_trippers.go:446", `Response Status: 200 OK in 8 milliseconds`);
      ctx.out.on && ctx.out.log(env.component, "I", "csi_attacher.go:420", log(`detacher deleted ok VolumeAttachment.ID=${attachID}`));
      const wait = new DetachWait(done, attachID, volID, ctx.timers.CSI_TIMEOUT_MS, env.vaWaiters!);
      if (wait.check(ctx.api.tryGet("VolumeAttachment", attachID))) return;
      env.vaWaiters!.add(attachID, wait);
      ctx.sim.call(ctx.sim.now + ctx.timers.CSI_TIMEOUT_MS, DetachWait.timeout, wait);
    },

    volumeIsAttached(env, spec, node) {
      const s = pvSource(spec);
      if (!s) return true;
      if (!attachRequired(env.ctx, s.driver)) return true;
      const va = env.ctx.api.tryGet("VolumeAttachment", getAttachmentName(s.volumeHandle, s.driver, node));
      return !!va?.status?.attached;
    },

    // ---- kubelet -----------------------------------------------------
    waitForAttach(env, spec, _devicePath, done) {
      const s = pvSource(spec)!;
      const { ctx } = env;
      if (!attachRequired(ctx, s.driver)) return done(null, "");
      const attachID = getAttachmentName(s.volumeHandle, s.driver, env.nodeName!);
      const va = ctx.api.tryGet("VolumeAttachment", attachID);
      if (!va) return done(() => log(`attacher.WaitForAttach failed for volume [${s.volumeHandle}] (will continue to try): volumeattachments.storage.k8s.io "${attachID}" not found`));
      // (k8s-releases) verifyAttachmentStatus checks the deletion timestamp
      // before status.attached, in every release (csi_attacher.go v1.10 to
      // master; #96952, which would have checked it last, was closed
      // unmerged): a VolumeAttachment being deleted fails the wait even while
      // it still says attached, and the mount is retried after the backoff
      if (va.metadata.deletionTimestamp !== undefined) {
        ctx.out.on && ctx.out.log(env.component, "E", "csi_attacher.go:462", log(`VolumeAttachment [${attachID}] has deletion timestamp, will not continue to wait for attachment`));
        return done(() => "volume attachment is being deleted");
      }
      if (va.status?.attached) return done(null, attachID);
      return done(() => log(`attacher.WaitForAttach failed for volume [${s.volumeHandle}] (will continue to try): volume ${s.volumeHandle} is not attached yet`));
    },
    getDeviceMountPath(env, spec) {
      const s = pvSource(spec)!;
      const root = env.ctx.kubeletRoot;
      // the same string for the same volume: a map key (mounts, directories, stagingDir) at every (un)mount
      const dir = env.ctx.profile.csiHashedGlobalMount
        ? joinInterned(joinInterned(root, "/plugins/kubernetes.io/csi/", s.driver), "/", sha256Memo(s.volumeHandle))
        : joinInterned(root, "/plugins/kubernetes.io/csi/pv/", spec.name);
      return joinInterned(dir, "/", "globalmount");
    },
    mountDevice(env, spec, _devicePath, deviceMountPath, done) {
      const s = pvSource(spec)!;
      const { ctx } = env;
      const host = env.host!;
      if (!stageUnstage(ctx, s.driver)) {
        ctx.out.on && ctx.out.log(env.component, "I", "csi_attacher.go:302", log(`attacher.MountDevice STAGE_UNSTAGE_VOLUME capability not set. Skipping MountDevice...`));
        return done(null);
      }
      if (host.csiRegisteredAt > ctx.sim.now || !migrationDriverDeployed(ctx, s.driver)) return done(log(`attacher.MountDevice failed to create newCsiDriverClient: driver name ${s.driver} not found in the list of registered CSI drivers`));
      // the driver serialises a volume's calls: one still staging answers Aborted
      // ("an operation with the given Volume ID ... already exists", the CSI spec's
      // advice and csi-driver-host-path's answer), a non-final error
      const busy = host.csiNodeBusy;
      if (busy.has(s.volumeHandle)) {
        ctx.backend.countCall("nodeStage", s.volumeHandle, env.nodeName!);
        return done(log(`attacher.MountDevice failed: ${rpcError("Aborted", `an operation with the given Volume ID ${s.volumeHandle} already exists`)}`), undefined, ctx.profile.has.pr82492);
      }
      busy.add(s.volumeHandle);
      const r = ctx.backend.call("nodeStage", s.volumeHandle, env.nodeName!, CSI_PLUGIN_NAME);
      // MountDevice writes the staging directory and its vol_data.json before
      // NodeStageVolume (csi_attacher.go), so UnmountDevice can find the handle
      // of a stage still in flight
      const dataDir = stagingDir(deviceMountPath);
      host.mkdir(dataDir, { plugin: CSI_PLUGIN_NAME, data: { driverName: s.driver, volumeHandle: s.volumeHandle } });
      host.mkdir(deviceMountPath, { plugin: CSI_PLUGIN_NAME, data: {} });
      perform(ctx, "nodeStage", r, true, s.volumeHandle, () => {
        // (the driver makes the target if the kubelet's cleanup removed it)
        if (!host.dirs.has(deviceMountPath)) host.mkdir(deviceMountPath, { plugin: CSI_PLUGIN_NAME, data: {} });
        host.mount(`csi:${s.volumeHandle}`, deviceMountPath);
        return null;
      }, (err) => {
        if (err === null) return done(null);
        // a non-final error is an UncertainProgressError since #82492 (csi_client.go NodeStageVolume)
        const uncertain = err.nonFinal && ctx.profile.has.pr82492;
        // the deferred cleanup: on an error (since #82492 only a final one) removeMountDir, unless mounted
        if (!uncertain && !host.isMountPoint(deviceMountPath)) {
          host.rmdir(deviceMountPath);
          host.rmdir(dataDir);
        }
        done(log(`attacher.MountDevice failed: ${csiErrorText(err)}`), undefined, uncertain);
      }, () => busy.delete(s.volumeHandle));
    },
    unmountDevice(env, deviceMountPath, done) {
      const { ctx } = env;
      const host = env.host!;
      const meta = host.dirs.get(stagingDir(deviceMountPath));
      const handle = meta?.data.volumeHandle ?? "";
      if (meta && !stageUnstage(ctx, meta.data.driverName ?? "")) return done(null);
      if (host.csiRegisteredAt > ctx.sim.now) {
        const drv = meta?.data.driverName ?? "";
        return done(() => log(`attacher.UnmountDevice failed to create newCsiDriverClient: driver name ${drv} not found in the list of registered CSI drivers`));
      }
      if (host.csiNodeBusy.has(handle)) {
        ctx.backend.countCall("nodeUnstage", handle, env.nodeName!);
        return done(() => log(`attacher.UnmountDevice failed: ${rpcError("Aborted", `an operation with the given Volume ID ${handle} already exists`)}`));
      }
      const r = ctx.backend.call("nodeUnstage", handle, env.nodeName!, CSI_PLUGIN_NAME);
      perform(ctx, "nodeUnstage", r, true, handle, () => {
        // the driver's umount: EBUSY while a process holds the mount (an unmounted path is no error: NodeUnstage is idempotent)
        if (host.isBusy(deviceMountPath)) return busyText(deviceMountPath);
        if (host.isMountPoint(deviceMountPath)) host.unmount(deviceMountPath);
        host.rmdir(deviceMountPath);
        host.rmdir(stagingDir(deviceMountPath));
        return null;
      }, (err) => {
        if (err === null) return done(null);
        done(() => log(`attacher.UnmountDevice failed: ${csiErrorText(err)}`));
      });
    },
    podVolumeDir(env, podUID, specName) {
      return podVolumePaths(env.host!, podUID, DIR_NAME, specName).dir;
    },
    // ---- volumeMode: Block (csi_block.go) ------------------------------
    // global map path plugins/kubernetes.io/csi/volumeDevices/<pv>/dev,
    // staging path .../volumeDevices/staging/<pv> (NodeStageVolume when the
    // driver stages), publish path .../volumeDevices/publish/<pv>/<pod uid>
    // (NodePublishVolume); the pod gets the publish path as its device
    getGlobalMapPath(env, spec) {
      return `${env.ctx.kubeletRoot}/plugins/kubernetes.io/csi/volumeDevices/${spec.name}/dev`;
    },
    setUpDevice(env, spec, _devicePath, _globalMapPath, done) {
      const s = pvSource(spec)!;
      const { ctx } = env;
      if (!stageUnstage(ctx, s.driver)) return done(null);
      const r = ctx.backend.call("nodeStage", s.volumeHandle, env.nodeName!);
      ctx.sim.after(r.latencyMs, () => {
        if (r.error) return done(log(`blockMapper.SetUpDevice failed: rpc error: code = Internal desc = ${r.error}`));
        env.host!.mkdir(`${ctx.kubeletRoot}/plugins/kubernetes.io/csi/volumeDevices/staging/${spec.name}`, { plugin: CSI_PLUGIN_NAME, data: { driverName: s.driver, volumeHandle: s.volumeHandle } });
        done(null);
      });
    },
    mapPodDevice(env, spec, podUID, _devicePath, done) {
      const s = pvSource(spec);
      const { ctx } = env;
      if (!s) return done(log(`blockMapper.MapPodDevice failed: a CSI inline volume cannot be a block volume`));
      const publishPath = `${ctx.kubeletRoot}/plugins/kubernetes.io/csi/volumeDevices/publish/${spec.name}/${podUID}`;
      const r = ctx.backend.call("nodePublish", s.volumeHandle, env.nodeName!);
      ctx.sim.after(r.latencyMs, () => {
        if (r.error) return done(log(`blockMapper.MapPodDevice failed: rpc error: code = Internal desc = ${r.error}`));
        env.host!.mkdir(publishPath, { plugin: CSI_PLUGIN_NAME, podUID, data: { driverName: s.driver, volumeHandle: s.volumeHandle } });
        done(null, publishPath);
      });
    },
    unmapPodDevice(env, specName, podUID, done) {
      const { ctx } = env;
      const publishPath = `${ctx.kubeletRoot}/plugins/kubernetes.io/csi/volumeDevices/publish/${specName}/${podUID}`;
      const handle = env.host!.dirs.get(publishPath)?.data.volumeHandle ?? "";
      const r = ctx.backend.call("nodeUnpublish", handle, env.nodeName!);
      ctx.sim.after(r.latencyMs, () => {
        const error = r.error;
        if (error) return done(() => log(`blockMapper.UnmapPodDevice failed: rpc error: code = Internal desc = ${error}`));
        env.host!.rmdir(publishPath);
        done(null);
      });
    },
    tearDownDevice(env, globalMapPath, _devicePath, done) {
      const { ctx } = env;
      const specName = globalMapPath.slice(0, -"/dev".length).split("/").pop()!;
      const staging = `${ctx.kubeletRoot}/plugins/kubernetes.io/csi/volumeDevices/staging/${specName}`;
      const meta = env.host!.dirs.get(staging);
      if (!meta) return done(null);
      const r = ctx.backend.call("nodeUnstage", meta.data.volumeHandle ?? "", env.nodeName!);
      ctx.sim.after(r.latencyMs, () => {
        const error = r.error;
        if (error) return done(() => log(`blockMapper.TearDownDevice failed: rpc error: code = Internal desc = ${error}`));
        env.host!.rmdir(staging);
        done(null);
      });
    },
    setUp(env, spec, podUID, deviceMountPath, done) {
      const { ctx } = env;
      const host = env.host!;
      const { dir, mount: target } = podVolumePaths(host, podUID, DIR_NAME, spec.name);
      const s = pvSource(spec);
      const ephemeral = !s;
      const driver = s ? s.driver : spec.inline!.csi!.driver;
      const handle = s ? s.volumeHandle : makeVolumeHandle(podUID, spec.name);
      if (host.csiRegisteredAt > ctx.sim.now || !migrationDriverDeployed(ctx, driver)) return done(log(`mounter.SetUpAt failed to get CSI client: driver name ${driver} not found in the list of registered CSI drivers`));
      // the driver serialises calls for a target: a publish still in flight answers Aborted (non-final)
      const busy = host.csiNodeBusy;
      if (busy.has(target)) {
        ctx.backend.countCall("nodePublish", handle, env.nodeName!);
        return done(log(`mounter.SetupAt failed: ${rpcError("Aborted", `an operation with the given Volume ID ${handle} already exists`)}`), undefined, ctx.profile.has.pr82492);
      }
      // SetUpAt writes the volume's directory and vol_data.json before NodePublishVolume (csi_mounter.go),
      // so a TearDown of a publish still in flight finds the handle
      const hadDir = host.dirs.has(dir);
      host.mkdir(dir, {
        plugin: CSI_PLUGIN_NAME,
        podUID,
        specName: spec.name,
        data: { driverName: driver, volumeHandle: handle, specVolID: spec.name, volumeLifecycleMode: ephemeral ? "Ephemeral" : "Persistent", podUID },
      });
      busy.add(target);
      const r = ctx.backend.call("nodePublish", handle, env.nodeName!, CSI_PLUGIN_NAME);
      perform(ctx, "nodePublish", r, true, handle, () => {
        if (ephemeral) host.mount(joinOnce("lv", ":", handle), target);
        else if (stageUnstage(ctx, driver) && host.isMountPoint(deviceMountPath)) host.bind(deviceMountPath, target);
        else if (stageUnstage(ctx, driver)) {
          // NodePublish of a volume that is not staged (section 5): the driver bind-mounts
          // its staging path, an empty directory of the node's root filesystem
          host.mount(joinOnce("rootfs", ":", deviceMountPath), target);
          ctx.steps.step("csi.NodePublishUnstaged", handle);
          const node = env.nodeName!;
          ctx.out.note(`volume:kubernetes.io/csi/${driver}^${handle}`, () => `the kubelet on ${node} called NodePublishVolume for ${handle} without NodeStageVolume: its staging path ${deviceMountPath} is not mounted (a NodeUnstage that failed had unstaged it, and the kubelet still counted the device as mounted), so the pod's volume is a bind of an empty directory on the node's root filesystem and its writes never reach the volume`);
        } else host.mount(`csi:${handle}`, target);
        return null;
      }, (err) => {
        if (err === null) return done(null);
        // csi_mounter.go SetUpAt: a non-final NodePublish error is an UncertainProgressError since #82492
        const uncertain = err.nonFinal && ctx.profile.has.pr82492;
        // removeMountDir on an error (since #82492 a final one), unless mounted
        if (!uncertain && !hadDir && !host.isMountPoint(target)) host.rmdir(dir);
        done(log(`mounter.SetupAt failed: ${csiErrorText(err)}`), undefined, uncertain);
      }, () => busy.delete(target));
    },
    tearDown(env, specName, podUID, done) {
      const { ctx } = env;
      const host = env.host!;
      const { dir, mount: target } = podVolumePaths(host, podUID, DIR_NAME, specName);
      const info = host.dirs.get(dir);
      if (!info) {
        // nothing on disk: already torn down
        host.unmount(target);
        return done(null);
      }
      const handle = info.data.volumeHandle ?? "";
      const ephemeral = info.data.volumeLifecycleMode === "Ephemeral";
      if (host.csiNodeBusy.has(target)) {
        ctx.backend.countCall("nodeUnpublish", handle, env.nodeName!);
        return done(() => log(`Unmounter.TearDownAt failed: ${rpcError("Aborted", `an operation with the given Volume ID ${handle} already exists`)}`));
      }
      // in-flight NodeUnpublish calls, for the driver's "still ongoing" answer
      const calls = host.csiUnpublishing;
      if (calls.has(handle))
        return done(() => log(`Unmounter.TearDownAt failed: rpc error: code = Aborted desc = NodeUnpublish operation for volume ${handle} still ongoing`));
      if (host.csiRegisteredAt > ctx.sim.now) {
        const drv = info.data.driverName ?? "";
        return done(() => log(`Unmounter.TearDownAt failed to get CSI client: driver name ${drv} not found in the list of registered CSI drivers`));
      }
      calls.add(handle);
      const r = ctx.backend.call("nodeUnpublish", handle, env.nodeName!, CSI_PLUGIN_NAME);
      // (what the driver's work met, for the reply: the ephemeral volume's holders)
      let lvBusy: (() => string) | null = null;
      perform(ctx, "nodeUnpublish", r, true, handle, () => {
        if (ephemeral) {
          // (the holders now; the texts are built only if read)
          const holders = host.holders(joinOnce("lv", ":", handle));
          if (holders.length > 0) {
            ctx.out.note(
              `volume:${handle}`,
              () => `NodeUnpublish of ephemeral volume ${handle} failed: the logical volume is still mounted in the mount namespace of ${holders.join(", ")} (the container has not exited yet)`,
            );
            lvBusy = () => {
              const lv = `vg10000/vg10000_${handle}`;
              return log(
                `Unmounter.TearDownAt failed: rpc error: code = Internal desc = rpc error: code = Internal desc = Failed to remove volume: Failed to lvremove lv ${lv}: Logical volume ${lv} contains a filesystem in use.`,
              );
            };
            return "busy";
          }
        }
        if (host.isBusy(target)) return busyText(target);
        host.unmount(target);
        host.rmdir(dir);
        return null;
      }, (err) => {
        calls.delete(handle);
        if (err === null) return done(null);
        if (lvBusy !== null) return done(lvBusy);
        done(() => log(`Unmounter.TearDownAt failed: ${csiErrorText(err)}`));
      });
    },
    constructVolumeSpec(env, specName, podUID) {
      const host = env.host!;
      const dir = plugin.podVolumeDir(env, podUID, specName);
      const info = host.dirs.get(dir);
      if (!info) throw new PluginError(log(`failed to open volume data file [${dir}/vol_data.json]: open ${dir}/vol_data.json: no such file or directory`));
      if (info.data.volumeLifecycleMode === "Ephemeral")
        return { name: specName, inline: { name: specName, csi: { driver: info.data.driverName! } }, readOnly: false };
      const pv: KObj = {
        apiVersion: "v1",
        kind: "PersistentVolume",
        metadata: { name: info.data.specVolID ?? specName, uid: "", resourceVersion: "" },
        spec: { csi: { driver: info.data.driverName, volumeHandle: info.data.volumeHandle } },
      };
      return { name: pv.metadata.name, pv, readOnly: false };
    },
  };
  return plugin;
}
