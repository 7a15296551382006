// The node status updater against upstream node_status_updater.go.
import { describe, expect, it } from "vitest";
import type { ApiServer } from "../api/apiserver.js";
import type { KObj } from "../api/types.js";
import { Sim } from "../engine/sim.js";
import { Recorder } from "../output/recorder.js";
import { resolveProfile } from "../versions/profile.js";
import { ActualStateOfWorld } from "./cache/actual_state_of_world.js";
import { createNodeStatusUpdater } from "./statusupdater.js";

const node = (name: string): KObj => ({ apiVersion: "v1", kind: "Node", metadata: { name, uid: "", resourceVersion: "" }, spec: {}, status: {} });

function setup(version: string) {
  const sim = new Sim({ seed: 1 });
  const out = new Recorder(true, { startUtcMs: 0, offsetMin: 0, zone: "UTC" }, () => sim.now);
  const asw = new ActualStateOfWorld(sim);
  const nodes = new Map([["node-2", node("node-2")]]);
  const patched: string[] = [];
  const api = {
    patch<A>(_kind: string, name: string, fn: (o: KObj, arg: A) => boolean, _changes: unknown, arg: A) {
      const o = nodes.get(name)!;
      if (fn(o, arg)) patched.push(name);
      return o;
    },
  } as unknown as ApiServer;
  const su = createNodeStatusUpdater(api, asw, { getNode: (n) => nodes.get(n) }, resolveProfile(version), out, "kcm", sim);
  // node-1 is gone from the informer (deleted); both nodes have a volume to report
  asw.markVolumeAsAttached("kubernetes.io/fake/v1", undefined, "node-1", "/dev/a");
  asw.markVolumeAsAttached("kubernetes.io/fake/v2", undefined, "node-2", "/dev/b");
  return { sim, out, asw, su, patched };
}

describe("node status updater", () => {
  it("a node missing from the informer cache is logged and dropped, not retried, in every modelled release (node_status_updater.go: UpdateNodeStatuses `continue` before #108167, processNodeVolumes `return nil` since; re-marking it was 1.5/1.6, issue #42438)", () => {
    for (const version of ["1.12", "1.22", "1.24"]) {
      const h = setup(version);
      expect(h.su.updateNodeStatuses(), version).toBeNull();
      // the other node is still written (a missing node is `continue`, not `return err`)
      expect(h.patched, version).toEqual(["node-2"]);
      // nothing left marked: no retry until something marks the node again (its re-creation does)
      expect([...h.asw.getVolumesToReportAttached().keys()], version).toEqual([]);
      const lines = h.out.logs.map((l) => l.text).filter((t) => t.includes("node-1"));
      expect(lines, version).toHaveLength(1);
      expect(lines[0], version).toMatch(/^I.* Could not update node status\. Failed to find node "node-1" in NodeInformer cache\. Error: 'node "node-1" not found'$/);
    }
  });
});
