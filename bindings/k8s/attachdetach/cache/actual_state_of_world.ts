// pkg/controller/volume/attachdetach/cache: the ADC's actual state of the
// world, what the controller believes is attached where.
//
// attachedVolumes: volume -> node -> {mountedByNode, attachedConfirmed,
// detachRequestedTime}. nodesToUpdateStatusFor: node -> {statusUpdateNeeded,
// volumesToReportAsAttached}, the list the node status updater writes to
// node.status.volumesAttached (replacing it whole).
//
// The two maps can disagree, and seed 002 lives in that gap:
// RemoveVolumeFromReportAsAttached takes a volume off the report list (so the
// next status patch drops it from node.status) but leaves it attached here.
// Only AddVolumeNode with isAttached, or AddVolumeToReportAsAttached, put it
// back. A volume that is desired again is only "touched"
// (ResetDetachRequestTime), which does not re-add it.
//
// New node entries start with mountedByNode = true ("assume mounted until the
// node says otherwise"), so a fresh attach waits for a node status update that
// lacks the volume before it can be detached.
//
// Every effective change calls sim.bump() (engine/sim.ts section 3);
// statusUpdateNeeded is transient bookkeeping and does not.

import type { Sim, WakeGroup } from "../../engine/sim.js";
import { uniqueNameFromSpec, type PluginMgr, type VolumeSpec } from "../../volume/plugins.js";

export type AttachState = "Attached" | "Uncertain" | "Detached";

export interface NodeAttachedTo {
  nodeName: string;
  mountedByNode: boolean;
  attachedConfirmed: boolean;
  /** 0 = no detach requested */
  detachRequestedTime: number;
}

export interface AttachedVolume {
  volumeName: string;
  spec: VolumeSpec | undefined;
  devicePath: string;
  nodesAttachedTo: Map<string, NodeAttachedTo>;
}

export interface NodeToUpdateStatusFor {
  nodeName: string;
  statusUpdateNeeded: boolean;
  volumesToReportAsAttached: Map<string, string>;
}

export interface AttachedVolumeRef {
  volumeName: string;
  nodeName: string;
  spec: VolumeSpec | undefined;
  devicePath: string;
  mountedByNode: boolean;
  attachedConfirmed: boolean;
  detachRequestedTime: number;
}

const NOTHING_TO_REPORT: ReadonlyMap<string, Array<{ name: string; devicePath: string }>> = new Map();

export class ActualStateOfWorld {
  readonly attachedVolumes = new Map<string, AttachedVolume>();
  readonly nodesToUpdateStatusFor = new Map<string, NodeToUpdateStatusFor>();

  constructor(
    private readonly sim: Sim,
    /** the controller's wake group (engine/sim.ts section 3) */
    private readonly group?: WakeGroup,
    /** volumePluginMgr: names a volume given without its unique name (AddVolumeNode with an empty name) */
    private readonly volumePluginMgr?: PluginMgr,
  ) {}

  /**
   * AddVolumeNode: create entries; a new node entry starts mounted; isAttached
   * raises attachedConfirmed. Returns the volume's unique name: an empty
   * `volumeName` is named from the spec by its attachable plugin, as upstream
   * (GetUniqueVolumeNameFromSpec); an error text when it cannot be.
   */
  addVolumeNode(volumeName: string, spec: VolumeSpec | undefined, nodeName: string, devicePath: string, isAttached: boolean): string | { error: string } {
    if (volumeName === "") {
      const plugin = spec && this.volumePluginMgr?.findBySpec(spec);
      if (!spec || !plugin) return { error: `failed to get AttachablePlugin from volumeSpec for volume ${JSON.stringify(spec?.name ?? "")} err=no volume plugin matched` };
      try {
        volumeName = uniqueNameFromSpec(plugin, spec);
      } catch (e) {
        return { error: `failed to get UniqueVolumeName from volumeSpec for plugin=${JSON.stringify(plugin.name)} and volume=${JSON.stringify(spec.name)} err=${(e as Error).message}` };
      }
    }
    let v = this.attachedVolumes.get(volumeName);
    if (!v) {
      v = { volumeName, spec, devicePath, nodesAttachedTo: new Map() };
      this.attachedVolumes.set(volumeName, v);
      this.sim.bump(this.group);
    } else {
      if (spec && v.spec !== spec) v.spec = spec;
      if (devicePath && v.devicePath !== devicePath) v.devicePath = devicePath;
    }
    const n = v.nodesAttachedTo.get(nodeName);
    if (!n) {
      v.nodesAttachedTo.set(nodeName, { nodeName, mountedByNode: true, attachedConfirmed: isAttached, detachRequestedTime: 0 });
      this.sim.bump(this.group);
    } else if (isAttached && !n.attachedConfirmed) {
      n.attachedConfirmed = true;
      this.sim.bump(this.group);
    }
    if (isAttached) this.addVolumeToReportAsAttached(volumeName, nodeName);
    return volumeName;
  }

  markVolumeAsAttached(volumeName: string, spec: VolumeSpec | undefined, nodeName: string, devicePath: string): void {
    this.addVolumeNode(volumeName, spec, nodeName, devicePath, true);
  }
  markVolumeAsUncertain(volumeName: string, spec: VolumeSpec | undefined, nodeName: string): void {
    this.addVolumeNode(volumeName, spec, nodeName, "", false);
  }

  /** MarkVolumeAsDetached = DeleteVolumeNode + drop from the node's report list. */
  markVolumeAsDetached(volumeName: string, nodeName: string): void {
    this.deleteVolumeNode(volumeName, nodeName);
    this.removeVolumeFromReportAsAttached(volumeName, nodeName);
  }

  deleteVolumeNode(volumeName: string, nodeName: string): void {
    const v = this.attachedVolumes.get(volumeName);
    if (!v) return;
    if (v.nodesAttachedTo.delete(nodeName)) this.sim.bump(this.group);
    if (v.nodesAttachedTo.size === 0) this.attachedVolumes.delete(volumeName);
  }

  /** Sets detachRequestedTime if unset; returns how long ago it was set. */
  /** SetDetachRequestTime: the time since the first request, or -1 when the pair is unknown (upstream's error: getNodeAndVolume) */
  setDetachRequestTime(volumeName: string, nodeName: string): number {
    const n = this.attachedVolumes.get(volumeName)?.nodesAttachedTo.get(nodeName);
    if (!n) return -1;
    if (n.detachRequestedTime === 0) {
      n.detachRequestedTime = this.sim.now;
      this.sim.bump(this.group);
    }
    return this.sim.now - n.detachRequestedTime;
  }

  resetDetachRequestTime(volumeName: string, nodeName: string): void {
    const n = this.attachedVolumes.get(volumeName)?.nodesAttachedTo.get(nodeName);
    if (n && n.detachRequestedTime !== 0) {
      n.detachRequestedTime = 0;
      this.sim.bump(this.group);
    }
  }

  /** SetVolumesMountedByNode: mountedByNode = volume is in node.status.volumesInUse. */
  setVolumesMountedByNode(nodeName: string, volumesInUse: readonly string[]): void {
    for (const v of this.attachedVolumes.values()) {
      const n = v.nodesAttachedTo.get(nodeName);
      if (!n) continue;
      const m = volumesInUse.includes(v.volumeName);
      if (n.mountedByNode !== m) {
        n.mountedByNode = m;
        this.sim.bump(this.group);
      }
    }
  }

  getAttachState(volumeName: string, nodeName: string): AttachState {
    const n = this.attachedVolumes.get(volumeName)?.nodesAttachedTo.get(nodeName);
    if (!n) return "Detached";
    return n.attachedConfirmed ? "Attached" : "Uncertain";
  }

  /** AddVolumeToReportAsAttached: no-op when the volume/node pair is unknown. */
  addVolumeToReportAsAttached(volumeName: string, nodeName: string): void {
    const v = this.attachedVolumes.get(volumeName);
    if (!v || !v.nodesAttachedTo.has(nodeName)) return;
    let n = this.nodesToUpdateStatusFor.get(nodeName);
    if (!n) {
      n = { nodeName, statusUpdateNeeded: true, volumesToReportAsAttached: new Map() };
      this.nodesToUpdateStatusFor.set(nodeName, n);
    }
    if (!n.volumesToReportAsAttached.has(volumeName)) {
      n.volumesToReportAsAttached.set(volumeName, volumeName);
      this.sim.bump(this.group);
    }
    n.statusUpdateNeeded = true;
  }

  /** RemoveVolumeFromReportAsAttached: the volume stays in attachedVolumes. Returns an error for an unknown node. */
  removeVolumeFromReportAsAttached(volumeName: string, nodeName: string): string | null {
    const n = this.nodesToUpdateStatusFor.get(nodeName);
    // upstream's error text (actual_state_of_world.go RemoveVolumeFromReportAsAttached; a 2018 controller-manager log)
    if (!n) return `volume ${JSON.stringify(volumeName)} does not exist in volumesToReportAsAttached list or node ${JSON.stringify(nodeName)} does not exist in nodesToUpdateStatusFor list`;
    if (n.volumesToReportAsAttached.delete(volumeName)) this.sim.bump(this.group);
    n.statusUpdateNeeded = true;
    return null;
  }

  /**
   * SetNodeStatusUpdateNeeded: upstream logs a warning and adds nothing for a
   * node it has no entry for (updateNodeStatusUpdateNeeded's error;
   * Test_SetNodeStatusUpdateNeededError).
   */
  setNodeStatusUpdateNeeded(nodeName: string): void {
    this.updateNodeStatusUpdateNeeded(nodeName, true);
  }

  /** updateNodeStatusUpdateNeeded: an error text for a node without an entry */
  updateNodeStatusUpdateNeeded(nodeName: string, needed: boolean): string | null {
    const n = this.nodesToUpdateStatusFor.get(nodeName);
    if (!n) return `failed to set statusUpdateNeeded to needed ${needed}, because nodeName=${JSON.stringify(nodeName)} does not exist`;
    n.statusUpdateNeeded = needed;
    return null;
  }

  /** GetNodesToUpdateStatusFor: the node entries (live) */
  getNodesToUpdateStatusFor(): ReadonlyMap<string, NodeToUpdateStatusFor> {
    return this.nodesToUpdateStatusFor;
  }

  /** Report lists of all dirty nodes; resets their flags (on read). */
  getVolumesToReportAttached(): ReadonlyMap<string, Array<{ name: string; devicePath: string }>> {
    let dirty = false;
    for (const n of this.nodesToUpdateStatusFor.values()) if (n.statusUpdateNeeded) dirty = true;
    if (!dirty) return NOTHING_TO_REPORT;
    const out = new Map<string, Array<{ name: string; devicePath: string }>>();
    for (const n of this.nodesToUpdateStatusFor.values()) {
      if (!n.statusUpdateNeeded) continue;
      out.set(n.nodeName, this.reportList(n));
      n.statusUpdateNeeded = false;
    }
    return out;
  }

  getVolumesToReportAttachedForNode(nodeName: string): Array<{ name: string; devicePath: string }> | null {
    const n = this.nodesToUpdateStatusFor.get(nodeName);
    if (!n || !n.statusUpdateNeeded) return null;
    n.statusUpdateNeeded = false;
    return this.reportList(n);
  }

  private reportList(n: NodeToUpdateStatusFor): Array<{ name: string; devicePath: string }> {
    const list: Array<{ name: string; devicePath: string }> = [];
    for (const vol of n.volumesToReportAsAttached.keys()) list.push({ name: vol, devicePath: this.attachedVolumes.get(vol)?.devicePath ?? "" });
    return list;
  }

  getAttachedVolumes(): AttachedVolumeRef[] {
    const out: AttachedVolumeRef[] = [];
    for (const v of this.attachedVolumes.values()) for (const n of v.nodesAttachedTo.values()) out.push(attachedVolumeRef(v, n));
    return out;
  }

  /** GetAttachedVolumesForNode: every entry on the node, attach confirmed or not */
  getAttachedVolumesForNode(nodeName: string): AttachedVolumeRef[] {
    const out: AttachedVolumeRef[] = [];
    for (const v of this.attachedVolumes.values()) {
      const n = v.nodesAttachedTo.get(nodeName);
      if (n) out.push(attachedVolumeRef(v, n));
    }
    return out;
  }

  /** GetAttachedVolumesPerNode: the confirmed attachments, by node */
  getAttachedVolumesPerNode(): Map<string, AttachedVolumeRef[]> {
    const out = new Map<string, AttachedVolumeRef[]>();
    for (const v of this.attachedVolumes.values())
      for (const n of v.nodesAttachedTo.values()) {
        if (!n.attachedConfirmed) continue;
        let l = out.get(n.nodeName);
        if (!l) out.set(n.nodeName, (l = []));
        l.push(attachedVolumeRef(v, n));
      }
    return out;
  }

  getNodesForAttachedVolume(volumeName: string): string[] {
    const v = this.attachedVolumes.get(volumeName);
    if (!v) return [];
    const out: string[] = [];
    for (const n of v.nodesAttachedTo.values()) if (n.attachedConfirmed) out.push(n.nodeName);
    return out;
  }

  /** getNodesForAttachedVolume(volumeName) has a node other than nodeName (without building the list) */
  isAttachedElsewhere(volumeName: string, nodeName: string): boolean {
    const v = this.attachedVolumes.get(volumeName);
    if (!v) return false;
    for (const n of v.nodesAttachedTo.values()) if (n.attachedConfirmed && n.nodeName !== nodeName) return true;
    return false;
  }

  isInReport(volumeName: string, nodeName: string): boolean {
    return this.nodesToUpdateStatusFor.get(nodeName)?.volumesToReportAsAttached.has(volumeName) ?? false;
  }
}

/** a snapshot of one (volume, node) entry, as GetAttachedVolumes returns it */
export function attachedVolumeRef(v: AttachedVolume, n: NodeAttachedTo): AttachedVolumeRef {
  return {
    volumeName: v.volumeName,
    nodeName: n.nodeName,
    spec: v.spec,
    devicePath: v.devicePath,
    mountedByNode: n.mountedByNode,
    attachedConfirmed: n.attachedConfirmed,
    detachRequestedTime: n.detachRequestedTime,
  };
}
