// Ported: pkg/controller/volume/attachdetach/cache/actual_state_of_world_test.go
// (kubernetes/kubernetes at 6e05ec38, 2024: SetVolumesMountedByNode of #122411;
// the older per-volume SetVolumeMountedByNode(volume, node, mounted) asserts
// the same states). Every test runs on each release it applies to: the
// mountedByNodeSetCount rule these tests no longer have went with #52221
// (1.9), so 1.10+ for the plain ones; the uncertain attach state
// (AddVolumeNode's isAttached, MarkVolumeAsUncertain, GetAttachState) from
// 1.14 (Profile.attachUncertain); GetVolumesToReportAttachedForNode with the
// per-node status updater (#108167, 1.24; the model has the method in every
// release, the test is run where upstream has it).
import { expect } from "vitest";
import { ActualStateOfWorld, type AttachedVolumeRef } from "../../../bindings/k8s/attachdetach/cache/actual_state_of_world.js";
import { Sim } from "../../../bindings/k8s/engine/sim.js";
import { PluginMgr, uniqueNameFromSpec } from "../../../bindings/k8s/volume/plugins.js";
import { createFakeVolumePlugin, getTestVolumeSpec } from "../../../bindings/k8s/volume/testing.js";
import { releases, upstream } from "./harness.js";

const FILE = "pkg/controller/volume/attachdetach/cache/actual_state_of_world_test.go";
const R = releases(10);
const R_UNCERTAIN = releases(14);
const R_FOR_NODE = releases(24);

/** NewActualStateOfWorld(volumePluginMgr); the clock is past zero, as a wall clock is (DetachRequestedTime zero = none) */
function newASW() {
  const sim = new Sim({ seed: 1 });
  sim.run(1000);
  const plugin = createFakeVolumePlugin();
  const asw = new ActualStateOfWorld(sim, undefined, new PluginMgr([plugin]));
  return { sim, asw, plugin };
}

function add(asw: ActualStateOfWorld, volumeName: string, spec: ReturnType<typeof getTestVolumeSpec>, node: string, devicePath: string, attached: boolean): string {
  const r = asw.addVolumeNode(volumeName, spec, node, devicePath, attached);
  if (typeof r !== "string") throw new Error(`AddVolumeNode failed. Expected: <no error> Actual: <${r.error}>`);
  return r;
}

function verifyAttachedVolume(list: AttachedVolumeRef[], volumeName: string, specName: string, node: string, devicePath: string, mountedByNode: boolean, nonZeroDetachRequestedTime: boolean): void {
  const hit = list.find(
    (a) => a.volumeName === volumeName && a.spec?.name === specName && a.nodeName === node && a.devicePath === devicePath && a.mountedByNode === mountedByNode && (a.detachRequestedTime !== 0) === nonZeroDetachRequestedTime,
  );
  expect(hit, `attachedVolumes (${JSON.stringify(list.map((a) => [a.volumeName, a.nodeName, a.devicePath, a.mountedByNode, a.detachRequestedTime]))}) should contain ${volumeName}/${node} with DevicePath=${devicePath} MountedByNode=${mountedByNode} NonZeroDetachRequestedTime=${nonZeroDetachRequestedTime}`).toBeDefined();
}

const V = "volume-name";
const DP = "fake/device/path";

upstream(FILE, "Test_AddVolumeNode_Positive_NewVolumeNewNode", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  expect(asw.getAttachState(g, "node-name")).toBe("Attached");
  const l = asw.getAttachedVolumes();
  expect(l).toHaveLength(1);
  verifyAttachedVolume(l, g, V, "node-name", DP, true, false);
});

upstream(FILE, "Test_AddVolumeNode_Positive_NewVolumeNewNodeWithFalseAttached", R_UNCERTAIN, () => {
  const { asw } = newASW();
  const spec = getTestVolumeSpec(V, V);
  const g = add(asw, V, spec, "node-name", DP, false);
  expect(asw.getAttachState(g, "node-name")).toBe("Uncertain");
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node-name", DP, true, false);
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  expect(asw.getVolumesToReportAttached().has("node-name")).toBe(false);
  const forNode = asw.getAttachedVolumesForNode("node-name");
  expect(forNode).toHaveLength(1);
  verifyAttachedVolume(forNode, g, V, "node-name", DP, true, false);
  expect(asw.getAttachedVolumesPerNode().has("node-name")).toBe(false);
  expect(asw.getNodesForAttachedVolume(V)).toHaveLength(0);
  const g2 = add(asw, V, spec, "node-name", DP, true);
  expect(g2).toBe(g);
  expect(asw.getAttachState(g, "node-name")).toBe("Attached");
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node-name", DP, true, false);
  expect(asw.getNodesForAttachedVolume(V)).toEqual(["node-name"]);
  expect(asw.getAttachedVolumesPerNode().has("node-name")).toBe(true);
});

upstream(FILE, "Test_AddVolumeNode_Positive_NewVolumeTwoNodesWithFalseAttached", R_UNCERTAIN, () => {
  const { asw } = newASW();
  const spec = getTestVolumeSpec(V, V);
  const g = add(asw, V, spec, "node1-name", DP, false);
  expect(asw.getAttachState(g, "node1-name")).toBe("Uncertain");
  const g2 = add(asw, V, spec, "node2-name", DP, true);
  expect(g2).toBe(g);
  expect(asw.getAttachState(g, "node2-name")).toBe("Attached");
  const l = asw.getAttachedVolumes();
  expect(l).toHaveLength(2);
  verifyAttachedVolume(l, g, V, "node1-name", DP, true, false);
  verifyAttachedVolume(l, g, V, "node2-name", DP, true, false);
  const forNode = asw.getAttachedVolumesForNode("node2-name");
  expect(forNode).toHaveLength(1);
  verifyAttachedVolume(forNode, g, V, "node2-name", DP, true, false);
  expect(asw.getAttachedVolumesPerNode().get("node2-name")).toHaveLength(1);
  expect(asw.getNodesForAttachedVolume(V)).toHaveLength(1);
  expect(asw.getVolumesToReportAttached().get("node2-name")).toHaveLength(1);
});

upstream(FILE, "Test_AddVolumeNode_Positive_ExistingVolumeNewNode", R, () => {
  const { asw } = newASW();
  const spec = getTestVolumeSpec(V, V);
  const g1 = add(asw, V, spec, "node1-name", DP, true);
  const g2 = add(asw, V, spec, "node2-name", DP, true);
  expect(g1).toBe(g2);
  expect(asw.getAttachState(g1, "node1-name")).toBe("Attached");
  expect(asw.getAttachState(g1, "node2-name")).toBe("Attached");
  const l = asw.getAttachedVolumes();
  expect(l).toHaveLength(2);
  verifyAttachedVolume(l, g1, V, "node1-name", DP, true, false);
  verifyAttachedVolume(l, g1, V, "node2-name", DP, true, false);
});

upstream(FILE, "Test_AddVolumeNode_Positive_ExistingVolumeExistingNode", R, () => {
  const { asw } = newASW();
  const spec = getTestVolumeSpec(V, V);
  const g1 = add(asw, V, spec, "node-name", DP, true);
  const g2 = add(asw, V, spec, "node-name", DP, true);
  expect(g1).toBe(g2);
  expect(asw.getAttachState(g1, "node-name")).toBe("Attached");
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g1, V, "node-name", DP, true, false);
});

upstream(FILE, "Test_DeleteVolumeNode_Positive_VolumeExistsNodeExists", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  asw.deleteVolumeNode(g, "node-name");
  expect(asw.getAttachState(g, "node-name")).toBe("Detached");
  expect(asw.getAttachedVolumes()).toHaveLength(0);
});

upstream(FILE, "Test_DeleteVolumeNode_Positive_VolumeDoesntExistNodeDoesntExist", R, () => {
  const { asw } = newASW();
  asw.deleteVolumeNode(V, "node-name");
  expect(asw.getAttachState(V, "node-name")).toBe("Detached");
  expect(asw.getAttachedVolumes()).toHaveLength(0);
});

upstream(FILE, "Test_DeleteVolumeNode_Positive_TwoNodesOneDeleted", R, () => {
  const { asw } = newASW();
  const spec = getTestVolumeSpec(V, V);
  const g1 = add(asw, V, spec, "node1-name", DP, true);
  const g2 = add(asw, V, spec, "node2-name", DP, true);
  expect(g1).toBe(g2);
  asw.deleteVolumeNode(g1, "node1-name");
  expect(asw.getAttachState(g1, "node1-name")).toBe("Detached");
  expect(asw.getAttachState(g1, "node2-name")).toBe("Attached");
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g1, V, "node2-name", DP, true, false);
});

upstream(FILE, "Test_VolumeNodeExists_Positive_VolumeExistsNodeExists", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  expect(asw.getAttachState(g, "node-name")).toBe("Attached");
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node-name", DP, true, false);
});

upstream(FILE, "Test_VolumeNodeExists_Positive_VolumeExistsNodeDoesntExist", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node1-name", DP, true);
  expect(asw.getAttachState(g, "node2-name")).toBe("Detached");
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node1-name", DP, true, false);
});

upstream(FILE, "Test_VolumeNodeExists_Positive_VolumeAndNodeDontExist", R, () => {
  const { asw } = newASW();
  expect(asw.getAttachState(V, "node-name")).toBe("Detached");
  expect(asw.getAttachedVolumes()).toHaveLength(0);
});

upstream(FILE, "Test_GetAttachedVolumes_Positive_NoVolumesOrNodes", R, () => {
  expect(newASW().asw.getAttachedVolumes()).toHaveLength(0);
});

upstream(FILE, "Test_GetAttachedVolumes_Positive_OneVolumeOneNode", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node-name", DP, true, false);
});

upstream(FILE, "Test_GetAttachedVolumes_Positive_TwoVolumeTwoNodes", R, () => {
  const { asw } = newASW();
  const g1 = add(asw, "volume1-name", getTestVolumeSpec("volume1-name", "volume1-name"), "node1-name", DP, true);
  const g2 = add(asw, "volume2-name", getTestVolumeSpec("volume2-name", "volume2-name"), "node2-name", DP, true);
  const l = asw.getAttachedVolumes();
  expect(l).toHaveLength(2);
  verifyAttachedVolume(l, g1, "volume1-name", "node1-name", DP, true, false);
  verifyAttachedVolume(l, g2, "volume2-name", "node2-name", DP, true, false);
});

upstream(FILE, "Test_GetAttachedVolumes_Positive_OneVolumeTwoNodes", R, () => {
  const { asw, plugin } = newASW();
  const spec = getTestVolumeSpec(V, V);
  const unique = uniqueNameFromSpec(plugin, spec);
  const g1 = add(asw, unique, spec, "node1-name", DP, true);
  // an empty unique name: the ASW names the volume from its spec (GetUniqueVolumeNameFromSpec)
  const g2 = add(asw, "", spec, "node2-name", DP, true);
  expect(g2).toBe(g1);
  const l = asw.getAttachedVolumes();
  expect(l).toHaveLength(2);
  verifyAttachedVolume(l, g1, V, "node1-name", DP, true, false);
  verifyAttachedVolume(l, g1, V, "node2-name", DP, true, false);
});

upstream(FILE, "Test_SetVolumesMountedByNode_Positive_Set", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node-name", DP, true, false);
});

upstream(FILE, "Test_SetVolumesMountedByNode_Positive_UnsetWithInitialSet", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  asw.setVolumesMountedByNode("node-name", [g]);
  asw.setVolumesMountedByNode("node-name", []);
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node-name", DP, false, false);
});

upstream(FILE, "Test_SetVolumesMountedByNode_Positive_UnsetWithoutInitialSet", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node-name", DP, true, false);
  asw.setVolumesMountedByNode("node-name", []);
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node-name", DP, false, false);
});

upstream(FILE, "Test_SetVolumesMountedByNode_Positive_UnsetWithInitialSetAddVolumeNodeNotReset", R, () => {
  const { asw } = newASW();
  const spec = getTestVolumeSpec(V, V);
  let g = add(asw, V, spec, "node-name", DP, true);
  asw.setVolumesMountedByNode("node-name", [g]);
  asw.setVolumesMountedByNode("node-name", []);
  g = add(asw, V, spec, "node-name", DP, true);
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node-name", DP, false, false);
});

upstream(FILE, "Test_SetVolumesMountedByNode_Positive_UnsetWithInitialSetVerifyDetachRequestedTimePreserved", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  asw.setDetachRequestTime(g, "node-name");
  expect(asw.removeVolumeFromReportAsAttached(g, "node-name")).toBeNull();
  const expected = asw.getAttachedVolumes()[0]!.detachRequestedTime;
  asw.setVolumesMountedByNode("node-name", [g]);
  asw.setVolumesMountedByNode("node-name", []);
  const l = asw.getAttachedVolumes();
  expect(l).toHaveLength(1);
  verifyAttachedVolume(l, g, V, "node-name", DP, false, true);
  expect(l[0]!.detachRequestedTime).toBe(expected);
});

upstream(FILE, "Test_RemoveVolumeFromReportAsAttached_Positive_Set", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node-name", DP, true, false);
});

upstream(FILE, "Test_RemoveVolumeFromReportAsAttached_Positive_Marked", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  asw.setDetachRequestTime(g, "node-name");
  expect(asw.removeVolumeFromReportAsAttached(g, "node-name")).toBeNull();
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node-name", DP, true, true);
});

upstream(FILE, "Test_MarkDesireToDetach_Positive_MarkedAddVolumeNodeReset", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  asw.setDetachRequestTime(g, "node-name");
  expect(asw.removeVolumeFromReportAsAttached(g, "node-name")).toBeNull();
  asw.resetDetachRequestTime(g, "node-name");
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node-name", DP, true, false);
});

upstream(FILE, "Test_RemoveVolumeFromReportAsAttached_Positive_UnsetWithInitialSetVolumesMountedByNodePreserved", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  asw.setVolumesMountedByNode("node-name", [g]);
  asw.setVolumesMountedByNode("node-name", []);
  asw.setDetachRequestTime(g, "node-name");
  expect(asw.removeVolumeFromReportAsAttached(g, "node-name")).toBeNull();
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), g, V, "node-name", DP, false, true);
});

upstream(FILE, "Test_RemoveVolumeFromReportAsAttached", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  expect(asw.removeVolumeFromReportAsAttached(g, "node-name")).toBeNull();
  const report = asw.getVolumesToReportAttached();
  expect(report.has("node-name")).toBe(true);
  expect(report.get("node-name")).toHaveLength(0);
});

upstream(FILE, "Test_RemoveVolumeFromReportAsAttached_AddVolumeToReportAsAttached_Positive", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  expect(asw.removeVolumeFromReportAsAttached(g, "node-name")).toBeNull();
  let report = asw.getVolumesToReportAttached();
  expect(report.get("node-name")).toHaveLength(0);
  asw.addVolumeToReportAsAttached(g, "node-name");
  report = asw.getVolumesToReportAttached();
  expect(report.get("node-name")).toHaveLength(1);
});

upstream(FILE, "Test_RemoveVolumeFromReportAsAttached_Delete_AddVolumeNode", R, () => {
  const { asw } = newASW();
  const spec = getTestVolumeSpec(V, V);
  const g = add(asw, V, spec, "node-name", DP, true);
  expect(asw.removeVolumeFromReportAsAttached(g, "node-name")).toBeNull();
  let report = asw.getVolumesToReportAttached();
  expect(report.get("node-name")).toHaveLength(0);
  asw.deleteVolumeNode(g, "node-name");
  add(asw, V, spec, "node-name", "", true);
  report = asw.getVolumesToReportAttached();
  expect(report.get("node-name")).toHaveLength(1);
});

upstream(FILE, "Test_SetDetachRequestTime_Positive", R, () => {
  const { asw, sim } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  const maxWait = 1000;
  expect(asw.setDetachRequestTime(g, "node-name")).toBeLessThan(maxWait);
  // time.Sleep(maxWaitTime)
  sim.run(sim.now + maxWait);
  expect(asw.setDetachRequestTime(g, "node-name")).toBeGreaterThanOrEqual(maxWait);
});

upstream(FILE, "Test_GetAttachedVolumesForNode_Positive_NoVolumesOrNodes", R, () => {
  expect(newASW().asw.getAttachedVolumesForNode("random")).toHaveLength(0);
});

upstream(FILE, "Test_GetAttachedVolumesForNode_Positive_OneVolumeOneNode", R, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  const l = asw.getAttachedVolumesForNode("node-name");
  expect(l).toHaveLength(1);
  verifyAttachedVolume(l, g, V, "node-name", DP, true, false);
});

upstream(FILE, "Test_GetAttachedVolumesForNode_Positive_TwoVolumeTwoNodes", R, () => {
  const { asw } = newASW();
  add(asw, "volume1-name", getTestVolumeSpec("volume1-name", "volume1-name"), "node1-name", DP, true);
  const g2 = add(asw, "volume2-name", getTestVolumeSpec("volume2-name", "volume2-name"), "node2-name", DP, true);
  const l = asw.getAttachedVolumesForNode("node2-name");
  expect(l).toHaveLength(1);
  verifyAttachedVolume(l, g2, "volume2-name", "node2-name", DP, true, false);
});

upstream(FILE, "Test_GetAttachedVolumesForNode_Positive_OneVolumeTwoNodes", R, () => {
  const { asw, plugin } = newASW();
  const spec = getTestVolumeSpec(V, V);
  const g1 = add(asw, uniqueNameFromSpec(plugin, spec), spec, "node1-name", DP, true);
  const g2 = add(asw, "", spec, "node2-name", DP, true);
  expect(g2).toBe(g1);
  const l = asw.getAttachedVolumesForNode("node1-name");
  expect(l).toHaveLength(1);
  verifyAttachedVolume(l, g1, V, "node1-name", DP, true, false);
});

upstream(FILE, "Test_OneVolumeTwoNodes_TwoDevicePaths", R, () => {
  const { asw, plugin } = newASW();
  const spec = getTestVolumeSpec(V, V);
  const g1 = add(asw, uniqueNameFromSpec(plugin, spec), spec, "node1-name", "fake/device/path1", true);
  const g2 = add(asw, "", spec, "node2-name", "fake/device/path2", true);
  expect(g2).toBe(g1);
  const l = asw.getAttachedVolumesForNode("node2-name");
  expect(l).toHaveLength(1);
  verifyAttachedVolume(l, g2, V, "node2-name", "fake/device/path2", true, false);
});

upstream(FILE, "Test_SetNodeStatusUpdateNeededError", R, () => {
  const { asw } = newASW();
  asw.setNodeStatusUpdateNeeded("node-1");
  expect(asw.getNodesToUpdateStatusFor().size).toBe(0);
});

upstream(FILE, "Test_updateNodeStatusUpdateNeeded", R, () => {
  const { asw } = newASW();
  asw.nodesToUpdateStatusFor.set("node-1", { nodeName: "node-1", statusUpdateNeeded: true, volumesToReportAsAttached: new Map() });
  expect(asw.updateNodeStatusUpdateNeeded("node-1", false)).toBeNull();
  expect(asw.getNodesToUpdateStatusFor().get("node-1")!.statusUpdateNeeded).toBe(false);
});

upstream(FILE, "Test_updateNodeStatusUpdateNeededError", R, () => {
  const { asw } = newASW();
  expect(asw.updateNodeStatusUpdateNeeded("node-1", false)).not.toBeNull();
});

upstream(FILE, "Test_MarkVolumeAsAttached", R, () => {
  const { asw } = newASW();
  asw.markVolumeAsAttached(V, getTestVolumeSpec(V, V), "node-name", DP);
  expect(asw.getAttachState(V, "node-name")).toBe("Attached");
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), V, V, "node-name", DP, true, false);
});

upstream(FILE, "Test_MarkVolumeAsUncertain", R_UNCERTAIN, () => {
  const { asw } = newASW();
  asw.markVolumeAsUncertain(V, getTestVolumeSpec(V, V), "node-name");
  expect(asw.getAttachState(V, "node-name")).toBe("Uncertain");
  expect(asw.getAttachedVolumes()).toHaveLength(1);
  verifyAttachedVolume(asw.getAttachedVolumes(), V, V, "node-name", "", true, false);
});

upstream(FILE, "Test_GetVolumesToReportAttachedForNode_Positive", R_FOR_NODE, () => {
  const { asw } = newASW();
  const g = add(asw, V, getTestVolumeSpec(V, V), "node-name", DP, true);
  let l = asw.getVolumesToReportAttachedForNode("node-name");
  expect(l).not.toBeNull();
  expect(l).toHaveLength(1);
  expect(asw.getVolumesToReportAttachedForNode("node-name")).toBeNull();
  expect(asw.removeVolumeFromReportAsAttached(g, "node-name")).toBeNull();
  l = asw.getVolumesToReportAttachedForNode("node-name");
  expect(l).not.toBeNull();
  expect(l).toHaveLength(0);
});

upstream(FILE, "Test_GetVolumesToReportAttachedForNode_UnknownNode", R_FOR_NODE, () => {
  expect(newASW().asw.getVolumesToReportAttachedForNode("node-name")).toBeNull();
});
