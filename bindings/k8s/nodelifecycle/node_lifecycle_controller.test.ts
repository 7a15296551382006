// The node lifecycle controller (nodelifecycle/): Ready=Unknown after the
// 40 s grace period, the unreachable:NoExecute taint from 1.13, eviction once
// the pod's toleration (300 s by default) runs out, or after the 5-minute
// pod eviction timeout before 1.13; a kubelet back in time cancels both.
import { describe, expect, it } from "vitest";
import { loadK8sScenario } from "../scenario/loader.js";
import { runK8sScenario } from "../scenario/run.js";

function scenario(timeline: string, podSpecExtra = ""): string {
  return `name: nlc
version: "1.26"
duration: 12m
objects:
  - kind: Node
    metadata: {name: node-1}
  - kind: Pod
    metadata: {name: p1}
    spec: {nodeName: node-1, containers: [{name: c}]${podSpecExtra}}
timeline:
${timeline}`;
}
const taintsOf = (r: ReturnType<typeof runK8sScenario>): string[] =>
  ((r.objects.find((o) => o.kind === "Node")?.spec?.taints ?? []) as Array<{ key: string; effect: string }>).map((t) => `${t.key}:${t.effect}`);

describe("node lifecycle controller", () => {
  it("marks a node whose kubelet stopped Unknown after 40 s, taints it from 1.13, and evicts its pods after their toleration", () => {
    const sc = loadK8sScenario(scenario("  - {at: 30s, action: crashKubelet, node: node-1}\n"), "nlc.yaml");
    for (const version of ["1.13", "1.26", "1.31"]) {
      const r = runK8sScenario(sc, { version, steps: true });
      expect(r.steps.find((s) => s.name === "nodelifecycle.NodeUnreachable")?.t, version).toBe(70_000);
      expect(taintsOf(r), version).toEqual(["node.kubernetes.io/unreachable:NoExecute"]);
      // the default toleration: 300 s after the taint
      expect(r.steps.find((s) => s.name === "nodelifecycle.PodEvicted")?.t, version).toBe(370_000);
      const pod = r.objects.find((o) => o.kind === "Pod")!;
      expect(pod.metadata.deletionTimestamp, version).toBeDefined();
      expect(r.timeline.some((e) => e.reason === "TaintManagerEviction" && e.object === "pod/p1"), version).toBe(true);
    }
    // before TaintBasedEvictions (1.13): no taint, the pod eviction timeout (5 min) instead
    const old = runK8sScenario(sc, { version: "1.12", steps: true });
    expect(taintsOf(old)).toEqual([]);
    expect(old.steps.find((s) => s.name === "nodelifecycle.PodEvicted")?.t).toBe(370_000);
  });

  it("follows the pod's own toleration of the unreachable taint", () => {
    const tol = (secs: string) => `, tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute${secs}}]`;
    const short = runK8sScenario(loadK8sScenario(scenario("  - {at: 30s, action: crashKubelet, node: node-1}\n", tol(", tolerationSeconds: 5")), "nlc.yaml"), { steps: true });
    expect(short.steps.find((s) => s.name === "nodelifecycle.PodEvicted")?.t).toBe(75_000);
    const forever = runK8sScenario(loadK8sScenario(scenario("  - {at: 30s, action: crashKubelet, node: node-1}\n", tol("")), "nlc.yaml"), { steps: true });
    expect(forever.steps.some((s) => s.name === "nodelifecycle.PodEvicted")).toBe(false);
  });

  it("a kubelet back within the grace period changes nothing; one back later lifts the taint and cancels the evictions", () => {
    const quick = runK8sScenario(loadK8sScenario(scenario("  - {at: 30s, action: restartKubelet, node: node-1, down: 20s}\n"), "nlc.yaml"), { steps: true });
    expect(quick.steps.some((s) => s.name.startsWith("nodelifecycle."))).toBe(false);
    const late = runK8sScenario(loadK8sScenario(scenario("  - {at: 30s, action: restartKubelet, node: node-1, down: 2m}\n"), "nlc.yaml"), { steps: true });
    expect(late.steps.some((s) => s.name === "nodelifecycle.NodeUnreachable")).toBe(true);
    expect(late.steps.some((s) => s.name === "nodelifecycle.PodEvicted")).toBe(false);
    expect(taintsOf(late)).toEqual([]);
    expect(late.objects.find((o) => o.kind === "Pod")?.status?.phase).toBe("Running");
    expect(late.violations).toEqual([]);
  });
});
