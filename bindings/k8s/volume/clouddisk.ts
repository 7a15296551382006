// In-tree attachable cloud disks: kubernetes.io/aws-ebs, kubernetes.io/gce-pd
// and the Tencent fork's kubernetes.io/qcloud-cbs (seed 002). Attach and Detach
// are cloud API calls made by the ADC; the kubelet waits for the device to show
// up, mounts it at plugins/kubernetes.io/<plugin>/mounts/<disk> and
// bind-mounts it into the pod. Plus the two non-attachable sources the
// scenarios need (hostPath, emptyDir).

import type { CloudDiskSource } from "../api/types.js";
import { joinInterned, PluginError, podVolumePaths, type VolumePlugin, type VolumeSpec } from "./plugins.js";
import { intern } from "../../util/intern.js";
import { perform } from "./operation.js";

/** the disk id of a device mount path (.../mounts/<disk>) */
function diskOfMountPath(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

function src(spec: VolumeSpec): CloudDiskSource | null {
  const s = spec.pv?.spec ?? spec.inline;
  if (!s) return null;
  if (s.awsElasticBlockStore) return { plugin: "aws-ebs", diskId: s.awsElasticBlockStore.volumeID };
  if (s.gcePersistentDisk) return { plugin: "gce-pd", diskId: s.gcePersistentDisk.pdName };
  if (s.qcloudCbs) return { plugin: "qcloud-cbs", diskId: s.qcloudCbs.cbsDiskId };
  return null;
}

/** src(spec)?.plugin without building the source */
function kindOf(spec: VolumeSpec): CloudDiskSource["plugin"] | null {
  const s = spec.pv?.spec ?? spec.inline;
  if (!s) return null;
  if (s.awsElasticBlockStore) return "aws-ebs";
  if (s.gcePersistentDisk) return "gce-pd";
  if (s.qcloudCbs) return "qcloud-cbs";
  return null;
}

export function createCloudDiskPlugin(kind: CloudDiskSource["plugin"]): VolumePlugin {
  const name = intern(`kubernetes.io/${kind}`);
  const mountsDir = intern(`/plugins/kubernetes.io/${kind}/mounts/`);
  const dirName = `kubernetes.io~${kind}`;
  const plugin: VolumePlugin = {
    name,
    dirName,
    attachableByName: true,
    canSupport: (spec) => kindOf(spec) === kind,
    isAttachable: () => true,
    isDeviceMountable: () => true,
    getVolumeName(spec) {
      const s = src(spec);
      if (!s) throw new PluginError(`Spec does not reference a ${kind} volume type`);
      return s.diskId;
    },
    attach(env, spec, node, done) {
      const { ctx } = env;
      const disk = src(spec)!.diskId;
      const r = ctx.backend.call("attach", disk, node, name);
      perform(ctx, "attach", r, false, disk, () => ctx.backend.attach(disk, node, `disk ${disk} is attached to another instance`), (err) => {
        if (err !== null) return done(err.text, undefined, err.timedOut);
        done(null, `/dev/disk/by-id/virtio-${disk}`);
      });
    },
    detach(env, volumeName, node, done) {
      const { ctx } = env;
      const r = ctx.backend.call("detach", volumeName, node, name);
      perform(ctx, "detach", r, false, volumeName, () => {
        // a disk detached under a filesystem the node still has mounted (the cloud does not ask)
        const host = ctx.hosts.get(node);
        if (host !== undefined && host.isDiskMounted(volumeName)) {
          ctx.steps.step("cloud.DetachedWhileMounted", volumeName);
          ctx.out.note(`volume:${name}/${volumeName}`, `the cloud detached ${volumeName} from ${node} while the node still had its filesystem mounted (an unmount was still running or had not started): writes not yet flushed are lost`);
        } else if (host !== undefined && host.mountingDevices.has(volumeName)) {
          // a MountDevice (mkfs, then mount) still running on the node (#70319)
          ctx.steps.step("cloud.DetachedDuringMountDevice", volumeName);
          ctx.out.note(`volume:${name}/${volumeName}`, `the cloud detached ${volumeName} from ${node} while the kubelet's MountDevice was still formatting and mounting it: the kubelet no longer reported it in node.status.volumesInUse (before #71145, 1.13, a volume whose MountDevice had not finished was not "in use" once its pod was gone)`);
        }
        ctx.backend.detach(volumeName, node);
        return null;
      }, (err) => done(err === null ? null : err.text));
    },
    volumeIsAttached(env, spec, node) {
      return env.ctx.backend.volume(src(spec)!.diskId).attachedTo.has(node);
    },
    waitForAttach(env, spec, devicePath, done) {
      const disk = src(spec)!.diskId;
      if (!env.ctx.backend.volume(disk).attachedTo.has(env.nodeName!)) return done(() => `could not find attached ${kind} disk "${disk}" (path: "${devicePath}")`);
      done(null, devicePath || `/dev/disk/by-id/virtio-${disk}`);
    },
    getDeviceMountPath(env, spec) {
      // one string per path: a key of the host's mount and directory tables
      return joinInterned(env.ctx.kubeletRoot, mountsDir, src(spec)!.diskId);
    },
    mountDevice(env, spec, devicePath, deviceMountPath, done) {
      const disk = src(spec)!.diskId;
      const host = env.host!;
      const node = env.nodeName!;
      const dev = devicePath || `/dev/disk/by-id/virtio-${disk}`;
      // (while it runs a detach of the disk pulls it from under mkfs: Host.mountingDevices)
      host.mountingDevices.add(disk);
      perform(env.ctx, "mountDevice", env.ctx.backend.call("mountDevice", disk, node, name), false, disk, () => {
        // the device went away under the format: mount(8) finds no special device
        if (!env.ctx.backend.volume(disk).attachedTo.has(node)) return `mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t ext4 -o defaults ${dev} ${deviceMountPath}\nOutput: mount: special device ${dev} does not exist\n`;
        host.mkdir(deviceMountPath, { plugin: name, data: { disk } });
        host.mount(dev, deviceMountPath);
        return null;
      }, (err) => done(err === null ? null : err.text), () => host.mountingDevices.delete(disk));
    },
    unmountDevice(env, deviceMountPath, done) {
      const host = env.host!;
      const disk = diskOfMountPath(deviceMountPath);
      perform(env.ctx, "unmountDevice", env.ctx.backend.call("unmountDevice", disk, env.nodeName!, name), false, disk, () => {
        if (host.isMountPoint(deviceMountPath)) {
          const err = host.unmount(deviceMountPath);
          if (err) return err;
        }
        host.rmdir(deviceMountPath);
        return null;
      }, (err) => done(err === null ? null : err.text));
    },
    podVolumeDir(env, podUID, specName) {
      return podVolumePaths(env.host!, podUID, dirName, specName).dir;
    },
    deviceOpened(env, devicePath) {
      // hostutil.DeviceOpened: the block device is still mounted somewhere (a
      // process's private mount namespace kept its copy of the global mount)
      return devicePath !== "" && env.host!.refs(devicePath) > 0;
    },
    // volumeMode: Block: the attached device itself is the pod's device (an
    // in-tree disk's BlockVolumeMapper has no SetUpDevice/TearDownDevice of its own)
    getGlobalMapPath(env, spec) {
      return `${env.ctx.kubeletRoot}/plugins/kubernetes.io/${kind}/volumeDevices/${src(spec)!.diskId}`;
    },
    mapPodDevice(_env, spec, _podUID, devicePath, done) {
      done(null, devicePath || `/dev/disk/by-id/virtio-${src(spec)!.diskId}`);
    },
    unmapPodDevice(_env, _specName, _podUID, done) {
      done(null);
    },
    setUp(env, spec, podUID, deviceMountPath, done) {
      const dir = plugin.podVolumeDir(env, podUID, spec.name);
      const disk = src(spec)!.diskId;
      const host = env.host!;
      perform(env.ctx, "setUp", env.ctx.backend.call("setUp", disk, env.nodeName!, name), false, disk, () => {
        host.mkdir(dir, { plugin: name, podUID, specName: spec.name, data: { disk, pv: spec.pv?.metadata.name ?? "" } });
        return host.bind(deviceMountPath, dir);
      }, (err) => {
        if (err === null) return done(null);
        // SetUpAt after a failed mount (aws_ebs.go, gce_pd.go): if the
        // target is a mount point anyway (the mount landed, timeoutDone),
        // unmount it; then remove the directory. A mount that lands later
        // (hang) is not seen here and stays.
        if (host.isMountPoint(dir) && host.unmount(dir) !== null) return done(err.text);
        host.rmdir(dir);
        done(err.text);
      });
    },
    tearDown(env, specName, podUID, done) {
      const dir = plugin.podVolumeDir(env, podUID, specName);
      const host = env.host!;
      const disk = host.dirs.get(dir)?.data.disk ?? specName;
      perform(env.ctx, "tearDown", env.ctx.backend.call("tearDown", disk, env.nodeName!, name), false, disk, () => {
        // (a path that is not mounted is no error: UnmountMountPoint's IsLikelyNotMountPoint)
        if (host.isMountPoint(dir)) {
          const err = host.unmount(dir);
          if (err) return err;
        }
        host.rmdir(dir);
        return null;
      }, (err) => done(err === null ? null : err.text));
    },
    constructVolumeSpec(env, specName, podUID) {
      const info = env.host!.dirs.get(plugin.podVolumeDir(env, podUID, specName));
      if (!info) throw new PluginError(`${kind}: cannot find volume data for ${specName}`);
      const field = kind === "aws-ebs" ? { awsElasticBlockStore: { volumeID: info.data.disk! } } : kind === "gce-pd" ? { gcePersistentDisk: { pdName: info.data.disk! } } : { qcloudCbs: { cbsDiskId: info.data.disk! } };
      if (info.data.pv) return { name: info.data.pv, pv: { apiVersion: "v1", kind: "PersistentVolume", metadata: { name: info.data.pv, uid: "", resourceVersion: "" }, spec: field }, readOnly: false };
      return { name: specName, inline: { name: specName, ...field }, readOnly: false };
    },
  };
  return plugin;
}

/**
 * The local plugins: nothing to attach or mount at the storage backend.
 * hostPath and emptyDir are bound by the container runtime; secret,
 * configMap, projected and downwardAPI (the kubelet's volumes of API data:
 * every pod has a projected kube-api-access-* volume since 1.22) are, like
 * emptyDir, a directory under the pod's volumes that SetUp writes and
 * TearDown removes. Not modelled: the tmpfs upstream mounts for secret and
 * projected volumes (an emptyDir of medium Memory), the API reads their
 * SetUp makes (they cannot fail here) and their periodic refresh.
 * Unique names are pod-scoped (`kubernetes.io/secret/<pod uid>-<volume>`),
 * as GetUniqueVolumeNameFromSpecWithPod makes them for a non-attachable,
 * non-device-mountable plugin.
 */
export type LocalPluginKind = "host-path" | "empty-dir" | "secret" | "configmap" | "projected" | "downward-api";
/** the pod volume field of each local plugin */
export const LOCAL_PLUGIN_FIELDS: Readonly<Record<LocalPluginKind, "hostPath" | "emptyDir" | "secret" | "configMap" | "projected" | "downwardAPI">> = {
  "host-path": "hostPath",
  "empty-dir": "emptyDir",
  secret: "secret",
  configmap: "configMap",
  projected: "projected",
  "downward-api": "downwardAPI",
};
const LOCAL_CAN_SUPPORT: Readonly<Record<LocalPluginKind, (spec: VolumeSpec) => boolean>> = {
  "host-path": (spec) => !!spec.inline?.hostPath,
  "empty-dir": (spec) => !!spec.inline?.emptyDir,
  secret: (spec) => !!spec.inline?.secret,
  configmap: (spec) => !!spec.inline?.configMap,
  projected: (spec) => !!spec.inline?.projected,
  "downward-api": (spec) => !!spec.inline?.downwardAPI,
};
export function createLocalPlugin(kind: LocalPluginKind): VolumePlugin {
  const name = intern(`kubernetes.io/${kind}`);
  const dirName = `kubernetes.io~${kind}`;
  const field = LOCAL_PLUGIN_FIELDS[kind];
  // a directory the plugin writes (all but hostPath, which is the node's own)
  const writes = kind !== "host-path";
  const plugin: VolumePlugin = {
    name,
    dirName,
    attachableByName: false,
    // (a named field each: a keyed read by `field` cost the seed replays ~2 %, measured)
    canSupport: LOCAL_CAN_SUPPORT[kind],
    isAttachable: () => false,
    isDeviceMountable: () => false,
    getVolumeName(spec) {
      return kind === "host-path" ? spec.inline!.hostPath!.path : spec.name;
    },
    podVolumeDir(env, podUID, specName) {
      return podVolumePaths(env.host!, podUID, dirName, specName).dir;
    },
    setUp(env, spec, podUID, _dmp, done) {
      if (writes) env.host!.mkdir(plugin.podVolumeDir(env, podUID, spec.name), { plugin: name, podUID, specName: spec.name, data: {} });
      done(null);
    },
    tearDown(env, specName, podUID, done) {
      env.host!.rmdir(plugin.podVolumeDir(env, podUID, specName));
      done(null);
    },
    constructVolumeSpec(_env, specName) {
      return { name: specName, inline: kind === "host-path" ? { name: specName, hostPath: { path: "/" } } : { name: specName, [field]: {} }, readOnly: false };
    },
  };
  return plugin;
}
