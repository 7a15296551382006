// pkg/volume: volume specs, the plugin interface and the plugin manager.
//
// A volume.Spec is either a PersistentVolume (reached through a PVC) or an
// inline pod volume. The unique volume name the ADC and the kubelet key their
// caches by is `<plugin>/<GetVolumeName(spec)>` for attachable or
// device-mountable volumes (kubernetes.io/csi/<driver>^<handle>,
// kubernetes.io/rbd/<pool>:<image>) and the pod-scoped
// `<plugin>/<podUID>-<specName>` for the rest (GetUniqueVolumeNameFromSpecWithPod).
//
// The plugin manager answers two different questions, and seed 000/003 is the
// gap between them: FindAttachablePluginByName("kubernetes.io/csi") always
// returns the CSI plugin (the plugin *can* attach), while
// FindAttachablePluginBySpec(inline CSI spec) returns nothing (an inline CSI
// volume is never attached). Reconstruction before #108997 asked by name.

import type { Ctx } from "../engine/context.js";
import type { Host } from "../host/mount.js";
import { nsKey, type KObj, type PodVolume } from "../api/types.js";
import type { ErrorText } from "../util/exponentialbackoff.js";
import { intern } from "../../util/intern.js";

export interface VolumeSpec {
  /** PV name or inline volume name (spec.Name()) */
  name: string;
  pv?: KObj;
  inline?: PodVolume;
  readOnly: boolean;
  /** translated from an in-tree source to its CSI driver's (volume/csimigration.ts; spec.Migrated) */
  migrated?: boolean;
  /** translated from a pod's inline in-tree volume: `pv` is the translation's, not an API object (spec.InlineVolumeSpecForCSIMigration) */
  inlineMigration?: boolean;
}

export interface PluginEnv {
  ctx: Ctx;
  /** log component, e.g. "kube-controller-manager" or "kubelet/node-1" */
  component: string;
  nodeName?: string;
  host?: Host;
  /** the component's VolumeAttachment waiters (ADC) */
  vaWaiters?: VAWaiters;
}

/**
 * An operation's callback: the error (null on success), a result (a device
 * path), and whether the error leaves the operation's work possibly in
 * progress or done (a CSI error the plugin returns as an
 * UncertainProgressError, #82492: volume/operation.ts section 2).
 */
export type Cb = (err: string | null, result?: string, uncertain?: boolean) => void;

/**
 * The callback of the operations whose error only the owner's failure log
 * line and causal notes read (Detach, WaitForAttach, UnmountDevice,
 * TearDown): the error may be given as a function that builds it
 * (exponentialbackoff ErrorText), so a run with logs off never formats it.
 * Attach, MountDevice and SetUp errors go into events (FailedAttachVolume,
 * FailedMount) and stay strings.
 */
export type LazyCb = (err: ErrorText | null, result?: string, uncertain?: boolean) => void;

/**
 * An error a volume plugin or the kubelet's reconstruction answers with
 * (GetVolumeName of a spec it cannot name, ConstructVolumeSpec without its
 * data file). Callers expect and catch these and read only the message, so
 * it is a plain value, not an Error: constructing an Error is a runtime call
 * of ~0.5 us even with no stack trace captured (Error.stackTraceLimit 0, as
 * the API server's errors do), and csi-inline-orphan's reconstruction throws
 * and rethrows one once per run.
 */
export class PluginError {
  readonly name = "PluginError";
  constructor(readonly message: string) {}
  toString(): string {
    return `${this.name}: ${this.message}`;
  }
}

/** An operation waiting for a VolumeAttachment change: check answers true once it has stopped waiting. */
export interface VAWaiter {
  check(va: KObj | undefined): boolean;
}

/** Waiters on VolumeAttachment changes seen through an informer. */
export class VAWaiters {
  private w = new Map<string, VAWaiter[]>();
  add(name: string, waiter: VAWaiter): void {
    let a = this.w.get(name);
    if (!a) this.w.set(name, (a = []));
    a.push(waiter);
  }
  remove(name: string, waiter: VAWaiter): void {
    const b = this.w.get(name);
    if (b) this.w.set(name, b.filter((f) => f !== waiter));
  }
  notify(name: string, va: KObj | undefined): void {
    const a = this.w.get(name);
    if (!a || a.length === 0) return;
    this.w.set(name, a.filter((waiter) => !waiter.check(va)));
  }
}

export interface VolumePlugin {
  readonly name: string;
  canSupport(spec: VolumeSpec): boolean;
  /** an attacher exists for this plugin at all (FindAttachablePluginByName) */
  readonly attachableByName: boolean;
  /** this spec needs attach (FindAttachablePluginBySpec) */
  isAttachable(spec: VolumeSpec, ctx: Ctx): boolean;
  isDeviceMountable(spec: VolumeSpec, ctx: Ctx): boolean;
  /** GetVolumeName; throws Error with the upstream message */
  getVolumeName(spec: VolumeSpec): string;
  /** "kubernetes.io~csi" */
  readonly dirName: string;

  // attach/detach controller side
  attach?(env: PluginEnv, spec: VolumeSpec, node: string, done: Cb): void;
  /** volumeName is the unique name without the plugin prefix */
  detach?(env: PluginEnv, volumeName: string, node: string, done: LazyCb): void;
  volumeIsAttached?(env: PluginEnv, spec: VolumeSpec, node: string): boolean;

  // kubelet side
  waitForAttach?(env: PluginEnv, spec: VolumeSpec, devicePath: string, done: LazyCb): void;
  getDeviceMountPath?(env: PluginEnv, spec: VolumeSpec): string;
  mountDevice?(env: PluginEnv, spec: VolumeSpec, devicePath: string, deviceMountPath: string, done: Cb): void;
  unmountDevice?(env: PluginEnv, deviceMountPath: string, done: LazyCb): void;
  /**
   * operation_generator.go isDeviceOpened after a successful UnmountDevice:
   * the attached device is still open elsewhere on the node (a mount of it
   * another mount namespace kept). Plugins whose device goes with the
   * unmount (rbd unmaps, CSI's is the driver's) leave it out.
   */
  deviceOpened?(env: PluginEnv, devicePath: string): boolean;
  // kubelet side, volumeMode: Block (BlockVolumePlugin / BlockVolumeMapper);
  // a plugin without mapPodDevice has no block support
  /** GetGlobalMapPath: plugins/<plugin>/volumeDevices/<volume> */
  getGlobalMapPath?(env: PluginEnv, spec: VolumeSpec): string;
  /** SetUpDevice (CSI NodeStageVolume for a block volume): optional */
  setUpDevice?(env: PluginEnv, spec: VolumeSpec, devicePath: string, globalMapPath: string, done: Cb): void;
  /** MapPodDevice (CSI NodePublishVolume for a block volume): answers the device path the pod gets */
  mapPodDevice?(env: PluginEnv, spec: VolumeSpec, podUID: string, devicePath: string, done: Cb): void;
  /** UnmapPodDevice (CSI NodeUnpublishVolume) */
  unmapPodDevice?(env: PluginEnv, specName: string, podUID: string, done: LazyCb): void;
  /** TearDownDevice (CSI NodeUnstageVolume) */
  tearDownDevice?(env: PluginEnv, globalMapPath: string, devicePath: string, done: LazyCb): void;
  setUp(env: PluginEnv, spec: VolumeSpec, podUID: string, deviceMountPath: string, done: Cb): void;
  tearDown(env: PluginEnv, specName: string, podUID: string, done: LazyCb): void;
  /** reconstruction: rebuild a spec from what is on disk */
  constructVolumeSpec(env: PluginEnv, specName: string, podUID: string): VolumeSpec;
  /** host path of the pod's volume dir */
  podVolumeDir(env: PluginEnv, podUID: string, specName: string): string;
}

export class PluginMgr {
  constructor(readonly plugins: readonly VolumePlugin[]) {}
  /**
   * The plugins' answers by the volume source they read (a PV's spec or a
   * pod's volume): a stored object's spec is never changed (api/types.ts), so
   * the answer for one is fixed. The populators ask for every volume of every
   * new pod, and each plugin's canSupport reads a source of another shape
   * (pod volumes and PV specs, one hidden class per source key and key
   * order: polymorphic reads in every canSupport).
   */
  private readonly bySource = new WeakMap<object, VolumePlugin | null>();
  findBySpec(spec: VolumeSpec): VolumePlugin | undefined {
    const src: unknown = spec.pv !== undefined ? spec.pv.spec : spec.inline;
    if (typeof src !== "object" || src === null) return this.scan(spec);
    let p = this.bySource.get(src);
    if (p === undefined) this.bySource.set(src, (p = this.scan(spec) ?? null));
    return p ?? undefined;
  }
  private scan(spec: VolumeSpec): VolumePlugin | undefined {
    for (const p of this.plugins) if (p.canSupport(spec)) return p;
    return undefined;
  }
  findByName(name: string): VolumePlugin | undefined {
    for (const p of this.plugins) if (p.name === name) return p;
    return undefined;
  }
  findByDirName(dir: string): VolumePlugin | undefined {
    for (const p of this.plugins) if (p.dirName === dir) return p;
    return undefined;
  }
}

/** GetUniqueVolumeNameFromSpec */
export function uniqueNameFromSpec(plugin: VolumePlugin, spec: VolumeSpec): string {
  return joinInterned(plugin.name, "/", plugin.getVolumeName(spec));
}

/**
 * a + sep + b, the same string object for the same parts: unique volume names
 * are rebuilt on every loop pass and used as map keys, and a fresh string
 * would be built and hashed each time. Internalised (util/intern.ts), so it
 * also compares by reference with the same text from elsewhere (a scenario's
 * names, a literal) and is flat (a concatenation compared with an equal
 * string that is not the same object goes through V8's runtime). For parts
 * that come from the scenario and the code; a name with a pod's UID in it
 * takes joinOnce.
 */
export function joinInterned(a: string, sep: string, b: string): string {
  return join(a, sep, b, true);
}

/**
 * a + sep + b memoised as joinInterned's, not internalised: for names with a
 * pod UID in them, new text in every run of a sweep (each run has its own
 * seed), where internalising would cost more than it saves (~1 us a new
 * text). Every maker of such a name goes through here, so the same text is
 * still the same object and compares by reference.
 */
export function joinOnce(a: string, sep: string, b: string): string {
  return join(a, sep, b, false);
}

function join(a: string, sep: string, b: string, interned: boolean): string {
  let byA = INTERNED.get(sep);
  if (byA === undefined) INTERNED.set(sep, (byA = new Map()));
  let byB = byA.get(a);
  if (byB === undefined) {
    if (byA.size >= 1024) byA.clear();
    byA.set(a, (byB = new Map()));
  }
  let s = byB.get(b);
  if (s === undefined) {
    if (byB.size >= 4096) byB.clear();
    byB.set(b, (s = interned ? intern(a + sep + b) : a + sep + b));
  }
  return s;
}
const INTERNED = new Map<string, Map<string, Map<string, string>>>();

/** A pod volume's directory and its `mount` subdirectory (a CSI volume's target) */
export interface PodVolumePaths {
  readonly dir: string;
  readonly mount: string;
}

/**
 * `<root>/pods/<podUID>/volumes/<dirName>/<specName>` and its `/mount`, one
 * string each per volume for the run: keys of the host's directory and mount
 * tables, looked up at every set-up, tear-down, retry and container start,
 * which would otherwise join ~100 characters and hash them again at each
 * call (and compare them with the stored key character by character). Kept
 * by the host, so they go with the run: a pod's UID is new text in each run
 * of a sweep, and a memo kept across runs would grow with every run (and,
 * old by then, keep each run's entries through the young-generation GC).
 */
export function podVolumePaths(host: Host, podUID: string, dirName: string, specName: string): PodVolumePaths {
  let byDir = host.podVolumePaths.get(podUID);
  if (byDir === undefined) host.podVolumePaths.set(podUID, (byDir = new Map()));
  let bySpec = byDir.get(dirName);
  if (bySpec === undefined) byDir.set(dirName, (bySpec = new Map()));
  let p = bySpec.get(specName);
  if (p === undefined) {
    const dir = `${host.kubeletRoot}/pods/${podUID}/volumes/${dirName}/${specName}`;
    bySpec.set(specName, (p = { dir, mount: `${dir}/mount` }));
  }
  return p;
}
/** GetUniqueVolumeNameFromSpecWithPod */
export function uniqueNameWithPod(plugin: VolumePlugin, podUID: string, spec: VolumeSpec): string {
  return `${plugin.name}/${podUID}-${spec.name}`;
}

/** The unique name a pod volume is tracked under (desired state populators). */
export function uniqueVolumeName(plugin: VolumePlugin, spec: VolumeSpec, podUID: string, ctx: Ctx): string {
  if (plugin.isAttachable(spec, ctx) || plugin.isDeviceMountable(spec, ctx)) return uniqueNameFromSpec(plugin, spec);
  return uniqueNameWithPod(plugin, podUID, spec);
}

/** Resolve a pod volume to a spec: PVC -> bound PV, or inline. Returns an error text when not resolvable. */
export function specForPodVolume(
  v: PodVolume,
  namespace: string,
  lookup: (kind: "PersistentVolumeClaim" | "PersistentVolume", key: string) => KObj | undefined,
): VolumeSpec | string {
  if (v.persistentVolumeClaim) {
    const pvc = lookup("PersistentVolumeClaim", nsKey(namespace, v.persistentVolumeClaim.claimName));
    if (!pvc) return `persistentvolumeclaim "${v.persistentVolumeClaim.claimName}" not found`;
    const pvName = pvc.spec?.volumeName as string | undefined;
    if (!pvName) return `PVC ${namespace}/${v.persistentVolumeClaim.claimName} has non-bound phase ("Pending") or empty pvc.Spec.VolumeName ("")`;
    const pv = lookup("PersistentVolume", pvName);
    if (!pv) return `persistentvolume "${pvName}" not found`;
    return { name: pvName, pv, readOnly: v.persistentVolumeClaim.readOnly ?? false };
  }
  return { name: v.name, inline: v, readOnly: false };
}

/**
 * volumeMode: Block (util.GetVolumeMode / IsBlockVolume... of the spec): only
 * a PersistentVolume can be a block volume; the claim's volumeMode must match
 * for the PV controller to bind it, so the PV's field decides.
 */
export function isBlockVolume(spec: VolumeSpec | undefined): boolean {
  return spec?.pv?.spec?.volumeMode === "Block";
}

/** PV access modes allow attachment to several nodes (util.IsMultiAttachAllowed). */
export function isMultiAttachAllowed(spec: VolumeSpec | undefined): boolean {
  if (!spec) return true;
  if (!spec.pv) return true;
  const modes = spec.pv.spec?.accessModes as string[] | undefined;
  if (modes === undefined || modes.length === 0) return true;
  // asked for every volume at every controller pass; a stored PV's modes
  // array is never written, and its strings, unless the scenario was loaded
  // from text (util/intern.ts), are not internalised, so comparing them
  // costs ~4x a literal's compare
  let multi = multiAttachByModes.get(modes);
  if (multi === undefined) multiAttachByModes.set(modes, (multi = modes.includes("ReadWriteMany") || modes.includes("ReadOnlyMany")));
  return multi;
}
const multiAttachByModes = new WeakMap<readonly string[], boolean>();

export const ESCAPE_DIR = (pluginName: string): string => pluginName.replace("/", "~");
