// In-tree -> CSI migration of a pod's INLINE awsElasticBlockStore /
// gcePersistentDisk volume (volume/csimigration.ts section 2b): the kubelet
// (desired_state_of_world_populator.go createVolumeSpec) and the
// attach/detach controller (attachdetach/util CreateVolumeSpec) translate it
// with TranslateInTreeInlineVolumeToCSI when migration is on for its plugin,
// as they do a PV; csi_attacher.go Attach puts the translated spec in the
// VolumeAttachment's spec.source.inlineVolumeSpec (no persistentVolumeName),
// and the external-attacher (csi_handler.go, inline support since v1.2.0,
// #154) attaches and detaches from it. Names are computed here from
// upstream's formulas (csi-translation-lib plugins/aws_ebs.go, gce_pd.go;
// csi_attacher.go getAttachmentName), not read back from the replay.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadK8sScenario } from "../../bindings/k8s/scenario/loader.js";
import { runK8sScenario } from "../../bindings/k8s/scenario/run.js";
import type { KObj } from "../../bindings/k8s/api/types.js";

const EBS = "awsElasticBlockStore: {volumeID: vol-1, fsType: ext4}";
const PD = "gcePersistentDisk: {pdName: disk-1, fsType: ext4}";

/** pod web-0 on n1 with inline volume `data`; `timeline`/`settings`/`extra` appended as given */
function scenario(source: string, opts: { settings?: string; timeline?: string; extra?: string; expect?: string } = {}): string {
  return `
name: inline-migration
duration: 4m
${opts.settings ?? ""}
objects:
  - kind: Node
    metadata: {name: n1}
  - kind: Node
    metadata: {name: n2}
  - kind: Pod
    metadata: {name: web-0, uid: 00000000-0000-0000-0000-0000000000a1}
    spec:
      nodeName: n1
      containers: [{name: web, volumeMounts: [{name: data, mountPath: /data}]}]
      volumes: [{name: data, ${source}}]
${opts.extra ?? ""}${opts.timeline ? `timeline:\n${opts.timeline}` : ""}${opts.expect ? `expect:\n${opts.expect}` : ""}`;
}
const UID = "00000000-0000-0000-0000-0000000000a1";
const sha = (s: string): string => createHash("sha256").update(s).digest("hex");
function run(text: string, version: string, fixes: Record<string, boolean> = {}) {
  return runK8sScenario(loadK8sScenario(text, "t.yaml"), { version, fixes: fixes as never });
}
type R = ReturnType<typeof run>;
const objs = (r: R, kind: string): KObj[] => r.objects.filter((o) => o.kind === kind);
const attached = (r: R, node = "n1"): Array<{ name: string; devicePath: string }> =>
  r.objects.find((o) => o.kind === "Node" && o.metadata.name === node)?.status?.volumesAttached ?? [];
const running = (r: R): boolean => r.podWaits[0]!.state === "running";
const DELETE = "  - {at: 2m, action: deletePod, pod: web-0}\n";

describe("CSI migration of inline in-tree volumes", () => {
  it("1.22 (CSIMigrationAWS off): the inline EBS volume stays with the in-tree plugin", () => {
    const r = run(
      scenario(EBS, { expect: `  - hostMount: {node: n1, pathContains: "pods/${UID}/volumes/kubernetes.io~aws-ebs/data", present: true}\n` }),
      "1.22",
    );
    expect(running(r)).toBe(true);
    expect(r.violations).toEqual([]);
    expect(objs(r, "VolumeAttachment")).toEqual([]);
    // no process migrates: no CSINode written (the run is as before migration was modelled)
    expect(objs(r, "CSINode")).toEqual([]);
    expect(attached(r).map((a) => a.name)).toEqual(["kubernetes.io/aws-ebs/vol-1"]);
    expect(r.stats.calls.attach?.["vol-1"]?.n1).toBe(1);
    expect(r.stats.calls.controllerPublish).toBeUndefined();
  });

  it("1.23 (CSIMigrationAWS on): VolumeAttachment with spec.source.inlineVolumeSpec, the driver's unique name and paths", () => {
    const handle = "vol-1";
    const specName = `ebs.csi.aws.com-${handle}`; // TranslateInTreeInlineVolumeToCSI: "<driver>-<handle>"
    const text = scenario(EBS, {
      expect:
        `  - hostMount: {node: n1, pathContains: "pods/${UID}/volumes/kubernetes.io~csi/${specName}/mount", present: true}\n` +
        `  - hostMount: {node: n1, pathContains: "plugins/kubernetes.io/csi/pv/${specName}/globalmount", present: true}\n` +
        `  - volumeAttachment: {node: n1, volumeHandle: ${handle}, exists: true}\n`,
    });
    const r = run(text, "1.23");
    expect(running(r)).toBe(true);
    expect(r.violations).toEqual([]);
    const vas = objs(r, "VolumeAttachment");
    expect(vas.map((v) => v.metadata.name)).toEqual([`csi-${sha(`${handle}ebs.csi.aws.com` + "n1")}`]);
    const va = vas[0]!;
    expect(va.spec.attacher).toBe("ebs.csi.aws.com");
    expect(va.spec.source.persistentVolumeName).toBeUndefined();
    expect(va.spec.source.inlineVolumeSpec).toEqual({
      csi: { driver: "ebs.csi.aws.com", volumeHandle: handle, fsType: "ext4", volumeAttributes: { partition: "0" } },
      accessModes: ["ReadWriteOnce"],
    });
    expect(va.status?.attached).toBe(true);
    expect(attached(r)).toEqual([{ name: `kubernetes.io/csi/ebs.csi.aws.com^${handle}`, devicePath: "" }]);
    expect(r.stats.calls.controllerPublish?.[handle]?.n1).toBe(1);
    expect(r.stats.calls.attach).toBeUndefined();
    const csiNode = objs(r, "CSINode")[0]!;
    expect(csiNode.metadata.annotations?.["storage.kubernetes.io/migrated-plugins"]).toBe("kubernetes.io/aws-ebs,kubernetes.io/gce-pd");
  });

  it("a pod the timeline creates (createPod) with an inline EBS volume is migrated too", () => {
    const text = `
name: inline-created
duration: 3m
objects:
  - kind: Node
    metadata: {name: n1}
timeline:
  - at: 10s
    action: createPod
    manifest:
      kind: Pod
      metadata: {name: late-0}
      spec:
        nodeName: n1
        containers: [{name: c, volumeMounts: [{name: data, mountPath: /data}]}]
        volumes: [{name: data, ${EBS}}]
`;
    const r = run(text, "1.23");
    expect(r.violations).toEqual([]);
    expect(attached(r).map((a) => a.name)).toEqual(["kubernetes.io/csi/ebs.csi.aws.com^vol-1"]);
    expect(objs(r, "VolumeAttachment")[0]?.spec.source.inlineVolumeSpec?.csi?.volumeHandle).toBe("vol-1");
  });

  it("1.24+: the hashed CSI global mount of the translated handle", () => {
    const text = scenario(EBS, {
      expect: `  - hostMount: {node: n1, pathContains: "plugins/kubernetes.io/csi/ebs.csi.aws.com/${sha("vol-1")}/globalmount", present: true}\n`,
    });
    expect(run(text, "1.24").violations).toEqual([]);
  });

  for (const v of ["1.23", "1.26", "1.35"]) {
    it(`${v}: deleting the pod unmounts through the driver and detaches cleanly (the VolumeAttachment goes)`, () => {
      const text = scenario(EBS, {
        timeline: DELETE,
        expect:
          "  - podGone: {pod: web-0}\n" +
          "  - volumeAttachment: {node: n1, volumeHandle: vol-1, exists: false}\n" +
          '  - nodeVolumesAttached: {node: n1, lacks: "vol-1"}\n' +
          '  - hostMount: {node: n1, pathContains: "ebs.csi.aws.com-vol-1", present: false}\n' +
          "  - hostMount: {node: n1, pathContains: globalmount, present: false}\n",
      });
      const r = run(text, v);
      expect(r.violations).toEqual([]);
      expect(objs(r, "VolumeAttachment")).toEqual([]);
      for (const op of ["controllerPublish", "controllerUnpublish", "nodeStage", "nodeUnstage", "nodePublish", "nodeUnpublish"])
        expect(r.stats.calls[op]?.["vol-1"]?.n1, op).toBe(1);
      expect(r.stats.calls.detach).toBeUndefined();
    });
  }

  it("1.27 (in-tree EBS plugin removed): migrated whatever the switch says", () => {
    const r = run(scenario(EBS, { timeline: DELETE }), "1.27", { CSIMigrationAWS: false });
    expect(r.violations).toEqual([]);
    expect(r.stats.calls.controllerPublish?.["vol-1"]?.n1).toBe(1);
    expect(r.stats.calls.controllerUnpublish?.["vol-1"]?.n1).toBe(1);
  });

  it("GCE PD inline: handle projects/UNSPECIFIED/zones/UNSPECIFIED/disks/<pdName> (no zone labels), spec name <driver>-<pdName>", () => {
    const handle = "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/disk-1";
    const r = run(
      scenario(PD, {
        expect: `  - hostMount: {node: n1, pathContains: "pods/${UID}/volumes/kubernetes.io~csi/pd.csi.storage.gke.io-disk-1/mount", present: true}\n`,
      }),
      "1.23",
    );
    expect(running(r)).toBe(true);
    expect(r.violations).toEqual([]);
    const va = objs(r, "VolumeAttachment")[0]!;
    expect(va.metadata.name).toBe(`csi-${sha(`${handle}pd.csi.storage.gke.io` + "n1")}`);
    expect(va.spec.source).toEqual({
      inlineVolumeSpec: {
        csi: { driver: "pd.csi.storage.gke.io", volumeHandle: handle, fsType: "ext4", volumeAttributes: { partition: "" } },
        accessModes: ["ReadWriteOnce"],
        volumeMode: "Filesystem",
      },
    });
    expect(attached(r).map((a) => a.name)).toEqual([`kubernetes.io/csi/pd.csi.storage.gke.io^${handle}`]);
    expect(r.stats.calls.controllerPublish?.[handle]?.n1).toBe(1);
  });

  it("the controller refuses a node whose CSINode lacks the driver: the inline volume is not attached", () => {
    const r = run(scenario(EBS, { settings: "settings: {csiMigrationDrivers: false}" }), "1.23");
    expect(running(r)).toBe(false);
    expect(objs(r, "VolumeAttachment")).toEqual([]);
    const text = r.logs.map((l) => l.text).join("\n");
    expect(text).toContain(
      'error performing CSI migration checks and translation for inline volume "data": in-tree plugin kubernetes.io/aws-ebs is migrated on node n1 but driver ebs.csi.aws.com is not installed',
    );
  });

  it("a kubelet whose own gate is off keeps the in-tree path under a migrated controller (the node's CSINode decides)", () => {
    const r = run(scenario(EBS, { settings: "settings: {kubeletFeatureGates: {CSIMigrationAWS: false}}", timeline: DELETE }), "1.23");
    expect(r.violations).toEqual([]);
    expect(r.stats.calls.attach?.["vol-1"]?.n1).toBe(1);
    expect(r.stats.calls.detach?.["vol-1"]?.n1).toBe(1);
    expect(r.stats.calls.controllerPublish).toBeUndefined();
  });

  it("a kubelet restart: reconstruction finds the translated volume under the same name; the pod keeps running, then detaches cleanly", () => {
    const text = scenario(EBS, {
      timeline: "  - {at: 1m, action: restartKubelet, node: n1, down: 10s}\n" + DELETE,
      expect: "  - podGone: {pod: web-0}\n  - volumeAttachment: {node: n1, volumeHandle: vol-1, exists: false}\n",
    });
    // the same volume as a migrated PV: the kubelet's calls after its restart (stage and publish again, idempotent) are a PV's
    const pv = text
      .replace(
        "  - kind: Pod\n",
        "  - kind: PersistentVolume\n    metadata: {name: pv1}\n    spec: {accessModes: [ReadWriteOnce], " +
          EBS +
          "}\n  - kind: PersistentVolumeClaim\n    metadata: {name: c1}\n    spec: {accessModes: [ReadWriteOnce], volumeName: pv1}\n  - kind: Pod\n",
      )
      .replace(`{name: data, ${EBS}}`, "{name: data, persistentVolumeClaim: {claimName: c1}}");
    for (const v of ["1.23", "1.35"]) {
      const r = run(text, v);
      expect(r.violations, v).toEqual([]);
      expect(r.stats.calls.controllerPublish?.["vol-1"]?.n1, v).toBe(1);
      expect(r.stats.calls.controllerUnpublish?.["vol-1"]?.n1, v).toBe(1);
      expect(r.stats.calls.nodeUnstage?.["vol-1"]?.n1, v).toBe(1);
      const p = run(pv, v);
      expect(p.violations, v).toEqual([]);
      expect(r.stats.calls, v).toEqual(p.stats.calls);
    }
  });

  it("the pod force-deleted while its kubelet is down: reconstruction rebuilds the translated spec from vol_data.json and cleans up through the driver", () => {
    const text = scenario(EBS, {
      timeline:
        "  - {at: 1m, action: crashKubelet, node: n1}\n  - {at: 70s, action: deletePod, pod: web-0, grace: 0s}\n  - {at: 90s, action: startKubelet, node: n1}\n",
      expect:
        "  - volumeAttachment: {node: n1, volumeHandle: vol-1, exists: false}\n" +
        '  - hostMount: {node: n1, pathContains: "ebs.csi.aws.com-vol-1", present: false}\n' +
        "  - hostMount: {node: n1, pathContains: globalmount, present: false}\n",
    });
    for (const v of ["1.23", "1.25", "1.35"]) {
      const r = run(text, v);
      expect(r.violations, v).toEqual([]);
      for (const op of ["nodeUnpublish", "nodeUnstage", "controllerUnpublish"]) expect(r.stats.calls[op]?.["vol-1"]?.n1, `${v} ${op}`).toBe(1);
    }
  });

  it("a controller-manager restart skips the inline volume's VolumeAttachment (no PV name) and keeps it attached from node status; the pod's deletion then detaches it", () => {
    const text = scenario(EBS, {
      timeline: "  - {at: 1m, action: restartControllerManager, down: 20s}\n" + DELETE,
      expect:
        '  - log: {component: kube-controller-manager, contains: "Skipping the va as its pvName is nil"}\n' +
        "  - podGone: {pod: web-0}\n  - volumeAttachment: {node: n1, volumeHandle: vol-1, exists: false}\n",
    });
    for (const v of ["1.23", "1.35"]) {
      const r = run(text, v);
      expect(r.violations, v).toEqual([]);
      // attached once, detached once: the restart neither detached nor re-attached it
      expect(r.stats.calls.controllerPublish?.["vol-1"]?.n1, v).toBe(1);
      expect(r.stats.calls.controllerUnpublish?.["vol-1"]?.n1, v).toBe(1);
    }
  });

  it("a second pod on another node: inline in-tree is multi-attachable (no PV access modes), the translated spec is ReadWriteOnce (Multi-Attach error)", () => {
    const extra = `  - kind: Pod
    metadata: {name: web-1}
    spec:
      nodeName: n2
      containers: [{name: web, volumeMounts: [{name: data, mountPath: /data}]}]
      volumes: [{name: data, ${EBS}}]
`;
    // util.IsMultiAttachAllowed: a spec without a PV "we don't know ... let the attacher fail"; a PV's access modes otherwise
    const before = run(scenario(EBS, { extra }), "1.22");
    expect(before.timeline.filter((e) => e.reason === "FailedAttachVolume" && e.message.includes("Multi-Attach"))).toEqual([]);
    const after = run(scenario(EBS, { extra }), "1.23");
    expect(after.timeline.some((e) => e.reason === "FailedAttachVolume" && e.message.includes("Multi-Attach error for volume"))).toBe(true);
    expect(after.stats.calls.controllerPublish?.["vol-1"]?.n2).toBeUndefined();
  });
});
