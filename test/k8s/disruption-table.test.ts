// A pod deletion, a kubelet restart or a controller-manager restart placed
// inside every volume call, for every plugin kind that makes calls (CSI, an
// in-tree attachable cloud disk, rbd), when the call times out but its work
// lands anyway (`outcome: timeoutDone`), on releases either side of the
// changes that matter (1.13/1.14: the controller's uncertain attach; 1.17/
// 1.18: #82492, the kubelet's uncertain device and volume mounts) and the
// newest. Each row says what upstream's code leaves on the node and at the
// storage backend after the run has settled (20 simulated minutes); the
// expectation "clean" means nothing: no mount under plugins/ or pods/, no
// VolumeAttachment, no attachment or rbd map, and every invariant holds.
//
// How the disruption is placed: for a call on the way up (attach, stage,
// mount, publish, map) `between: [<call>Started, <call>Landed]`, the pod
// deleted at 8 min when the disruption is a restart; for a call on the way
// down (unmount, unstage, detach, unmap) the pod is deleted at 60 s, which
// starts the call, and the restart goes between its start and landing.
// The in-tree non-attachable plugins (hostPath, emptyDir) make no call in
// the replay (their SetUp is a directory): not in the table.
import { describe, expect, it } from "vitest";
import { loadK8sScenario } from "../../bindings/k8s/scenario/loader.js";
import { runK8sScenario, type K8sRunResult } from "../../bindings/k8s/scenario/run.js";
import { resolveProfile } from "../../bindings/k8s/versions/profile.js";

type Plugin = "csi" | "ebs" | "rbd";
type Disruption = "deletePod" | "restartKubelet" | "restartControllerManager";

const PLUGINS: Record<Plugin, { pv: string; volume: string; up: Record<string, string>; down: Record<string, string>; latency: string }> = {
  csi: {
    pv: "csi: {driver: d.example.com, volumeHandle: vol-1}",
    volume: "vol-1",
    up: { controllerPublish: "csi.ControllerPublish", nodeStage: "csi.NodeStage", nodePublish: "csi.NodePublish" },
    down: { nodeUnpublish: "csi.NodeUnpublish", nodeUnstage: "csi.NodeUnstage", controllerUnpublish: "csi.ControllerUnpublish" },
    // past the kubelet's csiTimeout (2 min) and the external-attacher's --timeout (15 s)
    latency: "150s",
  },
  ebs: {
    pv: "awsElasticBlockStore: {volumeID: vol-1}",
    volume: "vol-1",
    up: { attach: "cloud.Attach", mountDevice: "mount.MountDevice", setUp: "mount.SetUp" },
    down: { tearDown: "mount.TearDown", unmountDevice: "mount.UnmountDevice", detach: "cloud.Detach" },
    latency: "20s",
  },
  rbd: {
    pv: "rbd: {monitors: [10.0.0.1], pool: k8s, image: img-1}",
    volume: "rbd:k8s/img-1",
    up: { rbdMap: "rbd.Map", mountDevice: "mount.MountDevice", setUp: "mount.SetUp" },
    // (rbd's UnmountDevice is the umount and the unmap together: its call is rbdUnmap)
    down: { tearDown: "mount.TearDown", rbdUnmap: "rbd.Unmap" },
    latency: "20s",
  },
};
const DISRUPTIONS: Record<Disruption, string> = {
  deletePod: "action: deletePod, pod: app-0",
  restartKubelet: "action: restartKubelet, node: node-1, down: 3s",
  restartControllerManager: "action: restartControllerManager, down: 2s",
};
const VERSIONS = ["1.13", "1.14", "1.17", "1.18", "1.35"];

function scenario(p: Plugin, op: string, up: boolean, d: Disruption): string {
  const P = PLUGINS[p];
  const prefix = (up ? P.up : P.down)[op]!;
  const inside = `  - {between: [${prefix}Started, ${prefix}Landed], ${DISRUPTIONS[d]}}`;
  const timeline = up ? [inside, ...(d === "deletePod" ? [] : ["  - {at: 8m, action: deletePod, pod: app-0}"])] : ["  - {at: 60s, action: deletePod, pod: app-0}", ...(d === "deletePod" ? [] : [inside])];
  return `name: disruption
duration: 20m
objects:
  - kind: Node
    metadata: {name: node-1}
  - kind: PersistentVolume
    metadata: {name: pv-1}
    spec: {accessModes: [ReadWriteOnce], ${P.pv}}
  - kind: PersistentVolumeClaim
    metadata: {name: c-1}
    spec: {accessModes: [ReadWriteOnce], volumeName: pv-1}
  - kind: Pod
    metadata: {name: app-0}
    spec:
      nodeName: node-1
      containers: [{name: c, volumeMounts: [{name: d, mountPath: /d}]}]
      volumes: [{name: d, persistentVolumeClaim: {claimName: c-1}}]
faults:
  storage:
    - {op: ${op}, volume: "${P.volume}", count: 1, outcome: timeoutDone, latency: ${P.latency}}
timeline:
${timeline.join("\n")}
expect:
  - podGone: app-0
  - hostMount: {node: node-1, pathContains: "/plugins/", present: false}
  - hostMount: {node: node-1, pathContains: "/pods/", present: false}
  - step: {name: cloud.DetachedWhileMounted, max: 0}
`;
}

/** what a run left: "clean", or its failed checks (the global or the pod's mount, the disk detached under a mount, an attachment or map no pod uses) and VolumeAttachments */
function leftOver(r: K8sRunResult): string {
  const parts = r.violations.map((v) => {
    const kind = v.name.split(" ")[0]!;
    if (kind === "hostMount") return v.name.includes("/plugins/") ? "globalMount" : "podMount";
    if (kind === "step") return "detachedUnderMount";
    if (kind === "released-after-pods") return "attachedOrMapped";
    if (kind === "no-orphaned-mounts") return null; // (the same fact as podMount)
    return kind;
  });
  const vas = r.objects.filter((o) => o.kind === "VolumeAttachment").length;
  if (vas > 0) parts.push(`VolumeAttachment`);
  const set = [...new Set(parts.filter((x): x is string => x !== null))].sort();
  return set.length === 0 ? "clean" : set.join("+");
}

/**
 * What upstream leaves, row by row (every other row: clean), with the code
 * path that leaves it.
 */
function upstreamLeaves(p: Plugin, op: string, d: Disruption, version: string): string {
  const profile = resolveProfile(version);
  const uncertainMounts = profile.fix["82492"];
  const uncertainAttach = profile.version.minor >= 14;
  if (d === "deletePod") {
    // CSI NodeStage / NodePublish: DeadlineExceeded is not final, but before
    // #82492 (1.18) operation_generator's MountVolume records nothing on
    // error; the pod's volume leaves the desired state and the reconciler
    // drops it (unmountDetachDevices: MarkVolumeAsDetached, no UnmountDevice;
    // no TearDown for a pod never marked mounted): the stage / publish that
    // lands at 150 s stays. Since: MarkDeviceAsUncertain /
    // MarkVolumeMountAsUncertain, then UnmountDevice / TearDown.
    if (p === "csi" && op === "nodeStage" && !uncertainMounts) return "globalMount";
    if (p === "csi" && op === "nodePublish" && !uncertainMounts) return "podMount";
    // the controller's attach that fails but lands: before 1.14 AttachVolume's
    // failure leaves nothing in the ASW, so nothing detaches the volume when
    // the pod goes (GenerateAttachVolumeFunc; MarkVolumeAsUncertain since);
    // for CSI the VolumeAttachment stays too (csi_attacher.Attach created it)
    if (op === "attach" && !uncertainAttach) return "attachedOrMapped";
    if (op === "controllerPublish" && !uncertainAttach) return "VolumeAttachment+attachedOrMapped";
    // in-tree MountDevice (aws attacher.go MountDevice): a failed
    // FormatAndMount is followed by os.Remove(deviceMountPath), which fails
    // on the mount point that landed; the error is final (no uncertain
    // state for in-tree plugins), so the global mount stays and the volume,
    // not device-mounted for the kubelet, leaves volumesInUse: the
    // controller detaches the disk under the mount. rbd's MountDevice
    // (rbd attacher.go) does the same, and with no UnmountDevice the image
    // stays mapped.
    if (p === "ebs" && op === "mountDevice") return "detachedUnderMount+globalMount";
    if (p === "rbd" && op === "mountDevice") return "attachedOrMapped+globalMount";
    // rbd diskSetUp: a failed bind mount returns the error without
    // unmounting (unlike aws/gce SetUpAt, which unmount and remove the
    // directory: clean): the pod's mount stays, TearDown is never called;
    // UnmountDevice fails on the busy device, the image stays mapped
    if (p === "rbd" && op === "setUp") return "attachedOrMapped+podMount";
    // rbd map that fails after mapping (AttachDisk: "rbd: map failed"):
    // WaitForAttach fails, the pod goes, the volume is dropped without
    // UnmountDevice (which is where rbd unmaps): the image stays mapped
    if (p === "rbd" && op === "rbdMap") return "attachedOrMapped";
  }
  // a kubelet restart inside an UnmountDevice: the new kubelet knows no
  // device mount (reconstruction reads pods/<uid>/volumes, gone after
  // TearDown; device reconstruction, 1.26+'s NewVolumeManagerReconstruction,
  // also starts from pod directories), so volumesInUse lacks the volume and
  // the controller detaches while the umount still runs
  if (d === "restartKubelet" && p === "ebs" && op === "unmountDevice") return "detachedUnderMount";
  return "clean";
}

describe("a disruption inside every call, timed out but done: what is left matches upstream", () => {
  for (const p of Object.keys(PLUGINS) as Plugin[])
    for (const up of [true, false])
      for (const op of Object.keys(up ? PLUGINS[p].up : PLUGINS[p].down))
        it(`${p} ${op}: ${Object.keys(DISRUPTIONS).join(", ")} on ${VERSIONS.join(", ")}`, () => {
          for (const d of Object.keys(DISRUPTIONS) as Disruption[]) {
            const sc = loadK8sScenario(scenario(p, op, up, d), "t.yaml");
            // (the in-tree EBS plugin is gone from 1.27: its calls are the EBS CSI driver's there, volume/csimigration.ts; the csi rows cover them)
            for (const v of p === "ebs" ? VERSIONS.filter((x) => Number(x.split(".")[1]) < 27) : VERSIONS) {
              const r = runK8sScenario(sc, { version: v, steps: true });
              const prefix = (up ? PLUGINS[p].up : PLUGINS[p].down)[op]!;
              // the work landed after the caller gave up, and the disruption happened inside the call
              expect(r.steps.some((s) => s.name === `${prefix}TimedOut`), `${p} ${op} ${d} ${v}: timed out`).toBe(true);
              expect(r.steps.some((s) => s.name === `${prefix}Landed`), `${p} ${op} ${d} ${v}: landed`).toBe(true);
              expect(leftOver(r), `${p} ${op} ${d} ${v}`).toBe(upstreamLeaves(p, op, d, v));
            }
          }
        });
});
