// Ported: pkg/kubelet/volumemanager/reconciler/reconstruct_test.go (1.27+, the
// NewVolumeManagerReconstruction reconciler; kubernetes/kubernetes@0a46cc6c):
// TestCleanOrphanVolumes. The model's reconstruction keeps upstream's
// volumesFailedReconstruction list and cleanOrphanVolumes
// (kubelet/volume_manager.ts); the other two tests assert uncertain mount
// states the model does not have yet (test/k8s/upstream/README.md).
import { expect } from "vitest";
import type { KObj } from "../../../bindings/k8s/api/types.js";
import { type PodLookup, VolumeManager } from "../../../bindings/k8s/kubelet/volume_manager.js";
import { PluginMgr, type VolumeSpec } from "../../../bindings/k8s/volume/plugins.js";
import { createFakeVolumePlugin, FAKE_PLUGIN_NAME } from "../../../bindings/k8s/volume/testing.js";
import { newCtx, releases, runUntil, upstream } from "./harness.js";

const FILE = "pkg/kubelet/volumemanager/reconciler/reconstruct_test.go";
const nodeName = "mynodename";

upstream(FILE, "TestCleanOrphanVolumes", releases(27), (v) => {
  const cases = [
    { name: "volume is in DSW and is not cleaned", podInfos: true, expectedUnmounts: 0 },
    { name: "volume is not in DSW and is cleaned", podInfos: false, expectedUnmounts: 1 },
  ];
  for (const tc of cases) {
    const ctx = newCtx(v, { nodes: [nodeName] });
    const plugin = createFakeVolumePlugin();
    const pods: PodLookup = { pods: () => [], pod: () => undefined, lookup: () => undefined, containersStopped: () => true };
    const vm = new VolumeManager(ctx, nodeName, `kubelet/${nodeName}`, new PluginMgr([plugin]), pods);
    vm.volumesFailedReconstruction = [{ podName: "pod1uid", volumeSpecName: "volume-name", pluginName: FAKE_PLUGIN_NAME, err: "" }];
    if (tc.podInfos) {
      // getInlineFakePod("pod1", "pod1uid", "volume-name", "volume-name")
      const pod: KObj = { apiVersion: "v1", kind: "Pod", metadata: { name: "pod1", namespace: "", uid: "pod1uid", resourceVersion: "" }, spec: { nodeName, volumes: [{ name: "volume-name", gcePersistentDisk: { pdName: "volume-name" } }] } };
      const spec: VolumeSpec = { name: "volume-name", inline: pod.spec!.volumes[0], readOnly: false };
      vm.addPodToVolume(pod, spec, spec.name);
    }
    vm.cleanOrphanVolumes();
    expect(vm.volumesFailedReconstruction, tc.name).toEqual([]);
    // the unmount runs as an operation: wait for it
    expect(runUntil(ctx.sim, () => plugin.GetTearDownCallCount() === tc.expectedUnmounts, 40_000, 100), `${tc.name}: TearDown calls ${plugin.GetTearDownCallCount()}`).toBe(true);
    ctx.sim.run(ctx.sim.now + 5000);
    expect(plugin.GetTearDownCallCount(), tc.name).toBe(tc.expectedUnmounts);
  }
});
