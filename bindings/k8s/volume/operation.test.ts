// Operations as calls that take time (volume/operation.ts): latencies per
// plugin and operation, the outcomes of a call, EBUSY from a held mount, the
// steps of every call and operation, stats.calls and the `calls` check.
import { describe, expect, it } from "vitest";
import { loadK8sScenario } from "../scenario/loader.js";
import { runK8sScenario, type K8sRunResult } from "../scenario/run.js";

/** an aws-ebs PV or a CSI PV used by pod app-0 on node-1 */
function scenario(opts: { csi?: boolean; version?: string; settings?: string; faults?: string; timeline?: string; expect?: string }): string {
  const pv = opts.csi ? "csi: {driver: d.example.com, volumeHandle: vol-1}" : "awsElasticBlockStore: {volumeID: vol-1}";
  return `name: op-test
version: "${opts.version ?? "1.22"}"
duration: 12m
${opts.settings ?? ""}
objects:
  - kind: Node
    metadata: {name: node-1}
  - kind: PersistentVolume
    metadata: {name: pv-1}
    spec: {accessModes: [ReadWriteOnce], ${pv}}
  - kind: PersistentVolumeClaim
    metadata: {name: c-1}
    spec: {accessModes: [ReadWriteOnce], volumeName: pv-1}
  - kind: Pod
    metadata: {name: app-0}
    spec:
      nodeName: node-1
      containers: [{name: c, volumeMounts: [{name: d, mountPath: /d}]}]
      volumes: [{name: d, persistentVolumeClaim: {claimName: c-1}}]
${opts.faults ?? ""}
${opts.timeline ?? "timeline: []"}
${opts.expect ?? ""}
`;
}
const run = (yaml: string, version?: string): K8sRunResult => runK8sScenario(loadK8sScenario(yaml, "t.yaml"), { steps: true, ...(version ? { version } : {}) });
const stepAt = (r: K8sRunResult, name: string, n = 0): number => r.steps.filter((s) => s.name === name)[n]?.t ?? -1;

describe("latencies per plugin and operation", () => {
  it("an in-tree MountDevice takes the plugin's latency; without one it takes none (synchronous, as before)", () => {
    const plain = run(scenario({}));
    const slow = run(scenario({ settings: "settings: {latencies: {kubernetes.io/aws-ebs: {mountDevice: 30s, setUp: 2s}}}" }));
    expect(stepAt(plain, "kubelet.MountDeviceSucceeded") - stepAt(plain, "kubelet.MountDeviceStarted")).toBe(0);
    expect(stepAt(slow, "kubelet.MountDeviceSucceeded") - stepAt(slow, "kubelet.MountDeviceStarted")).toBe(30_000);
    expect(stepAt(slow, "kubelet.SetUpSucceeded") - stepAt(slow, "kubelet.SetUpStarted")).toBe(2_000);
    expect(stepAt(slow, "kubelet.PodRunning") - stepAt(plain, "kubelet.PodRunning")).toBeGreaterThanOrEqual(30_000);
    // another plugin's latency does not apply
    const other = run(scenario({ settings: "settings: {latencies: {kubernetes.io/gce-pd: {mountDevice: 30s}}}" }));
    expect(stepAt(other, "kubelet.PodRunning")).toBe(stepAt(plain, "kubelet.PodRunning"));
  });

  it("a pod deletion placed inside a slow MountDevice (between its start and end steps) leaves nothing mounted", () => {
    const r = run(
      scenario({
        settings: "settings: {latencies: {kubernetes.io/aws-ebs: {mountDevice: 40s}}}",
        timeline: "timeline:\n  - {between: [kubelet.MountDeviceStarted, kubelet.MountDeviceSucceeded], action: deletePod, pod: app-0}",
        expect: "expect:\n  - podGone: app-0\n  - hostMount: {node: node-1, pathContains: aws-ebs, present: false}\n  - calls: {op: detach, volume: vol-1, node: node-1}",
      }),
    );
    const del = r.steps.find((s) => s.name === "kubelet.MountDeviceStarted")!.t;
    expect(r.violations).toEqual([]);
    // the device was mounted after the deletion, then unmounted
    expect(stepAt(r, "kubelet.MountDeviceSucceeded")).toBe(del + 40_000);
    expect(stepAt(r, "kubelet.UnmountDeviceSucceeded")).toBeGreaterThan(del + 40_000);
  });

  it("a kubelet restart inside a NodeStage: the driver still finishes it, the restarted kubelet mounts the pod", () => {
    const r = run(
      scenario({
        csi: true,
        settings: "settings: {latencies: {nodeStage: 20s}}",
        timeline: "timeline:\n  - {after: csi.NodeStageStarted, delay: 5s, action: restartKubelet, node: node-1, down: 3s}",
        expect: "expect:\n  - podRunning: app-0",
      }),
    );
    expect(r.violations).toEqual([]);
    expect(r.steps.filter((s) => s.name === "csi.NodeStageSucceeded").length).toBeGreaterThanOrEqual(1);
  });
});

describe("outcomes of a call", () => {
  it("an error carries its gRPC code; a final one is not retried as uncertain", () => {
    const r = run(scenario({ csi: true, faults: "faults:\n  storage:\n    - {op: nodeStage, count: 1, error: volume is in use elsewhere, code: FailedPrecondition}" }));
    const ev = r.timeline.find((e) => e.reason === "FailedMount")!;
    expect(ev.message).toContain("rpc error: code = FailedPrecondition desc = volume is in use elsewhere");
    expect(r.timeline.some((e) => e.message.includes("rpc error: rpc error"))).toBe(false);
  });

  it("timeout: the kubelet gives up at csiTimeout (2 min) with DeadlineExceeded and nothing is mounted; timeoutDone: the mount lands anyway", () => {
    for (const [outcome, lands] of [["timeout", false], ["timeoutDone", true]] as const) {
      const r = run(scenario({ csi: true, faults: `faults:\n  storage:\n    - {op: nodeStage, count: 1, outcome: ${outcome}, latency: 150s}` }));
      const start = stepAt(r, "csi.NodeStageStarted");
      expect(stepAt(r, "csi.NodeStageTimedOut") - start, outcome).toBe(120_000);
      expect(r.timeline.find((e) => e.reason === "FailedMount")!.message).toContain("rpc error: code = DeadlineExceeded desc = context deadline exceeded");
      if (lands) expect(stepAt(r, "csi.NodeStageLanded") - start, outcome).toBe(150_000);
      else expect(stepAt(r, "csi.NodeStageLanded"), outcome).toBe(-1);
    }
  });

  it("hang: no answer until the fault's until, then the work lands; an in-tree caller waits, a CSI caller times out first", () => {
    const intree = run(scenario({ faults: "faults:\n  storage:\n    - {op: mountDevice, count: 1, outcome: hang, until: 5m}" }));
    expect(stepAt(intree, "mount.MountDeviceLanded")).toBe(300_000);
    expect(stepAt(intree, "mount.MountDeviceSucceeded")).toBe(300_000);
    expect(stepAt(intree, "kubelet.PodRunning")).toBeGreaterThan(300_000);
    const csi = run(scenario({ csi: true, faults: "faults:\n  storage:\n    - {op: nodeStage, count: 1, outcome: hang, until: 5m}" }));
    expect(stepAt(csi, "csi.NodeStageTimedOut")).toBeLessThan(300_000);
    expect(stepAt(csi, "csi.NodeStageLanded")).toBe(300_000);
  });

  it("holdMount: a process under a mount makes its unmount fail with EBUSY, for in-tree and CSI, until it lets go", () => {
    const intree = run(
      scenario({
        timeline:
          "timeline:\n  - {at: 20s, action: holdMount, node: node-1, process: backup, path: /var/lib/kubelet/plugins/kubernetes.io/aws-ebs/mounts/vol-1}\n  - {at: 30s, action: deletePod, pod: app-0}\n  - {at: 90s, action: releaseMount, node: node-1, process: backup}",
      }),
    );
    const failed = intree.logs.find((l) => l.text.includes("UnmountDevice failed"))!;
    expect(failed.text).toContain("umount: /var/lib/kubelet/plugins/kubernetes.io/aws-ebs/mounts/vol-1: target is busy.");
    expect(stepAt(intree, "kubelet.UnmountDeviceSucceeded")).toBeGreaterThan(90_000);
    const csi = run(
      scenario({
        csi: true,
        timeline:
          "timeline:\n  - {at: 20s, action: holdMount, node: node-1, process: backup, path: /var/lib/kubelet/plugins/kubernetes.io/csi/pv/pv-1/globalmount}\n  - {at: 30s, action: deletePod, pod: app-0}\n  - {at: 90s, action: releaseMount, node: node-1, process: backup}",
      }),
      "1.22",
    );
    expect(csi.logs.find((l) => l.text.includes("UnmountDevice failed"))!.text).toContain("rpc error: code = Internal desc = unmount failed: exit status 32");
    expect(stepAt(csi, "csi.NodeUnstageSucceeded")).toBeGreaterThan(90_000);
  });
});

describe("calls", () => {
  it("stats.calls counts every call by operation, volume and node; the calls check reads it", () => {
    const r = run(
      scenario({
        timeline: "timeline:\n  - {at: 30s, action: deletePod, pod: app-0}",
        expect: "expect:\n  - calls: {op: attach, volume: vol-1, node: node-1, min: 1, max: 1}\n  - calls: {op: mountDevice, max: 0}",
      }),
    );
    expect(r.stats.calls).toEqual({
      attach: { "vol-1": { "node-1": 1 } },
      mountDevice: { "vol-1": { "node-1": 1 } },
      setUp: { "vol-1": { "node-1": 1 } },
      tearDown: { "vol-1": { "node-1": 1 } },
      unmountDevice: { "vol-1": { "node-1": 1 } },
      detach: { "vol-1": { "node-1": 1 } },
    });
    // node-local calls are not storage backend calls
    expect(r.stats.storageCalls).toBe(2);
    expect(r.expectations.map((e) => e.held)).toEqual([true, false]);
    expect(r.expectations[1]!.detail).toBe("mountDevice called 1 times");
  });

  it("refuses an unknown outcome, gRPC code or operation with file, line and field", () => {
    const bad = (faults: string): string => {
      try {
        loadK8sScenario(scenario({ csi: true, faults }), "bad.yaml");
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(bad("faults:\n  storage:\n    - {op: nodeStage, outcome: lost}")).toMatch(/^bad\.yaml:\d+: faults\.storage\[0\]\.outcome: unknown outcome "lost"/);
    expect(bad("faults:\n  storage:\n    - {op: nodeStage, error: x, code: Busy}")).toMatch(/^bad\.yaml:\d+: faults\.storage\[0\]\.code: unknown gRPC code "Busy"/);
    expect(bad("faults:\n  storage:\n    - {op: nodeStage, outcome: error}")).toMatch(/faults\.storage\[0\]\.error: outcome error needs the error's text/);
  });
});

describe("uncertain mounts (#82492, 1.18)", () => {
  const yaml = scenario({
    csi: true,
    faults: "faults:\n  storage:\n    - {op: nodePublish, count: 1, outcome: timeoutDone, latency: 150s}",
    timeline: "timeline:\n  - {after: csi.NodePublishTimedOut, delay: 1s, action: deletePod, pod: app-0}",
  });
  it("a NodePublish that timed out but completed: 1.17 never calls TearDown (the pod's mount is orphaned), 1.18 tears it down", () => {
    const old = run(yaml, "1.17");
    expect(old.steps.some((s) => s.name === "csi.NodePublishLanded")).toBe(true);
    expect(old.steps.some((s) => s.name === "kubelet.TearDownStarted")).toBe(false);
    expect(old.violations.map((v) => v.name)).toContain("no-orphaned-mounts");
    const fixed = run(yaml, "1.18");
    expect(fixed.steps.some((s) => s.name === "kubelet.TearDownSucceeded")).toBe(true);
    expect(fixed.violations).toEqual([]);
    expect(runK8sScenario(loadK8sScenario(yaml, "t.yaml"), { version: "1.17", fixes: { "82492": true } }).violations).toEqual([]);
  });
  it("a final error (FailedPrecondition) is not uncertain on either release: nothing to tear down, nothing left", () => {
    const y = scenario({
      csi: true,
      faults: "faults:\n  storage:\n    - {op: nodePublish, count: 1, error: no, code: FailedPrecondition}",
      timeline: "timeline:\n  - {after: csi.NodePublishFailed, delay: 100ms, action: deletePod, pod: app-0}",
    });
    for (const v of ["1.17", "1.18"]) {
      const r = run(y, v);
      expect(r.steps.some((s) => s.name === "kubelet.TearDownStarted"), v).toBe(false);
      expect(r.violations, v).toEqual([]);
    }
  });
});

describe("settings.interleave: the seed orders a call's end against same-instant passes", () => {
  // a NodeStage of 1,900 ms started on the kubelet's 100 ms grid ends on it too
  const yaml = (interleave: boolean): string =>
    scenario({
      csi: true,
      settings: `settings: {interleave: ${interleave}, latencies: {nodeStage: 1900ms, nodePublish: 100ms, controllerPublish: 1s}}`,
      timeline: "timeline:\n  - {at: 40s, action: deletePod, pod: app-0}",
      expect: "expect:\n  - podGone: app-0",
    });
  const order = (r: K8sRunResult): string => r.steps.map((s) => `${s.t} ${s.name}`).join("\n");
  it("off: the seed does not move a call's end; on: some seeds land ends after the passes, and every run still holds", () => {
    const sc = loadK8sScenario(yaml(true), "t.yaml");
    const seen = new Set<string>();
    for (let seed = 1; seed <= 12; seed++) {
      const r = runK8sScenario(sc, { seed, steps: true });
      expect(r.violations, `seed ${seed}`).toEqual([]);
      seen.add(order(r));
      // skipping idle ticks stays exact
      const slow = runK8sScenario(sc, { seed, steps: true, tickEveryPeriod: true });
      expect(order(slow), `seed ${seed}`).toBe(order(r));
    }
    expect(seen.size).toBeGreaterThan(1);
    const off = loadK8sScenario(yaml(false), "t.yaml");
    const a = order(runK8sScenario(off, { seed: 1, steps: true }));
    for (let seed = 2; seed <= 4; seed++) expect(order(runK8sScenario(off, { seed, steps: true }))).toBe(a);
  });
});

describe("the external-attacher's calls", () => {
  it("a ControllerPublish that times out at the sidecar's 15 s but completes: attachError DeadlineExceeded, then the retry finds it attached", () => {
    const r = run(
      scenario({
        csi: true,
        faults: "faults:\n  storage:\n    - {op: controllerPublish, count: 1, outcome: timeoutDone, latency: 20s}",
        expect: "expect:\n  - podRunning: app-0\n  - calls: {op: controllerPublish, volume: vol-1, node: node-1, min: 2}",
      }),
    );
    expect(r.violations).toEqual([]);
    const start = stepAt(r, "csi.ControllerPublishStarted");
    expect(stepAt(r, "csi.ControllerPublishTimedOut") - start).toBe(15_000);
    expect(stepAt(r, "csi.ControllerPublishLanded") - start).toBe(20_000);
    expect(r.logs.some((l) => l.text.includes("failed to attach: rpc error: code = DeadlineExceeded desc = context deadline exceeded"))).toBe(true);
  });
});

describe("restarts inside an operation", () => {
  it("a controller-manager restart inside a cloud attach: the call still lands, the restarted controller finds the disk attached (node status) or attaches it, the pod runs", () => {
    const r = run(
      scenario({
        settings: "settings: {latencies: {attach: 10s}}",
        timeline: "timeline:\n  - {between: [cloud.AttachStarted, cloud.AttachSucceeded], action: restartControllerManager, down: 2s}",
        expect: "expect:\n  - podRunning: app-0",
      }),
    );
    expect(r.violations).toEqual([]);
    expect(stepAt(r, "cloud.AttachSucceeded")).toBe(stepAt(r, "cloud.AttachStarted") + 10_000);
  });

  it("a kubelet restart after a NodeStage timed out (uncertain on 1.18) and before it lands: the new kubelet has no uncertain mark; its MountDevice retries get Aborted until the stage lands", () => {
    const yaml = scenario({
      csi: true,
      faults: "faults:\n  storage:\n    - {op: nodeStage, count: 1, outcome: timeoutDone, latency: 150s}",
      timeline: "timeline:\n  - {after: csi.NodeStageTimedOut, delay: 2s, action: restartKubelet, node: node-1, down: 3s}",
      expect: "expect:\n  - podRunning: app-0",
    });
    for (const v of ["1.17", "1.18"]) {
      const r = run(yaml, v);
      expect(r.violations, v).toEqual([]);
      expect(r.timeline.some((e) => e.message.includes("code = Aborted")), v).toBe(true);
      expect(stepAt(r, "kubelet.MountDeviceSucceeded"), v).toBeGreaterThan(stepAt(r, "csi.NodeStageLanded"));
    }
  });
});

describe("VerifyVolumesAreAttached as a call", () => {
  it("with a latency each check is a call of its own (steps, stats.calls); a failing check keeps the volume attached; without one nothing is called", () => {
    const plain = run(scenario({}));
    expect(plain.stats.calls.verifyAttached).toBeUndefined();
    const r = run(
      scenario({
        settings: "settings: {latencies: {verifyAttached: 5s}}",
        faults: "faults:\n  storage:\n    - {op: verifyAttached, count: 1, error: RequestLimitExceeded}",
        expect: "expect:\n  - podRunning: app-0\n  - calls: {op: verifyAttached, volume: vol-1, node: node-1, min: 5}",
      }),
    );
    expect(r.violations.map((v) => `${v.name}: ${v.explanation}`)).toEqual([]);
    expect(stepAt(r, "adc.VerifyVolumesAreAttachedFailed") - stepAt(r, "adc.VerifyVolumesAreAttachedStarted")).toBe(5_000);
    expect(stepAt(r, "adc.VerifyVolumesAreAttachedSucceeded", 0) - stepAt(r, "adc.VerifyVolumesAreAttachedStarted", 1)).toBe(5_000);
    expect(r.logs.some((l) => l.text.includes("VolumesAreAttached failed for checking on node \"node-1\" with: RequestLimitExceeded"))).toBe(true);
    // the same calls and steps ticking every period
    const slow = runK8sScenario(loadK8sScenario(scenario({ settings: "settings: {latencies: {verifyAttached: 5s}}" }), "t.yaml"), { steps: true, tickEveryPeriod: true });
    const fast = run(scenario({ settings: "settings: {latencies: {verifyAttached: 5s}}" }));
    expect(fast.steps).toEqual(slow.steps);
    expect(fast.stats.calls).toEqual(slow.stats.calls);
  });
});

describe("a final error after an uncertain one (markDeviceErrorState, markVolumeErrorState; #82492)", () => {
  // upstream's Test_UncertainDeviceGlobalMounts / Test_UncertainVolumeMountState cases "timeout
  // followed by failed operation should result in non-mounted device / volume": no UnmountDevice, no TearDown
  for (const [op, unmountOp, what] of [
    ["nodeStage", "nodeUnstage", "device"],
    ["nodePublish", "nodeUnpublish", "volume"],
  ] as const) {
    it(`${op} times out (uncertain), then fails for good: the ${what} is not mounted and ${unmountOp} is never called (1.18); a timeout alone gets ${unmountOp}`, () => {
      const faults = (final: boolean) =>
        `faults:\n  storage:\n    - {op: ${op}, volume: vol-1, count: 1, outcome: timeout, latency: 3m}\n` +
        (final ? `    - {op: ${op}, volume: vol-1, error: "volume vol-1 was deleted", code: NotFound}\n` : `    - {op: ${op}, volume: vol-1, error: "driver restarting", code: Unavailable}\n`);
      const timeline = "timeline:\n  - {at: 5m, action: deletePod, pod: app-0}";
      const final = run(scenario({ csi: true, version: "1.18", faults: faults(true), timeline }));
      expect(stepAt(final, `csi.${op === "nodeStage" ? "NodeStage" : "NodePublish"}TimedOut`)).toBeGreaterThan(0);
      expect((final.stats.calls as Record<string, Record<string, Record<string, number>>>)[op]!["vol-1"]!["node-1"]).toBeGreaterThanOrEqual(2);
      expect(final.stats.calls[unmountOp]?.["vol-1"], JSON.stringify(final.stats.calls)).toBeUndefined();
      // the kubelet does not even start the unmount (upstream's unmountDeviceCallCount / unmountVolumeCount 0)
      expect(stepAt(final, what === "device" ? "kubelet.UnmountDeviceStarted" : "kubelet.TearDownStarted")).toBe(-1);
      // only non-final errors after the timeout: still uncertain, so the pod's deletion unmounts it
      const uncertain = run(scenario({ csi: true, version: "1.18", faults: faults(false), timeline }));
      expect(uncertain.stats.calls[unmountOp]?.["vol-1"]?.["node-1"], JSON.stringify(uncertain.stats.calls)).toBeGreaterThanOrEqual(1);
    });
  }
});
