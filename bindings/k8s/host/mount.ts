// A node's mounts: the host mount namespace, one private namespace per
// container or process, mount propagation, and the reference counts that make
// `rbd unmap` or `lvremove` fail with EBUSY.
//
// 1. Model. A mount is (fs, path): `fs` names the filesystem instance (the
//    superblock), e.g. "/dev/rbd3" or "lv:csi-17ef...". The host namespace maps
//    path -> mount. A container namespace holds copies of the host mounts it
//    was given when it started: the pod's own volume bind mounts, and for a
//    hostPath volume of "/" (node_exporter, cAdvisor) every host mount below
//    "/". A filesystem is busy while any namespace still holds a mount of it.
//
// 2. Propagation (Container.volumeMounts[].mountPropagation):
//      None            rprivate  host unmounts never reach the container
//      HostToContainer rslave    host unmounts reach it (after a delay)
//      Bidirectional   rshared   as HostToContainer, and container mounts
//                                reach the host (CSI node plugins)
//
// 3. Worked example (seed 001). kubelet mounted /dev/rbd3 at
//    /var/lib/kubelet/plugins/kubernetes.io/rbd/mounts/k8s-image-pvc-1 (host).
//    node_exporter then starts with hostPath "/" -> /host, propagation None:
//    its namespace copies that mount (refs(/dev/rbd3) = host 1 + pod bind 1 +
//    node_exporter 2). The pod goes away; kubelet unmounts both host mounts
//    (refs = 2, both in node_exporter's namespace) and runs `rbd unmap
//    /dev/rbd3`: EBUSY, "rbd: unmap failed: (16) Device or resource busy".
//    With HostToContainer and a 1 s propagation delay the same unmap fails
//    once, and succeeds on a retry after the delay.

import type { Sim, WakeGroup } from "../engine/sim.js";
import type { MountPropagation } from "../api/types.js";
import type { PodVolumePaths } from "../volume/plugins.js";
import { boundedMemo } from "../../util/bounded-memo.js";

export interface Mount {
  fs: string;
  path: string;
}

export interface MountNamespace {
  id: string;
  /** pod UID/container, or a process name */
  owner: string;
  propagation: MountPropagation;
  /** host path the namespace's propagated view is rooted at ("/" for a hostPath of /) */
  source: string;
  /** `source` with a trailing "/" (covers() without building it for every path) */
  prefix: string;
  propagationDelayMs: number;
  mounts: Map<string, Mount>;
}

export interface DirInfo {
  /** what wrote it: plugin name */
  plugin: string;
  podUID?: string;
  specName?: string;
  /** CSI vol_data.json, rbd image, etc. */
  data: Record<string, string>;
}

/** A pod as the container runtime on a host knows it (kubelet/kubelet.ts). */
export interface RuntimePod {
  running: boolean;
  stopping: boolean;
  /** mount namespaces of its containers */
  nsIds: string[];
}

export class Host {
  readonly mounts = new Map<string, Mount>();
  /**
   * The container runtime's pods by UID: host state, so it survives kubelet
   * restarts (a SIGTERM already sent keeps its course).
   */
  readonly runtimePods = new Map<string, RuntimePod>();
  /** volume handles with a CSI NodeUnpublish in flight (volume/csi.ts) */
  readonly csiUnpublishing = new Set<string>();
  /** volume handles with a CSI NodeStage the driver is still working on (volume/csi.ts) */
  readonly csiNodeBusy = new Set<string>();
  readonly namespaces = new Map<string, MountNamespace>();
  /** directories that exist, with the metadata file a plugin keeps in them */
  readonly dirs = new Map<string, DirInfo>();
  /**
   * The plugins' pod volume directories on this node, by pod UID, plugin
   * directory name and volume (volume/plugins.ts podVolumePaths): one string
   * each for the run.
   */
  readonly podVolumePaths = new Map<string, Map<string, Map<string, PodVolumePaths>>>();
  /** /dev/rbdN -> "pool/image" (made by the first map: only rbd runs have one) */
  private rbdDevices: Map<string, string> | undefined = undefined;
  private nextRbd = 0;
  /**
   * Every loop of the node's kubelet (engine/sim.ts section 3). The model's
   * changes go to the narrower groups (fsWake, runtimeWake here, the kubelet's
   * own); a change that concerns all of them may bump this one.
   */
  readonly wake: WakeGroup;
  /**
   * The loops that read the mount table, namespaces, directories and rbd
   * devices themselves: the kubelet's housekeeping (orphaned pod dirs; its
   * volume reconciler reads the directories only in its reconstructing pass,
   * which the populator's first pass wakes). Changes made here bump this group
   * only; the volume plugins that change them are operations, whose
   * completion wakes their own owners.
   */
  readonly fsWake: WakeGroup;
  /**
   * The loops that read the container runtime's pods (`runtimePods`): the
   * kubelet's pod workers, populator and housekeeping. Host state: a
   * container that stops after a kubelet restart wakes the new kubelet's loops.
   */
  readonly runtimeWake: WakeGroup;

  constructor(
    readonly nodeName: string,
    readonly kubeletRoot: string,
    private readonly sim: Sim,
  ) {
    const names = hostGroupNames(nodeName);
    this.wake = sim.group(names[0]);
    this.fsWake = sim.group(names[1]);
    this.runtimeWake = sim.group(names[2]);
  }

  /** a host mount of filesystem `fs` exists */
  isMountedFs(fs: string): boolean {
    for (const m of this.mounts.values()) if (m.fs === fs) return true;
    return false;
  }

  /**
   * A filesystem of cloud disk `disk` is mounted: the in-tree plugin's device,
   * or its CSI driver's staging of it (fs "csi:<handle>", the handle the disk
   * id or a PD path ending in /disks/<disk>: volume/csimigration.ts)
   */
  isDiskMounted(disk: string): boolean {
    const dev = `/dev/disk/by-id/virtio-${disk}`;
    const csi = `csi:${disk}`;
    const pd = `/disks/${disk}`;
    for (const m of this.mounts.values()) if (m.fs === dev || m.fs === csi || (m.fs.startsWith("csi:projects/") && m.fs.endsWith(pd))) return true;
    return false;
  }

  isMountPoint(path: string): boolean {
    return this.mounts.has(path);
  }

  /** mount table lookup: the device (fs) mounted at path, or "" (GetDeviceNameFromMount) */
  deviceAt(path: string): string {
    return this.mounts.get(path)?.fs ?? "";
  }

  mount(fs: string, path: string): void {
    const cur = this.mounts.get(path);
    if (cur && cur.fs === fs) return;
    this.mounts.set(path, { fs, path });
    this.sim.bump(this.fsWake);
  }

  /** bind mount: a second mount of the same filesystem */
  bind(src: string, dst: string): string | null {
    const m = this.mounts.get(src);
    if (!m) return `mount: special device ${src} does not exist`;
    this.mount(m.fs, dst);
    return null;
  }

  /**
   * A process started by a timeline `holdMount` (a namespace "proc/...") has
   * its working directory or open files at or below `path` (its `path:`):
   * umount(8) of a mount at `path` fails with EBUSY, "target is busy"
   * (for in-tree plugins and CSI drivers alike). A process holding "/" (the
   * node_exporter of seed 001) holds no kubelet mount this way.
   */
  isBusy(path: string): boolean {
    if (this.namespaces.size === 0) return false;
    for (const ns of this.namespaces.values()) {
      if (!ns.id.startsWith("proc/")) continue;
      const src = ns.source;
      if (src === path || (src.length > path.length && src.startsWith(path) && src.charCodeAt(path.length) === 47)) return true;
    }
    return false;
  }

  /** umount(8) on the host; propagates to slave namespaces after their delay. */
  unmount(path: string): string | null {
    if (this.namespaces.size > 0 && this.mounts.has(path) && this.isBusy(path)) return busyText(path);
    if (!this.mounts.delete(path)) return `unmount failed: exit status 32\nUnmounting arguments: ${path}\nOutput: umount: ${path}: not mounted\n`;
    this.sim.bump(this.fsWake);
    for (const ns of this.namespaces.values()) {
      if (ns.propagation === "None" || !coversFrom(ns.source, ns.prefix, path)) continue;
      if (ns.propagationDelayMs > 0) this.sim.call(this.sim.now + ns.propagationDelayMs, dropPropagated, new Propagated(this, ns, path));
      else this.dropPropagated(ns, path);
    }
    return null;
  }

  /** a host unmount reaches a slave namespace */
  dropPropagated(ns: MountNamespace, path: string): void {
    if (ns.mounts.delete(path)) this.sim.bump(this.fsWake);
  }

  /** mounts of fs in all namespaces */
  refs(fs: string): number {
    let n = 0;
    for (const m of this.mounts.values()) if (m.fs === fs) n++;
    for (const ns of this.namespaces.values()) for (const m of ns.mounts.values()) if (m.fs === fs) n++;
    return n;
  }

  /** namespaces other than the host that hold fs */
  holders(fs: string): string[] {
    const out: string[] = [];
    for (const ns of this.namespaces.values()) {
      for (const m of ns.mounts.values())
        if (m.fs === fs) {
          out.push(ns.owner);
          break;
        }
    }
    return out;
  }

  /**
   * Start a container (or process) namespace. `volumePaths` are host paths
   * bind-mounted into it (its volumes); `rootSource` is a hostPath whose whole
   * subtree is copied (node_exporter's "/").
   */
  startNamespace(id: string, owner: string, volumePaths: readonly string[], rootSource: string | null, propagation: MountPropagation, propagationDelayMs: number): void {
    const source = rootSource ?? "/nonexistent";
    const prefix = source.endsWith("/") ? source : source + "/";
    const ns: MountNamespace = { id, owner, propagation, source, prefix, propagationDelayMs, mounts: new Map() };
    // (a Mount is never changed: the namespace holds the host's own, under
    // the host's path string. The volume paths are found by a scan of the
    // table, which keeps the host's order; a node has a few mounts, and the
    // plugins' paths are one string each for the run, which compare by
    // reference: volume/plugins.ts podVolumePaths)
    if (volumePaths.length > 0 || rootSource !== null)
      for (const m of this.mounts.values())
        if ((rootSource !== null && coversFrom(source, prefix, m.path)) || volumePaths.includes(m.path)) ns.mounts.set(m.path, m);
    this.namespaces.set(id, ns);
    this.sim.bump(this.fsWake);
  }

  stopNamespace(id: string): void {
    if (this.namespaces.delete(id)) this.sim.bump(this.fsWake);
  }

  mkdir(path: string, info: DirInfo): void {
    // (one lookup: a new path grows the map; a known one keeps its place)
    const n = this.dirs.size;
    this.dirs.set(path, info);
    if (this.dirs.size !== n) this.dirsVersion++;
  }
  rmdir(path: string): void {
    if (this.dirs.delete(path)) {
      this.dirsVersion++;
      this.sim.bump(this.fsWake);
    }
  }
  /**
   * Changes when a directory is made or removed (not when a plugin rewrites
   * one's metadata): readers that derive something from the paths alone (the
   * kubelet's housekeeping) rebuild it only then.
   */
  dirsVersion = 0;

  /**
   * CSI node plugins are registered with the kubelet from this time on (0:
   * always). After a reboot the node plugin (a DaemonSet pod) has to be
   * started by the new kubelet and register over its socket again; until then
   * every node-side CSI call fails with "driver name X not found in the list
   * of registered CSI drivers" (volume/csi.ts).
   */
  csiRegisteredAt = 0;
  /** disks whose in-tree MountDevice (format and mount) is running (volume/clouddisk.ts; #70319) */
  readonly mountingDevices = new Set<string>();

  /**
   * The host goes down (reboot or power-off): every container and process
   * is gone with its mount namespace, the mount table and the kernel's rbd
   * mappings are empty. What is on disk stays: pod directories and the
   * plugins' metadata files (vol_data.json), the global mount directories.
   * A cloud disk stays attached to the VM at the storage backend.
   */
  powerOff(): void {
    const sim = this.sim;
    for (const rt of this.runtimePods.values()) {
      rt.running = false;
      rt.stopping = false;
      rt.nsIds.length = 0;
    }
    this.namespaces.clear();
    this.mounts.clear();
    this.csiUnpublishing.clear();
    this.rbdDevices?.clear();
    this.nextRbd = 0;
    sim.bump(this.runtimeWake);
    sim.bump(this.fsWake);
  }

  /** rbd map: the next /dev/rbdN */
  rbdMap(image: string): string {
    const devs = (this.rbdDevices ??= new Map());
    for (const [dev, img] of devs) if (img === image) return dev;
    const dev = `/dev/rbd${this.nextRbd++}`;
    devs.set(dev, image);
    this.sim.bump(this.fsWake);
    return dev;
  }
  /** rbd unmap: EBUSY while any namespace holds the filesystem */
  rbdUnmap(dev: string): "EBUSY" | "ENOENT" | null {
    const devs = this.rbdDevices;
    if (devs === undefined || !devs.has(dev)) return "ENOENT";
    if (this.refs(dev) > 0) return "EBUSY";
    devs.delete(dev);
    this.sim.bump(this.fsWake);
    return null;
  }
  /** /sys/bus/rbd/devices scan: the device mapping pool/image */
  rbdDeviceFor(image: string): string {
    if (this.rbdDevices !== undefined) for (const [dev, img] of this.rbdDevices) if (img === image) return dev;
    return "";
  }

  /** mounts and dirs under the kubelet pods dir of a pod */
  podPaths(podUID: string): string[] {
    const prefix = `${this.kubeletRoot}/pods/${podUID}/`;
    const out: string[] = [];
    for (const p of this.dirs.keys()) if (p.startsWith(prefix)) out.push(p);
    for (const p of this.mounts.keys()) if (p.startsWith(prefix) && !this.dirs.has(p)) out.push(p);
    return out;
  }
}

/** a host's wake group names, built once per node name (every run of a scenario makes its hosts again) */
const hostGroupNames = boundedMemo(1024, (nodeName: string): readonly [string, string, string] => {
  const g = `node/${nodeName}`;
  return [g, `${g}/fs`, `${g}/runtime`];
});

export function covers(root: string, path: string): boolean {
  return root === "/" || path === root || path.startsWith(root.endsWith("/") ? root : root + "/");
}

/** covers(root, path), with root's trailing-slash form given */
function coversFrom(root: string, prefix: string, path: string): boolean {
  return root === "/" || path === root || path.startsWith(prefix);
}

/** a host unmount on its way to a slave namespace (Sim.call: no closure per namespace) */
class Propagated {
  constructor(
    readonly host: Host,
    readonly ns: MountNamespace,
    readonly path: string,
  ) {}
}
function dropPropagated(p: Propagated): void {
  p.host.dropPropagated(p.ns, p.path);
}

/** umount(8)'s EBUSY, as mount-utils reports it */
export function busyText(path: string): string {
  return `unmount failed: exit status 32\nUnmounting arguments: ${path}\nOutput: umount: ${path}: target is busy.\n`;
}
