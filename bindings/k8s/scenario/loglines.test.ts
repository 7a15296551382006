// Log lines per release on the built-in scenarios: the kubelet volume
// manager's klog.InfoS lines (1.21+), the attach/detach controller's start and
// "Verified volume is safe to detach" lines, and the eras a profile picks.
import { describe, expect, it } from "vitest";
import { builtinK8sScenarios } from "../index.js";
import { resolveProfile } from "../versions/profile.js";
import { runK8sScenario } from "./run.js";

/** the run's lines of `component` without klog's date, time and thread id: "I reconciler.go:238] ..." */
function lines(scenario: string, version: string, component: string): string[] {
  const sc = builtinK8sScenarios().find((s) => s.name === scenario)!;
  const r = runK8sScenario(sc, { version, logs: true });
  return r.logs.filter((l) => l.component.startsWith(component)).map((l) => l.text.replace(/^(\w)\S+ \S+ +\d+ /, "$1 "));
}

describe("log lines by release", () => {
  it("kubelet: the reconciler's GenerateMsgDetailed lines are klog.Infof text up to 1.20, klog.InfoS of the same text with pod= from 1.21 (none on the unmount path)", () => {
    const find = (ls: string[], s: string): string | undefined => ls.find((t) => t.includes(s));
    const l20 = lines("detach-backoff-node-status", "1.20", "kubelet");
    const l21 = lines("detach-backoff-node-status", "1.21", "kubelet");
    expect(find(l20, "VerifyControllerAttachedVolume started")).toMatch(/^I reconciler\.go:238\] operationExecutor\.VerifyControllerAttachedVolume started for volume "pvc-7bfqsft5" \(UniqueName: "kubernetes\.io\/qcloud-cbs\/disk-7bfqsft5"\) pod "web-0" \(UID: "[0-9a-f-]+"\) $/);
    expect(find(l21, "VerifyControllerAttachedVolume started")).toMatch(
      /^I reconciler\.go:238\] "operationExecutor\.VerifyControllerAttachedVolume started for volume \\"pvc-7bfqsft5\\" \(UniqueName: \\"kubernetes\.io\/qcloud-cbs\/disk-7bfqsft5\\"\) pod \\"web-0\\" \(UID: \\"[0-9a-f-]+\\"\) " pod="default\/web-0"$/,
    );
    expect(find(l21, "MountVolume.SetUp succeeded")).toMatch(/^I operation_generator\.go:756\] "MountVolume\.SetUp succeeded for volume \\"pvc-7bfqsft5\\" .* pod="default\/web-0"$/);
    expect(find(l20, "operationExecutor.UnmountVolume started")).toMatch(/^I reconciler\.go:211\] operationExecutor\.UnmountVolume started for volume "pvc-7bfqsft5" /);
    expect(find(l21, "operationExecutor.UnmountVolume started")).toMatch(/^I reconciler\.go:211\] "operationExecutor\.UnmountVolume started for volume \\"pvc-7bfqsft5\\" \(UniqueName: \\"kubernetes\.io\/qcloud-cbs\/disk-7bfqsft5\\"\) pod \\"[0-9a-f-]+\\" \(UID: \\"[0-9a-f-]+\\"\) "$/);
    // UnmountVolume.TearDown succeeded stays klog.Infof text
    expect(find(l21, "UnmountVolume.TearDown succeeded")).toMatch(/^I operation_generator\.go:910\] UnmountVolume\.TearDown succeeded for volume "kubernetes\.io\/qcloud-cbs\/disk-7bfqsft5" /);
  });

  it("kubelet: a volume with no device mount is logged as GenerateMsgDetailed(\"Volume detached\", DevicePath %q) builds it, quoted from 1.21", () => {
    expect(lines("csi-inline-orphan", "1.14", "kubelet").filter((t) => t.includes("etached"))).toEqual([
      expect.stringMatching(/^I reconciler\.go:326\] Volume detached for volume "data" \(UniqueName: "kubernetes\.io\/csi\/[0-9a-f-]+-data"\) on node "tess-node-kltc4-tess19" DevicePath ""$/),
    ]);
    expect(lines("csi-inline-orphan", "1.26", "kubelet").filter((t) => t.includes("etached"))).toEqual([
      expect.stringMatching(/^I reconciler\.go:326\] "Volume detached for volume \\"data\\" \(UniqueName: \\"kubernetes\.io\/csi\/[0-9a-f-]+-data\\"\) on node \\"tess-node-kltc4-tess19\\" DevicePath \\"\\""$/),
    ]);
  });

  it("kubelet: an attachable volume is logged detached after its UnmountDevice succeeded, with its device path", () => {
    const after = (scenario: string, v: string): string | undefined => {
      const ls = lines(scenario, v, "kubelet");
      return ls[ls.findIndex((t) => t.includes("UnmountDevice succeeded")) + 1];
    };
    expect(after("detach-backoff-node-status", "1.20")).toBe(`I reconciler.go:326] Volume detached for volume "pvc-7bfqsft5" (UniqueName: "kubernetes.io/qcloud-cbs/disk-7bfqsft5") on node "10.0.0.12" DevicePath "/dev/disk/by-id/virtio-disk-7bfqsft5"`);
    expect(after("csi-attachment-name", "1.26")).toMatch(/^I reconciler\.go:326\] "Volume detached for volume \\"csiunity-3a9c1d2e7f\\" \(UniqueName: \\"kubernetes\.io\/csi\/csi-unity\.dellemc\.com\^[^"]+\\"\) on node \\"worker01\.my-cluster\.ocp\\" DevicePath \\"csi-[0-9a-f]{64}\\""$/);
  });

  it("ADC: a verified detach logs \"Verified volume is safe to detach\" (operation_generator.go verifyVolumeIsSafeToDetach, klog.Infof in every release)", () => {
    for (const v of ["1.22", "1.30"]) {
      const ls = lines("detach-backoff-node-status", v, "kube-controller-manager");
      const i = ls.findIndex((t) => t.includes("Verified volume is safe to detach"));
      expect(ls[i], v).toBe(`I operation_generator.go:1596] Verified volume is safe to detach for volume "pvc-7bfqsft5" (UniqueName: "kubernetes.io/qcloud-cbs/disk-7bfqsft5") on node "10.0.0.12" `);
      // after the reconciler's "started" line, before the operation's outcome
      expect(ls.findIndex((t) => t.includes("DetachVolume started")), v).toBe(i - 1);
    }
  });

  it("ADC: \"Starting attach detach controller\" is klog.Infof text up to 1.26, logger.Info from 1.27 (#113584), with the logger name from 1.30", () => {
    const start = (v: string): string => lines("detach-backoff-node-status", v, "kube-controller-manager")[0]!;
    expect(start("1.26")).toBe("I attach_detach_controller.go:328] Starting attach detach controller");
    expect(start("1.27")).toBe(`I attach_detach_controller.go:328] "Starting attach detach controller"`);
    expect(start("1.30")).toBe(`I attach_detach_controller.go:328] "Starting attach detach controller" logger="persistentvolume-attach-detach-controller"`);
  });

  it("the eras a profile picks: the ADC's by release; nestedpendingoperations.go:267 for 1.14 (seed 001), :270 for 1.15 (a 1.15 kubelet's log)", () => {
    expect(["1.23", "1.24", "1.26", "1.27", "1.29", "1.30"].map((v) => resolveProfile(v).adcLogs)).toEqual(["text", "structured", "structured", "contextual", "contextual", "named"]);
    expect(["1.14", "1.15", "1.18", "1.19"].map((v) => resolveProfile(v).npoLogLine)).toEqual([267, 270, 270, 301]);
  });
});

describe("rbd UnmountDevice on the seed 001 scenario", () => {
  it("1.16 (#79940) logs the V(4) unmount and the V(3) detach lines of its UnmountDevice; 1.14 keeps the lines seed 001 shows", () => {
    const rbd = (v: string): string[] => lines("rbd-unmap-busy", v, "kubelet").filter((t) => / attacher\.go:/.test(t)).map((t) => t.replace(/ \/\S+$/, " PATH"));
    expect(rbd("1.16")).toEqual([
      "I attacher.go:239] rbd: unmouting device mountpoint PATH",
      "I attacher.go:243] rbd: successfully umount device mountpath PATH",
      "I attacher.go:260] rbd: detaching device PATH",
      "I attacher.go:260] rbd: detaching device PATH",
      "I attacher.go:260] rbd: detaching device PATH",
      "I attacher.go:265] rbd: successfully detach device PATH",
      "I attacher.go:271] rbd: successfully remove device mount point PATH",
    ]);
    expect(rbd("1.14").slice(0, 4)).toEqual([
      "I attacher.go:234] rbd: unmouting device mountpoint PATH",
      "I attacher.go:238] rbd: successfully umount device mountpath PATH",
      "I attacher.go:240] rbd: detaching device PATH",
      "I attacher.go:234] rbd: unmouting device mountpoint PATH",
    ]);
  });
});
