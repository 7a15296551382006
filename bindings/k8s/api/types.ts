// Kubernetes-shaped objects, as far as the volume lifecycle reads them.
//
// Objects are immutable once stored: the API server writes a new object (a
// shallow copy with the changed parts replaced) on every change, so informer
// caches, the API store and a component's "old object" can share references
// without deep cloning. Code that changes an object must go through
// ApiServer.patch / update, which hand out a copy (see cloneObj; a patch's
// copy shares the spec and status, which writers replace whole and never
// change in place: cloneMeta). A stored object's metadata is a Meta, one hidden class
// for all (wireMeta gives the plain metadata the API shows).
//
// Times (creationTimestamp, deletionTimestamp) are simulated ms.

import { intern } from "../../util/intern.js";

export type Kind = "Node" | "Pod" | "PersistentVolume" | "PersistentVolumeClaim" | "VolumeAttachment" | "CSIDriver" | "StorageClass" | "CSINode";
export const KINDS: readonly Kind[] = ["Node", "Pod", "PersistentVolume", "PersistentVolumeClaim", "VolumeAttachment", "CSIDriver", "StorageClass", "CSINode"];
/**
 * A kind's index in KINDS, or -1 for a kind the model does not know: a switch
 * (a keyed lookup on a table sees every kind at one site, a slow megamorphic
 * access in V8) on the length first, so that one string comparison decides
 * (a stored object's kind is the literal itself, see `canonicalKind`, and
 * compares by reference).
 */
export function kindSlot(kind: string): number {
  switch (kind.length) {
    case 4:
      return kind === "Node" ? 0 : -1;
    case 3:
      return kind === "Pod" ? 1 : -1;
    case 16:
      return kind === "PersistentVolume" ? 2 : kind === "VolumeAttachment" ? 4 : -1;
    case 21:
      return kind === "PersistentVolumeClaim" ? 3 : -1;
    case 9:
      return kind === "CSIDriver" ? 5 : -1;
    case 12:
      return kind === "StorageClass" ? 6 : -1;
    case 7:
      return kind === "CSINode" ? 7 : -1;
    default:
      return -1;
  }
}
/**
 * `kind` as the string literal of KINDS: a manifest's kind is a string the
 * YAML parser cut out of its text, which every `kind === "Pod"` compares
 * character by character; the literal (an internalized string) compares by
 * reference. Same characters, so nothing a user sees changes.
 */
export function canonicalKind(kind: Kind): Kind {
  const s = kindSlot(kind);
  return s >= 0 ? KINDS[s]! : kind;
}
KINDS.forEach((k, i) => {
  if (kindSlot(k) !== i) throw new Error(`kindSlot(${k}) is not its index in KINDS`);
});
export const NAMESPACED: Record<Kind, boolean> = {
  Node: false,
  Pod: true,
  PersistentVolume: false,
  PersistentVolumeClaim: true,
  VolumeAttachment: false,
  CSIDriver: false,
  StorageClass: false,
  CSINode: false,
};

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp?: number;
  deletionTimestamp?: number;
  deletionGracePeriodSeconds?: number;
  finalizers?: string[];
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
}

export interface KObj {
  apiVersion: string;
  kind: Kind;
  metadata: ObjectMeta;
  spec?: any;
  status?: any;
}

// ---- volume sources ----------------------------------------------------

export interface CSIPersistentVolumeSource {
  driver: string;
  volumeHandle: string;
  readOnly?: boolean;
  volumeAttributes?: Record<string, string>;
}
export interface CSIVolumeSource {
  driver: string;
  readOnly?: boolean;
  volumeAttributes?: Record<string, string>;
}
export interface RBDVolumeSource {
  monitors: string[];
  pool?: string;
  image: string;
  fsType?: string;
  user?: string;
}
/** In-tree cloud disks (aws-ebs, gce-pd, and the Tencent fork's qcloud-cbs): attach = cloud API call. */
export interface CloudDiskSource {
  plugin: "aws-ebs" | "gce-pd" | "qcloud-cbs";
  diskId: string;
  fsType?: string;
}
export interface HostPathSource {
  path: string;
}

export interface PodVolume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  csi?: CSIVolumeSource;
  rbd?: RBDVolumeSource;
  hostPath?: HostPathSource;
  emptyDir?: Record<string, never>;
  /** the kubelet's own volumes of API data (volume/clouddisk.ts createLocalPlugin: a directory, written at SetUp) */
  secret?: { secretName: string };
  configMap?: { name: string };
  projected?: Record<string, unknown>;
  downwardAPI?: Record<string, unknown>;
  awsElasticBlockStore?: { volumeID: string; fsType?: string };
  gcePersistentDisk?: { pdName: string; fsType?: string };
  qcloudCbs?: { cbsDiskId: string; fsType?: string };
}

export type MountPropagation = "None" | "HostToContainer" | "Bidirectional";

export interface ContainerSpec {
  name: string;
  image?: string;
  volumeMounts?: Array<{ name: string; mountPath: string; mountPropagation?: MountPropagation; readOnly?: boolean }>;
}

export interface PodSpec {
  nodeName?: string;
  volumes?: PodVolume[];
  containers: ContainerSpec[];
  terminationGracePeriodSeconds?: number;
}

export type PodPhase = "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown";

export interface PodStatus {
  phase: PodPhase;
  /** api/podstatus.ts: Initialized, Ready, ContainersReady, PodScheduled with lastTransitionTime (ms) */
  conditions?: Array<{ type: string; status: "True" | "False"; lastTransitionTime?: number; reason?: string; message?: string }>;
  containerStatuses?: Array<{ name: string; state: Record<string, Record<string, unknown>> }>;
  /** "ContainerCreating", "Running", "Terminating" as kubectl shows it */
  reason?: string;
  /** when the kubelet first synced the pod (ms) */
  startTime?: number;
}

export interface AttachedVolume {
  name: string;
  devicePath: string;
}

export interface NodeStatus {
  conditions: Array<{ type: string; status: "True" | "False" | "Unknown"; reason?: string }>;
  volumesAttached?: AttachedVolume[];
  volumesInUse?: string[];
}

export interface Taint {
  key: string;
  value?: string;
  effect: "NoSchedule" | "NoExecute" | "PreferNoSchedule";
}

export interface PVSpec {
  accessModes?: string[];
  capacity?: Record<string, string>;
  csi?: CSIPersistentVolumeSource;
  rbd?: RBDVolumeSource;
  awsElasticBlockStore?: { volumeID: string; fsType?: string };
  gcePersistentDisk?: { pdName: string; fsType?: string };
  qcloudCbs?: { cbsDiskId: string; fsType?: string };
  claimRef?: { namespace: string; name: string };
}

export interface VolumeAttachmentSpec {
  attacher: string;
  nodeName: string;
  source: { persistentVolumeName?: string; inlineVolumeSpec?: unknown };
}
export interface VolumeAttachmentStatus {
  attached: boolean;
  attachmentMetadata?: Record<string, string>;
  attachError?: { time: number; message: string };
  detachError?: { time: number; message: string };
}

export function keyOf(o: { metadata: { name: string; namespace?: string } }): string {
  const ns = o.metadata.namespace;
  if (!ns) return o.metadata.name;
  // interned: the same few "ns/name" keys are looked up on every delivery and
  // pass, and a fresh string would be built and hashed each time
  return nsKey(ns, o.metadata.name);
}

/**
 * keyOf of an object the store does not hold (a manifest, a request's body):
 * the same key, read by a function of its own so that keyOf's reads see only
 * stored objects' metadata (one class, api/types.ts Meta) and stay
 * monomorphic where keyOf is inlined; manifests' metadata come in many shapes.
 */
export function plainKeyOf(o: { metadata: { name: string; namespace?: string } }): string {
  const ns = o.metadata.namespace;
  if (!ns) return o.metadata.name;
  return nsKey(ns, o.metadata.name);
}

/** `${ns}/${name}`, interned like keyOf's (a claim's key, built on every lookup of a pod volume) */
export function nsKey(ns: string, name: string): string {
  let byNs = NAMESPACED_KEYS.get(name);
  if (byNs === undefined) {
    if (NAMESPACED_KEYS.size >= 4096) NAMESPACED_KEYS.clear();
    NAMESPACED_KEYS.set(name, (byNs = new Map()));
  }
  let k = byNs.get(ns);
  if (k === undefined) byNs.set(ns, (k = intern(`${ns}/${name}`)));
  return k;
}
const NAMESPACED_KEYS = new Map<string, Map<string, string>>();

/**
 * A stored object's metadata. Every object the API server stores (and so
 * every informer cache) has its metadata in this one class, with every field
 * present in one order (absent ones undefined), so the components' reads of
 * metadata.name, uid, deletionTimestamp, ... see one hidden class instead of
 * one per manifest key order and per field a writer added (V8 turns a read
 * site that sees more than four shapes into a slow megamorphic lookup).
 *
 * The metadata the object was created from (a manifest's, as the loader made
 * it) is kept under a symbol key: `wireMeta` rebuilds from it the plain object
 * the API would have held, with the manifest's keys in their order (and any
 * field not modelled here) followed by the ones the server and writers add.
 */
// (a symbol key: Object.keys and JSON.stringify skip it, Object.assign and spread copy it)
const WIRE: unique symbol = Symbol("wire");
export class Meta implements ObjectMeta {
  declare name: string;
  declare namespace: string | undefined;
  declare uid: string;
  declare resourceVersion: string;
  declare creationTimestamp: number | undefined;
  declare deletionTimestamp: number | undefined;
  declare deletionGracePeriodSeconds: number | undefined;
  declare finalizers: string[] | undefined;
  declare annotations: Record<string, string> | undefined;
  declare labels: Record<string, string> | undefined;
  declare [WIRE]: Readonly<Record<string, unknown>>;
  constructor(
    name: string,
    namespace: string | undefined,
    uid: string,
    resourceVersion: string,
    creationTimestamp: number | undefined,
    deletionTimestamp: number | undefined,
    deletionGracePeriodSeconds: number | undefined,
    finalizers: string[] | undefined,
    annotations: Record<string, string> | undefined,
    labels: Record<string, string> | undefined,
    wire: Readonly<Record<string, unknown>>,
  ) {
    this.name = name;
    this.namespace = namespace;
    this.uid = uid;
    this.resourceVersion = resourceVersion;
    this.creationTimestamp = creationTimestamp;
    this.deletionTimestamp = deletionTimestamp;
    this.deletionGracePeriodSeconds = deletionGracePeriodSeconds;
    this.finalizers = finalizers;
    this.annotations = annotations;
    this.labels = labels;
    this[WIRE] = wire;
  }
}

/** a copy of `m` as a Meta (`m` a Meta, a plain copy of one, or the plain metadata of a new object) */
export function copyMeta(m: ObjectMeta): Meta {
  if (m instanceof Meta)
    return new Meta(m.name, m.namespace, m.uid, m.resourceVersion, m.creationTimestamp, m.deletionTimestamp, m.deletionGracePeriodSeconds, m.finalizers, m.annotations, m.labels, m[WIRE]);
  const wire = (m as Partial<Meta>)[WIRE] ?? (m as unknown as Record<string, unknown>);
  return new Meta(m.name, m.namespace, m.uid, m.resourceVersion, m.creationTimestamp, m.deletionTimestamp, m.deletionGracePeriodSeconds, m.finalizers, m.annotations, m.labels, wire);
}

/**
 * A manifest's plain metadata as a Meta, with the plain metadata as its wire
 * form (the scenario loader's): copyMeta's second branch in a function of its
 * own, so that copyMeta's reads of plain metadata see only the few shapes the
 * components create at run time, not one per manifest key order (a read site
 * that has seen more than four shapes stays megamorphic for good).
 */
export function manifestMeta(m: ObjectMeta): Meta {
  return new Meta(m.name, m.namespace, m.uid, m.resourceVersion, m.creationTimestamp, m.deletionTimestamp, m.deletionGracePeriodSeconds, m.finalizers, m.annotations, m.labels, m as unknown as Record<string, unknown>);
}

/** the fields Meta models */
const META_FIELDS: ReadonlySet<string> = new Set(["name", "namespace", "uid", "resourceVersion", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "finalizers", "annotations", "labels"]);
/**
 * The fields the server and writers add to metadata that lacks them, in the
 * order they are first written: create sets uid, creationTimestamp and
 * resourceVersion; the CSI attacher adds its finalizer before any delete
 * (it adds none to an object being deleted); delete sets deletionTimestamp
 * and, on a pod, deletionGracePeriodSeconds. Nothing writes namespace,
 * annotations or labels; they go last.
 */
const LATE_FIELDS = ["uid", "creationTimestamp", "resourceVersion", "finalizers", "deletionTimestamp", "deletionGracePeriodSeconds", "namespace", "annotations", "labels"] as const;

/**
 * The plain metadata of `m` as the API shows it: the created-from metadata's
 * keys in their order (the modelled fields with their current values), then
 * the fields written since that it lacked (LATE_FIELDS), without the absent
 * ones. Plain metadata is given back as it is.
 */
export function wireMeta(m: ObjectMeta): ObjectMeta {
  if (!(m instanceof Meta)) return m;
  const wire = m[WIRE];
  const cur = m as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(wire)) out[k] = META_FIELDS.has(k) ? cur[k] : wire[k];
  for (const k of LATE_FIELDS) if (cur[k] !== undefined && !Object.prototype.hasOwnProperty.call(wire, k)) out[k] = cur[k];
  return out as unknown as ObjectMeta;
}

/** `o` with its metadata as plain metadata (wireMeta; `o` itself when it has no Meta) */
export function wireObj<T extends KObj>(o: T): T {
  if (!(o.metadata instanceof Meta)) return o;
  return Object.assign({}, o, { metadata: wireMeta(o.metadata) });
}

/**
 * The object a create or update stores: its own metadata (a Meta), the kind
 * its literal (canonicalKind), an object with a manifest's five keys an Obj;
 * spec and status are the request body's own, not copied, since nothing
 * changes them in place (writers replace them whole, see cloneMeta): the
 * callers' bodies are the loader's manifests, which every run of a scenario
 * creates again, and bodies built for the request. (A copy one level deep
 * shared everything below it anyway.)
 *
 * Other copies are made with Object.assign, never with object spread ({...o}):
 * writers add fields to them (volumesAttached), and in Node 20's V8 an
 * object made by spread that then gets a field it lacked (or a spread
 * literal with extra fields, {...o, k: v}) survives the next
 * young-generation GC along with everything it reaches, even when nothing
 * references it any more; it is freed only by a full GC. A replay's objects
 * reach the whole cluster, so this kept ~40 KB of every replay alive through
 * scavenges (bench/k8s-replay.ts: half the time in the garbage collector).
 * Object.assign({}, o) gives the same keys in the same order.
 */
export function cloneObj<T extends KObj>(o: T): T {
  if (o instanceof Obj || isObjShape(o)) return new Obj(o.apiVersion, canonicalKind(o.kind), copyMeta(o.metadata), o.spec, o.status) as KObj as T;
  const c: KObj = Object.assign({}, o);
  c.kind = canonicalKind(o.kind);
  c.metadata = copyMeta(o.metadata);
  return c as T;
}

/**
 * The copy a writer gets (ApiServer.patch, delete): a new Meta, with the
 * spec and status shared with the stored object, since no writer changes
 * either in place: a writer replaces `status` or `spec` whole (a status
 * patch assigns a new status object, a taint patch a new spec), and changes
 * metadata fields on the copy's own Meta.
 */
export function cloneMeta<T extends KObj>(o: T): T {
  if (o instanceof Obj) return new Obj(o.apiVersion, o.kind, copyMeta(o.metadata), o.spec, o.status) as KObj as T;
  const c: KObj = Object.assign({}, o);
  c.metadata = copyMeta(o.metadata);
  return c as T;
}

/**
 * A stored object with the keys every manifest has (the loader's, in its
 * order): made by a constructor, not copied key by key with Object.assign
 * (a generic copy, several times slower). An object with other keys, or
 * these in another order, is copied as it is.
 */
class Obj implements KObj {
  declare apiVersion: string;
  declare kind: Kind;
  declare metadata: ObjectMeta;
  declare spec: any;
  declare status: any;
  constructor(apiVersion: string, kind: Kind, metadata: ObjectMeta, spec: any, status: any) {
    this.apiVersion = apiVersion;
    this.kind = kind;
    this.metadata = metadata;
    this.spec = spec;
    this.status = status;
  }
}
/**
 * A manifest with the five keys, as an Obj (the scenario loader's): the API
 * server's copy of it on create then skips isObjShape, whose own-symbol
 * check is a runtime call (~0.2-0.3 us, most of a create of a manifest).
 */
export function manifestObj(apiVersion: string, kind: Kind, metadata: ObjectMeta, spec: any, status: any): KObj {
  return new Obj(apiVersion, kind, metadata, spec, status);
}
const OBJ_KEYS: readonly string[] = ["apiVersion", "kind", "metadata", "spec", "status"];
/** whether `o`'s own keys are exactly Obj's, in Obj's order */
function isObjShape(o: KObj): boolean {
  let i = 0;
  for (const k in o) if (i >= OBJ_KEYS.length || k !== OBJ_KEYS[i++]) return false;
  return i === OBJ_KEYS.length && Object.getOwnPropertySymbols(o).length === 0;
}

export function nodeReady(node: KObj | undefined): boolean {
  if (!node) return false;
  const c = (node.status as NodeStatus | undefined)?.conditions?.find((x) => x.type === "Ready");
  return c?.status === "True";
}

export const OUT_OF_SERVICE_TAINT = "node.kubernetes.io/out-of-service";

/**
 * The ADC's check: the taint's key alone, whatever its effect or value
 * (reconciler.go hasOutOfServiceTaint -> taints.TaintKeyExists, v1.26.0-v1.31.0;
 * the KEP's documented taint is NoExecute, but nothing checks the effect).
 */
export function hasOutOfServiceTaint(node: KObj | undefined): boolean {
  const taints = (node?.spec?.taints ?? []) as Taint[];
  return taints.some((t) => t.key === OUT_OF_SERVICE_TAINT);
}
