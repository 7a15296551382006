// Mirrors upstream reconciler_test.go cases, plus the version rules: seed 002's
// race (#104526) and the force-detach rules (#110721, out-of-service taint,
// --disable-force-detach-on-timeout).
import { describe, expect, it } from "vitest";
import type { KObj } from "../api/types.js";
import { DEFAULT_TIMERS } from "../engine/config.js";
import { Sim } from "../engine/sim.js";
import { Recorder } from "../output/recorder.js";
import { NestedPendingOperations } from "../util/nestedpendingoperations.js";
import { FixOverrides, resolveProfile } from "../versions/profile.js";
import type { VolumeSpec } from "../volume/plugins.js";
import { ActualStateOfWorld } from "./cache/actual_state_of_world.js";
import { DesiredStateOfWorld } from "./cache/desired_state_of_world.js";
import { createReconciler } from "./reconciler.js";

const spec: VolumeSpec = { name: "pv-1", readOnly: false, pv: { apiVersion: "v1", kind: "PersistentVolume", metadata: { name: "pv-1", uid: "", resourceVersion: "" }, spec: { accessModes: ["ReadWriteOnce"] } } };
const V = "kubernetes.io/fake/vol-1";

function harness(version: string, fixes: FixOverrides = {}, opts: { detachErrors?: number; ready?: boolean; taint?: boolean | string; logs?: boolean; statusFails?: number; onStatusFail?: () => void } = {}) {
  const events: string[] = [];
  const sim = new Sim({ seed: 1 });
  const profile = resolveProfile(version, fixes);
  const out = new Recorder(opts.logs ?? false, { startUtcMs: 0, offsetMin: 0, zone: "UTC" }, () => sim.now);
  const asw = new ActualStateOfWorld(sim);
  const dsw = new DesiredStateOfWorld(sim);
  const npo = new NestedPendingOperations(sim, profile, 500, 122_000, () => {});
  const status = new Map<string, string[]>();
  let detachErrors = opts.detachErrors ?? 0;
  let statusFails = opts.statusFails ?? 0;
  const calls = { attach: 0, detach: 0, patches: 0 };
  const node: KObj = {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "node-1", uid: "", resourceVersion: "" },
    spec: { taints: opts.taint ? [{ key: "node.kubernetes.io/out-of-service", effect: opts.taint === true ? "NoExecute" : opts.taint }] : [] },
    status: { conditions: [{ type: "Ready", status: opts.ready === false ? "False" : "True" }] },
  };
  const write = (n: string, list: Array<{ name: string }> | null): null => {
    if (!list) return null;
    calls.patches++;
    status.set(n, list.map((v) => v.name));
    return null;
  };
  const rc = createReconciler({
    sim,
    profile,
    timers: DEFAULT_TIMERS,
    out,
    component: "kcm",
    asw,
    dsw,
    nodeLister: { getNode: () => node },
    statusUpdater: {
      updateNodeStatuses: () => {
        for (const [n, l] of asw.getVolumesToReportAttached()) write(n, l);
        return null;
      },
      updateNodeStatusForNode: (n) => {
        const list = asw.getVolumesToReportAttachedForNode(n);
        if (list && statusFails-- > 0) {
          // as the real updater: the node stays marked for the next UpdateNodeStatuses
          asw.setNodeStatusUpdateNeeded(n);
          opts.onStatusFail?.();
          return "Internal error occurred: etcdserver: request timed out";
        }
        return write(n, list);
      },
    },
    recorder: { podEvents: (pods: ReadonlyMap<string, string>, _type: string, reason: string, message: string) => { for (const k of pods.values()) events.push(`${k} ${reason} ${message}`); } },
    steps: { step: () => {} },
    ad: {
      attachVolume: (v) =>
        npo.run({ volumeName: v.volumeName, podName: "", nodeName: "" }, "volume_attach", (op) => {
          calls.attach++;
          sim.after(1000, () => {
            asw.markVolumeAsAttached(v.volumeName, v.spec, v.nodeName, "/dev/x");
            op.done(null);
          });
        }),
      detachVolume: (av) =>
        npo.run({ volumeName: av.volumeName, podName: "", nodeName: "" }, "volume_detach", (op) => {
          calls.detach++;
          (calls as Record<string, unknown>)[`d${calls.detach}`] = sim.now;
          sim.after(1000, () => {
            if (detachErrors-- > 0) {
              asw.addVolumeToReportAsAttached(av.volumeName, av.nodeName);
              return op.done("busy");
            }
            asw.markVolumeAsDetached(av.volumeName, av.nodeName);
            op.done(null);
          });
        }),
      isOperationPending: (v, p, n) => npo.isOperationPending(v, p, n),
      isOperationSafeToRetry: (v, p, n, o) => npo.isOperationSafeToRetry(v, p, n, o),
    },
  });
  sim.ticker("reconciler", 100, 0, () => rc.reconcile());
  dsw.addNode("node-1");
  return { sim, asw, dsw, status, calls, out, node, events };
}

describe("ADC reconciler", () => {
  it("Test_Run_Positive_OneDesiredVolumeAttach: a desired volume is attached and reported", () => {
    // Arrange
    const h = harness("1.25");
    h.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
    // Act
    h.sim.run(5000);
    // Assert
    expect(h.calls.attach).toBe(1);
    expect(h.asw.getAttachState(V, "node-1")).toBe("Attached");
    expect(h.status.get("node-1")).toEqual([V]);
  });

  it("Test_Run_Positive_OneDesiredVolumeAttachThenDetachWithUnmountedVolume: detached once the node stops using it", () => {
    const h = harness("1.25");
    h.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
    h.sim.run(5000);
    h.dsw.deletePod("uid-1", V, "node-1");
    h.asw.setVolumesMountedByNode("node-1", []);
    h.sim.run(10_000);
    expect(h.calls.detach).toBe(1);
    expect(h.asw.getAttachState(V, "node-1")).toBe("Detached");
    expect(h.status.get("node-1")).toEqual([]);
  });

  it("Test_Run_Negative_OneDesiredVolumeAttachThenDetachWithMountedVolume: a mounted volume waits 6 min, then is force-detached (<= 1.24)", () => {
    const h = harness("1.24");
    h.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
    h.sim.run(5000);
    h.dsw.deletePod("uid-1", V, "node-1");
    h.sim.run(5000 + 5 * 60_000);
    expect(h.calls.detach).toBe(0);
    h.sim.run(5000 + 7 * 60_000);
    expect(h.calls.detach).toBe(1);
  });

  it("#110721 (1.25): no force detach on timeout while the node is Ready; yes when it is not", () => {
    for (const [ready, detaches] of [[true, 0], [false, 1]] as const) {
      const h = harness("1.25", {}, { ready });
      h.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
      h.sim.run(5000);
      h.dsw.deletePod("uid-1", V, "node-1");
      h.sim.run(20 * 60_000);
      expect(h.calls.detach).toBe(detaches);
    }
  });

  it("--disable-force-detach-on-timeout keeps an unhealthy node's volume; the out-of-service taint detaches at once", () => {
    const a = harness("1.30", { "disable-force-detach-on-timeout": true }, { ready: false });
    a.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
    a.sim.run(5000);
    a.dsw.deletePod("uid-1", V, "node-1");
    a.sim.run(30 * 60_000);
    expect(a.calls.detach).toBe(0);
    const b = harness("1.26", {}, { ready: false, taint: true });
    b.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
    b.sim.run(5000);
    b.dsw.deletePod("uid-1", V, "node-1");
    b.sim.run(6000);
    expect(b.calls.detach).toBe(1);
  });

  it("seed 002: re-desired during a detach backoff, the volume stays off node status before #104526 and on it after", () => {
    for (const [version, reported] of [["1.22", false], ["1.23", true]] as const) {
      const h = harness(version, {}, { detachErrors: 1 });
      h.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
      h.sim.run(5000);
      h.dsw.deletePod("uid-1", V, "node-1");
      h.asw.setVolumesMountedByNode("node-1", []);
      // detach starts at 5.1 s and fails at 6.1 s; the pod is back at 6.35 s
      h.sim.at(6350, () => h.dsw.addPod("uid-2", "default/p", spec, V, "node-1"));
      h.sim.run(30 * 60_000);
      expect(h.asw.getAttachState(V, "node-1")).toBe("Attached");
      expect(h.status.get("node-1")!.includes(V), `${version}: ${JSON.stringify(h.status.get("node-1"))} calls=${JSON.stringify(h.calls)} patches=${h.calls.patches}`).toBe(reported);
    }
  });

  it("the out-of-service taint counts whatever its effect (taints.TaintKeyExists, reconciler.go hasOutOfServiceTaint, v1.26.0)", () => {
    for (const effect of ["NoExecute", "NoSchedule", "PreferNoSchedule"]) {
      const h = harness("1.26", {}, { ready: false, taint: effect });
      h.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
      h.sim.run(5000);
      h.dsw.deletePod("uid-1", V, "node-1");
      h.sim.run(6000);
      expect(h.calls.detach, effect).toBe(1);
    }
  });

  it("a timeout force detach logs as GenerateMsgDetailed does (reconciler.go, v1.22.0): volume detail first, then the reason", () => {
    const h = harness("1.23", {}, { logs: true });
    h.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
    h.sim.run(5000);
    h.dsw.deletePod("uid-1", V, "node-1");
    h.sim.run(5000 + 7 * 60_000);
    const lines = h.out.logs.map((l) => l.text).filter((t) => t.includes("force detaching"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^W\S+ \S+ +\d+ reconciler\.go:\d+\] attacherDetacher\.DetachVolume started for volume "pv-1" \(UniqueName: "kubernetes\.io\/fake\/vol-1"\) on node "node-1" This volume is not safe to detach, but maxWaitForUnmountDuration 6m0s expired, force detaching$/,
    );
  });

  it("a timeout and an out-of-service taint together log the timeout (reconciler.go: the timeout branch comes first, v1.25.0 and v1.30.0)", () => {
    // a healthy node (#110721: no force detach on the timer alone) tainted after the 6 minutes
    const h = harness("1.26", {}, { logs: true });
    h.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
    h.sim.run(5000);
    h.dsw.deletePod("uid-1", V, "node-1");
    h.sim.at(5000 + 7 * 60_000, () => {
      h.node.spec.taints = [{ key: "node.kubernetes.io/out-of-service", effect: "NoExecute" }];
      h.sim.bump(); // a node informer delivery wakes the reconciler
    });
    h.sim.run(5000 + 8 * 60_000);
    expect(h.calls.detach).toBe(1);
    const lines = h.out.logs.map((l) => l.text).filter((t) => t.includes("force detaching"));
    expect(lines).toHaveLength(1);
    // klog.InfoS(..., "duration", rc.maxWaitForUnmountDuration, "volume", attachedVolume) (v1.25.0): a Duration is a Stringer, quoted
    expect(lines[0]).toContain(`"attacherDetacher.DetachVolume started: this volume is not safe to detach, but maxWaitForUnmountDuration expired, force detaching" duration="6m0s" volume={AttachedVolume:`);
  });

  // ---- log lines by release (Profile.adcLogs) ----

  /** the ADC's lines of a run: a volume attached, its pod deleted, detached (optionally forced by a timeout or a taint) */
  function adcLines(version: string, opts: { ready?: boolean; taint?: boolean; mounted?: boolean; statusFails?: number } = {}): string[] {
    const h = harness(version, {}, { logs: true, ready: opts.ready, taint: opts.taint, statusFails: opts.statusFails });
    h.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
    h.sim.run(5000);
    h.dsw.deletePod("uid-1", V, "node-1");
    if (!opts.mounted) h.asw.setVolumesMountedByNode("node-1", []);
    h.sim.run(5000 + 8 * 60_000);
    return h.out.logs.map((l) => l.text.replace(/^\S+ \S+ +\d+ /, `${l.text[0]} `));
  }

  it("DetachVolume started: Infof text up to 1.23, InfoS with the AttachedVolume struct in 1.24-1.29, node/volumeName keys and the logger name from 1.30", () => {
    const started = (v: string): string | undefined => adcLines(v).find((t) => t.includes("DetachVolume started"));
    expect(started("1.22")).toBe(`I reconciler.go:255] attacherDetacher.DetachVolume started for volume "pv-1" (UniqueName: "kubernetes.io/fake/vol-1") on node "node-1" `);
    // the snapshot the reconciler logs was taken before this pass's SetDetachRequestTime: the zero time (v1.27 controller-manager log: VolumeSpec:0xc0025c0450 ... DetachRequestedTime:...)
    expect(started("1.24")).toMatch(
      /^I reconciler\.go:273\] "attacherDetacher\.DetachVolume started" volume=\{AttachedVolume:\{VolumeName:kubernetes\.io\/fake\/vol-1 VolumeSpec:0xc0[0-9a-f]{8} NodeName:node-1 PluginIsAttachable:true DevicePath:\/dev\/x DeviceMountPath: PluginName:\} MountedByNode:false DetachRequestedTime:0001-01-01 00:00:00 \+0000 UTC\}$/,
    );
    // SELinuxMountContext from 1.25 (a v1.27 controller-manager printed it)
    expect(started("1.27")).toContain(" PluginName: SELinuxMountContext:} MountedByNode:false ");
    expect(started("1.30")).toBe(`I reconciler.go:275] "attacherDetacher.DetachVolume started" logger="persistentvolume-attach-detach-controller" node="node-1" volumeName="kubernetes.io/fake/vol-1"`);
  });

  it("an out-of-service force detach logs as a plain DetachVolume started until 1.29 (`if !timeout`, v1.25.0), with a message of its own from 1.30", () => {
    const started = (v: string): string[] => adcLines(v, { ready: false, taint: true, mounted: true }).filter((t) => t.includes("DetachVolume started"));
    const l26 = started("1.26");
    expect(l26).toHaveLength(1);
    expect(l26[0]).toMatch(/^I reconciler\.go:273\] "attacherDetacher\.DetachVolume started" volume=\{AttachedVolume:\{.* MountedByNode:true DetachRequestedTime:0001-01-01 00:00:00 \+0000 UTC\}$/);
    expect(started("1.30")).toEqual([`I reconciler.go:285] "attacherDetacher.DetachVolume started: node has out-of-service taint, force detaching" logger="persistentvolume-attach-detach-controller" node="node-1" volumeName="kubernetes.io/fake/vol-1"`]);
  });

  it("a timeout force detach: Warning text up to 1.23, Info with duration= from 1.24, with node/volumeName keys from 1.30", () => {
    const forced = (v: string): string | undefined => adcLines(v, { ready: false, mounted: true }).find((t) => t.includes("force detaching"));
    expect(forced("1.22")).toMatch(/^W reconciler\.go:258\] attacherDetacher\.DetachVolume started for volume "pv-1" .* force detaching$/);
    expect(forced("1.26")).toMatch(/^I reconciler\.go:276\] "attacherDetacher\.DetachVolume started: this volume is not safe to detach, but maxWaitForUnmountDuration expired, force detaching" duration="6m0s" volume=\{AttachedVolume:\{.* MountedByNode:true DetachRequestedTime:1970-01-01 00:00:05 \+0000 UTC m=\+5\.000000000\}$/);
    expect(forced("1.30")).toBe(`I reconciler.go:279] "attacherDetacher.DetachVolume started: this volume is not safe to detach, but maxWaitForUnmountDuration expired, force detaching" logger="persistentvolume-attach-detach-controller" duration="6m0s" node="node-1" volumeName="kubernetes.io/fake/vol-1"`);
  });

  it("AttachVolume started: text up to 1.23, the VolumeToAttach struct in 1.24-1.26, volumeName/nodeName/scheduledPods from 1.27 (#115036), named from 1.30", () => {
    const started = (v: string): string | undefined => adcLines(v).find((t) => t.includes("AttachVolume started"));
    expect(started("1.23")).toBe(`I reconciler.go:304] attacherDetacher.AttachVolume started for volume "pv-1" (UniqueName: "kubernetes.io/fake/vol-1") from node "node-1" `);
    expect(started("1.24")).toMatch(
      /^I reconciler\.go:348\] "attacherDetacher\.AttachVolume started" volume=\{VolumeToAttach:\{MultiAttachErrorReported:false VolumeName:kubernetes\.io\/fake\/vol-1 VolumeSpec:0xc0[0-9a-f]{8} NodeName:node-1 ScheduledPods:\[&Pod\{ObjectMeta:\{p  default  uid-1 \.\.\.\} \.\.\.\}\]\}\}$/,
    );
    expect(started("1.27")).toBe(`I reconciler.go:348] "attacherDetacher.AttachVolume started" volumeName="kubernetes.io/fake/vol-1" nodeName="node-1" scheduledPods=["default/p"]`);
    expect(started("1.31")).toBe(`I reconciler.go:360] "attacherDetacher.AttachVolume started" logger="persistentvolume-attach-detach-controller" volumeName="kubernetes.io/fake/vol-1" nodeName="node-1" scheduledPods=["default/p"]`);
  });

  it("a failed node status update before the detach: GenerateErrorDetailed text up to 1.23, ErrorS of UpdateNodeStatusForNode from 1.24", () => {
    const failed = (v: string): string | undefined => adcLines(v, { statusFails: 1 }).find((t) => t.includes("failed while attempting to report volume as attached"));
    expect(failed("1.23.5")).toBe(`E reconciler.go:230] UpdateNodeStatuses failed while attempting to report volume as attached for volume "pv-1" (UniqueName: "kubernetes.io/fake/vol-1") on node "node-1" : Internal error occurred: etcdserver: request timed out`);
    expect(failed("1.26")).toMatch(/^E reconciler\.go:255\] "UpdateNodeStatusForNode failed while attempting to report volume as attached" err="Internal error occurred: etcdserver: request timed out" volume=\{AttachedVolume:\{VolumeName:kubernetes\.io\/fake\/vol-1 /);
    expect(failed("1.30")).toBe(`E reconciler.go:257] "UpdateNodeStatusForNode failed while attempting to report volume as attached" err="Internal error occurred: etcdserver: request timed out" logger="persistentvolume-attach-detach-controller" node="node-1" volumeName="kubernetes.io/fake/vol-1"`);
  });

  it("RemoveVolumeFromReportAsAttached failing is a V(5) Info with the cache's error text: Infof up to 1.26, logger.V(5).Info with node/volumeName/err from 1.27", () => {
    const removeFailed = (version: string): string | undefined => {
      const h = harness(version, {}, { logs: true });
      h.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
      h.sim.run(5000);
      h.asw.nodesToUpdateStatusFor.delete("node-1");
      h.dsw.deletePod("uid-1", V, "node-1");
      h.asw.setVolumesMountedByNode("node-1", []);
      h.sim.run(5200);
      return h.out.logs.map((l) => l.text.replace(/^\S+ \S+ +\d+ /, `${l.text[0]} `)).find((t) => t.includes("RemoveVolumeFromReportAsAttached"));
    };
    const plain = `volume "kubernetes.io/fake/vol-1" does not exist in volumesToReportAsAttached list or node "node-1" does not exist in nodesToUpdateStatusFor list`;
    expect(removeFailed("1.26")).toBe(`I reconciler.go:213] RemoveVolumeFromReportAsAttached failed while removing volume "kubernetes.io/fake/vol-1" from node "node-1" with: ${plain}`);
    expect(removeFailed("1.27")).toBe(
      `I reconciler.go:245] "RemoveVolumeFromReportAsAttached failed while removing volume from node" node="node-1" volumeName="kubernetes.io/fake/vol-1" err="volume \\"kubernetes.io/fake/vol-1\\" does not exist in volumesToReportAsAttached list or node \\"node-1\\" does not exist in nodesToUpdateStatusFor list"`,
    );
  });

  it("Multi-Attach for the administrator: a Warning with GenerateMsgDetailed up to 1.23, InfoS with attachedTo and the struct from 1.24", () => {
    const multi = (version: string, podOnOtherNode: boolean): string[] => {
      const h = harness(version, {}, { logs: true });
      h.dsw.addNode("node-2");
      h.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
      h.sim.run(5000);
      if (!podOnOtherNode) h.dsw.deletePod("uid-1", V, "node-1");
      h.dsw.addPod("uid-2", "default/q", spec, V, "node-2");
      h.sim.run(5200);
      return h.out.logs.map((l) => l.text.replace(/^\S+ \S+ +\d+ /, `${l.text[0]} `)).filter((t) => t.includes("Multi-Attach"));
    };
    expect(multi("1.22", true)).toEqual([`W reconciler.go:370] Multi-Attach error for volume "pv-1" (UniqueName: "kubernetes.io/fake/vol-1") from node "node-2" Volume is already used by pods default/p on node node-1`]);
    expect(multi("1.22", false)).toEqual([`W reconciler.go:370] Multi-Attach error for volume "pv-1" (UniqueName: "kubernetes.io/fake/vol-1") from node "node-2" Volume is already exclusively attached to node node-1 and can't be attached to another`]);
    const l24 = multi("1.24", false);
    expect(l24).toHaveLength(1);
    expect(l24[0]).toMatch(/^I reconciler\.go:385\] "Multi-Attach error: volume is already exclusively attached and can't be attached to another node" attachedTo=\[node-1\] volume=\{VolumeToAttach:\{MultiAttachErrorReported:false VolumeName:kubernetes\.io\/fake\/vol-1 .*NodeName:node-2 ScheduledPods:\[&Pod\{ObjectMeta:\{q  default  uid-2 /);
    expect(multi("1.24", true)[0]).toMatch(/^I reconciler\.go:421\] "Multi-Attach error: volume is already used by pods" pods=\[default\/p\] attachedTo=\[node-1\] volume=\{VolumeToAttach:/);
    expect(multi("1.30", true)[0]).toMatch(/^I reconciler\.go:433\] "Multi-Attach error: volume is already used by pods" logger="persistentvolume-attach-detach-controller" pods=\["default\/p"\] attachedTo=\[node-1\] volume=\{VolumeToAttach:/);
  });

  it("Multi-Attach event per scheduled pod: names its namespace's pods, counts the others (PR #56288, upstream Test_ReportMultiAttachError's cases)", () => {
    const run = (users: Array<[string, string]>, scheduled: string): string[] => {
      const h = harness("1.22");
      h.dsw.addNode("node-9");
      users.forEach(([key, node], i) => {
        h.dsw.addNode(node);
        h.dsw.addPod(`uid-${i}`, key, spec, V, node);
      });
      h.sim.run(5000);
      h.dsw.addPod("uid-s", scheduled, spec, V, "node-9");
      h.sim.run(5200);
      return h.events.filter((e) => e.includes("Multi-Attach"));
    };
    expect(run([["ns1/pod2", "node-1"]], "ns1/pod1")).toEqual([`ns1/pod1 FailedAttachVolume Multi-Attach error for volume "pv-1" Volume is already used by pod(s) pod2`]);
    expect(run([["ns2/pod2", "node-1"]], "ns1/pod1")).toEqual([`ns1/pod1 FailedAttachVolume Multi-Attach error for volume "pv-1" Volume is already used by 1 pod(s) in different namespaces`]);
    expect(run([["ns2/pod2", "node-1"], ["ns1/pod3", "node-1"]], "ns1/pod1")).toEqual([`ns1/pod1 FailedAttachVolume Multi-Attach error for volume "pv-1" Volume is already used by pod(s) pod3 and 1 pod(s) in different namespaces`]);
  });

  it("issue #111000: a failed node status update before the detach takes the volume off node status for good without #111205 (1.22.13), not with it (1.22.14)", () => {
    for (const [version, reported] of [["1.22.13", false], ["1.22.14", true], ["1.25.0", false], ["1.25.1", true], ["1.26", true]] as const) {
      // the pod is back (a watch event handled while the patch fails) before any later pass
      let h: ReturnType<typeof harness> | undefined = undefined;
      const back = (): void => h!.dsw.addPod("uid-2", "default/p", spec, V, "node-1");
      h = harness(version, {}, { statusFails: 1, onStatusFail: back });
      h.dsw.addPod("uid-1", "default/p", spec, V, "node-1");
      h.sim.run(5000);
      h.dsw.deletePod("uid-1", V, "node-1");
      h.asw.setVolumesMountedByNode("node-1", []);
      h.sim.run(30 * 60_000);
      expect(h.calls.detach, version).toBe(0);
      expect(h.status.get("node-1")!.includes(V), `${version}: ${JSON.stringify(h.status.get("node-1"))}`).toBe(reported);
    }
  });
});

