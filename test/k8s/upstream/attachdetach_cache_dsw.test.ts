// Ported: pkg/controller/volume/attachdetach/cache/desired_state_of_world_test.go
// (kubernetes/kubernetes at bc768841; AddNode's keepTerminatedPodVolumes
// argument, 1.7-1.30, changes nothing these tests assert). AddPod names the
// volume from its spec by the attachable plugin (GetUniqueVolumeNameFromSpec),
// which the model's callers do before AddPod: the tests do the same through
// the model's plugin layer. Every test applies to every modelled release.
import { expect } from "vitest";
import { DesiredStateOfWorld, type VolumeToAttach } from "../../../bindings/k8s/attachdetach/cache/desired_state_of_world.js";
import { Sim } from "../../../bindings/k8s/engine/sim.js";
import { uniqueNameFromSpec } from "../../../bindings/k8s/volume/plugins.js";
import { createFakeVolumePlugin, getTestVolumeSpec } from "../../../bindings/k8s/volume/testing.js";
import { ALL, upstream } from "./harness.js";

const FILE = "pkg/controller/volume/attachdetach/cache/desired_state_of_world_test.go";
const R = ALL;

function newDSW() {
  const sim = new Sim({ seed: 1 });
  const plugin = createFakeVolumePlugin();
  const dsw = new DesiredStateOfWorld(sim);
  /** dsw.AddPod(podName, NewPod(podName, podName), volumeSpec, nodeName): the generated name, or throws the error */
  const addPod = (pod: string, volume: string, node: string): string => {
    const spec = getTestVolumeSpec(volume, volume);
    const name = uniqueNameFromSpec(plugin, spec);
    const err = dsw.addPod(pod, `${pod}/${pod}`, spec, name, node);
    if (err) throw new Error(err);
    return name;
  };
  return { dsw, addPod };
}

function verifyVolumeToAttach(list: readonly VolumeToAttach[], node: string, volumeName: string, specName: string): void {
  expect(list.some((v) => v.nodeName === node && v.volumeName === volumeName && v.spec.name === specName), `volumesToAttach should contain ${volumeName}/${node}`).toBe(true);
}

upstream(FILE, "Test_AddNode_Positive_NewNode", R, () => {
  const { dsw } = newDSW();
  dsw.addNode("node-name");
  expect(dsw.nodeExists("node-name")).toBe(true);
  expect(dsw.getVolumesToAttach()).toHaveLength(0);
});

upstream(FILE, "Test_AddNode_Positive_ExistingNode", R, () => {
  const { dsw } = newDSW();
  dsw.addNode("node-name");
  expect(dsw.nodeExists("node-name")).toBe(true);
  dsw.addNode("node-name");
  expect(dsw.nodeExists("node-name")).toBe(true);
  expect(dsw.getVolumesToAttach()).toHaveLength(0);
});

upstream(FILE, "Test_AddPod_Positive_NewPodNodeExistsVolumeDoesntExist", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node-name");
  expect(dsw.volumeExists("volume-name", "node-name")).toBe(false);
  const g = addPod("pod-uid", "volume-name", "node-name");
  expect(dsw.volumeExists(g, "node-name")).toBe(true);
  expect(dsw.getVolumesToAttach()).toHaveLength(1);
  verifyVolumeToAttach(dsw.getVolumesToAttach(), "node-name", g, "volume-name");
});

upstream(FILE, "Test_AddPod_Positive_NewPodNodeExistsVolumeExists", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node-name");
  const g1 = addPod("pod1-uid", "volume-name", "node-name");
  expect(dsw.volumeExists(g1, "node-name")).toBe(true);
  const g2 = addPod("pod2-uid", "volume-name", "node-name");
  expect(dsw.volumeExists(g2, "node-name")).toBe(true);
  expect(dsw.getVolumesToAttach()).toHaveLength(1);
  expect(dsw.getPodToAdd()).toHaveLength(2);
  verifyVolumeToAttach(dsw.getVolumesToAttach(), "node-name", g2, "volume-name");
});

upstream(FILE, "Test_AddPod_Positive_PodExistsNodeExistsVolumeExists", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node-name");
  const g1 = addPod("pod-uid", "volume-name", "node-name");
  expect(dsw.volumeExists(g1, "node-name")).toBe(true);
  const g2 = addPod("pod-uid", "volume-name", "node-name");
  expect(dsw.volumeExists(g2, "node-name")).toBe(true);
  expect(dsw.getVolumesToAttach()).toHaveLength(1);
  verifyVolumeToAttach(dsw.getVolumesToAttach(), "node-name", g2, "volume-name");
});

upstream(FILE, "Test_AddPod_Negative_NewPodNodeDoesntExistVolumeDoesntExist", R, () => {
  const { dsw, addPod } = newDSW();
  expect(dsw.volumeExists("volume-name", "node-name")).toBe(false);
  expect(() => addPod("pod-uid", "volume-name", "node-name")).toThrow(/no node with the name "node-name" exists in the list of managed nodes/);
  expect(dsw.volumeExists("volume-name", "node-name")).toBe(false);
  expect(dsw.getVolumesToAttach()).toHaveLength(0);
});

upstream(FILE, "Test_DeleteNode_Positive_NodeExists", R, () => {
  const { dsw } = newDSW();
  dsw.addNode("node-name");
  expect(dsw.deleteNode("node-name")).toBeNull();
  expect(dsw.nodeExists("node-name")).toBe(false);
  expect(dsw.getVolumesToAttach()).toHaveLength(0);
});

upstream(FILE, "Test_DeleteNode_Positive_NodeDoesntExist", R, () => {
  const { dsw } = newDSW();
  expect(dsw.deleteNode("node-not-added-name")).toBeNull();
  expect(dsw.nodeExists("node-not-added-name")).toBe(false);
  expect(dsw.getVolumesToAttach()).toHaveLength(0);
});

upstream(FILE, "Test_DeleteNode_Negative_NodeExistsHasChildVolumes", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node-name");
  const g = addPod("pod-uid", "volume-name", "node-name");
  expect(dsw.deleteNode("node-name")).toMatch(/the node still contains 1 volumes in its list of volumes to attach/);
  expect(dsw.nodeExists("node-name")).toBe(true);
  expect(dsw.getVolumesToAttach()).toHaveLength(1);
  verifyVolumeToAttach(dsw.getVolumesToAttach(), "node-name", g, "volume-name");
});

upstream(FILE, "Test_DeletePod_Positive_PodExistsNodeExistsVolumeExists", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node-name");
  const g = addPod("pod-uid", "volume-name", "node-name");
  expect(dsw.volumeExists(g, "node-name")).toBe(true);
  dsw.deletePod("pod-uid", g, "node-name");
  expect(dsw.volumeExists(g, "node-name")).toBe(false);
  expect(dsw.getVolumesToAttach()).toHaveLength(0);
});

upstream(FILE, "Test_DeletePod_Positive_2PodsExistNodeExistsVolumesExist", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node-name");
  const g1 = addPod("pod1-uid", "volume-name", "node-name");
  const g2 = addPod("pod2-uid", "volume-name", "node-name");
  expect(g1).toBe(g2);
  expect(dsw.volumeExists(g1, "node-name")).toBe(true);
  dsw.deletePod("pod1-uid", g1, "node-name");
  expect(dsw.volumeExists(g1, "node-name")).toBe(true);
  expect(dsw.getVolumesToAttach()).toHaveLength(1);
  verifyVolumeToAttach(dsw.getVolumesToAttach(), "node-name", g1, "volume-name");
});

upstream(FILE, "Test_DeletePod_Positive_PodDoesNotExist", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node-name");
  const g = addPod("pod1-uid", "volume-name", "node-name");
  expect(dsw.volumeExists(g, "node-name")).toBe(true);
  dsw.deletePod("pod2-uid", g, "node-name");
  expect(dsw.volumeExists(g, "node-name")).toBe(true);
  expect(dsw.getVolumesToAttach()).toHaveLength(1);
  verifyVolumeToAttach(dsw.getVolumesToAttach(), "node-name", g, "volume-name");
});

upstream(FILE, "Test_DeletePod_Positive_NodeDoesNotExist", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node1-name");
  const g = addPod("pod-uid", "volume-name", "node1-name");
  expect(dsw.volumeExists(g, "node1-name")).toBe(true);
  dsw.deletePod("pod-uid", g, "node2-name");
  expect(dsw.volumeExists(g, "node1-name")).toBe(true);
  expect(dsw.volumeExists(g, "node2-name")).toBe(false);
  expect(dsw.getVolumesToAttach()).toHaveLength(1);
  verifyVolumeToAttach(dsw.getVolumesToAttach(), "node1-name", g, "volume-name");
});

upstream(FILE, "Test_DeletePod_Positive_VolumeDoesNotExist", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node-name");
  const g1 = addPod("pod-uid", "volume1-name", "node-name");
  expect(dsw.volumeExists(g1, "node-name")).toBe(true);
  dsw.deletePod("pod-uid", "volume2-name", "node-name");
  expect(dsw.volumeExists(g1, "node-name")).toBe(true);
  expect(dsw.volumeExists("volume2-name", "node-name")).toBe(false);
  expect(dsw.getVolumesToAttach()).toHaveLength(1);
  verifyVolumeToAttach(dsw.getVolumesToAttach(), "node-name", g1, "volume1-name");
});

upstream(FILE, "Test_NodeExists_Positive_NodeExists", R, () => {
  const { dsw } = newDSW();
  expect(dsw.nodeExists("node-not-added-name")).toBe(false);
  expect(dsw.getVolumesToAttach()).toHaveLength(0);
});

upstream(FILE, "Test_NodeExists_Positive_NodeDoesntExist", R, () => {
  const { dsw } = newDSW();
  dsw.addNode("node-name");
  expect(dsw.nodeExists("node-name")).toBe(true);
  expect(dsw.getVolumesToAttach()).toHaveLength(0);
});

upstream(FILE, "Test_VolumeExists_Positive_VolumeExistsNodeExists", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node-name");
  const g = addPod("pod-uid", "volume-name", "node-name");
  expect(dsw.volumeExists(g, "node-name")).toBe(true);
  expect(dsw.getVolumesToAttach()).toHaveLength(1);
  verifyVolumeToAttach(dsw.getVolumesToAttach(), "node-name", g, "volume-name");
});

upstream(FILE, "Test_VolumeExists_Positive_VolumeDoesntExistNodeExists", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node-name");
  const g1 = addPod("pod-uid", "volume1-name", "node-name");
  expect(dsw.volumeExists("volume2-name", "node-name")).toBe(false);
  expect(dsw.getVolumesToAttach()).toHaveLength(1);
  verifyVolumeToAttach(dsw.getVolumesToAttach(), "node-name", g1, "volume1-name");
});

upstream(FILE, "Test_VolumeExists_Positive_VolumeDoesntExistNodeDoesntExists", R, () => {
  const { dsw } = newDSW();
  expect(dsw.volumeExists("volume-name", "node-name")).toBe(false);
  expect(dsw.getVolumesToAttach()).toHaveLength(0);
});

upstream(FILE, "Test_GetVolumesToAttach_Positive_NoNodes", R, () => {
  expect(newDSW().dsw.getVolumesToAttach()).toHaveLength(0);
});

upstream(FILE, "Test_GetVolumesToAttach_Positive_TwoNodes", R, () => {
  const { dsw } = newDSW();
  dsw.addNode("node1-name");
  dsw.addNode("node2-name");
  expect(dsw.getVolumesToAttach()).toHaveLength(0);
});

upstream(FILE, "Test_GetVolumesToAttach_Positive_TwoNodesOneVolumeEach", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node1-name");
  const g1 = addPod("pod1-uid", "volume1-name", "node1-name");
  dsw.addNode("node2-name");
  const g2 = addPod("pod2-uid", "volume2-name", "node2-name");
  const l = dsw.getVolumesToAttach();
  expect(l).toHaveLength(2);
  verifyVolumeToAttach(l, "node1-name", g1, "volume1-name");
  verifyVolumeToAttach(l, "node2-name", g2, "volume2-name");
});

upstream(FILE, "Test_GetVolumesToAttach_Positive_TwoNodesOneVolumeEachExtraPod", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node1-name");
  const g1 = addPod("pod1-uid", "volume1-name", "node1-name");
  dsw.addNode("node2-name");
  const g2 = addPod("pod2-uid", "volume2-name", "node2-name");
  addPod("pod3-uid", "volume2-name", "node2-name");
  addPod("pod3-uid", "volume2-name", "node2-name");
  const l = dsw.getVolumesToAttach();
  expect(l).toHaveLength(2);
  verifyVolumeToAttach(l, "node1-name", g1, "volume1-name");
  verifyVolumeToAttach(l, "node2-name", g2, "volume2-name");
});

upstream(FILE, "Test_GetVolumesToAttach_Positive_TwoNodesThreeVolumes", R, () => {
  const { dsw, addPod } = newDSW();
  dsw.addNode("node1-name");
  const g1 = addPod("pod1-uid", "volume1-name", "node1-name");
  dsw.addNode("node2-name");
  const g2a = addPod("pod2a-name", "volume2-name", "node2-name");
  const g2b = addPod("pod2b-name", "volume2-name", "node2-name");
  expect(g2a).toBe(g2b);
  const g3 = addPod("pod3-uid", "volume3-name", "node1-name");
  const l = dsw.getVolumesToAttach();
  expect(l).toHaveLength(3);
  verifyVolumeToAttach(l, "node1-name", g1, "volume1-name");
  verifyVolumeToAttach(l, "node2-name", g2a, "volume2-name");
  verifyVolumeToAttach(l, "node1-name", g3, "volume3-name");
});
