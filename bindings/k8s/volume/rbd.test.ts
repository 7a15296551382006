// rbd UnmountDevice's log lines with #79940 (attacher.go UnmountDevice, v1.16.0):
// klog.V(4)/V(3) lines are printed as every line is (bindings/k8s/README.md).
import { describe, expect, it } from "vitest";
import type { Ctx } from "../engine/context.js";
import { Recorder } from "../output/recorder.js";
import { resolveProfile } from "../versions/profile.js";
import type { PluginEnv } from "./plugins.js";
import { createRBDPlugin } from "./rbd.js";

/** UnmountDevice of a global mount that is no longer mounted and whose image is not mapped: what it logs */
function unmountUnmapped(version: string): string[] {
  const out = new Recorder(true, { startUtcMs: 0, offsetMin: 0, zone: "UTC" }, () => 0);
  const dmp = "/var/lib/kubelet/plugins/kubernetes.io/rbd/mounts/k8s-image-img-1";
  const dirs = new Map([[dmp, { plugin: "kubernetes.io/rbd", data: { pool: "k8s", image: "img-1" } }]]);
  const host = { dirs, deviceAt: () => "", rbdDeviceFor: () => "", unmount: () => null, rmdir: (p: string) => dirs.delete(p) };
  const env = { ctx: { out, profile: resolveProfile(version) } as unknown as Ctx, component: "kubelet/n1", host } as unknown as PluginEnv;
  let result: string | null | undefined;
  createRBDPlugin().unmountDevice!(env, dmp, (err) => (result = err));
  expect(result).toBeNull();
  return out.logs.map((l) => l.text.replace(/^(\w)\S+ \S+ +\d+ /, "$1 "));
}

describe("rbd UnmountDevice log lines", () => {
  it("with #79940 (1.16): a device found neither in the mount table nor by image is a Warning with upstream's text, pool and image swapped as its arguments are", () => {
    expect(unmountUnmapped("1.16")).toEqual([
      "W attacher.go:255] rbd: can't found devicePath for /var/lib/kubelet/plugins/kubernetes.io/rbd/mounts/k8s-image-img-1. Device is already unmounted, Image k8s, Pool img-1",
      "I attacher.go:271] rbd: successfully remove device mount point /var/lib/kubelet/plugins/kubernetes.io/rbd/mounts/k8s-image-img-1",
    ]);
  });
});
