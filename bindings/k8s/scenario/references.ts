// The names a scenario's timeline, faults and checks give, checked against
// what the scenario itself defines. A name that points at nothing made the
// replay do nothing or decide a check vacuously, with no word: `podGone:
// web-O` (a typo) held, `deletePod` of a pod that never exists was a
// NotFound the replay swallows (as kubectl reports one, but in a scenario
// file a name that can never exist is a typo), `crashKubelet` of an unknown
// node did nothing, `untaintNode` of a taint key nothing ever sets on that
// node removed nothing, a storage fault on `volume: pv1` (a PV's name, not the
// disk id the storage backend is called with) or with an `op:` the volume's
// plugin never calls (or, for a CSI volume, that its CSIDriver object turns
// off: attachRequired: false, no stage) never fired. Each is a load-time error at the field's
// line, with the nearest known name when there is a close one.
//
// What the scenario defines: the objects of `objects:` and the manifests of
// the timeline's `create` / `createPod` (a pod created later is a valid
// target of a check or a deletePod, whenever it is created). Names some
// component makes up while the run goes are not checked, and where they can
// appear it says so below: VolumeAttachment names (csi-<sha256> of handle,
// driver and node, made by the attach/detach controller), the volume handle of
// an inline (ephemeral) CSI volume (csi-<sha256> of the pod's UID and the
// volume's name; the UID is drawn at run time), the unique volume names of
// node.status.volumesAttached (an inline volume's holds the pod's UID).
//
// It reads the loaded scenario as a whole, so it runs after every key is
// loaded: loadK8sScenario and k8sScenarioFromValue call it, and bindings/mc,
// which loads a sweep's constant keys once and its random keys per run
// (k8sScenarioKeysFromValue), calls it on each run's assembled scenario.
// There, most of the scenario is the sweep's frozen base, shared by every
// run: the names a frozen `objects:` and the timeline's frozen manifests
// define are worked out once, and a part of the check whose input is frozen
// and passed with those names is not checked again (KnownNames).

import { ebsVolumeId, gcePdHandle } from "../volume/csimigration.js";
import { KObj, Kind } from "../api/types.js";
import { parseQuantity } from "../api/quantity.js";
import type { BackendOp } from "../host/backend.js";
import { nearestName } from "../../util/nearest-name.js";
import type { Check, Expectation, K8sScenario } from "./schema.js";

type Fail = (path: string, msg: string) => never;

/** the storage backend's kinds of volume, and the operations their plugins call for each (volume/*.ts) */
type VolumeType = "disk" | "csi" | "inline-csi" | "rbd";
const OPS_OF: Record<VolumeType, readonly BackendOp[]> = {
  // in-tree cloud disks (volume/clouddisk.ts): the controller's attach/detach
  disk: ["attach", "detach", "verifyAttached", "mountDevice", "setUp", "tearDown", "unmountDevice", "expandVolume", "resizeFs"],
  // a CSI PersistentVolume: the external-attacher's ControllerPublish/Unpublish, the kubelet's stage and publish
  csi: ["controllerPublish", "controllerUnpublish", "verifyAttached", "nodeStage", "nodeUnstage", "nodePublish", "nodeUnpublish", "controllerExpand", "nodeExpand"],
  // an inline (ephemeral) CSI volume is neither attached nor staged (csi.ts: no PV source), only published
  "inline-csi": ["nodePublish", "nodeUnpublish"],
  // rbd (volume/rbd.ts): map and unmap by the node's rbd CLI
  rbd: ["rbdMap", "rbdUnmap", "mountDevice", "setUp", "tearDown", "expandVolume", "resizeFs"],
};
const TYPE_WORD: Record<VolumeType, string> = { disk: "an in-tree cloud disk", csi: "a CSI volume", "inline-csi": "an inline CSI volume", rbd: "an rbd image" };
const TYPE_PLURAL: Record<VolumeType, string> = { disk: "in-tree cloud disks", csi: "CSI PersistentVolumes", "inline-csi": "inline CSI volumes", rbd: "rbd images" };
/** an inline CSI volume's handle, csi_mounter.go makeVolumeHandle: "csi-" + sha256 of the pod's UID and the volume's name */
const INLINE_HANDLE = /^csi-[0-9a-f]{64}$/;

/** the components whose informers a watch fault or latency may name (scenario/run.ts: the ADC, the external-attacher, each node's kubelet) */
const WATCH_COMPONENTS = ["kube-controller-manager", "csi-attacher", "csi-resizer", "kubelet"];

interface Volume {
  type: VolumeType;
  /** where it is defined, e.g. `PersistentVolume pv1` */
  from: string;
  /**
   * An in-tree EBS volume: on a release (or with gates) that migrates it to
   * CSI it is called through the EBS driver with the same id
   * (volume/csimigration.ts section 4), so a CSI operation's fault on it
   * fires there. The version is the run's, not the scenario's: both sets hold.
   */
  migrates?: boolean;
}

/** the operations a volume can be called with, on some release */
function opsOf(v: Volume): readonly BackendOp[] {
  return v.migrates === true ? [...OPS_OF[v.type], ...OPS_OF.csi.filter((op) => !OPS_OF[v.type].includes(op))] : OPS_OF[v.type];
}

/** What a scenario defines, by name. */
class Names {
  /** every Node: objects' and the timeline's (the API objects node conditions, taints and checks of node.status read) */
  readonly nodes = new Map<string, string>();
  /** the Nodes of objects: only these get a host and a kubelet (scenario/run.ts builds them from objects alone) */
  readonly hostNodes = new Set<string>();
  /** objects by kind and key (NS/NAME for a pod or claim), each with where it is defined */
  readonly byKind = new Map<Kind, Map<string, string>>();
  /** storage backend ids (disk id, CSI handle, rbd:POOL/IMAGE) */
  readonly volumes = new Map<string, Volume>();
  /** a PV's name -> the backend id of its volume, for the hint on `volume: pv1` */
  readonly pvIds = new Map<string, string>();
  /** a claim's name -> its PV's name (the same hint on `volume: data-web-0`) */
  readonly claimPVs = new Map<string, string>();
  /** rbd images as POOL/IMAGE (rbdMapped's image) */
  readonly rbdImages = new Set<string>();
  /** CSI volume handles of PVs (volumeAttachment's volumeHandle) */
  readonly csiHandles = new Set<string>();
  /** a CSI PV's volume handle -> the drivers its PVs name */
  readonly csiDrivers = new Map<string, Set<string>>();
  inlineCsi = false;

  add(o: KObj, where: string): void {
    const key = o.metadata.namespace !== undefined ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
    let m = this.byKind.get(o.kind);
    if (m === undefined) this.byKind.set(o.kind, (m = new Map()));
    if (!m.has(key)) m.set(key, where);
    if (o.kind === "Node" && !this.nodes.has(key)) this.nodes.set(key, where);
    if (o.kind === "PersistentVolume" && o.spec) {
      const id = this.volume(o.spec as Record<string, any>, `PersistentVolume ${o.metadata.name}`, false);
      if (id !== null) this.pvIds.set(o.metadata.name, id);
      // a GCE PD migrated to CSI is called by its CSI handle, from the PV's zone labels (volume/csimigration.ts)
      if (o.spec.gcePersistentDisk?.pdName !== undefined) this.migratedPd(gcePdHandle(o, String(o.spec.gcePersistentDisk.pdName)), `PersistentVolume ${o.metadata.name}, migrated to CSI`);
    }
    if (o.kind === "PersistentVolumeClaim" && o.spec?.volumeName && !this.claimPVs.has(o.metadata.name)) this.claimPVs.set(o.metadata.name, String(o.spec.volumeName));
    if (o.kind === "Pod") for (const v of (o.spec?.volumes ?? []) as Array<Record<string, any>>) this.volume(v, `pod ${key} volume ${v.name}`, true);
  }

  /** a volume source's backend id, as scenario/run.ts backendId gives it */
  private volume(src: Record<string, any>, from: string, inPod: boolean): string | null {
    let id: string;
    let type: VolumeType;
    if (src.csi) {
      if (inPod) {
        this.inlineCsi = true;
        return null;
      }
      id = String(src.csi.volumeHandle);
      type = "csi";
      this.csiHandles.add(id);
      let d = this.csiDrivers.get(id);
      if (d === undefined) this.csiDrivers.set(id, (d = new Set()));
      d.add(String(src.csi.driver));
    } else if (src.rbd) {
      const image = `${src.rbd.pool ?? "rbd"}/${src.rbd.image}`;
      id = `rbd:${image}`;
      type = "rbd";
      this.rbdImages.add(image);
    } else if (src.awsElasticBlockStore) {
      [id, type] = [String(src.awsElasticBlockStore.volumeID), "disk"];
      // a migrated EBS volume's VolumeAttachment is the driver's, for its handle (volume/csimigration.ts)
      // (an inline one's too: TranslateInTreeInlineVolumeToCSI gives the same handle)
      this.csiHandles.add(ebsVolumeId(id));
    }
    else if (src.gcePersistentDisk) {
      [id, type] = [String(src.gcePersistentDisk.pdName), "disk"];
      // an inline PD has no zone labels: TranslateInTreeInlineVolumeToCSI's handle has zones/UNSPECIFIED
      if (inPod) this.migratedPd(`projects/UNSPECIFIED/zones/UNSPECIFIED/disks/${id}`, `${from}, migrated to CSI`);
    }
    else if (src.qcloudCbs) [id, type] = [String(src.qcloudCbs.cbsDiskId), "disk"];
    else return null;
    if (!this.volumes.has(id)) this.volumes.set(id, src.awsElasticBlockStore ? { type, from, migrates: true } : { type, from });
    return id;
  }

  /** a migrated GCE PD's CSI handle: a CSI volume of the PD driver (its ops are the CSI ones) */
  private migratedPd(handle: string, from: string): void {
    if (this.volumes.has(handle)) return;
    this.volumes.set(handle, { type: "csi", from });
    this.csiHandles.add(handle);
    let d = this.csiDrivers.get(handle);
    if (d === undefined) this.csiDrivers.set(handle, (d = new Set()));
    d.add("pd.csi.storage.gke.io");
  }

  has(kind: Kind, key: string): boolean {
    return this.byKind.get(kind)?.has(key) ?? false;
  }
  keys(kind: Kind): Iterable<string> {
    return this.byKind.get(kind)?.keys() ?? [];
  }
}

/**
 * The names of a scenario whose `objects:` and timeline manifests are frozen
 * (bindings/mc's base and the template's literal manifests, frozen all the
 * way down, so they can never change), kept with the parts of the check
 * (sections) found to pass with them, by the frozen input each part reads.
 * The names depend on the objects and on the manifests of the timeline's
 * create / createPod items and their indices (`timeline[i]` in messages),
 * nothing else; a section reads the names and its own input alone (the
 * timeline's also reads the objects, which are the same here), so with the
 * same names and the same frozen input it passes again, and leaving it out
 * leaves the first failure, or none, as it was.
 */
interface KnownNames {
  /** index, manifest, ... of the timeline's create / createPod items the names were made from */
  creates: unknown[];
  names: Names;
  /** the frozen inputs each section passed with (by section: the same value could be the input of two) */
  passed: Map<string, WeakSet<object>>;
}
const knownNames = new WeakMap<readonly KObj[], KnownNames>();

/** the names of `sc`, with the sections known to pass with them when its objects and manifests are frozen */
function namesFor(sc: Pick<K8sScenario, "objects" | "timeline">): { names: Names; passed?: Map<string, WeakSet<object>> } {
  if (!Object.isFrozen(sc.objects)) return { names: namesOf(sc) };
  const creates: unknown[] = [];
  for (let i = 0; i < sc.timeline.length; i++) {
    const a = sc.timeline[i]!.action;
    if (a.kind !== "create" && a.kind !== "createPod") continue;
    if (!Object.isFrozen(a.manifest)) return { names: namesOf(sc) };
    creates.push(i, a.manifest);
  }
  const k = knownNames.get(sc.objects);
  if (k !== undefined && k.creates.length === creates.length && k.creates.every((x, j) => x === creates[j])) return k;
  const fresh: KnownNames = { creates, names: namesOf(sc), passed: new Map() };
  knownNames.set(sc.objects, fresh);
  return fresh;
}

function namesOf(sc: Pick<K8sScenario, "objects" | "timeline">): Names {
  const n = new Names();
  for (let i = 0; i < sc.objects.length; i++) {
    const o = sc.objects[i]!;
    n.add(o, `objects[${i}]`);
    if (o.kind === "Node") n.hostNodes.add(o.metadata.name);
  }
  for (let i = 0; i < sc.timeline.length; i++) {
    const a = sc.timeline[i]!.action;
    if (a.kind === "create" || a.kind === "createPod") n.add(a.manifest, `timeline[${i}]`);
  }
  return n;
}

const q = JSON.stringify;

/**
 * ` (did you mean "x"?)` for the known name nearest to `bad`, if it is close
 * (util/nearest-name.ts: at most max(1, floor(length / 3)) edits, or `bad` a
 * whole part of it such as attacher of csi-attacher), else the known names when they
 * are few; `show` turns a known key into the form the file would give it.
 */
function hint(bad: string, known: Iterable<string>, show: (k: string) => string = (k) => k): string {
  const all = [...known];
  if (all.length === 0) return " (this scenario has none)";
  // a namespaced key (ns/name, POOL/IMAGE) is weighed by its name among the
  // same namespace's: "default/db-0" is not a typo of "default/web-0"
  const cut = (k: string) => k.lastIndexOf("/") + 1;
  const pre = bad.slice(0, cut(bad));
  const same = (k: string) => k.slice(0, cut(k)) === pre;
  const inNs = nearestName(bad.slice(pre.length), all.filter(same).map((k) => k.slice(pre.length)));
  const near = inNs !== undefined ? pre + inNs : nearestName(bad, all.filter((k) => !same(k)));
  if (near !== undefined) return `; did you mean ${q(show(near))}?`;
  const shown = all.map(show).sort();
  return shown.length <= 8 ? ` (known: ${shown.join(", ")})` : ` (${shown.length} known, e.g. ${shown.slice(0, 4).join(", ")})`;
}

/** a pod's or claim's key as a file gives it: NAME for the default namespace */
const shortKey = (k: string): string => (k.startsWith("default/") ? k.slice(8) : k);

/** Refuse (through `fail`) the first name of the scenario that names nothing it defines. */
export function checkReferences(sc: K8sScenario, fail: Fail): void {
  const known = namesFor(sc);
  const n = known.names;
  /** check one part of the scenario, `input` (and the names), unless it passed before with these names (KnownNames) */
  const section = (name: string, input: object, check: () => void): void => {
    const passed = known.passed?.get(name);
    if (passed?.has(input)) return;
    check();
    if (known.passed !== undefined && Object.isFrozen(input)) {
      if (passed === undefined) known.passed.set(name, new WeakSet([input]));
      else passed.add(input);
    }
  };

  const pod = (key: string, path: string): void => {
    if (n.has("Pod", key)) return;
    fail(path, `pod ${q(shortKey(key))} never exists in this scenario (no Pod of objects: or of the timeline's create/createPod has that name)${hint(key, n.keys("Pod"), shortKey)}`);
  };
  const node = (name: string, path: string): void => {
    if (n.nodes.has(name)) return;
    fail(path, `node ${q(name)} is not in this scenario (no Node of objects: or of the timeline's create)${hint(name, n.nodes.keys())}`);
  };
  /** a node with a host and a kubelet: a Node of objects */
  const hostNode = (name: string, path: string): void => {
    if (n.hostNodes.has(name)) return;
    const created = n.nodes.get(name);
    if (created !== undefined) fail(path, `node ${q(name)} is created by ${created}, and only the Nodes of objects: have a host and a kubelet`);
    fail(path, `node ${q(name)} is not in this scenario (no Node of objects:)${hint(name, n.hostNodes)}`);
  };
  /** a name of `kind` the API server could hold (VolumeAttachment names are made by the controllers: not checked) */
  const object = (kind: Kind, key: string, path: string): void => {
    if (kind === "VolumeAttachment" || n.has(kind, key)) return;
    if (kind === "Pod") pod(key, path);
    if (kind === "Node") node(key, path);
    const short = kind === "PersistentVolumeClaim" ? shortKey : undefined;
    fail(path, `${kind} ${q(short ? short(key) : key)} never exists in this scenario (not in objects: nor created by the timeline)${hint(key, n.keys(kind), short)}`);
  };

  // ---- the objects' own references ----------------------------------------------
  const manifestRefs = (o: KObj, path: string): void => {
    if (o.kind === "Pod") {
      if (o.spec.nodeName !== undefined) node(String(o.spec.nodeName), `${path}.spec.nodeName`);
      const vols = (o.spec.volumes ?? []) as Array<Record<string, any>>;
      for (let i = 0; i < vols.length; i++) {
        const c = vols[i]!.persistentVolumeClaim;
        if (c) object("PersistentVolumeClaim", `${o.metadata.namespace}/${c.claimName}`, `${path}.spec.volumes[${i}].persistentVolumeClaim.claimName`);
      }
    }
    // (an unbound claim names no volume: the replay has no provisioner, and it stays Pending)
    if (o.kind === "PersistentVolumeClaim" && o.spec?.volumeName) object("PersistentVolume", String(o.spec.volumeName), `${path}.spec.volumeName`);
  };
  section("objects", sc.objects, () => {
    for (let i = 0; i < sc.objects.length; i++) manifestRefs(sc.objects[i]!, `objects[${i}]`);
  });

  // ---- volume expansion: what the API server's admission and validation refuse ----
  /** each claim's last requested size in timeline order (the manifest's, then each resize's) */
  const requested = new Map<string, { size: string; from: string }>();
  const claimManifest = (key: string): KObj | undefined => {
    for (const o of sc.objects) if (o.kind === "PersistentVolumeClaim" && `${o.metadata.namespace ?? "default"}/${o.metadata.name}` === key) return o;
    return undefined;
  };
  const resizeRefs = (a: { claim: string; size: string }, p: string): void => {
    const pvc = claimManifest(a.claim);
    if (pvc === undefined) {
      object("PersistentVolumeClaim", a.claim, `${p}.claim`);
      fail(`${p}.claim`, `claim ${q(shortKey(a.claim))} is created by the timeline; a resize takes a claim of objects: (bound, with its StorageClass)`);
    }
    // PersistentVolumeClaimResize admission (plugin/pkg/admission/storage/persistentvolume/resize)
    const pvName = pvc.spec?.volumeName as string | undefined;
    const className = pvc.spec?.storageClassName as string | undefined;
    const cls = className === undefined ? undefined : sc.objects.find((o) => o.kind === "StorageClass" && o.metadata.name === className);
    if (!pvName) fail(`${p}.claim`, `claim ${q(shortKey(a.claim))} is not bound (no spec.volumeName): only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`);
    if (className === undefined || cls === undefined)
      fail(`${p}.claim`, `claim ${q(shortKey(a.claim))} has ${className === undefined ? "no spec.storageClassName" : `storageClassName ${q(className)}, which is no StorageClass of objects:`}: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`);
    if (cls.spec?.allowVolumeExpansion !== true)
      fail(`${p}.claim`, `StorageClass ${q(className)} of claim ${q(shortKey(a.claim))} does not set allowVolumeExpansion: true: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`);
    const prev = requested.get(a.claim) ?? (() => {
      const s = (pvc.spec?.resources?.requests?.storage ?? undefined) as string | undefined;
      if (s === undefined) fail(`${p}.claim`, `claim ${q(shortKey(a.claim))} has no spec.resources.requests.storage to resize from`);
      return { size: String(s), from: `its spec.resources.requests.storage` };
    })();
    const now = parseQuantity(a.size)!;
    const before = parseQuantity(prev.size);
    // ValidatePersistentVolumeClaimUpdate: the request may only grow (RecoverVolumeExpansionFailure's
    // reduction back towards status.capacity after a failed expansion is not modelled)
    if (before !== null && now < before)
      fail(`${p}.size`, `spec.resources.requests.storage: Forbidden: field can not be less than previous value (${a.size} < ${prev.size}, ${prev.from}); a claim cannot be shrunk`);
    requested.set(a.claim, { size: a.size, from: `the resize at ${p}` });
  };

  // ---- settings --------------------------------------------------------------------
  section("settings", sc.settings, () => {
    for (let i = 0; i < sc.settings.noKubelet.length; i++) hostNode(sc.settings.noKubelet[i]!, `settings.noKubelet[${i}]`);
    if (sc.settings.apiServer !== undefined) hostNode(sc.settings.apiServer.node, "settings.apiServer.node");
    for (const k of Object.keys(sc.settings.watchLatencyByComponent)) watchComponent(k, `settings.watchLatencyByComponent.${k}`, false);
  });

  // ---- timeline ------------------------------------------------------------------------
  section("timeline", sc.timeline, () => {
    /** the processes each node's holdMount items start, by `${node}/${process}` */
    const holds = new Set<string>();
    for (const it of sc.timeline) if (it.action.kind === "holdMount") holds.add(`${it.action.node}/${it.action.process}`);
    /**
     * the taint keys each node can ever carry, by node name: its
     * spec.taints in objects: or a timeline create, and the keys the
     * timeline's taintNode sets on it (nothing else taints a Node here: the
     * model has no node lifecycle controller adding not-ready taints)
     */
    const taintable = new Map<string, Set<string>>();
    const canTaint = (nodeName: string, key: string) => {
      let s = taintable.get(nodeName);
      if (s === undefined) taintable.set(nodeName, (s = new Set()));
      s.add(key);
    };
    const specTaints = (o: KObj) => {
      if (o.kind !== "Node" || !Array.isArray(o.spec?.taints)) return;
      for (const t of o.spec.taints as Array<{ key?: unknown }>) if (typeof t?.key === "string") canTaint(o.metadata.name, t.key);
    };
    for (const o of sc.objects) specTaints(o);
    for (const it of sc.timeline) {
      if (it.action.kind === "create" || it.action.kind === "createPod") specTaints(it.action.manifest);
      if (it.action.kind === "taintNode") canTaint(it.action.node, it.action.key);
    }
    for (let i = 0; i < sc.timeline.length; i++) {
      const a = sc.timeline[i]!.action;
      const p = `timeline[${i}]`;
      switch (a.kind) {
        case "create":
        case "createPod":
          // (a frozen manifest, a sweep's, checks the same wherever it is in the timeline)
          section("manifest", a.manifest, () => manifestRefs(a.manifest, `${p}.manifest`));
          break;
        case "deletePod":
          pod(a.pod, `${p}.pod`);
          break;
        case "delete":
          object(a.objectKind, a.name, `${p}.name`);
          break;
        // the kubelet's process and the host's mounts exist for the Nodes of objects only
        case "crashKubelet":
        case "startKubelet":
        case "restartKubelet":
        case "holdMount":
        case "rebootNode":
        case "shutdownNode":
        case "startNode":
          hostNode(a.node, `${p}.node`);
          break;
        case "releaseMount":
          hostNode(a.node, `${p}.node`);
          if (!holds.has(`${a.node}/${a.process}`)) {
            const others = [...holds].filter((h) => h.startsWith(`${a.node}/`)).map((h) => h.slice(a.node.length + 1));
            fail(`${p}.process`, `no holdMount of the timeline starts process ${q(a.process)} on node ${q(a.node)}, so there is nothing to release${hint(a.process, others)}`);
          }
          break;
        // API writes to the Node object: a Node the timeline creates is one too
        case "nodeNotReady":
        case "nodeReady":
        case "taintNode":
          node(a.node, `${p}.node`);
          break;
        case "resize":
          resizeRefs(a, p);
          break;
        case "untaintNode": {
          node(a.node, `${p}.node`);
          const keys = taintable.get(a.node) ?? new Set<string>();
          if (!keys.has(a.key)) {
            fail(`${p}.key`, `no taintNode of the timeline nor spec.taints of Node ${q(a.node)} sets taint key ${q(a.key)}, so there is nothing to remove${keys.size ? hint(a.key, keys) : " (nothing taints this node)"}`);
          }
          break;
        }
      }
    }
  });

  // ---- faults ------------------------------------------------------------------------
  /**
   * Why the CSI model never calls `op` for a driver's volumes, or undefined:
   * the driver's CSIDriver of objects: says attachRequired: false (no
   * VolumeAttachment is made and the external-attacher handles none, so no
   * controllerPublish/Unpublish; volume/csi.ts attach, csi/external_attacher.ts
   * handled) or has the annotation iosim.dev/stage-unstage: "false" (the
   * kubelet skips MountDevice/UnmountDevice, so no nodeStage/nodeUnstage;
   * volume/csi.ts stageUnstage). A CSIDriver the timeline creates or deletes
   * can change that while the run goes, and a driver without a CSIDriver
   * attaches and stages (the default), so those are left alone.
   */
  const csiSkips = (driver: string, op: BackendOp): string | undefined => {
    if (sc.timeline.some(({ action: a }) => (a.kind === "create" && a.manifest.kind === "CSIDriver" && a.manifest.metadata.name === driver)
      || (a.kind === "delete" && a.objectKind === "CSIDriver" && a.name === driver))) return undefined;
    const i = sc.objects.findIndex((o) => o.kind === "CSIDriver" && o.metadata.name === driver);
    if (i < 0) return undefined;
    const o = sc.objects[i]!;
    if ((op === "controllerPublish" || op === "controllerUnpublish") && o.spec?.attachRequired === false)
      return `its CSIDriver ${q(driver)} (objects[${i}]) says attachRequired: false, so the volume is never attached`;
    if ((op === "nodeStage" || op === "nodeUnstage") && o.metadata.annotations?.["iosim.dev/stage-unstage"] === "false")
      return `its CSIDriver ${q(driver)} (objects[${i}]) has iosim.dev/stage-unstage: "false", so the volume is never staged`;
    return undefined;
  };
  /** why `op` is never called for CSI volume `id` (every driver its PVs name skips it), or undefined */
  const csiVolumeSkips = (id: string, op: BackendOp): string | undefined => {
    const why = [...(n.csiDrivers.get(id) ?? [])].map((d) => csiSkips(d, op));
    return why.length > 0 && why.every((w) => w !== undefined) ? why.join("; ") : undefined;
  };
  for (let i = 0; i < sc.storageFaults.length; i++) {
    const f = sc.storageFaults[i]!;
    const p = `faults.storage[${i}]`;
    if (f.node !== undefined) node(f.node, `${p}.node`);
    if (f.volume === undefined) {
      // no volume: the fault hits any volume the operation is called for; some volume must have it
      const types = new Set<VolumeType>([...n.volumes.values()].map((v) => v.type));
      if (n.inlineCsi) types.add("inline-csi");
      // (a migrating EBS volume is called with the CSI operations too)
      if ([...n.volumes.values()].some((v) => v.migrates === true)) types.add("csi");
      if (![...types].some((t) => OPS_OF[t].includes(f.op)))
        fail(
          `${p}.op`,
          `no volume of this scenario is ever called with ${f.op}, which is for ${opOwners(f.op)}, and ${types.size === 0 ? "the scenario has no volume the storage backend serves" : `the scenario has only ${[...types].map((t) => TYPE_PLURAL[t]).sort().join(" and ")}`}`,
        );
      // the op is one of a CSI PV's, but each CSI PV's driver skips it (and no other kind of volume has it)
      if (OPS_OF.csi.includes(f.op) && !(n.inlineCsi && OPS_OF["inline-csi"].includes(f.op))) {
        const csi = [...n.volumes].filter(([, v]) => v.type === "csi").map(([id]) => [id, csiVolumeSkips(id, f.op)] as const);
        if (csi.length > 0 && csi.every(([, w]) => w !== undefined))
          fail(`${p}.op`, `${f.op} is never called for any volume of this scenario: ${csi.map(([id, w]) => `${q(id)}: ${w}`).join("; ")}`);
      }
      continue;
    }
    const v = n.volumes.get(f.volume);
    if (v !== undefined) {
      if (!opsOf(v).includes(f.op)) {
        // a GCE PD's pdName with a CSI op: migrated, it is called by its handle
        const pdHandle = v.type === "disk" && OPS_OF.csi.includes(f.op) ? [...n.volumes.keys()].find((id) => id.startsWith("projects/") && id.endsWith(`/disks/${f.volume}`)) : undefined;
        const pdNote = pdHandle !== undefined ? ` (a GCE PD migrated to CSI is called with its CSI volume handle, ${q(pdHandle)}, not its pdName)` : "";
        fail(`${p}.op`, `${f.op} is never called for volume ${q(f.volume)}: it is ${TYPE_WORD[v.type]} (${v.from}), whose operations are ${opsOf(v).join(", ")}${pdNote}`);
      }
      const skip = v.type === "csi" ? csiVolumeSkips(f.volume, f.op) : undefined;
      if (skip !== undefined) fail(`${p}.op`, `${f.op} is never called for volume ${q(f.volume)} (${v.from}): ${skip}`);
      continue;
    }
    // an inline CSI volume's handle is made from its pod's UID, drawn at run
    // time (or given in the manifest): it cannot be known here, so a handle of
    // that form passes when the scenario has an inline CSI volume
    if (n.inlineCsi && INLINE_HANDLE.test(f.volume)) {
      if (!OPS_OF["inline-csi"].includes(f.op)) fail(`${p}.op`, `${f.op} is never called for an inline CSI volume, whose operations are ${OPS_OF["inline-csi"].join(", ")}`);
      continue;
    }
    const pvId = n.pvIds.get(f.volume);
    const claimPV = n.claimPVs.get(f.volume);
    const claimId = claimPV === undefined ? undefined : n.pvIds.get(claimPV);
    if (pvId !== undefined || claimId !== undefined)
      fail(
        `${p}.volume`,
        `${q(f.volume)} is a ${pvId !== undefined ? "PersistentVolume" : "PersistentVolumeClaim"}'s name; a storage fault names the volume as the storage backend is called with it (a disk id, a CSI volume handle or rbd:POOL/IMAGE): ${q(pvId ?? claimId)}`,
      );
    fail(`${p}.volume`, `no volume of this scenario is ${q(f.volume)} (a storage fault names a disk id, a CSI volume handle or rbd:POOL/IMAGE, from a PersistentVolume or a pod's volume)${hint(f.volume, n.volumes.keys())}`);
  }
  section("apiFaults", sc.apiFaults, () => {
    for (let i = 0; i < sc.apiFaults.length; i++) {
      const f = sc.apiFaults[i]!;
      // (a create fault may name what the timeline creates, a VolumeAttachment what the controllers make: see object())
      if (f.name !== undefined) object(f.kind, f.name, `faults.api[${i}].name`);
    }
  });
  section("watchFaults", sc.watchFaults, () => {
    for (let i = 0; i < sc.watchFaults.length; i++) watchComponent(sc.watchFaults[i]!.component, `faults.watch[${i}].component`, true);
  });

  // ---- checks ---------------------------------------------------------------------------
  const checks = (list: readonly Expectation[], key: string): void => {
    for (let i = 0; i < list.length; i++) checkRefs(list[i]!.check, `${key}[${i}].${list[i]!.check.kind}`);
  };
  const checkRefs = (c: Check, p: string): void => {
    switch (c.kind) {
      case "podPhase":
      case "podRunning":
      case "podNotRunning":
      case "podGone":
        pod(c.pod, `${p}.pod`);
        break;
      case "log":
      case "noLog": {
        // kubelet/NODE, rbd/NODE: the node's own kubelet and rbd CLI
        const slash = c.component?.indexOf("/") ?? -1;
        if (slash > 0) hostNode(c.component!.slice(slash + 1), `${p}.component`);
        break;
      }
      case "event":
      case "noEvent":
        if (c.object !== undefined) eventObject(c.object, `${p}.object`);
        break;
      // (contains / lacks: unique volume names, an inline volume's made from its pod's UID: not checked)
      case "nodeVolumesAttached":
        node(c.node, `${p}.node`);
        break;
      case "volumeAttachment":
        node(c.node, `${p}.node`);
        // (a VolumeAttachment's own name also matches: those made by the controllers are not known here)
        if (!n.csiHandles.has(c.volumeHandle) && !n.has("VolumeAttachment", c.volumeHandle))
          fail(`${p}.volumeHandle`, `no CSI PersistentVolume of this scenario has volumeHandle ${q(c.volumeHandle)}${hint(c.volumeHandle, n.csiHandles)}`);
        break;
      case "hostMount":
        hostNode(c.node, `${p}.node`);
        break;
      case "hostPath":
        hostNode(c.node, `${p}.node`);
        break;
      case "claim":
        object("PersistentVolumeClaim", c.claim, `${p}.claim`);
        break;
      case "rbdMapped":
        hostNode(c.node, `${p}.node`);
        if (!n.rbdImages.has(c.image)) fail(`${p}.image`, `no rbd volume of this scenario has image ${q(c.image)}, as POOL/IMAGE (the pool "rbd" unless the volume gives one)${hint(c.image, n.rbdImages)}`);
        break;
      case "step":
        break;
      case "calls":
        if (c.node !== undefined) hostNode(c.node, `${p}.node`);
        break;
    }
  };
  /** an event's object as the components name it: pod/NAME, node/NAME (checked), volumeattachment/NAME (made by the controllers) */
  const eventObject = (o: string, path: string): void => {
    const slash = o.indexOf("/");
    const kind = slash < 0 ? "" : o.slice(0, slash);
    const name = o.slice(slash + 1);
    if (kind === "pod") {
      const names = new Set([...n.keys("Pod")].map((k) => k.slice(k.indexOf("/") + 1)));
      if (!names.has(name)) fail(path, `pod ${q(name)} never exists in this scenario${hint(name, names, (k) => `pod/${k}`)}`);
    } else if (kind === "node") node(name, path);
    else if (kind !== "volumeattachment")
      fail(path, `expected pod/NAME, node/NAME or volumeattachment/NAME (an event's object as the components name it), got ${q(o)}`);
  };
  section("expect", sc.expect, () => checks(sc.expect, "expect"));
  section("symptom", sc.symptom, () => checks(sc.symptom, "symptom"));

  /** a component with informers: kube-controller-manager, csi-attacher, kubelet or kubelet/NODE (and "*", every one, for a watch fault) */
  function watchComponent(c: string, path: string, star: boolean): void {
    if (star && c === "*") return;
    if (WATCH_COMPONENTS.includes(c)) return;
    if (c.startsWith("kubelet/")) return hostNode(c.slice(8), path);
    const known = [...WATCH_COMPONENTS, ...[...n.hostNodes].map((h) => `kubelet/${h}`)];
    fail(path, `no component ${q(c)} watches the API server (known: ${WATCH_COMPONENTS.join(", ")}, kubelet/NODE${star ? ", * for every one" : ""})${hint(c, known).startsWith(";") ? hint(c, known) : ""}`);
  }
}

/** which volumes an operation is called for, e.g. "in-tree cloud disks" */
function opOwners(op: BackendOp): string {
  return (Object.keys(OPS_OF) as VolumeType[])
    .filter((t) => OPS_OF[t].includes(op))
    .map((t) => TYPE_PLURAL[t])
    .join(" and ");
}
