// Volume expansion (issue #26 item 4): a claim resized through the
// controller (in-tree expand controller, CSI external-resizer) and the node
// (the kubelet's NodeExpandVolume / resize2fs, during a mount or online),
// with the claim's conditions and status.capacity, the release differences
// (ExpandInUsePersistentVolumes 1.15, ExpandCSIVolumes 1.16, 92986 1.19,
// 100567 1.22, RecoverVolumeExpansionFailure 1.32) and the loader's input
// errors. Every figure below is the run's own; nothing is replayed from a
// recording.
import { describe, expect, it } from "vitest";
import { loadK8sScenario } from "../../bindings/k8s/scenario/loader.js";
import { runK8sScenario, type K8sRunResult } from "../../bindings/k8s/scenario/run.js";

interface Opts {
  source?: string;
  driver?: string;
  annotations?: string;
  timeline?: string;
  faults?: string;
  volumeMode?: string;
  allow?: string;
  claimExtra?: string;
}

function scenario(o: Opts = {}): string {
  const source = o.source ?? "csi: {driver: disk.csi.example.com, volumeHandle: vol-1}";
  return `
name: resize
duration: 8m
objects:
  - kind: Node
    metadata: {name: n1}
  - kind: CSIDriver
    metadata: {name: disk.csi.example.com${o.annotations ? `, annotations: {${o.annotations}}` : ""}}
    spec: {attachRequired: true}
  - kind: StorageClass
    metadata: {name: sc1}
    provisioner: disk.csi.example.com
    ${o.allow ?? "allowVolumeExpansion: true"}
  - kind: PersistentVolume
    metadata: {name: pv1}
    spec: {accessModes: [ReadWriteOnce], capacity: {storage: 10Gi}, ${o.volumeMode ? `volumeMode: ${o.volumeMode}, ` : ""}${source}, claimRef: {namespace: default, name: data}}
  - kind: PersistentVolumeClaim
    metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], storageClassName: sc1, resources: {requests: {storage: 10Gi}}, volumeName: pv1${o.claimExtra ?? ""}}
  - &db
    kind: Pod
    metadata: {name: db-0}
    spec:
      nodeName: n1
      containers: [{name: db, ${o.volumeMode === "Block" ? "volumeDevices: [{name: data, devicePath: /dev/xvda}]" : "volumeMounts: [{name: data, mountPath: /data}]"}}]
      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
timeline:
${o.timeline ?? "  - {at: 60s, action: resize, claim: data, size: 20Gi}"}
${o.faults ? `faults:\n  storage:\n${o.faults}` : ""}
`;
}

function run(text: string, version: string, fixes: Record<string, boolean> = {}): K8sRunResult {
  return runK8sScenario(loadK8sScenario(text, "resize.yaml"), { version, fixes, steps: true });
}
const claim = (r: K8sRunResult) => r.objects.find((o) => o.kind === "PersistentVolumeClaim" && o.metadata.name === "data")!;
const pv = (r: K8sRunResult) => r.objects.find((o) => o.kind === "PersistentVolume")!;
const calls = (r: K8sRunResult, op: string) => Object.values((r.stats.calls as Record<string, Record<string, Record<string, number>>>)[op] ?? {}).reduce((n, byNode) => n + Object.values(byNode).reduce((a, b) => a + b, 0), 0);
const events = (r: K8sRunResult, reason: string) => r.timeline.filter((e) => e.reason === reason);
const stepAt = (r: K8sRunResult, name: string) => r.steps.find((s) => s.name === name)?.t ?? -1;
const conditions = (r: K8sRunResult) => ((claim(r).status?.conditions ?? []) as Array<{ type: string }>).map((c) => c.type);

describe("volume expansion: CSI (external-resizer and NodeExpandVolume)", () => {
  it("1.25: Resizing, ControllerExpandVolume, FileSystemResizeRequired, online NodeExpandVolume, then status.capacity 20Gi and no condition", () => {
    const r = run(scenario(), "1.25");
    expect(r.violations.map((v) => v.explanation)).toEqual([]);
    expect(events(r, "ExternalExpanding").length).toBeGreaterThan(0);
    expect(events(r, "Resizing").map((e) => e.message)).toEqual(["External resizer is resizing volume pv1"]);
    expect(events(r, "FileSystemResizeRequired").map((e) => e.source)).toEqual(["external-resizer disk.csi.example.com"]);
    expect(events(r, "FileSystemResizeSuccessful").map((e) => e.object).sort()).toEqual(["persistentvolumeclaim/data", "pod/db-0"]);
    expect(calls(r, "controllerExpand")).toBe(1);
    expect(calls(r, "nodeExpand")).toBe(1);
    // the controller's call before the node's, each after the resize
    expect(stepAt(r, "csi.ControllerExpandStarted")).toBeGreaterThanOrEqual(60_000);
    expect(stepAt(r, "csi.NodeExpandStarted")).toBeGreaterThan(stepAt(r, "csi.ControllerExpandSucceeded"));
    expect(claim(r).status.capacity.storage).toBe("20Gi");
    expect(pv(r).spec.capacity.storage).toBe("20Gi");
    expect(conditions(r)).toEqual([]);
  });

  it("a driver that needs no node expansion: VolumeResizeSuccessful from the resizer, no NodeExpandVolume", () => {
    const r = run(scenario({ annotations: 'iosim.dev/node-expansion: "false"' }), "1.25");
    expect(events(r, "VolumeResizeSuccessful").map((e) => e.message)).toEqual(["Resize volume succeeded"]);
    expect(calls(r, "nodeExpand")).toBe(0);
    expect(claim(r).status.capacity.storage).toBe("20Gi");
  });

  it("a failed ControllerExpandVolume is VolumeResizeFailed with the rpc error, retried after the resizer's backoff (1 s)", () => {
    const r = run(scenario({ faults: '    - {op: controllerExpand, volume: vol-1, count: 1, code: ResourceExhausted, error: "quota exceeded"}' }), "1.25");
    const failed = events(r, "VolumeResizeFailed");
    expect(failed.map((e) => e.message)).toEqual(['resize volume "pv1" by resizer "disk.csi.example.com" failed: rpc error: code = ResourceExhausted desc = quota exceeded']);
    expect(calls(r, "controllerExpand")).toBe(2);
    const starts = r.steps.filter((s) => s.name === "csi.ControllerExpandStarted").map((s) => s.t);
    expect(starts[1]! - starts[0]!).toBe(1_000 + 1_000); // the call's 1 s, then the 1 s backoff
    expect(claim(r).status.capacity.storage).toBe("20Gi");
  });

  it("a ControllerExpandVolume that hangs past the resizer's --timeout (10 s) is DeadlineExceeded, and retried", () => {
    const r = run(scenario({ faults: "    - {op: controllerExpand, volume: vol-1, count: 1, outcome: timeout, latency: 30s}" }), "1.25");
    expect(events(r, "VolumeResizeFailed")[0]!.message).toContain("code = DeadlineExceeded desc = context deadline exceeded");
    expect(stepAt(r, "csi.ControllerExpandTimedOut") - stepAt(r, "csi.ControllerExpandStarted")).toBe(10_000);
    expect(claim(r).status.capacity.storage).toBe("20Gi");
  });

  it("ExpandCSIVolumes: 1.15's kubelet never expands a CSI volume (the claim waits); 1.16's does", () => {
    const r15 = run(scenario(), "1.15");
    expect(calls(r15, "controllerExpand")).toBe(1);
    expect(calls(r15, "nodeExpand")).toBe(0);
    expect(conditions(r15)).toEqual(["FileSystemResizePending"]);
    expect(claim(r15).status.capacity.storage).toBe("10Gi");
    const on = run(scenario(), "1.15", { ExpandCSIVolumes: true });
    expect(claim(on).status.capacity.storage).toBe("20Gi");
  });

  it("a pod deleted while NodeExpandVolume runs (after: csi.NodeExpandStarted): the expansion still finishes the claim, then the volume is unmounted", () => {
    const r = run(
      scenario({
        timeline: "  - {at: 60s, action: resize, claim: data, size: 20Gi}\n  - {after: csi.NodeExpandStarted, delay: 100ms, action: deletePod, pod: db-0}",
        faults: "    - {op: nodeExpand, volume: vol-1, latency: 20s}",
      }),
      "1.25",
    );
    expect(r.violations.map((v) => v.explanation)).toEqual([]);
    expect(stepAt(r, "csi.NodeExpandSucceeded") - stepAt(r, "csi.NodeExpandStarted")).toBe(20_000);
    expect(claim(r).status.capacity.storage).toBe("20Gi");
    expect(r.steps.some((s) => s.name === "adc.DetachSucceeded")).toBe(true);
  });
});

describe("volume expansion: in-tree (the expand controller)", () => {
  const ebs = "awsElasticBlockStore: {volumeID: vol-e1, fsType: ext4}";
  it("1.15: ExpandVolumeDevice, the PV's capacity, FileSystemResizePending, then the kubelet's resize2fs online", () => {
    const r = run(scenario({ source: ebs }), "1.15");
    expect(r.violations.map((v) => v.explanation)).toEqual([]);
    expect(calls(r, "expandVolume")).toBe(1);
    expect(calls(r, "resizeFs")).toBe(1);
    expect(stepAt(r, "mount.ResizeFSStarted")).toBeGreaterThan(stepAt(r, "cloud.ExpandVolumeSucceeded"));
    expect(r.logs.some((l) => l.text.includes("ExpandVolume.UpdatePV succeeded for volume default/data"))).toBe(true);
    expect(claim(r).status.capacity.storage).toBe("20Gi");
    expect(conditions(r)).toEqual([]);
  });

  it("1.14 (no in-use expansion): the claim keeps FileSystemResizePending with upstream's message while the pod runs", () => {
    const r = run(scenario({ source: ebs }), "1.14");
    expect(calls(r, "resizeFs")).toBe(0);
    const c = (claim(r).status.conditions as Array<{ type: string; message: string }>)[0]!;
    expect(c.type).toBe("FileSystemResizePending");
    expect(c.message).toBe("Waiting for user to (re-)start a pod to finish file system resize of volume on node.");
    expect(claim(r).status.capacity.storage).toBe("10Gi");
  });

  it("1.14: the pod's restart grows the filesystem during the mount, between MountDevice and SetUp", () => {
    const r = run(scenario({ source: ebs, timeline: "  - {at: 60s, action: resize, claim: data, size: 20Gi}\n  - {at: 3m, action: deletePod, pod: db-0}\n  - {at: 4m, action: createPod, manifest: *db}" }), "1.14");
    expect(calls(r, "resizeFs")).toBe(1);
    const text = r.logs.map((l) => l.text);
    const last = (needle: string) => text.map((t, i) => (t.includes(needle) ? i : -1)).filter((i) => i >= 0).pop()!;
    expect(last("MountVolume.NodeExpandVolume succeeded")).toBeGreaterThan(last("MountVolume.MountDevice succeeded"));
    expect(last("MountVolume.NodeExpandVolume succeeded")).toBeLessThan(last("MountVolume.SetUp succeeded"));
    expect(claim(r).status.capacity.storage).toBe("20Gi");
  });

  it("a cloud resize error is VolumeResizeFailed and retried with the operation's backoff (500 ms)", () => {
    const r = run(scenario({ source: ebs, faults: '    - {op: expandVolume, volume: vol-e1, count: 1, error: "VolumeModificationRateExceeded"}' }), "1.25");
    expect(events(r, "VolumeResizeFailed").map((e) => e.message)).toEqual(['error expanding volume "default/data" of plugin "kubernetes.io/aws-ebs": VolumeModificationRateExceeded']);
    expect(r.logs.some((l) => l.text.includes("durationBeforeRetry 500ms") && l.component === "kube-controller-manager")).toBe(true);
    expect(calls(r, "expandVolume")).toBe(2);
    expect(claim(r).status.capacity.storage).toBe("20Gi");
  });

  it("a block volume needs no node: the controller finishes the claim (VolumeResizeSuccessful), no resize2fs", () => {
    const r = run(scenario({ source: ebs, volumeMode: "Block" }), "1.25");
    expect(events(r, "VolumeResizeSuccessful").map((e) => e.message)).toEqual(["ExpandVolume succeeded for volume default/data"]);
    expect(calls(r, "resizeFs")).toBe(0);
    expect(claim(r).status.capacity.storage).toBe("20Gi");
  });
});

describe("volume expansion: RecoverVolumeExpansionFailure (1.32)", () => {
  it("1.32 writes allocatedResources and the statuses, and clears the statuses when done; 1.31 writes none", () => {
    const r32 = run(scenario({ timeline: "  - {at: 60s, action: resize, claim: data, size: 20Gi}" }), "1.32");
    expect(claim(r32).status.allocatedResources).toEqual({ storage: "20Gi" });
    expect(claim(r32).status.allocatedResourceStatuses).toBeUndefined();
    expect(claim(r32).status.capacity.storage).toBe("20Gi");
    const r31 = run(scenario(), "1.31");
    expect(claim(r31).status.allocatedResources).toBeUndefined();
    expect(claim(r31).status.capacity.storage).toBe("20Gi");
  });

  it("an infeasible NodeExpandVolume (InvalidArgument) is NodeResizeInfeasible on 1.32 and not tried again; 1.31 retries and finishes", () => {
    const faults = '    - {op: nodeExpand, volume: vol-1, count: 1, code: InvalidArgument, error: "too big"}';
    const r32 = run(scenario({ faults }), "1.32");
    expect(calls(r32, "nodeExpand")).toBe(1);
    expect(claim(r32).status.allocatedResourceStatuses).toEqual({ storage: "NodeResizeInfeasible" });
    expect(claim(r32).status.capacity.storage).toBe("10Gi");
    const r31 = run(scenario({ faults }), "1.31");
    expect(calls(r31, "nodeExpand")).toBe(2);
    expect(claim(r31).status.capacity.storage).toBe("20Gi");
  });

  it("a final but feasible NodeExpandVolume error (Internal) is the NodeResizeError condition on 1.32, and retried", () => {
    const r = run(scenario({ faults: '    - {op: nodeExpand, volume: vol-1, count: 1, error: "resize2fs failed"}' }), "1.32");
    expect(calls(r, "nodeExpand")).toBe(2);
    expect(claim(r).status.capacity.storage).toBe("20Gi");
    expect(conditions(r)).toEqual([]);
  });
});

describe("volume expansion: input errors (exit 2, file, line and field)", () => {
  const err = (text: string): string => {
    try {
      loadK8sScenario(text, "bad.yaml");
    } catch (e) {
      return (e as Error).message;
    }
    return "loaded";
  };
  it("a size that is no quantity", () => {
    expect(err(scenario({ timeline: "  - {at: 60s, action: resize, claim: data, size: twenty}" }))).toMatch(/^bad\.yaml:\d+: timeline\[0\]\.size: "twenty" is no storage size/);
  });
  it("a shrink, below the claim's request or an earlier resize", () => {
    expect(err(scenario({ timeline: "  - {at: 60s, action: resize, claim: data, size: 5Gi}" }))).toMatch(/^bad\.yaml:\d+: timeline\[0\]\.size: spec\.resources\.requests\.storage: Forbidden: field can not be less than previous value \(5Gi < 10Gi/);
    expect(err(scenario({ timeline: "  - {at: 60s, action: resize, claim: data, size: 20Gi}\n  - {at: 90s, action: resize, claim: data, size: 15Gi}" }))).toMatch(/timeline\[1\]\.size: .*15Gi < 20Gi, the resize at timeline\[0\]/);
  });
  it("a StorageClass that does not allow expansion, or none", () => {
    expect(err(scenario({ allow: "allowVolumeExpansion: false" }))).toMatch(/timeline\[0\]\.claim: StorageClass "sc1" of claim "data" does not set allowVolumeExpansion: true: only dynamically provisioned pvc can be resized/);
    expect(err(scenario().replace("storageClassName: sc1, ", ""))).toMatch(/timeline\[0\]\.claim: claim "data" has no spec\.storageClassName/);
  });
  it("an unknown claim, and a size given no unit check on the claim's own request", () => {
    expect(err(scenario({ timeline: "  - {at: 60s, action: resize, claim: date, size: 20Gi}" }))).toMatch(/timeline\[0\]\.claim: PersistentVolumeClaim "date" never exists.*did you mean "data"/);
    expect(err(scenario().replace("requests: {storage: 10Gi}", "requests: {storage: ten}"))).toMatch(/objects\[4\]\.spec\.resources\.requests\.storage: "ten" is no storage size/);
  });
});
