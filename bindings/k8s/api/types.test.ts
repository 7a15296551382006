// Stored metadata is a Meta (one hidden class); wireMeta gives back the plain
// metadata the API would hold: the created-from keys in their order, then the
// fields the server and writers added, in the order they were first written.
import { describe, expect, it } from "vitest";
import { Sim } from "../engine/sim.js";
import { ApiServer } from "./apiserver.js";
import { Meta, wireMeta, wireObj, type KObj } from "./types.js";

const keys = (o: KObj): string[] => Object.keys(wireMeta(o.metadata));

describe("stored metadata", () => {
  it("is a Meta, and wireMeta keeps the manifest's key order, its unmodelled fields and the written values", () => {
    const api = new ApiServer(new Sim({ seed: 1 }));
    const manifest = {
      apiVersion: "v1",
      kind: "Pod",
      // labels before name, an unmodelled field, no uid / resourceVersion / creationTimestamp
      metadata: { labels: { app: "web" }, name: "web-0", generateName: "web-", namespace: "default" },
      spec: { nodeName: "n1", containers: [{ name: "c" }], terminationGracePeriodSeconds: 30 },
      status: { phase: "Pending" },
    } as unknown as KObj;
    const o = api.create(manifest);
    expect(o.metadata).toBeInstanceOf(Meta);
    expect(keys(o)).toEqual(["labels", "name", "generateName", "namespace", "uid", "creationTimestamp", "resourceVersion"]);
    expect(wireMeta(o.metadata)).toMatchObject({ generateName: "web-", uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion, creationTimestamp: 0 });
    // a pod deleted with a grace period: deletionTimestamp, then deletionGracePeriodSeconds
    const d = api.delete("Pod", "default/web-0")!;
    expect(keys(d)).toEqual(["labels", "name", "generateName", "namespace", "uid", "creationTimestamp", "resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds"]);
    expect(wireMeta(d.metadata)).toMatchObject({ deletionGracePeriodSeconds: 30, resourceVersion: d.metadata.resourceVersion });
    // the final-objects view: the same object with plain metadata
    const w = wireObj(d);
    expect(Object.keys(w)).toEqual(Object.keys(d));
    expect(w.metadata).not.toBeInstanceOf(Meta);
  });

  it("puts a finalizer added by an update before the deletionTimestamp of a later delete", () => {
    const api = new ApiServer(new Sim({ seed: 1 }));
    const va = api.create({ apiVersion: "storage.k8s.io/v1", kind: "VolumeAttachment", metadata: { name: "csi-1", uid: "", resourceVersion: "" }, spec: {}, status: { attached: false } });
    // an update from a plain copy (the external attacher's way before it used cloneMeta)
    api.update(Object.assign({}, va, { metadata: Object.assign({}, va.metadata, { finalizers: ["external-attacher/x"] }) }));
    const d = api.delete("VolumeAttachment", "csi-1")!;
    expect(d.metadata).toBeInstanceOf(Meta);
    expect(keys(d)).toEqual(["name", "uid", "resourceVersion", "creationTimestamp", "finalizers", "deletionTimestamp"]);
    // uid and resourceVersion were in the created-from metadata (""): their written values are shown
    expect(d.metadata.uid).not.toBe("");
    expect(wireMeta(d.metadata)).toMatchObject({ finalizers: ["external-attacher/x"], uid: d.metadata.uid, resourceVersion: d.metadata.resourceVersion });
    // the last finalizer removed: the object goes
    api.patch("VolumeAttachment", "csi-1", (x) => ((x.metadata.finalizers = []), true));
    expect(api.tryGet("VolumeAttachment", "csi-1")).toBeUndefined();
  });

  it("keeps an object's top-level keys when they are not the manifest's five", () => {
    const api = new ApiServer(new Sim({ seed: 1 }));
    const five = api.create({ apiVersion: "v1", kind: "Node", metadata: { name: "n1", uid: "", resourceVersion: "" }, spec: {}, status: undefined });
    expect(Object.keys(five)).toEqual(["apiVersion", "kind", "metadata", "spec", "status"]);
    // no status key, and keys in another order: copied as they are
    const four = api.create({ kind: "Node", apiVersion: "v1", metadata: { name: "n2", uid: "", resourceVersion: "" }, spec: {} } as KObj);
    expect(Object.keys(four)).toEqual(["kind", "apiVersion", "metadata", "spec"]);
    const patched = api.patch("Node", "n2", (d) => ((d.spec = { unschedulable: true }), true));
    expect(Object.keys(patched)).toEqual(["kind", "apiVersion", "metadata", "spec"]);
    expect(patched.metadata).toBeInstanceOf(Meta);
  });
});
