// Ported: pkg/kubelet/volumemanager/reconciler/reconciler_test.go (the
// 1.27-1.29 file, read in a fork at 059ce4e8). As upstream: the kubelet's
// desired and actual state of world and reconciler (the model's
// VolumeManager), pkg/volume/testing's fake plugin, the node's
// status.volumesAttached served by the API server; controller-managed attach,
// or kubelet-managed (VolumeManager.controllerAttachDetachEnabled false).
// Upstream's reconciler loops every nanosecond and its tests poll with
// wall-clock backoff (100 ms x3, 6 steps); here the reconciler passes every
// 10 ms of simulated time and the waits run the clock (40 s at most). Tests
// that need expansion, CSI migration or uncertain mount states are listed as
// not portable in test/k8s/upstream/README.md. The volumeMode: Block tests
// run (MapVolume, UnmapVolume, UnmapDevice: kubelet/volume_manager.ts).
import { expect } from "vitest";
import type { KObj } from "../../../bindings/k8s/api/types.js";
import type { Ticker } from "../../../bindings/k8s/engine/sim.js";
import { type PodLookup, VolumeManager } from "../../../bindings/k8s/kubelet/volume_manager.js";
import { PluginMgr, type VolumeSpec } from "../../../bindings/k8s/volume/plugins.js";
import { createFakeVolumePlugin } from "../../../bindings/k8s/volume/testing.js";
import { ALL, newCtx, releases, runUntil, upstream } from "./harness.js";

const FILE = "pkg/kubelet/volumemanager/reconciler/reconciler_test.go";
const nodeName = "mynodename";
const reconcilerSyncWaitDuration = 10_000;

function harness(version: string, attached: Array<{ name: string; devicePath: string }> = [{ name: "kubernetes.io/fake-plugin/fake-device1", devicePath: "fake/path" }]) {
  const ctx = newCtx(version, { nodes: [nodeName] });
  const { sim } = ctx;
  ctx.api.create({ apiVersion: "v1", kind: "Node", metadata: { name: nodeName, uid: "", resourceVersion: "" }, spec: {}, status: { volumesAttached: attached } });
  const plugin = createFakeVolumePlugin();
  const pods: PodLookup = { pods: () => [], pod: () => undefined, lookup: () => undefined, containersStopped: () => true };
  const vm = new VolumeManager(ctx, nodeName, `kubelet/${nodeName}`, new PluginMgr([plugin]), pods);
  // hasAddedPods: the populator has run
  vm.hasAddedPods = true;
  let ticker: Ticker | null = null;
  const runReconciler = (): void => {
    ticker = sim.ticker("kubelet-reconciler", 10, sim.now, () => vm.reconcile());
  };
  const stopReconciler = (): void => {
    ticker?.stop();
    ticker = null;
  };
  const pod: KObj = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "pod1", namespace: "", uid: "pod1uid", resourceVersion: "" },
    spec: { nodeName, volumes: [{ name: "volume-name", gcePersistentDisk: { pdName: "fake-device1" } }] },
  };
  const volumeSpec: VolumeSpec = { name: "volume-name", inline: pod.spec!.volumes[0], readOnly: false };
  const waitFor = (what: string, cond: () => boolean): void => {
    expect(runUntil(sim, cond, 40_000, 10), `timed out waiting for ${what}`).toBe(true);
  };
  /** waitForMount: GetMountedVolumes has the volume */
  const waitForMount = (volumeName: string): void => waitFor(`volume ${volumeName} to be mounted`, () => (vm.asw.get(volumeName)?.pods.size ?? 0) > 0);
  /** waitForDetach: VolumeExists is false */
  const waitForDetach = (volumeName: string): void => waitFor(`volume ${volumeName} to be detached`, () => !vm.asw.has(volumeName));
  return { ctx, sim, plugin, vm, runReconciler, stopReconciler, pod, volumeSpec, waitForMount, waitForDetach };
}

upstream(FILE, "Test_Run_Positive_DoNothing", ALL, (v) => {
  const h = harness(v);
  h.runReconciler();
  h.sim.run(h.sim.now + 1000);
  expect(h.plugin.GetAttachCallCount()).toBe(0);
  expect(h.plugin.GetWaitForAttachCallCount()).toBe(0);
  expect(h.plugin.GetMountDeviceCallCount()).toBe(0);
  expect(h.plugin.GetSetUpCallCount()).toBe(0);
  expect(h.plugin.GetTearDownCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
});

upstream(FILE, "Test_Run_Positive_VolumeMountControllerAttachEnabled", ALL, (v) => {
  const h = harness(v);
  const g = h.vm.addPodToVolume(h.pod, h.volumeSpec, h.volumeSpec.name);
  h.vm.markVolumesAsReportedInUse([g]);
  h.runReconciler();
  h.waitForMount(g);
  expect(h.plugin.GetAttachCallCount()).toBe(0);
  expect(h.plugin.GetWaitForAttachCallCount()).toBe(1);
  expect(h.plugin.GetMountDeviceCallCount()).toBe(1);
  expect(h.plugin.GetSetUpCallCount()).toBe(1);
  expect(h.plugin.GetTearDownCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
});

// (added with #106853, 1.24: "Verifies that there is no exponential-backoff triggered")
upstream(FILE, "Test_Run_Negative_VolumeMountControllerAttachEnabled", releases(24), (v) => {
  // the volume is not reported in use: no VerifyControllerAttachedVolume, so no backoff either
  const h = harness(v, []);
  const g = h.vm.addPodToVolume(h.pod, h.volumeSpec, h.volumeSpec.name);
  h.runReconciler();
  h.sim.run(h.sim.now + reconcilerSyncWaitDuration);
  expect(h.vm.npo.isOperationSafeToRetry(g, "pod1uid", nodeName, "verify_controller_attached_volume"), `operation on volume ${g} is not safe to retry`).toBe(true);
  expect(h.plugin.GetAttachCallCount()).toBe(0);
  expect(h.plugin.GetWaitForAttachCallCount()).toBe(0);
  expect(h.plugin.GetMountDeviceCallCount()).toBe(0);
});

// not upstream's: the same arrangement before #106853 (1.10-1.23), where the
// reconciler starts VerifyControllerAttachedVolume at once and it fails into backoff
upstream(FILE, "Test_Run_Negative_VolumeMountControllerAttachEnabled (before #106853)", releases(10, 23), (v) => {
  const h = harness(v, []);
  const g = h.vm.addPodToVolume(h.pod, h.volumeSpec, h.volumeSpec.name);
  h.runReconciler();
  h.sim.run(h.sim.now + 5);
  expect(h.vm.npo.isOperationSafeToRetry(g, "pod1uid", nodeName, "verify_controller_attached_volume"), `operation on volume ${g} is backing off`).toBe(false);
  expect(h.plugin.GetWaitForAttachCallCount()).toBe(0);
  expect(h.plugin.GetMountDeviceCallCount()).toBe(0);
});

upstream(FILE, "Test_Run_Positive_VolumeUnmountControllerAttachEnabled", ALL, (v) => {
  const h = harness(v);
  const g = h.vm.addPodToVolume(h.pod, h.volumeSpec, h.volumeSpec.name);
  h.runReconciler();
  h.vm.markVolumesAsReportedInUse([g]);
  h.waitForMount(g);
  expect(h.plugin.GetAttachCallCount()).toBe(0);
  expect(h.plugin.GetWaitForAttachCallCount()).toBe(1);
  expect(h.plugin.GetMountDeviceCallCount()).toBe(1);
  expect(h.plugin.GetSetUpCallCount()).toBe(1);
  expect(h.plugin.GetTearDownCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
  h.vm.deletePodFromVolume("pod1uid", g);
  h.waitForDetach(g);
  expect(h.plugin.GetTearDownCallCount()).toBe(1);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
});

upstream(FILE, "Test_Run_Positive_VolumeMountControllerAttachEnabledRace", ALL, (v) => {
  const h = harness(v, [{ name: "kubernetes.io/fake-plugin/fake-device1", devicePath: "/fake/path" }]);
  // 1. a volume in the DSW, mounted
  const g = h.vm.addPodToVolume(h.pod, h.volumeSpec, h.volumeSpec.name);
  h.vm.markVolumesAsReportedInUse([g]);
  h.runReconciler();
  h.waitForMount(g);
  h.stopReconciler();
  let finished = false;
  let devicePathSeen: string | null = null;
  h.plugin.UnmountDeviceHook = () => {
    // 3. while the volume is being unmounted, it is added back to the DSW
    const again = h.vm.addPodToVolume(h.pod, { ...h.volumeSpec }, h.volumeSpec.name);
    h.vm.markVolumesAsReportedInUse([again]);
    return null;
  };
  h.plugin.WaitForAttachHook = (_spec, devicePath) => {
    // 4. mounted again: UnmountDevice must not have cleared the device path from node status
    devicePathSeen = devicePath;
    finished = true;
    return devicePath === "" ? { error: "Expected devicePath from Node.Status" } : { devicePath };
  };
  h.runReconciler();
  // 2. the volume leaves the DSW
  h.vm.deletePodFromVolume("pod1uid", g);
  expect(runUntil(h.sim, () => finished, 40_000, 10), "WaitForAttach was not called again").toBe(true);
  expect(devicePathSeen).not.toBe("");
  h.waitForMount(g);
});

/** the block tests' PV: a GCE PD "fake-device1" with volumeMode: Block, claimed by ns/pvc-volume-name */
function blockSpec(): VolumeSpec {
  const pv: KObj = {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name: "volume-name", uid: "001", resourceVersion: "" },
    spec: { capacity: { storage: "10G" }, gcePersistentDisk: { pdName: "fake-device1" }, accessModes: ["ReadWriteOnce", "ReadOnlyMany"], volumeMode: "Block", claimRef: { namespace: "ns", name: "pvc-volume-name" } },
  };
  return { name: "volume-name", pv, readOnly: false };
}
const blockPod: KObj = { apiVersion: "v1", kind: "Pod", metadata: { name: "pod1", namespace: "ns", uid: "pod1uid", resourceVersion: "" }, spec: { nodeName } };

upstream(FILE, "Test_Run_Positive_BlockVolumeMapControllerAttachEnabled", ALL, (v) => {
  const h = harness(v, [{ name: "kubernetes.io/fake-plugin/fake-device1", devicePath: "/fake/path" }]);
  const g = h.vm.addPodToVolume(blockPod, blockSpec(), "volume-name");
  h.vm.markVolumesAsReportedInUse([g]);
  h.runReconciler();
  h.waitForMount(g);
  expect(h.plugin.GetAttachCallCount()).toBe(0);
  expect(h.plugin.GetWaitForAttachCallCount()).toBe(1);
  expect(h.plugin.GetMapPodDeviceCallCount()).toBe(1);
  expect(h.plugin.GetTearDownDeviceCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
  // (not upstream's assertion: what MapVolume left on the node, util.MapBlockVolume's links)
  const host = h.ctx.hosts.get(nodeName)!;
  expect(host.dirs.has(`/var/lib/kubelet/pods/pod1uid/volumeDevices/kubernetes.io~fake-plugin/volume-name`)).toBe(true);
  expect(host.dirs.has(`/var/lib/kubelet/plugins/kubernetes.io/fake-plugin/volumeDevices/fake-device1/pod1uid`)).toBe(true);
});

upstream(FILE, "Test_Run_Positive_VolumeUnmapControllerAttachEnabled", ALL, (v) => {
  const h = harness(v, [{ name: "kubernetes.io/fake-plugin/fake-device1", devicePath: "/fake/path" }]);
  const g = h.vm.addPodToVolume(blockPod, blockSpec(), "volume-name");
  h.runReconciler();
  h.vm.markVolumesAsReportedInUse([g]);
  h.waitForMount(g);
  expect(h.plugin.GetAttachCallCount()).toBe(0);
  expect(h.plugin.GetWaitForAttachCallCount()).toBe(1);
  expect(h.plugin.GetMapPodDeviceCallCount()).toBe(1);
  expect(h.plugin.GetTearDownDeviceCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
  h.vm.deletePodFromVolume("pod1uid", g);
  h.waitForDetach(g);
  expect(h.plugin.GetTearDownDeviceCallCount()).toBe(1);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
  // (not upstream's assertion: nothing of the volume is left under the kubelet's root)
  const host = h.ctx.hosts.get(nodeName)!;
  expect([...host.dirs.keys()].filter((d) => d.includes("volumeDevices"))).toEqual([]);
});

// kubelet-managed attach (controllerAttachDetachEnabled false): VolumeManager.controllerAttachDetachEnabled
function kubeletAttach(v: string) {
  const h = harness(v);
  h.vm.controllerAttachDetachEnabled = false;
  return h;
}

upstream(FILE, "Test_Run_Positive_VolumeAttachAndMount", ALL, (v) => {
  const h = kubeletAttach(v);
  const g = h.vm.addPodToVolume(h.pod, h.volumeSpec, h.volumeSpec.name);
  h.runReconciler();
  h.waitForMount(g);
  expect(h.plugin.GetAttachCallCount()).toBe(1);
  expect(h.plugin.GetWaitForAttachCallCount()).toBe(1);
  expect(h.plugin.GetMountDeviceCallCount()).toBe(1);
  expect(h.plugin.GetSetUpCallCount()).toBe(1);
  expect(h.plugin.GetTearDownCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
});

upstream(FILE, "Test_Run_Positive_VolumeAttachMountUnmountDetach", ALL, (v) => {
  const h = kubeletAttach(v);
  const g = h.vm.addPodToVolume(h.pod, h.volumeSpec, h.volumeSpec.name);
  h.runReconciler();
  h.waitForMount(g);
  expect(h.plugin.GetAttachCallCount()).toBe(1);
  expect(h.plugin.GetWaitForAttachCallCount()).toBe(1);
  expect(h.plugin.GetMountDeviceCallCount()).toBe(1);
  expect(h.plugin.GetSetUpCallCount()).toBe(1);
  expect(h.plugin.GetTearDownCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
  h.vm.deletePodFromVolume("pod1uid", g);
  h.waitForDetach(g);
  expect(h.plugin.GetTearDownCallCount()).toBe(1);
  expect(h.plugin.GetDetachCallCount()).toBe(1);
});

upstream(FILE, "Test_Run_Positive_VolumeAttachAndMap", ALL, (v) => {
  const h = kubeletAttach(v);
  const g = h.vm.addPodToVolume(blockPod, blockSpec(), "volume-name");
  h.runReconciler();
  h.waitForMount(g);
  expect(h.plugin.GetAttachCallCount()).toBe(1);
  expect(h.plugin.GetWaitForAttachCallCount()).toBe(1);
  expect(h.plugin.GetMapPodDeviceCallCount()).toBe(1);
  expect(h.plugin.GetTearDownDeviceCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
});

upstream(FILE, "Test_Run_Positive_BlockVolumeAttachMapUnmapDetach", ALL, (v) => {
  const h = kubeletAttach(v);
  const g = h.vm.addPodToVolume(blockPod, blockSpec(), "volume-name");
  h.runReconciler();
  h.waitForMount(g);
  expect(h.plugin.GetAttachCallCount()).toBe(1);
  expect(h.plugin.GetWaitForAttachCallCount()).toBe(1);
  expect(h.plugin.GetMapPodDeviceCallCount()).toBe(1);
  expect(h.plugin.GetTearDownDeviceCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
  h.vm.deletePodFromVolume("pod1uid", g);
  h.waitForDetach(g);
  expect(h.plugin.GetTearDownDeviceCallCount()).toBe(1);
  expect(h.plugin.GetDetachCallCount()).toBe(1);
});
