// volumeMode: Block end to end (issue #26 item 4): a PersistentVolume with
// volumeMode: Block is attached, mapped for the pod (MapVolume: WaitForAttach,
// SetUpDevice/NodeStageVolume, MapPodDevice/NodePublishVolume and the device
// map paths), unmapped and detached when the pod goes, for a CSI driver and
// an in-tree disk, on a release with block volumes beta and CSI block alpha
// (1.14: the model has neither gate) and on one with both GA (1.25).
import { describe, expect, it } from "vitest";
import { loadK8sScenario } from "../../bindings/k8s/scenario/loader.js";
import { runK8sScenario } from "../../bindings/k8s/scenario/run.js";

function scenario(source: string): string {
  return `
name: block-volume
duration: 5m
objects:
  - kind: Node
    metadata: {name: n1}
  - kind: CSIDriver
    metadata: {name: ebs.csi.aws.com}
    spec: {attachRequired: true}
  - kind: PersistentVolume
    metadata: {name: pv1}
    spec: {accessModes: [ReadWriteOnce], volumeMode: Block, ${source}}
  - kind: PersistentVolumeClaim
    metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], volumeMode: Block, volumeName: pv1}
  - kind: Pod
    metadata: {name: db-0}
    spec:
      nodeName: n1
      containers: [{name: db, volumeDevices: [{name: data, devicePath: /dev/xvda}]}]
      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
timeline:
  - {at: 60s, action: deletePod, pod: db-0}
expect:
  - podGone: db-0
  - nodeVolumesAttached: {node: n1, lacks: pv1}
`;
}

describe("volumeMode: Block", () => {
  for (const [kind, source] of [
    ["CSI", "csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}"],
    ["in-tree EBS", "awsElasticBlockStore: {volumeID: vol-1}"],
  ] as const) {
    for (const version of ["1.14", "1.25"]) {
      it(`${kind} on ${version}: mapped, not mounted; unmapped and detached after the pod goes`, () => {
        const sc = loadK8sScenario(scenario(source), "block-volume.yaml");
        const r = runK8sScenario(sc, { version, steps: true });
        expect(r.violations.map((v) => `${v.name}: ${v.explanation}`)).toEqual([]);
        for (const e of r.expectations) expect(e.held, `${e.name}: ${e.detail}`).toBe(true);
        const text = r.logs.map((l) => l.text);
        const at = (needle: string) => text.findIndex((t) => t.includes(needle));
        // MapVolume, not MountVolume: no MountDevice/SetUp for the volume
        expect(at("MapVolume.MapPodDevice succeeded")).toBeGreaterThanOrEqual(0);
        expect(at("MountVolume.SetUp succeeded")).toBe(-1);
        expect(at("MountVolume.MountDevice succeeded")).toBe(-1);
        // the pod's device map path, as util.MapBlockVolume makes it
        expect(text[at("MapVolume.MapPodDevice succeeded")]).toMatch(/volumeMapPath \\?"\/var\/lib\/kubelet\/pods\/[^/]+\/volumeDevices\/kubernetes\.io~(csi|aws-ebs)\/pv1\\?"/);
        // unmapped before the device, the device before the detach
        expect(at("UnmapVolume succeeded")).toBeGreaterThan(at("MapVolume.MapPodDevice succeeded"));
        expect(at("UnmapDevice succeeded")).toBeGreaterThan(at("UnmapVolume succeeded"));
        expect(r.steps.some((s) => s.name === "adc.DetachSucceeded")).toBe(true);
      });
    }
  }

  it("a failed NodePublishVolume of a block volume is a FailedMapVolume event and retried with backoff (CSI, 1.25)", () => {
    const text = scenario("csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}") + `faults:\n  storage:\n    - {op: nodePublish, volume: vol-1, count: 1, error: "device is busy"}\n`;
    const r = runK8sScenario(loadK8sScenario(text, "block-volume.yaml"), { version: "1.25" });
    expect(r.violations.map((v) => v.name)).toEqual([]);
    const ev = r.timeline.filter((e) => e.reason === "FailedMapVolume");
    expect(ev.map((e) => e.message)).toEqual([expect.stringContaining("MapVolume.MapPodDevice failed for volume \"data\"")]);
    expect(r.logs.some((l) => l.text.includes("MapVolume.MapPodDevice failed") && l.text.includes("device is busy"))).toBe(true);
    expect(r.logs.some((l) => l.text.includes("MapVolume.MapPodDevice succeeded"))).toBe(true);
  });

  it("a kubelet restart while the pod terminates: the mapped volume is reconstructed from its device map path, then unmapped, unstaged and detached (CSI, 1.25)", () => {
    const text = scenario("csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}").replace(
      "  - {at: 60s, action: deletePod, pod: db-0}",
      "  - {at: 60s, action: deletePod, pod: db-0}\n  - {at: 61s, action: restartKubelet, node: n1, down: 4s}",
    );
    const r = runK8sScenario(loadK8sScenario(text, "block-volume.yaml"), { version: "1.25", steps: true });
    expect(r.violations.map((v) => `${v.name}: ${v.explanation}`)).toEqual([]);
    for (const e of r.expectations) expect(e.held, `${e.name}: ${e.detail}`).toBe(true);
    const lines = r.logs.map((l) => l.text);
    const at = (needle: string) => lines.findIndex((t) => t.includes(needle));
    expect(at("Volume is reconstructed")).toBeGreaterThanOrEqual(0);
    expect(at("UnmapVolume succeeded")).toBeGreaterThan(at("Volume is reconstructed"));
    expect(at("UnmapDevice succeeded")).toBeGreaterThan(at("UnmapVolume succeeded"));
    expect(r.steps.some((s) => s.name === "adc.DetachSucceeded")).toBe(true);
  });
});
