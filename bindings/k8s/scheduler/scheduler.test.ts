// The minimal kube-scheduler (scheduler/scheduler.ts): filters that decide
// volume incidents (taints, Ready, node selector and affinity, PV node
// affinity, attach limits), the fewest-pods score, FailedScheduling and the
// retry when the cluster changes.
import { describe, expect, it } from "vitest";
import { loadK8sScenario } from "../scenario/loader.js";
import { runK8sScenario } from "../scenario/run.js";
import { nodeSchedulingPropertiesChange } from "./scheduler.js";

const scenario = (pods: string, timeline = "", nodeB = "{name: node-b, labels: {zone: b}}", pvAffinity = "b"): string => `name: sched
version: "1.26"
duration: 3m
objects:
  - kind: Node
    metadata: {name: node-a, labels: {zone: a}}
  - kind: Node
    metadata: ${nodeB}
  - kind: CSIDriver
    metadata: {name: d.csi}
    spec: {attachRequired: true}
  - kind: PersistentVolume
    metadata: {name: pv1}
    spec:
      accessModes: [ReadWriteOnce]
      csi: {driver: d.csi, volumeHandle: h1}
      nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [${pvAffinity}]}]}]}}
  - kind: PersistentVolumeClaim
    metadata: {name: c1}
    spec: {accessModes: [ReadWriteOnce], volumeName: pv1}
${pods}timeline:
${timeline}`;
const withVolume = "  - kind: Pod\n    metadata: {name: p1}\n    spec: {containers: [{name: c, volumeMounts: [{name: v, mountPath: /d}]}], volumes: [{name: v, persistentVolumeClaim: {claimName: c1}}]}\n";
const nodeOf = (r: ReturnType<typeof runK8sScenario>, pod: string): string | undefined => r.objects.find((o) => o.kind === "Pod" && o.metadata.name === pod)?.spec?.nodeName;

describe("minimal scheduler", () => {
  it("puts a pod where its volume's node affinity allows, and it runs there", () => {
    const r = runK8sScenario(loadK8sScenario(scenario(withVolume), "s.yaml"));
    expect(nodeOf(r, "p1")).toBe("node-b");
    expect(r.timeline.some((e) => e.reason === "Scheduled" && e.message === "Successfully assigned default/p1 to node-b")).toBe(true);
    expect(r.objects.find((o) => o.kind === "Pod")?.status?.phase).toBe("Running");
    expect(r.violations).toEqual([]);
  });

  it("reports FailedScheduling with upstream's counted reasons, and schedules when the cluster changes", () => {
    const r = runK8sScenario(
      loadK8sScenario(scenario(withVolume, "  - {at: 60s, action: untaintNode, node: node-b, key: node.kubernetes.io/unreachable}\n", "{name: node-b, labels: {zone: b}}\n    spec: {taints: [{key: node.kubernetes.io/unreachable, effect: NoExecute}]}"), "s.yaml"),
      { steps: true },
    );
    const failed = r.timeline.find((e) => e.reason === "FailedScheduling");
    expect(failed?.message).toBe("0/2 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 1 node(s) had volume node affinity conflict.");
    expect(nodeOf(r, "p1")).toBe("node-b");
    // the taint is lifted at 60 s: the pod runs shortly after
    expect(r.steps.find((s) => s.name === "kubelet.PodRunning")!.t).toBeGreaterThan(60_000);
  });

  it("honours nodeSelector and spreads pods by count", () => {
    const pods = [1, 2, 3, 4].map((i) => `  - kind: Pod\n    metadata: {name: q${i}}\n    spec: {containers: [{name: c}]}\n`).join("") + "  - kind: Pod\n    metadata: {name: z}\n    spec: {nodeSelector: {zone: a}, containers: [{name: c}]}\n";
    const r = runK8sScenario(loadK8sScenario(scenario(pods), "s.yaml"));
    const nodes = [1, 2, 3, 4].map((i) => nodeOf(r, `q${i}`));
    expect(nodes.filter((n) => n === "node-a").length).toBe(2);
    expect(nodeOf(r, "z")).toBe("node-a");
  });

  it("keeps a node's attach limit (status.allocatable attachable-volumes-csi-<driver>)", () => {
    const r = runK8sScenario(loadK8sScenario(scenario(withVolume, "", "{name: node-b, labels: {zone: b}}\n    status: {allocatable: {attachable-volumes-csi-d.csi: \"0\"}}"), "s.yaml"));
    expect(nodeOf(r, "p1")).toBeUndefined();
    expect(r.timeline.find((e) => e.reason === "FailedScheduling")?.message).toBe("0/2 nodes are available: 1 node(s) exceed max volume count, 1 node(s) had volume node affinity conflict.");
  });

  it("skipping idle ticks gives the same run as ticking every period", () => {
    const sc = loadK8sScenario(scenario(withVolume, "  - {at: 60s, action: untaintNode, node: node-b, key: node.kubernetes.io/unreachable}\n", "{name: node-b, labels: {zone: b}}\n    spec: {taints: [{key: node.kubernetes.io/unreachable, effect: NoExecute}]}"), "s.yaml");
    const fast = runK8sScenario(sc, { logs: true });
    const slow = runK8sScenario(sc, { logs: true, tickEveryPeriod: true });
    expect(fast.timeline).toEqual(slow.timeline);
    expect(fast.logs.map((l) => l.text)).toEqual(slow.logs.map((l) => l.text));
    expect(JSON.stringify(fast.objects)).toEqual(JSON.stringify(slow.objects));
    expect(fast.stats.events).toBeLessThan(slow.stats.events);
  });

  it("a Node update moves unschedulable pods only when it changes what scheduling reads (a heartbeat does not)", () => {
    const node = (hb: string, ready = "True", taints?: unknown[]) => ({
      kind: "Node",
      metadata: { name: "n", labels: { zone: "a" } },
      spec: taints ? { taints } : {},
      status: { conditions: [{ type: "Ready", status: ready, lastHeartbeatTime: hb }], volumesAttached: [] },
    }) as never;
    expect(nodeSchedulingPropertiesChange(node("t2"), node("t1"))).toBe(false);
    expect(nodeSchedulingPropertiesChange(node("t2", "Unknown"), node("t1"))).toBe(true);
    expect(nodeSchedulingPropertiesChange(node("t1", "True", [{ key: "k", effect: "NoSchedule" }]), node("t1"))).toBe(true);
  });
});
