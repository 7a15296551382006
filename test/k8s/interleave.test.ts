// Completions between the reads of a pass (engine/sim.ts yieldPoint;
// volume/operation.ts section 3): with `settings.interleave` a call's end due
// at an instant on a loop's grid may land inside that loop's pass, between
// two of its reads of shared state, as upstream's operation goroutines may
// finish while the reconciler is between GetAttachedVolumes and
// IsOperationPending. One test per loop and interleave point: over seeds,
// some runs land the end inside the pass and the outcome changes the way
// upstream's code lets it; with interleave off no seed does; and every run
// skipping idle passes equals the same run ticking every period.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadK8sScenario } from "../../bindings/k8s/scenario/loader.js";
import { runK8sScenario, type K8sRunResult } from "../../bindings/k8s/scenario/run.js";

const SEEDS = Array.from({ length: 16 }, (_, i) => i + 1);

/** an aws-ebs PV (or a CSI one) used by pod app-0 on node-1 */
function scenario(opts: { csi?: boolean; version?: string; interleave?: boolean; latencies: string; faults?: string; timeline: string; expect?: string }): string {
  const pv = opts.csi ? "csi: {driver: d.example.com, volumeHandle: vol-1}" : "awsElasticBlockStore: {volumeID: vol-1}";
  return `name: interleave-test
version: "${opts.version ?? "1.22"}"
duration: 4m
settings:
  interleave: ${opts.interleave ?? true}
  latencies: ${opts.latencies}
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
timeline:
${opts.timeline}
${opts.expect ?? ""}
`;
}

function runs(yaml: string, version?: string): K8sRunResult[] {
  const sc = loadK8sScenario(yaml, "t.yaml");
  return SEEDS.map((seed) => runK8sScenario(sc, { seed, steps: true, logs: true, ...(version ? { version } : {}) }));
}
const calls = (r: K8sRunResult, op: string): number => Object.values(r.stats.calls[op] ?? {}).reduce((n, byNode) => n + Object.values(byNode).reduce((a, b) => a + b, 0), 0);
const has = (r: K8sRunResult, step: string): boolean => r.steps.some((s) => s.name === step);

/** skipping idle passes stays exact with interleave: the same steps, logs and violations ticking every period */
function expectIdleSkipExact(yaml: string, seeds: readonly number[]): void {
  const sc = loadK8sScenario(yaml, "t.yaml");
  for (const seed of seeds) {
    const a = runK8sScenario(sc, { seed, steps: true, logs: true });
    const b = runK8sScenario(sc, { seed, steps: true, logs: true, tickEveryPeriod: true });
    expect(JSON.stringify([b.steps, b.logs, b.violations, b.stats.calls]), `seed ${seed}`).toBe(JSON.stringify([a.steps, a.logs, a.violations, a.stats.calls]));
  }
}

describe("attach/detach controller reconciler: a detach ending between GetAttachedVolumes and IsOperationPending (#93902)", () => {
  const file = new URL("../../bindings/k8s/versions/scenarios/adc-detach-interleave.yaml", import.meta.url);
  const yaml = readFileSync(file, "utf8");
  it("before #94599 (1.19) some seeds log the SetDetachRequestTime error; 1.20 never does; one detach call in every run", () => {
    const before = runs(yaml, "1.19");
    const after = runs(yaml, "1.20");
    const failed = before.filter((r) => has(r, "adc.SetDetachRequestTimeFailed"));
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length).toBeLessThan(SEEDS.length);
    for (const r of failed) expect(r.logs.some((l) => l.text.includes("] Cannot trigger detach because it fails to set detach request time with error failed to set detach request time with error: volume kubernetes.io/aws-ebs/vol-0abc is no longer attached to the node \"node-1\""))).toBe(true);
    // upstream: SetDetachRequestTime fails before any detach-path side effect, so no second detach
    for (const r of [...before, ...after]) {
      expect(r.violations).toEqual([]);
      expect(calls(r, "detach")).toBe(1);
    }
    expect(after.some((r) => has(r, "adc.SetDetachRequestTimeFailed"))).toBe(false);
    // the step lands at the instant the detach ends, inside that pass
    for (const r of failed) expect(r.steps.find((s) => s.name === "adc.SetDetachRequestTimeFailed")!.t).toBe(r.steps.find((s) => s.name === "cloud.DetachSucceeded")!.t);
  });
  it("without interleave no seed gets there", () => {
    for (const r of runs(yaml.replace("interleave: true", "interleave: false"), "1.19")) expect(has(r, "adc.SetDetachRequestTimeFailed")).toBe(false);
  });
  it("idle skipping stays exact", () => expectIdleSkipExact(yaml, [1, 5, 10]));
});

describe("kubelet reconciler, unmountDetachDevices: a MountVolume ending between GetUnmountedVolumes and IsOperationPending", () => {
  // The pod is deleted while its MountDevice (3 s) runs; SetUp then fails
  // (a final error), so the operation ends with the device mounted and the
  // pod not. Upstream (reconciler.go unmountDetachDevices): the copy from
  // GetUnmountedVolumes says "not globally mounted"; if the operation ends
  // before IsOperationPending, the pass calls MarkVolumeAsDetached
  // (DeleteVolume: no mounted pods, so it goes) instead of UnmountDevice,
  // the global mount stays and the volume leaves volumesInUse: the
  // controller detaches the disk under it.
  const yaml = (interleave: boolean): string =>
    scenario({
      interleave,
      latencies: "{kubernetes.io/aws-ebs: {mountDevice: 3s}}",
      faults: 'faults:\n  storage:\n    - {op: setUp, volume: vol-1, count: 1, error: "mount failed: exit status 32"}',
      timeline: "  - {after: kubelet.MountDeviceStarted, delay: 1s, action: deletePod, pod: app-0}",
      expect: "expect:\n  - podGone: app-0\n  - hostMount: {node: node-1, pathContains: aws-ebs, present: false}\n  - step: {name: cloud.DetachedWhileMounted, max: 0}",
    });
  it("some seeds leak the global mount and detach the disk under it; the others unmount it first", () => {
    const rs = runs(yaml(true));
    const leaked = rs.filter((r) => r.violations.length > 0);
    expect(leaked.length).toBeGreaterThan(0);
    expect(leaked.length).toBeLessThan(rs.length);
    for (const r of leaked) {
      expect(r.violations.map((v) => v.name.split(" ")[0]).sort()).toEqual(["hostMount", "step"]);
      expect(has(r, "kubelet.UnmountDeviceStarted")).toBe(false);
      expect(has(r, "cloud.DetachedWhileMounted")).toBe(true);
    }
    for (const r of rs.filter((x) => x.violations.length === 0)) expect(calls(r, "unmountDevice")).toBe(1);
  });
  it("without interleave every seed unmounts the device", () => {
    for (const r of runs(yaml(false))) expect(r.violations).toEqual([]);
  });
  it("from 1.32 (#128219) the pass reads the actual state again after IsOperationPending: no seed leaks, every one unmounts the device", () => {
    // in-tree EBS is migrated to its CSI driver from 1.27: the same race on a disk no release migrates
    const y = yaml(true)
      .replace("awsElasticBlockStore: {volumeID: vol-1}", "qcloudCbs: {cbsDiskId: vol-1, fsType: ext4}")
      .replace("kubernetes.io/aws-ebs: {mountDevice", "kubernetes.io/qcloud-cbs: {mountDevice")
      .replace("pathContains: aws-ebs", "pathContains: qcloud-cbs");
    expect(runs(y, "1.31").some((r) => r.violations.length > 0)).toBe(true);
    for (const r of runs(y, "1.32")) {
      expect(r.violations).toEqual([]);
      expect(calls(r, "unmountDevice")).toBe(1);
    }
  });
  it("idle skipping stays exact", () => expectIdleSkipExact(yaml(true), [1, 3, 5, 10]));
});

describe("kubelet reconciler, mountAttachVolumes: a SetUp ending between PodExistsInVolume and MountVolume's Run", () => {
  // The copy says "not mounted for the pod"; the MountVolume ends (the
  // pending operation goes); Run finds nothing pending and starts a second
  // MountVolume: upstream's SetUp runs again (the in-tree mounter finds the
  // mount point and returns, a CSI driver gets a second NodePublish).
  const yaml = (interleave: boolean, csi = false): string =>
    scenario({ csi, interleave, latencies: csi ? "{nodeStage: 1s, nodePublish: 1s, controllerPublish: 1s}" : "{kubernetes.io/aws-ebs: {setUp: 1s}}", timeline: "  - {at: 60s, action: deletePod, pod: app-0}", expect: "expect:\n  - podGone: app-0\n  - hostMount: {node: node-1, pathContains: pods, present: false}" });
  it("in-tree and CSI: some seeds call SetUp / NodePublish twice, the pod runs and is cleaned up in every run", () => {
    for (const [csi, op] of [[false, "setUp"], [true, "nodePublish"]] as const) {
      const rs = runs(yaml(true, csi));
      for (const r of rs) expect(r.violations, `${op}`).toEqual([]);
      const twice = rs.filter((r) => calls(r, op) === 2);
      expect(twice.length, op).toBeGreaterThan(0);
      expect(twice.length, op).toBeLessThan(rs.length);
      for (const r of twice) expect(r.logs.filter((l) => l.text.includes("MountVolume.SetUp succeeded")).length).toBe(2);
      for (const r of runs(yaml(false, csi))) expect(calls(r, op), op).toBe(1);
    }
  });
  it("idle skipping stays exact", () => expectIdleSkipExact(yaml(true, true), [1, 2, 3]));
});

describe("kubelet reconciler, unmountVolumes: a TearDown ending between GetAllMountedVolumes and UnmountVolume's Run", () => {
  // The copy still lists the pod's mount; the TearDown ends; Run starts a
  // second UnmountVolume, whose TearDown (the in-tree unmounter's
  // CleanupMountPoint) finds nothing mounted and succeeds again.
  const yaml = (interleave: boolean): string => scenario({ interleave, latencies: "{kubernetes.io/aws-ebs: {tearDown: 1s}}", timeline: "  - {at: 60s, action: deletePod, pod: app-0}", expect: "expect:\n  - podGone: app-0\n  - hostMount: {node: node-1, pathContains: aws-ebs, present: false}" });
  it("some seeds tear down twice; nothing leaks in any run", () => {
    const rs = runs(yaml(true));
    for (const r of rs) expect(r.violations).toEqual([]);
    const twice = rs.filter((r) => calls(r, "tearDown") === 2);
    expect(twice.length).toBeGreaterThan(0);
    expect(twice.length).toBeLessThan(rs.length);
    for (const r of twice) expect(r.steps.filter((s) => s.name === "kubelet.TearDownSucceeded").length).toBe(2);
    for (const r of runs(yaml(false))) expect(calls(r, "tearDown")).toBe(1);
  });
  it("idle skipping stays exact", () => expectIdleSkipExact(yaml(true), [1, 2, 3]));
});
