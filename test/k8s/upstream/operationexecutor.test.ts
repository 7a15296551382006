// Ported: pkg/volume/util/operationexecutor/operation_executor_test.go (the
// 1.27-1.29 file, read in a fork at 059ce4e8). Upstream drives the operation
// executor with a fake operation generator whose every operation announces
// its start and blocks, then counts the starts: one means the operations run
// serially, all of them concurrently. Here each operation is started under
// the key the model's own executor code uses (bindings/k8s/util/
// operationexecutor.ts, called by the kubelet's volume manager and the
// attach/detach controller) on the model's NestedPendingOperations, and never
// completes; the starts are counted after the simulated instant.
import { expect } from "vitest";
import { Sim } from "../../../bindings/k8s/engine/sim.js";
import { type Done, NestedPendingOperations, type OpKey } from "../../../bindings/k8s/util/nestedpendingoperations.js";
import { attachDetachKey, mountVolumeKey, unmountDeviceKey, unmountVolumeKey, verifyControllerAttachedVolumeKey } from "../../../bindings/k8s/util/operationexecutor.js";
import { resolveProfile } from "../../../bindings/k8s/versions/profile.js";
import { getTestVolumeSpec } from "../../../bindings/k8s/volume/testing.js";
import { ALL, releases, upstream } from "./harness.js";

const FILE = "pkg/volume/util/operationexecutor/operation_executor_test.go";

function setup(version: string) {
  const sim = new Sim({ seed: 1 });
  const npo = new NestedPendingOperations(sim, resolveProfile(version), 500, 122_000, () => {});
  let started = 0;
  /** startOperationAndBlock */
  const block = (_op: Done): void => {
    started++;
  };
  const run = (key: OpKey, name: string): void => {
    npo.run(key, name, block);
  };
  const starts = (): number => {
    sim.run(sim.now + 5000);
    return started;
  };
  return { run, starts };
}
const isOperationRunSerially = (starts: number): boolean => starts === 1;
const isOperationRunConcurrently = (starts: number, n: number): boolean => starts === n;

const rwo = getTestVolumeSpec("pd-volume", "pd-volume", ["ReadWriteOnce"]);
const rox = getTestVolumeSpec("pd-volume", "pd-volume", ["ReadOnlyMany"]);

upstream(FILE, "TestOperationExecutor_MountVolume_ConcurrentMountForNonAttachableAndNonDevicemountablePlugins", ALL, (v) => {
  const oe = setup(v);
  for (let i = 1; i <= 2; i++) oe.run(mountVolumeKey("secret-volume", `pod-${i}`, false, false), "volume_mount");
  expect(isOperationRunConcurrently(oe.starts(), 2)).toBe(true);
});

upstream(FILE, "TestOperationExecutor_MountVolume_ConcurrentMountForAttachablePlugins", ALL, (v) => {
  const oe = setup(v);
  for (let i = 1; i <= 2; i++) oe.run(mountVolumeKey("pd-volume", `pod-${i}`, true, false), "volume_mount");
  expect(isOperationRunSerially(oe.starts())).toBe(true);
});

upstream(FILE, "TestOperationExecutor_MountVolume_ConcurrentMountForDeviceMountablePlugins", ALL, (v) => {
  const oe = setup(v);
  for (let i = 1; i <= 2; i++) oe.run(mountVolumeKey("pd-volume", `pod-${i}`, false, true), "volume_mount");
  expect(isOperationRunSerially(oe.starts())).toBe(true);
});

upstream(FILE, "TestOperationExecutor_UnmountVolume_ConcurrentUnmountForAllPlugins", ALL, (v) => {
  const oe = setup(v);
  for (let i = 1; i <= 4; i++) oe.run(unmountVolumeKey(i <= 2 ? "secret-volume" : "pd-volume", `pod-${i}`), "volume_unmount");
  expect(isOperationRunConcurrently(oe.starts(), 4)).toBe(true);
});

upstream(FILE, "TestOperationExecutor_UnmountDeviceConcurrently", ALL, (v) => {
  const oe = setup(v);
  for (let i = 1; i <= 2; i++) oe.run(unmountDeviceKey("pd-volume"), "unmount_device");
  expect(isOperationRunSerially(oe.starts())).toBe(true);
});

for (const [name, op, spec, sameNode, serial, rel] of [
  ["TestOperationExecutor_AttachSingleNodeVolumeConcurrentlyToSameNode", "volume_attach", rwo, true, true, ALL],
  ["TestOperationExecutor_AttachMultiNodeVolumeConcurrentlyToSameNode", "volume_attach", rox, true, true, ALL],
  ["TestOperationExecutor_AttachSingleNodeVolumeConcurrentlyToDifferentNodes", "volume_attach", rwo, false, true, ALL],
  // #88678 (1.19): a multi-attach volume's attaches to different nodes run in parallel
  ["TestOperationExecutor_AttachMultiNodeVolumeConcurrentlyToDifferentNodes", "volume_attach", rox, false, false, releases(19)],
  ["TestOperationExecutor_DetachSingleNodeVolumeConcurrentlyFromSameNode", "volume_detach", rwo, true, true, ALL],
  ["TestOperationExecutor_DetachMultiNodeVolumeConcurrentlyFromSameNode", "volume_detach", rox, true, true, ALL],
  ["TestOperationExecutor_DetachMultiNodeVolumeConcurrentlyFromDifferentNodes", "volume_detach", rox, false, false, releases(19)],
] as const) {
  upstream(FILE, name, rel, (v) => {
    const oe = setup(v);
    for (let i = 0; i < 2; i++) oe.run(attachDetachKey("pd-volume", sameNode ? "node" : `node${i}`, spec), op);
    const n = oe.starts();
    if (serial) expect(isOperationRunSerially(n), `${n} started`).toBe(true);
    else expect(isOperationRunConcurrently(n, 2), `${n} started`).toBe(true);
  });
}

upstream(FILE, "TestOperationExecutor_VerifyControllerAttachedVolumeConcurrently", ALL, (v) => {
  const oe = setup(v);
  for (let i = 0; i < 2; i++) oe.run(verifyControllerAttachedVolumeKey("pd-volume"), "verify_controller_attached_volume");
  expect(isOperationRunSerially(oe.starts())).toBe(true);
});

// volumeMode: Block: MapVolume, UnmapVolume and UnmapDevice run under MountVolume's,
// UnmountVolume's and UnmountDevice's keys (the model's volume manager, mapVolume/unmapVolume/unmapDevice)
upstream(FILE, "TestOperationExecutor_MountVolume_ConcurrentMountForNonAttachablePlugins_VolumeMode_Block", ALL, (v) => {
  const oe = setup(v);
  for (let i = 1; i <= 2; i++) oe.run(mountVolumeKey("secret-volume", `pod-${i}`, false, false), "map_volume");
  expect(isOperationRunConcurrently(oe.starts(), 2)).toBe(true);
});

upstream(FILE, "TestOperationExecutor_MountVolume_ConcurrentMountForAttachablePlugins_VolumeMode_Block", ALL, (v) => {
  const oe = setup(v);
  for (let i = 1; i <= 2; i++) oe.run(mountVolumeKey("pd-volume", `pod-${i}`, true, false), "map_volume");
  expect(isOperationRunSerially(oe.starts())).toBe(true);
});

upstream(FILE, "TestOperationExecutor_UnmountVolume_ConcurrentUnmountForAllPlugins_VolumeMode_Block", ALL, (v) => {
  const oe = setup(v);
  for (let i = 1; i <= 4; i++) oe.run(unmountVolumeKey(i <= 2 ? "secret-volume" : "pd-volume", `pod-${i}`), "unmap_volume");
  expect(isOperationRunConcurrently(oe.starts(), 4)).toBe(true);
});

upstream(FILE, "TestOperationExecutor_UnmountDeviceConcurrently_VolumeMode_Block", ALL, (v) => {
  const oe = setup(v);
  for (let i = 1; i <= 2; i++) oe.run(unmountDeviceKey("pd-volume"), "unmap_device");
  expect(isOperationRunSerially(oe.starts())).toBe(true);
});
