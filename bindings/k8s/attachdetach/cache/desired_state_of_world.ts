// pkg/controller/volume/attachdetach/cache: the ADC's desired state of the
// world: for every managed node, the volumes some scheduled, non-terminated pod
// on it uses, and which pods those are.
//
// AddPod fails for an unmanaged node; DeleteNode fails while the node still
// has volumes to attach ("the node still contains N volumes in its list of
// volumes to attach", #50004). The multi-attach error event is sent once per
// entry (multiAttachErrorReported).
//
// GetVolumesToAttach and GetPodToAdd are read by every reconciler and
// populator pass: their lists are built once per change of the nodes,
// volumes or pods (`version`) and handed out again until the next one. A
// list is never changed once handed out (a change builds a new one), so a
// caller that changes the DSW while going through one sees the snapshot
// upstream's copy would give it.

import type { Sim, WakeGroup } from "../../engine/sim.js";
import type { VolumeSpec } from "../../volume/plugins.js";

/** GetPodToAdd's entries */
export interface PodToAdd {
  readonly podUID: string;
  readonly podKey: string;
  readonly volumeName: string;
  readonly nodeName: string;
}

export interface VolumeToAttach {
  volumeName: string;
  nodeName: string;
  spec: VolumeSpec;
  multiAttachErrorReported: boolean;
  /** pod UID -> "namespace/name" */
  scheduledPods: Map<string, string>;
}

interface NodeManaged {
  nodeName: string;
  volumesToAttach: Map<string, VolumeToAttach>;
}

export class DesiredStateOfWorld {
  private readonly nodesManaged = new Map<string, NodeManaged>();
  /** moves at every change of nodesManaged's nodes, volumes or scheduled pods */
  private version = 0;
  private volumesToAttach: readonly VolumeToAttach[] = [];
  private volumesToAttachVersion = -1;
  private podsToAdd: readonly PodToAdd[] = [];
  private podsToAddVersion = -1;
  constructor(
    private readonly sim: Sim,
    /** the controller's wake group (engine/sim.ts section 3) */
    private readonly group?: WakeGroup,
  ) {}

  addNode(nodeName: string): void {
    if (this.nodesManaged.has(nodeName)) return;
    this.nodesManaged.set(nodeName, { nodeName, volumesToAttach: new Map() });
    this.version++;
    this.sim.bump(this.group);
  }

  deleteNode(nodeName: string): string | null {
    const n = this.nodesManaged.get(nodeName);
    if (!n) return null;
    if (n.volumesToAttach.size > 0)
      return `failed to delete node ${JSON.stringify(nodeName)} from list of nodes managed by attach/detach controller--the node still contains ${n.volumesToAttach.size} volumes in its list of volumes to attach`;
    this.nodesManaged.delete(nodeName);
    this.version++;
    this.sim.bump(this.group);
    return null;
  }

  nodeExists(nodeName: string): boolean {
    return this.nodesManaged.has(nodeName);
  }

  addPod(podUID: string, podKey: string, spec: VolumeSpec, volumeName: string, nodeName: string): string | null {
    const n = this.nodesManaged.get(nodeName);
    if (!n) return `no node with the name ${JSON.stringify(nodeName)} exists in the list of managed nodes`;
    let v = n.volumesToAttach.get(volumeName);
    if (!v) {
      v = { volumeName, nodeName, spec, multiAttachErrorReported: false, scheduledPods: new Map() };
      n.volumesToAttach.set(volumeName, v);
      this.version++;
      this.sim.bump(this.group);
    }
    if (!v.scheduledPods.has(podUID)) {
      v.scheduledPods.set(podUID, podKey);
      this.version++;
      this.sim.bump(this.group);
    }
    return null;
  }

  deletePod(podUID: string, volumeName: string, nodeName: string): void {
    const v = this.nodesManaged.get(nodeName)?.volumesToAttach.get(volumeName);
    if (!v) return;
    if (v.scheduledPods.delete(podUID)) {
      this.version++;
      this.sim.bump(this.group);
    }
    if (v.scheduledPods.size === 0 && this.nodesManaged.get(nodeName)!.volumesToAttach.delete(volumeName)) this.version++;
  }

  volumeExists(volumeName: string, nodeName: string): boolean {
    return this.nodesManaged.get(nodeName)?.volumesToAttach.has(volumeName) ?? false;
  }

  /** the live entries (multiAttachErrorReported reads true once set), in a list built at the DSW's last change */
  getVolumesToAttach(): readonly VolumeToAttach[] {
    if (this.volumesToAttachVersion === this.version) return this.volumesToAttach;
    const out: VolumeToAttach[] = [];
    for (const n of this.nodesManaged.values()) for (const v of n.volumesToAttach.values()) out.push(v);
    this.volumesToAttach = out;
    this.volumesToAttachVersion = this.version;
    return out;
  }

  /** every (podUID, volume, node) triple, for the populator (a list built at the DSW's last change) */
  getPodToAdd(): readonly PodToAdd[] {
    if (this.podsToAddVersion === this.version) return this.podsToAdd;
    const out: PodToAdd[] = [];
    for (const n of this.nodesManaged.values())
      for (const v of n.volumesToAttach.values()) for (const [uid, key] of v.scheduledPods) out.push({ podUID: uid, podKey: key, volumeName: v.volumeName, nodeName: n.nodeName });
    this.podsToAdd = out;
    this.podsToAddVersion = this.version;
    return out;
  }

  setMultiAttachError(volumeName: string, nodeName: string): void {
    const v = this.nodesManaged.get(nodeName)?.volumesToAttach.get(volumeName);
    if (v && !v.multiAttachErrorReported) {
      v.multiAttachErrorReported = true;
      this.sim.bump(this.group);
    }
  }

  /** pods on other nodes using the volume (for the multi-attach message) */
  getVolumePodsOnNodes(nodes: readonly string[], volumeName: string): string[] {
    const out: string[] = [];
    for (const node of nodes) {
      const v = this.nodesManaged.get(node)?.volumesToAttach.get(volumeName);
      if (v) out.push(...v.scheduledPods.values());
    }
    return out;
  }
}
