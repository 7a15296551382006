// pkg/volume/testing: the fake volume plugin upstream's unit tests drive the
// attach/detach controller and the kubelet's volume manager with, and
// pkg/controller/volume/attachdetach/testing's GetTestVolumeSpec. The ported
// tests (test/k8s/upstream/) use it; no scenario does.
//
// The fake supports every spec (FakeVolumePlugin.CanSupport), names a volume
// by its spec name (GetVolumeName), and succeeds at every call unless the
// volume's or the node's name asks otherwise, as upstream's fake does:
// Attach and Detach keep upstream's FakeVolume bookkeeping (VolumesAttached)
// and its special nodes (an attach to UNCERTAIN_ATTACH_NODE fails the first
// time and succeeds after, to TIMEOUT_ATTACH_NODE always fails although the
// volume is attached; a detach from FAIL_DETACH_NODE fails; MULTI_ATTACH_NODE
// shares a volume); a spec named FAIL_MOUNT_DEVICE_VOLUME_NAME fails
// MountDevice, FAIL_ON_SETUP_VOLUME_NAME SetUp. Every call is counted under upstream's getter names
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
/** nodes the fake attacher treats specially (pkg/volume/testing) */
export const MULTI_ATTACH_NODE = "multi-attach-node";
export const UNCERTAIN_ATTACH_NODE = "uncertain-attach-node";
export const TIMEOUT_ATTACH_NODE = "timeout-attach-node";
export const FAIL_DETACH_NODE = "fail-detach-node";

export interface FakeVolumePlugin extends VolumePlugin {
  /** every call, by operation: newAttacher, attach, newDetacher, detach, waitForAttach, mountDevice, unmountDevice, setUp, tearDown */
  readonly calls: Record<string, number>;
  /** FakeVolume.VolumesAttached: volume name -> the nodes it is attached to */
  readonly attachedTo: Map<string, Set<string>>;
  latencyMs: number;
  /** attachable (false: a plugin like emptyDir, never attached or device-mounted) */
  attachable: boolean;
  /** UnmountDeviceHook: called by UnmountDevice before it unmounts; an error text fails it */
  UnmountDeviceHook?: (deviceMountPath: string) => string | null;
  /** WaitForAttachHook: replaces WaitForAttach's answer (the device path, or an error text) */
  WaitForAttachHook?: (spec: VolumeSpec, devicePath: string) => { devicePath: string } | { error: string };
  GetNewAttacherCallCount(): number;
  GetNewDetacherCallCount(): number;
  GetAttachCallCount(): number;
  GetDetachCallCount(): number;
  GetWaitForAttachCallCount(): number;
  GetMountDeviceCallCount(): number;
  GetUnmountDeviceCallCount(): number;
  GetSetUpCallCount(): number;
  GetTearDownCallCount(): number;
  GetSetUpDeviceCallCount(): number;
  GetMapPodDeviceCallCount(): number;
  GetUnmapPodDeviceCallCount(): number;
  GetTearDownDeviceCallCount(): number;
}

export function createFakeVolumePlugin(opts: { attachable?: boolean; latencyMs?: number } = {}): FakeVolumePlugin {
  const calls: Record<string, number> = { newAttacher: 0, attach: 0, newDetacher: 0, detach: 0, waitForAttach: 0, mountDevice: 0, unmountDevice: 0, setUp: 0, tearDown: 0, setUpDevice: 0, mapPodDevice: 0, unmapPodDevice: 0, tearDownDevice: 0 };
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
    // FakeVolumePlugin.GetVolumeName: a GCE PD's disk name, else the spec's name
    getVolumeName: (spec) => fakeVolumeName(spec),
    attach(env, spec, node, done) {
      count("newAttacher");
      count("attach");
      env.ctx.sim.after(plugin.latencyMs, () => {
        // FakeVolume.Attach: VolumesAttached by volume name; the special nodes as upstream's
        const volumeName = fakeVolumeName(spec);
        if (volumeName === FAIL_ATTACH_VOLUME_NAME) return done(`failed to attach volume ${JSON.stringify(volumeName)}`);
        const nodes = plugin.attachedTo.get(volumeName);
        if (nodes) {
          if (node === UNCERTAIN_ATTACH_NODE) return done(null, "/dev/vdb-test");
          // even if the volume was attached on time out, keep returning the error so the reconciler cannot confirm it
          if (node === TIMEOUT_ATTACH_NODE) return done(`timed out to attach volume ${JSON.stringify(volumeName)} to node ${JSON.stringify(node)}`);
          if (nodes.has(node) || nodes.has(MULTI_ATTACH_NODE) || node === MULTI_ATTACH_NODE) {
            nodes.add(node);
            return done(null, "/dev/vdb-test");
          }
          return done(`volume ${JSON.stringify(volumeName)} trying to attach to node ${JSON.stringify(node)} is already attached to node ${JSON.stringify([...nodes])}`);
        }
        plugin.attachedTo.set(volumeName, new Set([node]));
        if (node === UNCERTAIN_ATTACH_NODE || node === TIMEOUT_ATTACH_NODE) return done(`timed out to attach volume ${JSON.stringify(volumeName)} to node ${JSON.stringify(node)}`);
        done(null, "/dev/vdb-test");
      });
    },
    detach(env, volumeName, node, done) {
      count("newDetacher");
      env.ctx.sim.after(plugin.latencyMs, () => {
        // FakeVolume.Detach
        const nodes = plugin.attachedTo.get(volumeName);
        if (nodes) {
          if (!nodes.has(node)) return done(`trying to detach volume ${JSON.stringify(volumeName)} that is not attached to the node ${JSON.stringify(node)}`);
          nodes.delete(node);
          if (nodes.size === 0) plugin.attachedTo.delete(volumeName);
        }
        count("detach");
        if (node === FAIL_DETACH_NODE || volumeName === FAIL_DETACH_VOLUME_NAME) return done(`fail to detach volume ${JSON.stringify(volumeName)} to node ${JSON.stringify(node)}`);
        done(null);
      });
    },
    volumeIsAttached: (_env, spec, node) => plugin.attachedTo.get(fakeVolumeName(spec))?.has(node) ?? false,
    waitForAttach(env, spec, devicePath, done) {
      count("waitForAttach");
      env.ctx.sim.after(plugin.latencyMs, () => {
        const hook = plugin.WaitForAttachHook?.(spec, devicePath);
        if (hook !== undefined) return "error" in hook ? done(hook.error) : done(null, hook.devicePath);
        done(null, devicePath || `/dev/fake/${spec.name}`);
      });
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
        const hookErr = plugin.UnmountDeviceHook?.(deviceMountPath);
        if (hookErr) return done(hookErr);
        if (deviceMountPath.endsWith(`/${FAIL_UNMOUNT_DEVICE_VOLUME_NAME}`)) return done(`error unmounting ${deviceMountPath}`);
        if (env.host!.isMountPoint(deviceMountPath)) env.host!.unmount(deviceMountPath);
        env.host!.rmdir(deviceMountPath);
        done(null);
      });
    },
    podVolumeDir: (env, podUID, specName) => podVolumePaths(env.host!, podUID, dirName, specName).dir,
    // BlockVolumePlugin / the fake BlockVolumeMapper (FakeVolume.SetUpDevice, MapPodDevice, UnmapPodDevice, TearDownDevice)
    getGlobalMapPath: (env, spec) => `${env.ctx.kubeletRoot}/plugins/${FAKE_PLUGIN_NAME}/volumeDevices/${fakeVolumeName(spec)}`,
    setUpDevice(env, _spec, _devicePath, _globalMapPath, done) {
      count("setUpDevice");
      env.ctx.sim.after(plugin.latencyMs, () => done(null));
    },
    mapPodDevice(env, spec, _podUID, devicePath, done) {
      count("mapPodDevice");
      env.ctx.sim.after(plugin.latencyMs, () => {
        if (spec.name === FAIL_MOUNT_DEVICE_VOLUME_NAME) return done(`error mapping ${spec.name}`);
        done(null, devicePath || `/dev/fake/${spec.name}`);
      });
    },
    unmapPodDevice(env, _specName, _podUID, done) {
      count("unmapPodDevice");
      env.ctx.sim.after(plugin.latencyMs, () => done(null));
    },
    tearDownDevice(env, _globalMapPath, _devicePath, done) {
      count("tearDownDevice");
      env.ctx.sim.after(plugin.latencyMs, () => done(null));
    },
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
    GetSetUpDeviceCallCount: () => calls.setUpDevice!,
    GetMapPodDeviceCallCount: () => calls.mapPodDevice!,
    GetUnmapPodDeviceCallCount: () => calls.unmapPodDevice!,
    GetTearDownDeviceCallCount: () => calls.tearDownDevice!,
  };
  return plugin;
}

function fakeVolumeName(spec: VolumeSpec): string {
  const pd = (spec.inline?.gcePersistentDisk ?? spec.pv?.spec?.gcePersistentDisk) as { pdName?: string } | undefined;
  return pd?.pdName || spec.name;
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
