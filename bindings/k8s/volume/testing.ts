// pkg/volume/testing: the fake volume plugin upstream's unit tests drive the
// attach/detach controller and the kubelet's volume manager with, and
// pkg/controller/volume/attachdetach/testing's GetTestVolumeSpec. The ported
// tests (test/k8s/upstream/) use it; no scenario does.
//
// The fake supports every spec (FakeVolumePlugin.CanSupport), names a volume
// by its spec name (GetVolumeName), and succeeds at every call unless the
// volume's name asks otherwise, as upstream's fake does: a spec named
// FAIL_ATTACH_VOLUME_NAME fails Attach, FAIL_MOUNT_DEVICE_VOLUME_NAME
// MountDevice, FAIL_ON_SETUP_VOLUME_NAME SetUp (the same names as upstream's
// constants). Every call is counted under upstream's getter names
// (GetNewAttacherCallCount, GetAttachCallCount, ... summed over the fake's
// attachers, mounters and so on), which the tests poll where upstream's wait
// for them; `latencyMs` makes every call take simulated time (0: it completes
// in the event after the call, as a goroutine would).
//
// Worked example: an attach/detach controller built with
// `new PluginMgr([createFakeVolumePlugin()])` attaches getTestVolumeSpec("v",
// "v") once the volume is desired: GetNewAttacherCallCount() and
// GetAttachCallCount() are then 1, and the ASW holds
// "kubernetes.io/fake-plugin/v" on the node with device path "/dev/fake/v".

import { podVolumePaths, type VolumePlugin, type VolumeSpec } from "./plugins.js";

export const FAKE_PLUGIN_NAME = "kubernetes.io/fake-plugin";
/** pkg/volume/testing's names that make the fake fail */
export const FAIL_ATTACH_VOLUME_NAME = "fail-attach-volume-name";
export const FAIL_DETACH_VOLUME_NAME = "fail-detach-volume-name";
export const FAIL_MOUNT_DEVICE_VOLUME_NAME = "fail-mount-device-volume-name";
export const FAIL_ON_SETUP_VOLUME_NAME = "fail-setup-volume";
export const FAIL_UNMOUNT_DEVICE_VOLUME_NAME = "fail-unmount-device-volume-name";

export interface FakeVolumePlugin extends VolumePlugin {
  /** every call, by operation: newAttacher, attach, newDetacher, detach, waitForAttach, mountDevice, unmountDevice, setUp, tearDown */
  readonly calls: Record<string, number>;
  /** the specs attach was called with, by node */
  readonly attachedTo: Map<string, Set<string>>;
  latencyMs: number;
  /** attachable (false: a plugin like emptyDir, never attached or device-mounted) */
  attachable: boolean;
  GetNewAttacherCallCount(): number;
  GetNewDetacherCallCount(): number;
  GetAttachCallCount(): number;
  GetDetachCallCount(): number;
  GetWaitForAttachCallCount(): number;
  GetMountDeviceCallCount(): number;
  GetUnmountDeviceCallCount(): number;
  GetSetUpCallCount(): number;
  GetTearDownCallCount(): number;
}

export function createFakeVolumePlugin(opts: { attachable?: boolean; latencyMs?: number } = {}): FakeVolumePlugin {
  const calls: Record<string, number> = { newAttacher: 0, attach: 0, newDetacher: 0, detach: 0, waitForAttach: 0, mountDevice: 0, unmountDevice: 0, setUp: 0, tearDown: 0 };
  const dirName = "kubernetes.io~fake-plugin";
  const count = (op: string): void => {
    calls[op] = (calls[op] ?? 0) + 1;
  };
  const plugin: FakeVolumePlugin = {
    name: FAKE_PLUGIN_NAME,
    dirName,
    calls,
    attachedTo: new Map(),
    latencyMs: opts.latencyMs ?? 0,
    attachable: opts.attachable ?? true,
    get attachableByName() {
      return plugin.attachable;
    },
    canSupport: () => true,
    isAttachable: () => plugin.attachable,
    isDeviceMountable: () => plugin.attachable,
    getVolumeName: (spec) => spec.name,
    attach(env, spec, node, done) {
      count("newAttacher");
      count("attach");
      env.ctx.sim.after(plugin.latencyMs, () => {
        if (spec.name === FAIL_ATTACH_VOLUME_NAME) return done(`failed to attach volume ${JSON.stringify(spec.name)}`);
        let s = plugin.attachedTo.get(node);
        if (!s) plugin.attachedTo.set(node, (s = new Set()));
        s.add(spec.name);
        done(null, `/dev/fake/${spec.name}`);
      });
    },
    detach(env, volumeName, node, done) {
      count("newDetacher");
      count("detach");
      env.ctx.sim.after(plugin.latencyMs, () => {
        if (volumeName === FAIL_DETACH_VOLUME_NAME) return done(`failed to detach volume ${JSON.stringify(volumeName)}`);
        plugin.attachedTo.get(node)?.delete(volumeName);
        done(null);
      });
    },
    volumeIsAttached: (_env, spec, node) => plugin.attachedTo.get(node)?.has(spec.name) ?? false,
    waitForAttach(env, spec, devicePath, done) {
      count("waitForAttach");
      env.ctx.sim.after(plugin.latencyMs, () => done(null, devicePath || `/dev/fake/${spec.name}`));
    },
    getDeviceMountPath: (env, spec) => `${env.ctx.kubeletRoot}/plugins/${FAKE_PLUGIN_NAME}/mounts/${spec.name}`,
    mountDevice(env, spec, devicePath, deviceMountPath, done) {
      count("mountDevice");
      env.ctx.sim.after(plugin.latencyMs, () => {
        if (spec.name === FAIL_MOUNT_DEVICE_VOLUME_NAME) return done(`error mounting ${spec.name}`);
        env.host!.mkdir(deviceMountPath, { plugin: FAKE_PLUGIN_NAME, data: { name: spec.name } });
        env.host!.mount(devicePath || `/dev/fake/${spec.name}`, deviceMountPath);
        done(null);
      });
    },
    unmountDevice(env, deviceMountPath, done) {
      count("unmountDevice");
      env.ctx.sim.after(plugin.latencyMs, () => {
        if (deviceMountPath.endsWith(`/${FAIL_UNMOUNT_DEVICE_VOLUME_NAME}`)) return done(`error unmounting ${deviceMountPath}`);
        if (env.host!.isMountPoint(deviceMountPath)) env.host!.unmount(deviceMountPath);
        env.host!.rmdir(deviceMountPath);
        done(null);
      });
    },
    podVolumeDir: (env, podUID, specName) => podVolumePaths(env.host!, podUID, dirName, specName).dir,
    setUp(env, spec, podUID, deviceMountPath, done) {
      count("setUp");
      env.ctx.sim.after(plugin.latencyMs, () => {
        if (spec.name === FAIL_ON_SETUP_VOLUME_NAME) return done(`failed to setup volume ${spec.name}`);
        const dir = plugin.podVolumeDir(env, podUID, spec.name);
        env.host!.mkdir(dir, { plugin: FAKE_PLUGIN_NAME, podUID, specName: spec.name, data: { name: spec.name } });
        if (deviceMountPath && env.host!.isMountPoint(deviceMountPath)) return done(env.host!.bind(deviceMountPath, dir));
        env.host!.mount(`fake:${spec.name}`, dir);
        done(null);
      });
    },
    tearDown(env, specName, podUID, done) {
      count("tearDown");
      env.ctx.sim.after(plugin.latencyMs, () => {
        const dir = plugin.podVolumeDir(env, podUID, specName);
        if (env.host!.isMountPoint(dir)) env.host!.unmount(dir);
        env.host!.rmdir(dir);
        done(null);
      });
    },
    constructVolumeSpec: (_env, specName) => getTestVolumeSpec(specName, specName),
    GetNewAttacherCallCount: () => calls.newAttacher!,
    GetNewDetacherCallCount: () => calls.newDetacher!,
    GetAttachCallCount: () => calls.attach!,
    GetDetachCallCount: () => calls.detach!,
    GetWaitForAttachCallCount: () => calls.waitForAttach!,
    GetMountDeviceCallCount: () => calls.mountDevice!,
    GetUnmountDeviceCallCount: () => calls.unmountDevice!,
    GetSetUpCallCount: () => calls.setUp!,
    GetTearDownCallCount: () => calls.tearDown!,
  };
  return plugin;
}

/**
 * controllervolumetesting.GetTestVolumeSpec: an inline GCE PD named
 * `volumeName` on disk `diskName`, with a PersistentVolume part that only
 * says ReadWriteOnce (so the volume is not multi-attachable).
 */
export function getTestVolumeSpec(volumeName: string, diskName: string, accessModes: string[] = ["ReadWriteOnce"]): VolumeSpec {
  return {
    name: volumeName,
    inline: { name: volumeName, gcePersistentDisk: { pdName: diskName, fsType: "fake" } } as VolumeSpec["inline"],
    pv: { apiVersion: "v1", kind: "PersistentVolume", metadata: { name: volumeName, uid: "", resourceVersion: "" }, spec: { accessModes } },
    readOnly: false,
  };
}
