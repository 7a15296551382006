// A node reboot or power-off (the host's containers, mounts and device maps
// gone; the kubelet back after the reboot, CSI node plugins registering some
// time later) and the API server as a process (an outage; a static pod on a
// node; kube-controller-manager losing its leader lease): scenario/run.ts,
// host/mount.ts powerOff, api/apiserver.ts section 4.
import { describe, expect, it } from "vitest";
import { loadK8sScenario } from "./loader.js";
import { runK8sScenario } from "./run.js";

const base = (timeline: string, settings = ""): string => `name: t
version: "1.26"
duration: 6m
${settings}objects:
  - kind: Node
    metadata: {name: cp-1}
  - kind: Node
    metadata: {name: node-1}
  - kind: CSIDriver
    metadata: {name: d.csi}
    spec: {attachRequired: true}
  - kind: PersistentVolume
    metadata: {name: pv1}
    spec: {accessModes: [ReadWriteOnce], csi: {driver: d.csi, volumeHandle: h1}}
  - kind: PersistentVolumeClaim
    metadata: {name: c1}
    spec: {accessModes: [ReadWriteOnce], volumeName: pv1}
  - kind: Pod
    metadata: {name: p1}
    spec:
      nodeName: node-1
      containers: [{name: c, volumeMounts: [{name: v, mountPath: /d}]}]
      volumes: [{name: v, persistentVolumeClaim: {claimName: c1}}]
timeline:
${timeline}`;
const run = (text: string, opts = {}) => runK8sScenario(loadK8sScenario(text, "t.yaml"), { steps: true, logs: true, ...opts });
const adcStarts = (r: ReturnType<typeof run>): number[] => r.logs.filter((l) => l.component === "kube-controller-manager" && l.text.includes("Starting attach detach controller")).map((l) => l.t);

describe("node reboot", () => {
  it("takes the host's mounts and containers down; the kubelet mounts again after the reboot, once the CSI node plugin has registered", () => {
    const r = run(base("  - {at: 60s, action: rebootNode, node: node-1, down: 30s}\n", "settings: {csiNodeRegistration: 20s}\n"));
    expect(r.steps.find((s) => s.name === "node.Rebooted")?.t).toBe(90_000);
    const failed = r.logs.filter((l) => l.component === "kubelet/node-1" && l.text.includes("driver name d.csi not found in the list of registered CSI drivers"));
    expect(failed.length).toBeGreaterThan(0);
    for (const l of failed) expect(l.t).toBeLessThan(110_000);
    // the pod's containers were killed with the host and start again after the remount
    const running = r.steps.filter((s) => s.name === "kubelet.PodRunning").map((s) => s.t);
    expect(running.length).toBe(2);
    expect(running[1]!).toBeGreaterThanOrEqual(110_000);
    expect(r.violations).toEqual([]);
  });

  it("a powered-off node stays down: Ready=Unknown, its mounts gone, its volume still attached at the backend", () => {
    const r = run(base("  - {at: 60s, action: shutdownNode, node: node-1}\n"));
    expect(r.steps.find((s) => s.name === "nodelifecycle.NodeUnreachable")?.t).toBe(100_000);
    const node = r.objects.find((o) => o.kind === "Node" && o.metadata.name === "node-1")!;
    expect(node.status.conditions.find((c: { type: string }) => c.type === "Ready").status).toBe("Unknown");
    expect(r.objects.some((o) => o.kind === "VolumeAttachment" && o.status?.attached)).toBe(true);
  });
});

describe("the API server as a process", () => {
  it("an outage shorter than the leader election renew deadline (10 s) leaves kube-controller-manager running; a longer one restarts it when the API server is back", () => {
    const short = run(base("  - {at: 60s, action: restartApiServer, down: 8s}\n"));
    expect(adcStarts(short)).toEqual([0]);
    expect(short.logs.some((l) => l.text.includes("leaderelection lost"))).toBe(false);
    const long = run(base("  - {at: 60s, action: restartApiServer, down: 30s}\n"));
    expect(long.logs.find((l) => l.text.includes("leaderelection lost"))?.t).toBe(70_000);
    // back at 90 s, the lease taken at the next retry (2 s)
    expect(adcStarts(long)).toEqual([0, 92_000]);
    expect(long.violations).toEqual([]);
  });

  it("fails every request while down: a kubelet started during the outage lists its pods only when the API server answers", () => {
    const r = run(base("  - {at: 60s, action: stopApiServer}\n  - {at: 65s, action: restartKubelet, node: node-1, down: 1s}\n  - {at: 100s, action: startApiServer}\n"));
    const adds = r.logs.filter((l) => l.component === "kubelet/node-1" && l.text.includes('"SyncLoop ADD"')).map((l) => l.t);
    expect(adds).toEqual([20, 100_020]);
  });

  it("a static kube-apiserver goes down with its node's reboot, not with its kubelet's restart", () => {
    const settings = "settings: {apiServer: {node: cp-1, startup: 15s}}\n";
    const reboot = run(base("  - {at: 60s, action: rebootNode, node: cp-1, down: 40s}\n", settings));
    const down = reboot.steps.find((s) => s.name === "apiserver.Down")?.t;
    const up = reboot.steps.find((s) => s.name === "apiserver.Up")?.t;
    expect([down, up]).toEqual([60_000, 115_000]);
    const restart = run(base("  - {at: 60s, action: restartKubelet, node: cp-1, down: 40s}\n", settings));
    expect(restart.steps.some((s) => s.name === "apiserver.Down")).toBe(false);
  });
});
