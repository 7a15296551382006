import { describe, expect, it } from "vitest";
import { Sim } from "../engine/sim.js";
import { ApiServer, type WatchType } from "./apiserver.js";
import type { KObj, Kind } from "./types.js";

const obj = (kind: Kind, name: string, namespace?: string, spec: Record<string, unknown> = {}): KObj => ({
  apiVersion: "v1",
  kind,
  metadata: namespace === undefined ? { name, uid: "", resourceVersion: "" } : { name, namespace, uid: "", resourceVersion: "" },
  spec,
});

describe("api server watch delivery", () => {
  it("delivers each write to the informers of its kind, after their latency, with the initial list first", () => {
    const sim = new Sim({ seed: 1 });
    const api = new ApiServer(sim);
    api.create(obj("Node", "node-1"));
    api.create(obj("Pod", "p", "default", { nodeName: "node-1" }));
    const seen: string[] = [];
    const start = (name: string, kinds: Kind[], latencyMs: number) => {
      const inf = api.informer(
        kinds,
        latencyMs,
        () => 0,
        (type: WatchType, o: KObj, old: KObj | undefined) => seen.push(`${sim.now} ${name} ${type} ${o.kind} ${o.metadata.name} rv=${o.metadata.resourceVersion} old=${old?.metadata.resourceVersion ?? "-"}`),
        () => seen.push(`${sim.now} ${name} synced`),
        sim.group(name),
      );
      return inf;
    };
    const a = start("a", ["Pod"], 10);
    const b = start("b", ["Node", "Pod"], 10);
    const c = start("c", ["Node"], 30);
    sim.at(5, () => {
      api.patch("Pod", "default/p", (d) => ((d.status = { phase: "Running" }), true));
      api.patch("Node", "node-1", (d) => ((d.status = { conditions: [] }), true));
    });
    sim.at(50, () => api.delete("Pod", "default/p", 0));
    sim.run(1000);
    expect(seen).toEqual([
      "10 a ADDED Pod p rv=3 old=-",
      "10 a synced",
      "10 b ADDED Node node-1 rv=2 old=-",
      "10 b ADDED Pod p rv=3 old=-",
      "10 b synced",
      "15 a MODIFIED Pod p rv=4 old=3",
      "15 b MODIFIED Pod p rv=4 old=3",
      "15 b MODIFIED Node node-1 rv=5 old=2",
      "30 c ADDED Node node-1 rv=2 old=-",
      "30 c synced",
      "35 c MODIFIED Node node-1 rv=5 old=2",
      "60 a DELETED Pod p rv=4 old=4",
      "60 b DELETED Pod p rv=4 old=4",
    ]);
    // the caches hold what was delivered, by kind and key
    expect(a.cache.get("Pod", "default/p")).toBeUndefined();
    expect(b.cache.get("Node", "node-1")?.metadata.resourceVersion).toBe("5");
    expect([...c.cache.list("Pod")]).toEqual([]);
    expect(c.cache.get("Node", "node-1")?.metadata.resourceVersion).toBe("5");
  });

  it("a delivery bumps the owner's group for the kind (groupByKind), else its group", () => {
    const sim = new Sim({ seed: 1 });
    const api = new ApiServer(sim);
    const own = sim.group("own");
    const nodes = sim.group("nodes");
    api.informer(["Node", "Pod"], 10, () => 0, () => {}, () => {}, own, { Node: nodes });
    sim.run(20);
    const before = [own.bumps, nodes.bumps];
    sim.at(30, () => api.create(obj("Node", "node-1")));
    sim.at(40, () => api.create(obj("Pod", "p", "default")));
    sim.run(100);
    expect([own.bumps - before[0]!, nodes.bumps - before[1]!]).toEqual([1, 1]);
  });

  it("a watch delay holds back the later events of the stream too: they arrive in write order", () => {
    const sim = new Sim({ seed: 1 });
    const api = new ApiServer(sim);
    api.create(obj("Node", "node-1"));
    const seen: string[] = [];
    // +100 ms on what is sent before 20 ms (a watch-delay fault)
    api.informer(["Node"], 10, (now) => (now < 20 ? 100 : 0), (type, o) => seen.push(`${sim.now} ${type} rv=${o.metadata.resourceVersion}`), () => {}, sim.group("g"));
    sim.at(5, () => api.patch("Node", "node-1", (d) => ((d.status = { n: 1 }), true)));
    sim.at(30, () => api.patch("Node", "node-1", (d) => ((d.status = { n: 2 }), true)));
    sim.at(200, () => api.patch("Node", "node-1", (d) => ((d.status = { n: 3 }), true)));
    sim.run(1000);
    expect(seen).toEqual(["110 ADDED rv=2", "115 MODIFIED rv=3", "115 MODIFIED rv=4", "210 MODIFIED rv=5"]);
  });
});
