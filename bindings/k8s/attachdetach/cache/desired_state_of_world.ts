// pkg/controller/volume/attachdetach/cache: the ADC's desired state of the
// world: for every managed node, the volumes some scheduled, non-terminated pod
// on it uses, and which pods those are.
//
// AddPod fails for an unmanaged node; DeleteNode fails while the node still
// has volumes to attach ("the node still contains N volumes in its list of
// volumes to attach", #50004). The multi-attach error event is sent once per
// entry (multiAttachErrorReported).

import type { Sim, WakeGroup } from "../../engine/sim.js";
import type { VolumeSpec } from "../../volume/plugins.js";

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
  constructor(
    private readonly sim: Sim,
    /** the controller's wake group (engine/sim.ts section 3) */
    private readonly group?: WakeGroup,
  ) {}

  addNode(nodeName: string): void {
    if (this.nodesManaged.has(nodeName)) return;
    this.nodesManaged.set(nodeName, { nodeName, volumesToAttach: new Map() });
    this.sim.bump(this.group);
  }

  deleteNode(nodeName: string): string | null {
    const n = this.nodesManaged.get(nodeName);
    if (!n) return null;
    if (n.volumesToAttach.size > 0)
      return `failed to delete node ${JSON.stringify(nodeName)} from list of nodes managed by attach/detach controller--the node still contains ${n.volumesToAttach.size} volumes in its list of volumes to attach`;
    this.nodesManaged.delete(nodeName);
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
      this.sim.bump(this.group);
    }
    if (!v.scheduledPods.has(podUID)) {
      v.scheduledPods.set(podUID, podKey);
      this.sim.bump(this.group);
    }
    return null;
  }

  deletePod(podUID: string, volumeName: string, nodeName: string): void {
    const v = this.nodesManaged.get(nodeName)?.volumesToAttach.get(volumeName);
    if (!v) return;
    if (v.scheduledPods.delete(podUID)) this.sim.bump(this.group);
    if (v.scheduledPods.size === 0) this.nodesManaged.get(nodeName)!.volumesToAttach.delete(volumeName);
  }

  volumeExists(volumeName: string, nodeName: string): boolean {
    return this.nodesManaged.get(nodeName)?.volumesToAttach.has(volumeName) ?? false;
  }

  getVolumesToAttach(): VolumeToAttach[] {
    const out: VolumeToAttach[] = [];
    for (const n of this.nodesManaged.values()) for (const v of n.volumesToAttach.values()) out.push(v);
    return out;
  }

  /** every (podUID, volume, node) triple, for the populator */
  getPodToAdd(): Array<{ podUID: string; podKey: string; volumeName: string; nodeName: string }> {
    const out: Array<{ podUID: string; podKey: string; volumeName: string; nodeName: string }> = [];
    for (const n of this.nodesManaged.values())
      for (const v of n.volumesToAttach.values()) for (const [uid, key] of v.scheduledPods) out.push({ podUID: uid, podKey: key, volumeName: v.volumeName, nodeName: n.nodeName });
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
