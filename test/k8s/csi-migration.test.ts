// In-tree -> CSI migration (issue #26 scope 4; volume/csimigration.ts): the
// translation csi-translation-lib does, who decides (each kubelet by its own
// gates, the attach/detach controller by its gates and the node's CSINode),
// the skew upstream leaves broken, the drivers' deployment and the in-tree
// plugins' removal. Names are computed here from upstream's formulas, not
// read back from the replay.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadK8sScenario } from "../../bindings/k8s/scenario/loader.js";
import { runK8sScenario } from "../../bindings/k8s/scenario/run.js";
import { gcePdHandle, translateInTreeSpecToCSI } from "../../bindings/k8s/volume/csimigration.js";
import type { KObj } from "../../bindings/k8s/api/types.js";

function scenario(source: string, settings = "", labels = ""): string {
  return `
name: migration
duration: 4m
${settings}
objects:
  - kind: Node
    metadata: {name: n1}
  - kind: PersistentVolume
    metadata: {name: pv1${labels}}
    spec: {accessModes: [ReadWriteOnce], ${source}}
  - kind: PersistentVolumeClaim
    metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], volumeName: pv1}
  - kind: Pod
    metadata: {name: db-0}
    spec:
      nodeName: n1
      containers: [{name: db, volumeMounts: [{name: data, mountPath: /data}]}]
      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
`;
}
const EBS = "awsElasticBlockStore: {volumeID: vol-1, fsType: ext4}";
const sha = (s: string): string => createHash("sha256").update(s).digest("hex");
function run(text: string, version: string, fixes: Record<string, boolean> = {}) {
  return runK8sScenario(loadK8sScenario(text, "t.yaml"), { version, fixes: fixes as never });
}
const obj = (r: { objects: KObj[] }, kind: string, name: string): KObj | undefined => r.objects.find((o) => o.kind === kind && o.metadata.name === name);
const attached = (r: { objects: KObj[] }): Array<{ name: string; devicePath: string }> => obj(r, "Node", "n1")?.status?.volumesAttached ?? [];
const running = (r: { podWaits: Array<{ state: string }> }): boolean => r.podWaits[0]!.state === "running";

describe("in-tree -> CSI migration", () => {
  it("1.23 (CSIMigrationAWS on): CSINode annotated, the driver's names everywhere", () => {
    const r = run(scenario(EBS), "1.23");
    expect(running(r)).toBe(true);
    const csiNode = obj(r, "CSINode", "n1")!;
    expect(csiNode.metadata.annotations?.["storage.kubernetes.io/migrated-plugins"]).toBe("kubernetes.io/aws-ebs,kubernetes.io/gce-pd");
    expect((csiNode.spec.drivers as Array<{ name: string }>).map((d) => d.name)).toContain("ebs.csi.aws.com");
    // csi_attacher.go getAttachmentName: csi-<sha256(handle + driver + node)>
    expect(obj(r, "VolumeAttachment", `csi-${sha("vol-1ebs.csi.aws.comn1")}`)?.status?.attached).toBe(true);
    expect(attached(r)).toEqual([{ name: "kubernetes.io/csi/ebs.csi.aws.com^vol-1", devicePath: "" }]);
    expect(r.stats.calls.controllerPublish?.["vol-1"]?.n1).toBe(1);
    expect(r.stats.calls.attach).toBeUndefined();
  });

  it("a storage fault on a CSI op of an in-tree EBS volume loads, and fires where the release migrates it", () => {
    // the first NodeStage fails; the kubelet retries and the pod runs
    const text = `${scenario(EBS)}faults:\n  storage:\n    - {op: nodeStage, volume: vol-1, count: 1, error: injected}\n`;
    const migrated = run(text, "1.23");
    expect(migrated.stats.calls.nodeStage?.["vol-1"]?.n1).toBe(2);
    expect(running(migrated)).toBe(true);
    expect(migrated.timeline.some((e) => e.message.includes("rpc error: code = Internal desc = injected"))).toBe(true);
    // on 1.22 the in-tree plugin mounts it: no NodeStage, the fault never fires
    const inTree = run(text, "1.22");
    expect(inTree.stats.calls.nodeStage).toBeUndefined();
    expect(inTree.timeline.some((e) => e.message.includes("injected"))).toBe(false);
  });

  it("a GCE PD's fault names its CSI handle (from the zone label) and fires where the release migrates it", () => {
    const PD = "gcePersistentDisk: {pdName: disk-1}";
    const zone = ", labels: {topology.kubernetes.io/zone: europe-west1-b}";
    const handle = "projects/UNSPECIFIED/zones/europe-west1-b/disks/disk-1";
    const text = `${scenario(PD, "", zone)}faults:\n  storage:\n    - {op: controllerPublish, volume: ${handle}, count: 1, error: quota}\n`;
    const r = run(text, "1.25");
    expect(r.stats.calls.controllerPublish?.[handle]?.n1).toBe(2);
    expect(running(r)).toBe(true);
  });

  it("1.24: the CSI global mount of the translated handle (plugins/kubernetes.io/csi/<driver>/<sha256(handle)>/globalmount)", () => {
    const text = `${scenario(EBS)}expect:\n  - hostMount: {node: n1, pathContains: "plugins/kubernetes.io/csi/ebs.csi.aws.com/${sha("vol-1")}/globalmount", present: true}\n`;
    expect(run(text, "1.24").violations).toEqual([]);
  });

  it("1.22 and 1.23 with the switch off: the in-tree plugin, no VolumeAttachment", () => {
    for (const [v, f] of [
      ["1.22", {}],
      ["1.23", { CSIMigrationAWS: false }],
    ] as const) {
      const r = run(scenario(EBS), v, f);
      expect(running(r), v).toBe(true);
      expect(
        r.objects.filter((o) => o.kind === "VolumeAttachment"),
        v,
      ).toEqual([]);
      expect(
        attached(r).map((a) => a.name),
        v,
      ).toEqual(["kubernetes.io/aws-ebs/vol-1"]);
    }
  });

  it("1.27: the in-tree EBS plugin is gone, the switch off changes nothing", () => {
    const r = run(scenario(EBS), "1.27", { CSIMigrationAWS: false });
    expect(attached(r).map((a) => a.name)).toEqual(["kubernetes.io/csi/ebs.csi.aws.com^vol-1"]);
    // 1.26 still has the in-tree plugin: off is off there
    expect(attached(run(scenario(EBS), "1.26", { CSIMigrationAWS: false })).map((a) => a.name)).toEqual(["kubernetes.io/aws-ebs/vol-1"]);
  });

  it("GCE PD: handle projects/UNSPECIFIED/zones/<zone>/disks/<name> from the zone label", () => {
    const r = run(scenario("gcePersistentDisk: {pdName: disk-1}", "", ", labels: {topology.kubernetes.io/zone: europe-west1-b}"), "1.25");
    expect(running(r)).toBe(true);
    const handle = "projects/UNSPECIFIED/zones/europe-west1-b/disks/disk-1";
    expect(attached(r).map((a) => a.name)).toEqual([`kubernetes.io/csi/pd.csi.storage.gke.io^${handle}`]);
    expect(obj(r, "VolumeAttachment", `csi-${sha(`${handle}pd.csi.storage.gke.ion1`)}`)).toBeDefined();
  });

  it("gce_pd.go: the beta zone label first, several zones a regional disk, none UNSPECIFIED", () => {
    const pv = (labels: Record<string, string>): KObj => ({
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "p", uid: "", resourceVersion: "", labels },
      spec: { gcePersistentDisk: { pdName: "d" } },
    });
    expect(gcePdHandle(pv({ "failure-domain.beta.kubernetes.io/zone": "us-central1-a", "topology.kubernetes.io/zone": "us-east1-b" }), "d")).toBe(
      "projects/UNSPECIFIED/zones/us-central1-a/disks/d",
    );
    expect(gcePdHandle(pv({ "topology.kubernetes.io/zone": "us-central1-a__us-central1-c" }), "d")).toBe("projects/UNSPECIFIED/regions/us-central1/disks/d");
    expect(gcePdHandle(pv({}), "d")).toBe("projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d");
    // aws_ebs.go: "aws://<zone>/vol-x" -> vol-x; fsType kept; the same translated object every time
    const ebs: KObj = {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "e", uid: "", resourceVersion: "" },
      spec: { accessModes: ["ReadWriteOnce"], awsElasticBlockStore: { volumeID: "aws://us-east-1a/vol-9", fsType: "xfs" } },
    };
    const t = translateInTreeSpecToCSI({ name: "e", pv: ebs, readOnly: false });
    expect(t.pv!.spec).toEqual({ accessModes: ["ReadWriteOnce"], csi: { driver: "ebs.csi.aws.com", volumeHandle: "vol-9", fsType: "xfs" } });
    expect(t.migrated).toBe(true);
    expect(translateInTreeSpecToCSI({ name: "e", pv: ebs, readOnly: false }).pv).toBe(t.pv);
  });

  it("skew, kubelet migrated before its controller (1.22 kubelet gate on): the pod never starts", () => {
    const r = run(scenario(EBS, "settings: {kubeletFeatureGates: {CSIMigrationAWS: true}}"), "1.22");
    expect(running(r)).toBe(false);
    // the controller attached in-tree; the kubelet waits for the driver's name in node status
    expect(attached(r).map((a) => a.name)).toEqual(["kubernetes.io/aws-ebs/vol-1"]);
    expect(
      r.logs.some((l) => l.text.includes("Volume not attached according to node status") && l.text.includes("kubernetes.io/csi/ebs.csi.aws.com^vol-1")),
    ).toBe(true);
    expect(obj(r, "CSINode", "n1")?.metadata.annotations?.["storage.kubernetes.io/migrated-plugins"]).toBe("kubernetes.io/aws-ebs");
  });

  it("skew, controller migrated before its kubelet (1.23 kubelet gate off): the node's CSINode keeps the controller in-tree", () => {
    const r = run(scenario(EBS, "settings: {kubeletFeatureGates: {CSIMigrationAWS: false}}"), "1.23");
    expect(running(r)).toBe(true);
    expect(obj(r, "CSINode", "n1")?.metadata.annotations?.["storage.kubernetes.io/migrated-plugins"]).toBe("kubernetes.io/gce-pd");
    expect(attached(r).map((a) => a.name)).toEqual(["kubernetes.io/aws-ebs/vol-1"]);
    expect(r.objects.filter((o) => o.kind === "VolumeAttachment")).toEqual([]);
  });

  it("a migrated cluster without the driver: the controller refuses the volume (driver not installed)", () => {
    const r = run(scenario(EBS, "settings: {csiMigrationDrivers: false}"), "1.23");
    expect(running(r)).toBe(false);
    expect(r.logs.some((l) => l.text.includes("in-tree plugin kubernetes.io/aws-ebs is migrated on node n1 but driver ebs.csi.aws.com is not installed"))).toBe(
      true,
    );
    expect(r.objects.filter((o) => o.kind === "VolumeAttachment")).toEqual([]);
  });

  it("InTreePluginAWSUnregister without migration: no plugin for the volume", () => {
    const r = run(scenario(EBS, "settings: {featureGates: {InTreePluginAWSUnregister: true}}"), "1.21");
    expect(running(r)).toBe(false);
    expect(attached(r)).toEqual([]);
    expect(r.stats.calls.attach).toBeUndefined();
  });

  it("runs without a migrating process write no CSINode", () => {
    const r = run(scenario(EBS), "1.22");
    expect(r.objects.filter((o) => o.kind === "CSINode")).toEqual([]);
  });

  it("every switch's override reaches its run (the profile cache keys more than 30 switches apart)", () => {
    const text = scenario(EBS);
    for (const id of ["CSIMigrationAWS", "CSIMigrationGCE", "101737", "102176", "104526"]) {
      const on = run(text, "1.21", { CSIMigrationGCE: id !== "CSIMigrationGCE", [id]: true });
      const off = run(text, "1.21", { CSIMigrationGCE: id !== "CSIMigrationGCE", [id]: false });
      expect([on.fixes[id as never], off.fixes[id as never]], id).toEqual([true, false]);
    }
  });

  it("bad feature gates are refused with file, line and field", () => {
    expect(() => loadK8sScenario(scenario(EBS, "settings: {featureGates: {CSIMigrationAWS: true}}"), "t.yaml")).toThrow(
      /settings\.featureGates\.CSIMigrationAWS: unknown feature gate/,
    );
  });
});
