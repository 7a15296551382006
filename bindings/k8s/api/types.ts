// Kubernetes-shaped objects, as far as the volume lifecycle reads them.
//
// Objects are immutable once stored: the API server writes a new object (a
// shallow copy with the changed parts replaced) on every change, so informer
// caches, the API store and a component's "old object" can share references
// without deep cloning. Code that changes an object must go through
// ApiServer.patch / update, which hand out a copy (see cloneObj; a patch's
// copy shares the spec, which writers replace whole and never change in
// place: cloneMeta).
//
// Times (creationTimestamp, deletionTimestamp) are simulated ms.

export type Kind = "Node" | "Pod" | "PersistentVolume" | "PersistentVolumeClaim" | "VolumeAttachment" | "CSIDriver";
export const KINDS: readonly Kind[] = ["Node", "Pod", "PersistentVolume", "PersistentVolumeClaim", "VolumeAttachment", "CSIDriver"];
export const NAMESPACED: Record<Kind, boolean> = {
  Node: false,
  Pod: true,
  PersistentVolume: false,
  PersistentVolumeClaim: true,
  VolumeAttachment: false,
  CSIDriver: false,
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

/** `${ns}/${name}`, interned like keyOf's (a claim's key, built on every lookup of a pod volume) */
export function nsKey(ns: string, name: string): string {
  let byNs = NAMESPACED_KEYS.get(name);
  if (byNs === undefined) {
    if (NAMESPACED_KEYS.size >= 4096) NAMESPACED_KEYS.clear();
    NAMESPACED_KEYS.set(name, (byNs = new Map()));
  }
  let k = byNs.get(ns);
  if (k === undefined) byNs.set(ns, (k = `${ns}/${name}`));
  return k;
}
const NAMESPACED_KEYS = new Map<string, Map<string, string>>();

/**
 * One level of copying: enough for the copy-on-write discipline above.
 *
 * Copies are made with Object.assign, never with object spread ({...o}):
 * writers add fields to them (creationTimestamp, deletionTimestamp,
 * volumesAttached), and in Node 20's V8 an object made by spread that then
 * gets a field it lacked (or a spread literal with extra fields,
 * {...o, k: v}) survives the next young-generation GC along with everything
 * it reaches, even when nothing references it any more; it is freed only by
 * a full GC. A replay's objects reach the whole cluster, so this kept ~40 KB
 * of every replay alive through scavenges (bench/k8s-replay.ts: half the
 * time in the garbage collector). Object.assign({}, o) gives the same keys in
 * the same order.
 */
export function cloneObj<T extends KObj>(o: T): T {
  const c: KObj = Object.assign({}, o);
  c.metadata = Object.assign({}, o.metadata);
  if (o.spec !== undefined) c.spec = Object.assign({}, o.spec);
  if (o.status !== undefined) c.status = Object.assign({}, o.status);
  return c as T;
}

/**
 * The copy a writer of metadata and status gets (ApiServer.patch, delete):
 * like cloneObj, but the spec is shared with the stored object, since no
 * writer changes a spec in place (a taint patch replaces `spec` whole), and
 * with `status` shared too when `status` is false (delete writes metadata
 * only).
 */
export function cloneMeta<T extends KObj>(o: T, status: boolean): T {
  const c: KObj = Object.assign({}, o);
  c.metadata = Object.assign({}, o.metadata);
  if (status && o.status !== undefined) c.status = Object.assign({}, o.status);
  return c as T;
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
