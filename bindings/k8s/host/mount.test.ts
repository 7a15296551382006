import { describe, expect, it } from "vitest";
import { Sim } from "../engine/sim.js";
import { Host } from "./mount.js";

function host() {
  const sim = new Sim({ seed: 1 });
  const h = new Host("n", "/var/lib/kubelet", sim);
  const dev = h.rbdMap("k8s/img");
  h.mount(dev, "/var/lib/kubelet/plugins/kubernetes.io/rbd/mounts/k8s-image-img");
  return { sim, h, dev };
}

describe("mount namespaces", () => {
  it("propagation None: a container that copied / keeps the rbd filesystem busy for ever", () => {
    const { sim, h, dev } = host();
    h.startNamespace("ne", "node-exporter", [], "/", "None", 0);
    h.unmount("/var/lib/kubelet/plugins/kubernetes.io/rbd/mounts/k8s-image-img");
    sim.run(60_000);
    expect(h.rbdUnmap(dev)).toBe("EBUSY");
    expect(h.holders(dev)).toEqual(["node-exporter"]);
  });
  it("propagation HostToContainer: busy until the unmount has propagated", () => {
    const { sim, h, dev } = host();
    h.startNamespace("ne", "node-exporter", [], "/", "HostToContainer", 1500);
    h.unmount("/var/lib/kubelet/plugins/kubernetes.io/rbd/mounts/k8s-image-img");
    sim.run(1000);
    expect(h.rbdUnmap(dev)).toBe("EBUSY");
    sim.run(2000);
    expect(h.rbdUnmap(dev)).toBeNull();
  });
  it("unmounting a path that is not mounted fails like umount(8)", () => {
    const { h } = host();
    expect(h.unmount("/nope")).toContain("not mounted");
  });
});
