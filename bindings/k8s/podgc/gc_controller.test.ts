// The pod garbage collector (podgc/gc_controller.ts) per release: gcTerminating
// with the out-of-service taint (NodeOutOfServiceVolumeDetach: off 1.24-1.25,
// on from 1.26), gcOrphaned after the 40 s quarantine.
import { describe, expect, it } from "vitest";
import { loadK8sScenario } from "../scenario/loader.js";
import { runK8sScenario } from "../scenario/run.js";

/** a pod with a CSI volume on node-1, node-1 powered off at 10 s, its pod deleted at 60 s, `extra` timeline items */
function scenario(extra: string, duration = "5m"): string {
  return `name: podgc
version: "1.26"
duration: ${duration}
objects:
  - kind: Node
    metadata: {name: node-1}
  - kind: Node
    metadata: {name: node-2}
  - kind: CSIDriver
    metadata: {name: d.csi}
    spec: {attachRequired: true}
  - kind: PersistentVolume
    metadata: {name: pv1}
    spec: {accessModes: [ReadWriteOnce], csi: {driver: d.csi, volumeHandle: h1}}
  - kind: PersistentVolumeClaim
    metadata: {name: c1}
    spec: {accessModes: [ReadWriteOnce], volumeName: pv1}
  - kind: Pod
    metadata: {name: p1}
    spec:
      nodeName: node-1
      containers: [{name: c, volumeMounts: [{name: v, mountPath: /d}]}]
      volumes: [{name: v, persistentVolumeClaim: {claimName: c1}}]
timeline:
  - {at: 10s, action: shutdownNode, node: node-1}
  - {at: 60s, action: deletePod, pod: p1}
${extra}`;
}
const taint = `  - {at: 90s, action: taintNode, node: node-1, key: node.kubernetes.io/out-of-service, effect: NoExecute}\n`;

describe("pod garbage collector", () => {
  it("force-deletes a terminating pod on a NotReady node with the out-of-service taint from 1.26, on its 20 s grid", () => {
    const sc = loadK8sScenario(scenario(taint), "podgc.yaml");
    for (const [version, deletes] of [["1.24", false], ["1.25", false], ["1.26", true], ["1.31", true]] as const) {
      const r = runK8sScenario(sc, { version, steps: true, logs: true });
      const del = r.steps.filter((s) => s.name === "podgc.PodForceDeleted");
      expect(del.length, version).toBe(deletes ? 1 : 0);
      expect(r.objects.some((o) => o.kind === "Pod" && o.metadata.name === "p1"), version).toBe(!deletes);
      if (deletes) {
        // the controller starts with the controller-manager (its informers sync at 20 ms): passes at 20 ms + k * 20 s
        expect(del[0]!.t, version).toBe(100_020);
        expect(r.logs.some((l) => l.component === "kube-controller-manager" && l.text.includes(`"PodGC is force deleting Pod" pod="default/p1"`)), version).toBe(true);
      }
    }
    // the gate as a switch: 1.25 with it on deletes too
    expect(runK8sScenario(sc, { version: "1.25", fixes: { "out-of-service": true }, steps: true }).steps.some((s) => s.name === "podgc.PodForceDeleted")).toBe(true);
  });

  it("needs both the taint and a node that is not Ready", () => {
    const noTaint = runK8sScenario(loadK8sScenario(scenario(""), "podgc.yaml"), { steps: true });
    expect(noTaint.steps.some((s) => s.name === "podgc.PodForceDeleted")).toBe(false);
    // node-2 is Ready: a pod terminating there is left to its kubelet even with the taint
    const ready = scenario(
      `  - {at: 61s, action: createPod, manifest: {kind: Pod, metadata: {name: p2, annotations: {iosim.dev/stop-after: 10m}}, spec: {nodeName: node-2, terminationGracePeriodSeconds: 600, containers: [{name: c}]}}}
  - {at: 70s, action: deletePod, pod: p2}
  - {at: 90s, action: taintNode, node: node-2, key: node.kubernetes.io/out-of-service, effect: NoExecute}
`,
    );
    const r = runK8sScenario(loadK8sScenario(ready, "podgc.yaml"), { steps: true });
    expect(r.steps.filter((s) => s.name === "podgc.PodForceDeleted").map((s) => s.detail)).toEqual([]);
    expect(r.objects.find((o) => o.kind === "Pod" && o.metadata.name === "p2")?.metadata.deletionTimestamp).toBeDefined();
  });

  it("deletes the pods of a deleted node after the 40 s quarantine (gcOrphaned)", () => {
    const text = `name: orphans
version: "1.22"
duration: 3m
objects:
  - kind: Node
    metadata: {name: node-1}
  - kind: Node
    metadata: {name: node-2}
  - kind: Pod
    metadata: {name: p1}
    spec: {nodeName: node-2, containers: [{name: c}]}
timeline:
  - {at: 30s, action: delete, kind: Node, name: node-2}
`;
    const r = runK8sScenario(loadK8sScenario(text, "orphans.yaml"), { steps: true, logs: true });
    const del = r.steps.find((s) => s.name === "podgc.PodForceDeleted");
    // node-2 is gone from the cache at 30.02 s; the pass at 40.02 s quarantines it until 80.02 s; the pass at 80.02 s deletes
    expect(del?.t).toBe(80_020);
    expect(r.objects.some((o) => o.kind === "Pod")).toBe(false);
    expect(r.logs.some((l) => l.text.includes(`"Forced deletion of orphaned Pod succeeded" pod="default/p1"`))).toBe(true);
  });
});
