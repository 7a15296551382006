// Ported: pkg/controller/volume/attachdetach/reconciler/reconciler_test.go
// (the 1.27-1.29 file, read in a fork at 059ce4e8; the 1.30 test
// Test_Run_OneVolumeDetachOnUnhealthyNodeWithForceDetachOnUnmountDisabled read
// in the 1.30 file). As upstream: a real ASW and DSW, the controller's own
// operation executor (AttachDetachController.attachVolume/detachVolume, run
// through its NestedPendingOperations) with pkg/volume/testing's fake plugin
// (bindings/k8s/volume/testing.ts), a fake node status updater that fails on
// demand, a node lister the test fills, and maxWaitForUnmountDuration 50 ms.
// Upstream's reconciler runs every 10 ms in a goroutine and the test polls
// call counts with wall-clock backoff; here the reconciler ticks every 10 ms
// of simulated time and `waitFor` runs the clock until the count is reached
// (5 s at most). Where upstream checks "no detach" at once, the port first
// lets 1 s pass, which can only make the check stricter.
import { expect } from "vitest";
import type { KObj } from "../../../bindings/k8s/api/types.js";
import { AttachDetachController } from "../../../bindings/k8s/attachdetach/attach_detach_controller.js";
import type { VolumeToAttach } from "../../../bindings/k8s/attachdetach/cache/desired_state_of_world.js";
import { createReconciler } from "../../../bindings/k8s/attachdetach/reconciler.js";
import type { FixOverrides } from "../../../bindings/k8s/versions/profile.js";
import { PluginMgr, uniqueNameFromSpec } from "../../../bindings/k8s/volume/plugins.js";
import { createFakeVolumePlugin, FAIL_DETACH_NODE, getTestVolumeSpec, MULTI_ATTACH_NODE, TIMEOUT_ATTACH_NODE, UNCERTAIN_ATTACH_NODE } from "../../../bindings/k8s/volume/testing.js";
import { ALL, newCtx, releases, runUntil, upstream } from "./harness.js";

const FILE = "pkg/controller/volume/attachdetach/reconciler/reconciler_test.go";
const maxWaitForUnmountDuration = 50;
const maxLongWaitForUnmountDuration = 4200_000;

function harness(version: string, opts: { maxWaitMs?: number; statusError?: boolean; fixes?: FixOverrides } = {}) {
  const ctx = newCtx(version, { fixes: opts.fixes, timers: { ADC_MAX_WAIT_FOR_UNMOUNT_MS: opts.maxWaitMs ?? maxWaitForUnmountDuration } });
  const { sim } = ctx;
  sim.run(1000);
  const plugin = createFakeVolumePlugin();
  const adc = new AttachDetachController(ctx, new PluginMgr([plugin]));
  const { asw, dsw } = adc;
  const nodes = new Map<string, KObj>();
  /** statusupdater.NewFakeNodeStatusUpdater(returnError) */
  const nsu = {
    returnError: opts.statusError ?? false,
    updateNodeStatuses(): string | null {
      return this.returnError ? "fake error on update node status" : null;
    },
    updateNodeStatusForNode(): string | null {
      return this.returnError ? "fake error on update node status" : null;
    },
  };
  const events: string[] = [];
  const rc = createReconciler({
    sim,
    profile: ctx.profile,
    timers: ctx.timers,
    out: ctx.out,
    component: "kube-controller-manager",
    asw,
    dsw,
    nodeLister: { getNode: (n) => nodes.get(n) },
    ad: adc,
    statusUpdater: nsu,
    recorder: { podEvents: (pods, type, reason, msg) => pods.forEach(() => events.push(`${type} ${reason} ${msg}`)) },
    steps: ctx.steps,
  });
  let running = false;
  const run = (): void => {
    if (running) return;
    running = true;
    sim.ticker("adc-reconciler", 10, sim.now, () => rc.reconcile());
  };
  /** dsw.AddPod(podName, NewPod(podName, podName), volumeSpec, nodeName) */
  const addPod = (pod: string, volume: string, node: string, accessModes = ["ReadWriteOnce"], namespace = pod): string => {
    const spec = getTestVolumeSpec(volume, volume, accessModes);
    const name = uniqueNameFromSpec(plugin, spec);
    const err = dsw.addPod(pod, `${namespace}/${pod}`, spec, name, node);
    if (err) throw new Error(`AddPod failed. Expected: <no error> Actual: <${err}>`);
    return name;
  };
  const waitFor = (what: string, cond: () => boolean, limitMs = 5000): void => {
    expect(runUntil(sim, cond, limitMs), `timed out waiting for ${what}`).toBe(true);
  };
  const sleep = (ms: number): void => {
    sim.run(sim.now + ms);
  };
  const setNode = (name: string, opts: { ready?: boolean; outOfService?: boolean } = {}): void => {
    nodes.set(name, {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name, uid: "", resourceVersion: "" },
      spec: { taints: opts.outOfService ? [{ key: "node.kubernetes.io/out-of-service", effect: "NoExecute" }] : [] },
      status: { conditions: opts.ready === undefined ? [] : [{ type: "Ready", status: opts.ready ? "True" : "False" }] },
    });
  };
  /** verifyVolumeReportedAsAttachedToNode: GetVolumesToReportAttached lists the volume for the node (isAttached) or not, within 5 s (polled every 50 ms) */
  const verifyReported = (volumeName: string, node: string, isAttached: boolean): void => {
    const ok = runUntil(sim, () => {
      const l = asw.getVolumesToReportAttached().get(node);
      return (l?.some((v) => v.name === volumeName) ?? false) === isAttached;
    }, 5000, 50);
    expect(ok, `volume ${volumeName} reported as attached to ${node}: expected ${isAttached}`).toBe(true);
  };
  /** verifyVolumeNoStatusUpdateNeeded */
  const verifyNoStatusUpdateNeeded = (node: string): void => {
    expect(asw.getVolumesToReportAttached().has(node), `node ${node} needs a status update`).toBe(false);
  };
  return { ctx, sim, plugin, adc, asw, dsw, rc, nsu, events, run, addPod, waitFor, sleep, setNode, nodes, verifyReported, verifyNoStatusUpdateNeeded };
}

upstream(FILE, "Test_Run_Positive_DoNothing", ALL, (v) => {
  const h = harness(v);
  h.run();
  h.sleep(1000);
  expect(h.plugin.GetNewAttacherCallCount()).toBe(0);
  expect(h.plugin.GetNewDetacherCallCount()).toBe(0);
  expect(h.plugin.GetAttachCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
});

upstream(FILE, "Test_Run_Positive_OneDesiredVolumeAttach", ALL, (v) => {
  const h = harness(v);
  h.dsw.addNode("node-name");
  expect(h.dsw.volumeExists("volume-name", "node-name")).toBe(false);
  h.addPod("pod-uid", "volume-name", "node-name");
  h.run();
  h.waitFor("NewAttacherCallCount 1", () => h.plugin.GetNewAttacherCallCount() >= 1);
  h.waitFor("AttachCallCount 1", () => h.plugin.GetAttachCallCount() === 1);
  expect(h.plugin.GetNewDetacherCallCount()).toBe(0);
});

function attachThenDetach(v: string, unmounted: boolean) {
  const h = harness(v);
  h.dsw.addNode("node-name");
  const g = h.addPod("pod-uid", "volume-name", "node-name");
  h.run();
  h.waitFor("NewAttacherCallCount 1", () => h.plugin.GetNewAttacherCallCount() >= 1);
  h.waitFor("AttachCallCount 1", () => h.plugin.GetAttachCallCount() === 1);
  expect(h.plugin.GetNewDetacherCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
  h.dsw.deletePod("pod-uid", g, "node-name");
  expect(h.dsw.volumeExists(g, "node-name")).toBe(false);
  if (unmounted) {
    h.asw.setVolumesMountedByNode("node-name", [g]);
    h.asw.setVolumesMountedByNode("node-name", []);
  }
  h.waitFor("NewDetacherCallCount 1", () => h.plugin.GetNewDetacherCallCount() >= 1);
  expect(h.plugin.GetAttachCallCount()).toBe(1);
  h.waitFor("DetachCallCount 1", () => h.plugin.GetDetachCallCount() === 1);
}

upstream(FILE, "Test_Run_Positive_OneDesiredVolumeAttachThenDetachWithUnmountedVolume", ALL, (v) => attachThenDetach(v, true));
// the timer forces the detach after maxWaitForUnmountDuration; from 1.25 (#110721) only on an unhealthy node, which a node the lister does not have is
upstream(FILE, "Test_Run_Positive_OneDesiredVolumeAttachThenDetachWithMountedVolume", ALL, (v) => attachThenDetach(v, false));

upstream(FILE, "Test_Run_Negative_OneDesiredVolumeAttachThenDetachWithUnmountedVolumeUpdateStatusFail", ALL, (v) => {
  const h = harness(v, { statusError: true });
  h.dsw.addNode("node-name");
  const g = h.addPod("pod-uid", "volume-name", "node-name");
  h.run();
  h.waitFor("NewAttacherCallCount 1", () => h.plugin.GetNewAttacherCallCount() >= 1);
  h.waitFor("AttachCallCount 1", () => h.plugin.GetAttachCallCount() === 1);
  expect(h.plugin.GetNewDetacherCallCount()).toBe(0);
  h.dsw.deletePod("pod-uid", g, "node-name");
  expect(h.dsw.volumeExists(g, "node-name")).toBe(false);
  h.asw.setVolumesMountedByNode("node-name", [g]);
  h.asw.setVolumesMountedByNode("node-name", []);
  h.sleep(1000);
  expect(h.plugin.GetNewDetacherCallCount()).toBe(0);
  expect(h.plugin.GetAttachCallCount()).toBe(1);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
});

upstream(FILE, "Test_Run_OneVolumeAttachAndDetachMultipleNodesWithReadWriteMany", ALL, (v) => {
  const h = harness(v);
  h.dsw.addNode("node-name1");
  h.dsw.addNode(MULTI_ATTACH_NODE);
  const g = h.addPod("pod-uid1", "volume-name", "node-name1", ["ReadWriteMany"]);
  h.addPod("pod-uid2", "volume-name", MULTI_ATTACH_NODE, ["ReadWriteMany"]);
  h.run();
  h.waitFor("NewAttacherCallCount 2", () => h.plugin.GetNewAttacherCallCount() >= 2);
  h.waitFor("total AttachCallCount 2", () => h.plugin.GetAttachCallCount() === 2);
  expect(h.plugin.GetNewDetacherCallCount()).toBe(0);
  h.waitFor("attached to 2 nodes", () => h.asw.getNodesForAttachedVolume(g).length === 2);
  h.dsw.deletePod("pod-uid1", g, "node-name1");
  expect(h.dsw.volumeExists(g, "node-name1")).toBe(false);
  h.waitFor("NewDetacherCallCount 1", () => h.plugin.GetNewDetacherCallCount() >= 1);
  h.waitFor("total DetachCallCount 1", () => h.plugin.GetDetachCallCount() === 1);
  expect(h.plugin.GetAttachCallCount()).toBe(2);
  h.dsw.deletePod("pod-uid2", g, MULTI_ATTACH_NODE);
  expect(h.dsw.volumeExists(g, MULTI_ATTACH_NODE)).toBe(false);
  h.waitFor("NewDetacherCallCount 2", () => h.plugin.GetNewDetacherCallCount() >= 2);
  h.waitFor("total DetachCallCount 2", () => h.plugin.GetDetachCallCount() === 2);
  expect(h.plugin.GetAttachCallCount()).toBe(2);
});

upstream(FILE, "Test_Run_OneVolumeAttachAndDetachMultipleNodesWithReadWriteOnce", ALL, (v) => {
  const h = harness(v);
  h.dsw.addNode("node-name1");
  h.dsw.addNode("node-name2");
  // both pods at once, to provoke a race in the reconciler
  const g = h.addPod("pod-uid1", "volume-name", "node-name1");
  h.addPod("pod-uid2", "volume-name", "node-name2");
  h.run();
  h.waitFor("NewAttacherCallCount 1", () => h.plugin.GetNewAttacherCallCount() >= 1);
  h.waitFor("total AttachCallCount 1", () => h.plugin.GetAttachCallCount() === 1);
  expect(h.plugin.GetNewDetacherCallCount()).toBe(0);
  h.waitFor("attached to 1 node", () => h.asw.getNodesForAttachedVolume(g).length === 1);
  const attachedTo = h.asw.getNodesForAttachedVolume(g)[0]!;
  // waitForMultiAttachErrorOnNode
  h.waitFor("a multi-attach error on the other node", () => h.dsw.getVolumesToAttach().some((x) => x.nodeName !== attachedTo && x.multiAttachErrorReported));
  const podToDelete = attachedTo === "node-name1" ? "pod-uid1" : "pod-uid2";
  h.dsw.deletePod(podToDelete, g, attachedTo);
  expect(h.dsw.volumeExists(g, attachedTo)).toBe(false);
  h.waitFor("NewDetacherCallCount 1", () => h.plugin.GetNewDetacherCallCount() >= 1);
  h.waitFor("total DetachCallCount 1", () => h.plugin.GetDetachCallCount() === 1);
  h.waitFor("NewAttacherCallCount 2", () => h.plugin.GetNewAttacherCallCount() >= 2);
  h.waitFor("total AttachCallCount 2", () => h.plugin.GetAttachCallCount() === 2);
});

/** a pod on `node1`, whose attach times out; the pod goes; the volume then attaches to node-name2 */
function attachUncertainThenElsewhere(v: string, node1: string, stateAfterAttach: "Attached" | "Uncertain") {
  const h = harness(v);
  h.dsw.addNode(node1);
  h.dsw.addNode("node-name2");
  h.run();
  const g = h.addPod("pod-uid1", "volume-name", node1);
  h.sleep(1000);
  // waitForVolumeAddedToNode
  h.waitFor("volume added to node", () => h.asw.getAttachedVolumesForNode(node1).some((a) => a.volumeName === g));
  expect(h.asw.getAttachState(g, node1)).toBe(stateAfterAttach);
  h.verifyReported(g, node1, stateAfterAttach === "Attached");
  // added to a node, it is "mounted" until node status says otherwise; without this the detach waits
  h.asw.setVolumesMountedByNode(node1, []);
  h.dsw.deletePod("pod-uid1", g, node1);
  h.waitFor("volume removed from node", () => !h.asw.getAttachedVolumesForNode(node1).some((a) => a.volumeName === g));
  h.addPod("pod-uid2", "volume-name", "node-name2");
  h.waitFor("volume attached to node-name2", () => h.asw.getAttachState(g, "node-name2") === "Attached");
  expect(h.asw.getAttachState(g, "node-name2")).toBe("Attached");
}

// an attach that fails leaves the volume uncertain (1.14+, Profile.attachUncertain); the retry after the backoff succeeds
upstream(FILE, "Test_Run_OneVolumeAttachAndDetachUncertainNodesWithReadWriteOnce", releases(14), (v) => attachUncertainThenElsewhere(v, UNCERTAIN_ATTACH_NODE, "Attached"));
upstream(FILE, "Test_Run_OneVolumeAttachAndDetachTimeoutNodesWithReadWriteOnce", releases(14), (v) => attachUncertainThenElsewhere(v, TIMEOUT_ATTACH_NODE, "Uncertain"));

// #111205: the detach path puts the volume back on the report list when its node status update fails
const R_111205 = ["1.22.14", "1.23.11", "1.24.5", "1.25.1", ...releases(26)];
upstream(FILE, "Test_Run_UpdateNodeStatusFailBeforeOneVolumeDetachNodeWithReadWriteOnce", R_111205, (v) => {
  const h = harness(v);
  h.dsw.addNode("node-name1");
  const g = h.addPod("pod-uid1", "volume-name", "node-name1");
  // reconciliationLoopFunc(ctx): one pass
  h.rc.reconcile();
  h.waitFor("volume added to node", () => h.asw.getAttachedVolumesForNode("node-name1").some((a) => a.volumeName === g));
  expect(h.asw.getAttachState(g, "node-name1")).toBe("Attached");
  h.verifyReported(g, "node-name1", true);
  h.dsw.deletePod("pod-uid1", g, "node-name1");
  h.nsu.returnError = true;
  h.rc.reconcile();
  // the first detach comes after maxWaitForUnmountDuration (50 ms)
  h.sleep(100);
  h.rc.reconcile();
  expect(h.asw.getAttachState(g, "node-name1")).toBe("Attached");
  h.verifyReported(g, "node-name1", true);
});

// #104526: any DetachVolume error re-adds the volume to the report list, and no detach-path side effect while it backs off
const R_104526 = ["1.21.7", "1.22.4", ...releases(23)];
upstream(FILE, "Test_Run_OneVolumeDetachFailNodeWithReadWriteOnce", R_104526, (v) => {
  const h = harness(v);
  h.dsw.addNode(FAIL_DETACH_NODE);
  h.dsw.addNode("node-name2");
  h.run();
  const g = h.addPod("pod-uid1", "volume-name", FAIL_DETACH_NODE);
  h.waitFor("volume added to node", () => h.asw.getAttachedVolumesForNode(FAIL_DETACH_NODE).some((a) => a.volumeName === g));
  expect(h.asw.getAttachState(g, FAIL_DETACH_NODE)).toBe("Attached");
  h.verifyReported(g, FAIL_DETACH_NODE, true);
  h.dsw.deletePod("pod-uid1", g, FAIL_DETACH_NODE);
  h.sleep(100);
  expect(h.asw.getAttachState(g, FAIL_DETACH_NODE)).toBe("Attached");
  h.verifyReported(g, FAIL_DETACH_NODE, true);
  // a second pod on the same node: no detach from now on
  h.addPod("pod-uid2", "volume-name", FAIL_DETACH_NODE);
  h.sleep(1000);
  expect(h.asw.getAttachState(g, FAIL_DETACH_NODE)).toBe("Attached");
  // a third on another node: the volume stays on the first, and neither node needs a status update
  h.addPod("pod-uid3", "volume-name", "node-name2");
  expect(h.asw.getAttachState(g, FAIL_DETACH_NODE)).toBe("Attached");
  h.verifyNoStatusUpdateNeeded(FAIL_DETACH_NODE);
  h.verifyNoStatusUpdateNeeded("node-name2");
});

// NodeOutOfServiceVolumeDetach: alpha (off) 1.24-1.25, the test turns the gate on; beta on 1.26
const R_OOS = releases(24);
const gateOn = (v: string): FixOverrides => (Number(v.split(".")[1]) < 26 ? { "out-of-service": true } : {});

upstream(FILE, "Test_Run_OneVolumeDetachOnOutOfServiceTaintedNode", R_OOS, (v) => {
  const h = harness(v, { maxWaitMs: maxLongWaitForUnmountDuration, fixes: gateOn(v) });
  h.setNode("worker-0", { outOfService: true });
  h.dsw.addNode("worker-0");
  expect(h.dsw.volumeExists("volume-name1", "worker-0")).toBe(false);
  const g = h.addPod("pod-uid1", "volume-name1", "worker-0");
  h.run();
  h.waitFor("NewAttacherCallCount 1", () => h.plugin.GetNewAttacherCallCount() >= 1);
  h.waitFor("AttachCallCount 1", () => h.plugin.GetAttachCallCount() === 1);
  expect(h.plugin.GetNewDetacherCallCount()).toBe(0);
  h.dsw.deletePod("pod-uid1", g, "worker-0");
  // the taint: no waiting for maxLongWaitForUnmountDuration
  h.waitFor("NewDetacherCallCount 1", () => h.plugin.GetNewDetacherCallCount() >= 1);
  h.waitFor("DetachCallCount 1", () => h.plugin.GetDetachCallCount() === 1);
  expect(h.plugin.GetAttachCallCount()).toBe(1);
});

upstream(FILE, "Test_Run_OneVolumeDetachOnNoOutOfServiceTaintedNode", R_OOS, (v) => {
  const h = harness(v, { maxWaitMs: maxLongWaitForUnmountDuration, fixes: gateOn(v) });
  h.setNode("worker-0");
  h.dsw.addNode("worker-0");
  const g = h.addPod("pod-uid1", "volume-name1", "worker-0");
  h.run();
  h.waitFor("NewAttacherCallCount 1", () => h.plugin.GetNewAttacherCallCount() >= 1);
  h.waitFor("AttachCallCount 1", () => h.plugin.GetAttachCallCount() === 1);
  h.dsw.deletePod("pod-uid1", g, "worker-0");
  h.sleep(1000);
  expect(h.plugin.GetNewDetacherCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
  expect(h.plugin.GetAttachCallCount()).toBe(1);
});

// #110721 (1.25): force detach after maxWaitForUnmountDuration only from an unhealthy node
upstream(FILE, "Test_Run_OneVolumeDetachOnUnhealthyNode", releases(25), (v) => {
  const h = harness(v);
  h.setNode("worker-0", { ready: true });
  h.dsw.addNode("worker-0");
  const g = h.addPod("pod-uid1", "volume-name1", "worker-0");
  h.run();
  h.waitFor("NewAttacherCallCount 1", () => h.plugin.GetNewAttacherCallCount() >= 1);
  h.waitFor("AttachCallCount 1", () => h.plugin.GetAttachCallCount() === 1);
  h.dsw.deletePod("pod-uid1", g, "worker-0");
  h.sleep(maxWaitForUnmountDuration * 5);
  expect(h.plugin.GetNewDetacherCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
  h.setNode("worker-0", { ready: false });
  h.waitFor("NewDetacherCallCount 1", () => h.plugin.GetNewDetacherCallCount() >= 1);
  h.waitFor("DetachCallCount 1", () => h.plugin.GetDetachCallCount() === 1);
  expect(h.plugin.GetAttachCallCount()).toBe(1);
});

// --disable-force-detach-on-timeout (#120344, 1.30); the force-detach metric it also checks is not modelled
upstream(FILE, "Test_Run_OneVolumeDetachOnUnhealthyNodeWithForceDetachOnUnmountDisabled", releases(30), (v) => {
  const h = harness(v, { fixes: { "disable-force-detach-on-timeout": true } });
  h.setNode("worker-0", { ready: true });
  h.dsw.addNode("worker-0");
  const g = h.addPod("pod-uid1", "volume-name1", "worker-0");
  h.run();
  h.waitFor("NewAttacherCallCount 1", () => h.plugin.GetNewAttacherCallCount() >= 1);
  h.waitFor("AttachCallCount 1", () => h.plugin.GetAttachCallCount() === 1);
  h.dsw.deletePod("pod-uid1", g, "worker-0");
  h.sleep(maxWaitForUnmountDuration * 5);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
  h.setNode("worker-0", { ready: false });
  h.sleep(maxWaitForUnmountDuration * 5);
  expect(h.plugin.GetNewDetacherCallCount()).toBe(0);
  expect(h.plugin.GetDetachCallCount()).toBe(0);
  h.setNode("worker-0", { ready: false, outOfService: true });
  h.waitFor("NewDetacherCallCount 1", () => h.plugin.GetNewDetacherCallCount() >= 1);
  h.waitFor("DetachCallCount 1", () => h.plugin.GetDetachCallCount() === 1);
  expect(h.plugin.GetAttachCallCount()).toBe(1);
});

// The "different namespaces" wording is PR #56288 (1.10)
upstream(
  FILE,
  "Test_ReportMultiAttachError",
  ALL,
  (v) => {
    const cases: Array<{ name: string; nodes: Array<[string, string[]]>; expected: string[] }> = [
      { name: "no pods use the volume", nodes: [["node1", ["ns1/pod1"]]], expected: [`Warning FailedAttachVolume Multi-Attach error for volume "volume-name" Volume is already exclusively attached to one node and can't be attached to another`] },
      { name: "pods in the same namespace use the volume", nodes: [["node1", ["ns1/pod1"]], ["node2", ["ns1/pod2"]]], expected: [`Warning FailedAttachVolume Multi-Attach error for volume "volume-name" Volume is already used by pod(s) pod2`] },
      { name: "pods in another namespace use the volume", nodes: [["node1", ["ns1/pod1"]], ["node2", ["ns2/pod2"]]], expected: [`Warning FailedAttachVolume Multi-Attach error for volume "volume-name" Volume is already used by 1 pod(s) in different namespaces`] },
      {
        name: "pods both in the same and another namespace use the volume",
        nodes: [["node1", ["ns1/pod1"]], ["node2", ["ns2/pod2"]], ["node3", ["ns1/pod3"]]],
        expected: [`Warning FailedAttachVolume Multi-Attach error for volume "volume-name" Volume is already used by pod(s) pod3 and 1 pod(s) in different namespaces`],
      },
    ];
    for (const c of cases) {
      const h = harness(v);
      const nodes: string[] = [];
      for (const [node, pods] of c.nodes) {
        h.dsw.addNode(node);
        nodes.push(node);
        for (const p of pods) {
          const [ns, name] = p.split("/") as [string, string];
          const spec = getTestVolumeSpec("volume-name", "volume-name");
          h.dsw.addPod(`${node}-${p}`, `${ns}/${name}`, spec, uniqueNameFromSpec(h.plugin, spec), node);
        }
      }
      for (const vol of h.dsw.getVolumesToAttach() as VolumeToAttach[]) if (vol.nodeName === "node1") h.rc.reportMultiAttachError(vol, nodes);
      expect(h.events, c.name).toEqual(c.expected);
    }
  },
);
