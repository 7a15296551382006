// pkg/controller/volume/attachdetach/statusupdater: writes the ASW's report
// lists to node.status.volumesAttached.
//
// Each patch replaces the node's whole volumesAttached list with the report
// list. Before #108167 (1.24) UpdateNodeStatuses returned at the first failing
// node, leaving the rest dirty-but-unwritten until the next pass (#107973);
// since then it goes on and UpdateNodeStatusForNode exists for the detach
// path. A node missing from the informer cache (deleted): "Could not update
// node status. Failed to find node ... in NodeInformer cache" at V(2), and the
// update is dropped with no retry, in every modelled release
// (node_status_updater.go: UpdateNodeStatuses `continue` before #108167,
// processNodeVolumes `return nil` since; keeping such a node marked, and
// logging it every 100 ms, was 1.5/1.6, issue #42438). The node's re-creation
// marks it again (the ADC's nodeAdd, SetNodeStatusUpdateNeeded). Not
// modelled: releases from #45923 (1.7) until that `continue` also dropped the
// node's whole report list (RemoveNodeFromAttachUpdates), so a node deleted
// and re-created came back with an empty volumesAttached.

import type { KObj } from "../api/types.js";
import type { ApiServer } from "../api/apiserver.js";
import type { Profile } from "../versions/profile.js";
import type { Recorder } from "../output/recorder.js";
import type { ActualStateOfWorld } from "./cache/actual_state_of_world.js";
import type { Sim } from "../engine/sim.js";
import type { NodeLister } from "./reconciler.js";

export interface NodeStatusUpdater {
  updateNodeStatuses(): string | null;
  updateNodeStatusForNode(nodeName: string): string | null;
}

export function createNodeStatusUpdater(
  api: ApiServer,
  asw: ActualStateOfWorld,
  nodeLister: NodeLister,
  profile: Profile,
  out: Recorder,
  component: string,
  sim: Sim,
): NodeStatusUpdater {
  return new nodeStatusUpdater(api, asw, nodeLister, profile, out, component, sim);
}

/** node_status_updater.go's nodeStatusUpdater: one object per controller (no closures per controller and run) */
class nodeStatusUpdater implements NodeStatusUpdater {
  constructor(
    private readonly api: ApiServer,
    private readonly asw: ActualStateOfWorld,
    private readonly nodeLister: NodeLister,
    private readonly profile: Profile,
    private readonly out: Recorder,
    private readonly component: string,
    private readonly sim: Sim,
  ) {}

  updateNodeStatuses(): string | null {
    const all = this.asw.getVolumesToReportAttached();
    let firstErr: string | null = null;
    let aborted = false;
    for (const [node, list] of all) {
      // before #108167 the loop returned here; the flags of the nodes not yet
      // written were already reset on read, so their updates are lost (#107973)
      if (aborted) continue;
      const err = this.update(node, list);
      if (err) {
        firstErr ??= err;
        if (!this.profile.has.pr108167) aborted = true;
      }
    }
    return firstErr;
  }

  updateNodeStatusForNode(nodeName: string): string | null {
    const list = this.asw.getVolumesToReportAttachedForNode(nodeName);
    if (!list) return null;
    return this.update(nodeName, list);
  }

  private update(nodeName: string, list: Array<{ name: string; devicePath: string }>): string | null {
    const { out, component } = this;
    if (!this.nodeLister.getNode(nodeName)) {
      // "Do nothing so that there is no retry until node is created."
      out.on && out.wants(component) && out.log(component, "I", this.profile.has.pr108167 ? "node_status_updater.go:111" : "node_status_updater.go:72", `Could not update node status. Failed to find node ${JSON.stringify(nodeName)} in NodeInformer cache. Error: 'node "${nodeName}" not found'`);
      return null;
    }
    wrote = false;
    // (k8s-releases) nodes/status, as the controller's client (API faults can be scoped to it)
    this.api.caller = component;
    this.api.subresource = "status";
    try {
      this.api.patch("Node", nodeName, setVolumesAttached, volumesAttachedDiffer, list);
    } catch (e) {
      this.asw.setNodeStatusUpdateNeeded(nodeName);
      // a node left marked for update is retried on the next pass: that pass is
      // not idle, whatever else happens (engine/sim.ts section 3)
      this.sim.wakeAt(this.sim.now + 1);
      const msg = `failed to patch node status for ${JSON.stringify(nodeName)}: ${(e as Error).message}`;
      out.on && out.wants(component) && out.log(component, "W", "node_status_updater.go:86", `Could not update node status for ${JSON.stringify(nodeName)}; re-marking for update. ${(e as Error).message}`);
      return msg;
    } finally {
      this.api.caller = "";
      this.api.subresource = "";
    }
    // a patch that would change nothing is not sent (and not logged): the model's
    // idle-tick skipping relies on a pass without effect leaving no trace
    if (wrote) out.on && out.wants(component) && out.log(component, "I", "node_status_updater.go:146", `Updating status ${JSON.stringify(`{"status":{"volumesAttached":${JSON.stringify(list)}}}`)} for node ${JSON.stringify(nodeName)} succeeded. VolumesAttached: ${fmtList(list)}`);
    return null;
  }
}

/**
 * The patch: node.status.volumesAttached := `list` (functions made once, not
 * closures per update: api/apiserver.ts patch). A new status object: the
 * draft shares the stored one (api/types.ts cloneMeta).
 */
function volumesAttachedDiffer(o: KObj, list: ReadonlyArray<{ name: string; devicePath: string }>): boolean {
  const cur = (o.status?.volumesAttached ?? []) as Array<{ name: string; devicePath: string }>;
  if (cur.length !== list.length) return true;
  for (let i = 0; i < cur.length; i++) if (cur[i]!.name !== list[i]!.name || cur[i]!.devicePath !== list[i]!.devicePath) return true;
  return false;
}
function setVolumesAttached(d: KObj, list: ReadonlyArray<{ name: string; devicePath: string }>): boolean {
  if (!volumesAttachedDiffer(d, list)) return false;
  d.status = Object.assign({}, d.status, { volumesAttached: list });
  wrote = true;
  return true;
}
/** the patch in progress wrote (update() resets it before, reads it after) */
let wrote = false;

function fmtList(list: ReadonlyArray<{ name: string; devicePath: string }>): string {
  return `[${list.map((v) => `{${v.name} ${v.devicePath}}`).join(" ")}]`;
}
