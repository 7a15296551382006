// Issue #27 item 4 and the kubelet-side defects of item 3: API faults scoped to
// a client and a subresource, checks bounded in time, invariants that follow
// the release's rules, how long each pod waited, `k8s diff` leading with the
// events, the kubelet's node status reports and its view of a VolumeAttachment
// being deleted.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { diffK8sRuns, formatK8sDiff } from "../diff.js";
import { builtinK8sScenario } from "../index.js";
import { getAttachmentName } from "../volume/csi.js";
import { loadK8sScenario } from "./loader.js";
import { runK8sScenario, type K8sRunResult } from "./run.js";
import { formatPodWaits } from "../versions/table.js";

const fixture = (name: string): string => readFileSync(new URL(`../versions/scenarios/${name}.yaml`, import.meta.url), "utf8");
const load = (text: string, file = "t.yaml") => loadK8sScenario(text, file);
const node = (r: K8sRunResult, name: string) => r.objects.find((o) => o.kind === "Node" && o.metadata.name === name)!;
const heartbeat = (r: K8sRunResult, name: string): number | undefined =>
  ((node(r, name).status?.conditions ?? []) as Array<{ type: string; lastHeartbeatTime?: number }>).find((c) => c.type === "Ready")?.lastHeartbeatTime;

describe("the kubelet's node status reports", () => {
  it("an unchanged status is written again every 10 s (1.13), 1 min (1.14) or 5 min (1.17): the last heartbeat is that close to the end", () => {
    const sc = load(fixture("node-status-heartbeat"));
    for (const [v, period] of [["1.13", 10_000], ["1.14", 60_000], ["1.17", 300_000]] as const) {
      const r = runK8sScenario(sc, { version: v });
      const hb = heartbeat(r, "n1")!;
      expect(r.stats.endMs - hb, v).toBeLessThanOrEqual(period);
      expect(r.stats.endMs - hb, v).toBeGreaterThanOrEqual(0);
    }
  });
  it("the controller that assumed the volume mounted after an attach releases it at the next report (1.16: +1m10s, 1.17: +5m10s)", () => {
    const sc = load(fixture("node-status-heartbeat"));
    const detachAt = (v: string) => runK8sScenario(sc, { version: v, steps: true }).steps.find((s) => s.name === "adc.DetachStarted")?.t;
    expect(detachAt("1.16")).toBe(70_120);
    expect(detachAt("1.17")).toBe(310_120);
    expect(detachAt("1.33")).toBe(310_120);
  });

  it("from 1.34 (#128394 relanded as #130919) that first unchanged report comes a seeded delay of up to half of nodeStatusReportFrequency earlier or later", () => {
    const sc = load(fixture("node-status-heartbeat"));
    const detachAt = (v: string, seed: number, fixes = {}) => runK8sScenario(sc, { version: v, seed, fixes, steps: true }).steps.find((s) => s.name === "adc.DetachStarted")?.t;
    const at = [1, 2, 3, 4, 5, 6].map((seed) => detachAt("1.35", seed)!);
    // the last change was written at +0.1 s..+10 s (the pod's volume left volumesInUse): the report is due
    // 300 s +- 150 s later, and lands on the status loop's 10 s grid; the controller detaches 120 ms after it
    for (const t of at) {
      expect(t).toBeGreaterThanOrEqual(150_000);
      expect(t).toBeLessThanOrEqual(470_120);
    }
    expect(new Set(at).size).toBeGreaterThan(1);
    // the same seed, the same draw; the switch off gives the fixed 5 minutes back
    expect(detachAt("1.35", 2)).toBe(at[1]);
    expect(detachAt("1.35", 2, { "128394": false })).toBe(310_120);
  });
});

describe("API faults scoped to a client and a subresource", () => {
  const base = fixture("node-status-heartbeat");
  const withFault = (f: string) => load(base.replace("faults:\n", `faults:\n  api:\n    - ${f}\n`));
  it("a fault on `patch Node` naming no client does not block the kubelet's own status writes", () => {
    const r = runK8sScenario(withFault("{verb: patch, kind: Node, count: 1000}"), { version: "1.17" });
    // the controller's status writes fail (it never lists the attach), the kubelet's heartbeat goes on
    expect(node(r, "n1").status?.volumesAttached ?? []).toEqual([]);
    expect(heartbeat(r, "n1")).toBeGreaterThan(r.stats.endMs - 300_000);
  });
  it("scoped to kubelet/n1 (or subresource: status) it does; scoped to kube-controller-manager it does not", () => {
    for (const f of ["{verb: patch, kind: Node, component: kubelet/n1, count: 1000, from: 20s}", "{verb: patch, kind: Node, component: kubelet, subresource: status, count: 1000, from: 20s}", "{verb: patch, kind: Node, subresource: status, count: 1000, from: 20s}"]) {
      const r = runK8sScenario(withFault(f), { version: "1.17" });
      expect(heartbeat(r, "n1"), f).toBeLessThan(20_000);
    }
    const r = runK8sScenario(withFault("{verb: patch, kind: Node, component: kube-controller-manager, count: 1000, from: 20s}"), { version: "1.17" });
    expect(heartbeat(r, "n1")).toBeGreaterThan(r.stats.endMs - 300_000);
    // subresource "" is the object itself: no status write matches
    const plain = runK8sScenario(withFault(`{verb: patch, kind: Node, subresource: "", count: 1000}`), { version: "1.17" });
    expect(plain.violations).toEqual([]);
  });
  it("bad scopes are refused at their line", () => {
    expect(() => withFault("{verb: patch, kind: Node, component: scheduler}")).toThrow(/faults\.api\[0\]\.component: expected kube-controller-manager, csi-attacher, kubelet or kubelet\/NODE/);
    expect(() => withFault("{verb: patch, kind: Node, subresource: scale}")).toThrow(/faults\.api\[0\]\.subresource: expected status/);
  });
});

describe("checks bounded in time (from:/until:)", () => {
  const text = builtinK8sScenario("detach-backoff-node-status")!;
  const yaml = readFileSync(new URL("../scenarios/detach-backoff-node-status.yaml", import.meta.url), "utf8");
  const expectOnly = (checks: string) => load(yaml.replace(/\nexpect:\n[\s\S]*?\nsymptom:/, `\nexpect:\n${checks}\nsymptom:`));
  it("event, noEvent and step count only what happens in the window", () => {
    void text;
    const sc = expectOnly(["  - event: {reason: FailedMount, until: 1m}", "  - noEvent: {reason: FailedMount, until: 1m}", "  - event: {reason: FailedMount, from: 3m}", "  - step: {name: adc.DetachFailed, from: 1m, until: 2m}", "  - step: {name: adc.DetachFailed, until: 1m}"].join("\n"));
    const r = runK8sScenario(sc, { version: "1.22" });
    expect(r.expectations.map((e) => e.held)).toEqual([false, true, true, true, false]);
    expect(r.expectations[0]!.detail).toMatch(/no FailedMount event in \[\+0\.000s, \+1m00\.000s\)/);
  });
  it("podRunning with until: the pod's first Running at or before it", () => {
    const r0 = runK8sScenario(expectOnly("  - podRunning: web-0"), { version: "1.23" });
    const ran = r0.podWaits.filter((w) => w.pod === "default/web-0" && w.runningAt !== null).map((w) => w.runningAt!)[0]!;
    const sc = expectOnly([`  - podRunning: {pod: web-0, until: ${ran}ms}`, `  - podRunning: {pod: web-0, until: ${ran - 1}ms}`, `  - podNotRunning: {pod: web-0, until: ${ran - 1}ms}`].join("\n"));
    expect(runK8sScenario(sc, { version: "1.23" }).expectations.map((e) => e.held)).toEqual([true, false, true]);
  });
  it("a check that has no time (log, nodeVolumesAttached, ...) refuses from/until; until before from is refused", () => {
    expect(() => expectOnly("  - log: {contains: x, from: 1m}")).toThrow(/expect\[0\]\.log/);
    expect(() => expectOnly("  - event: {reason: X, from: 2m, until: 1m}")).toThrow(/until must come after from/);
  });
});

describe("how long each pod waited", () => {
  it("detach-backoff-node-status: the re-created pod is still waiting at the end on 1.22 and Running on 1.23", () => {
    const sc = builtinK8sScenario("detach-backoff-node-status")!;
    const a = runK8sScenario(sc, { version: "1.22" });
    const b = runK8sScenario(sc, { version: "1.23" });
    expect(a.podWaits.map((w) => w.state)).toEqual(["running", "waiting"]);
    expect(b.podWaits.map((w) => w.state)).toEqual(["running", "running"]);
    const w = a.podWaits[1]!;
    expect(w.waitedMs).toBe(a.stats.endMs - w.createdAt);
    expect(w.containerCreatingMs).toBe(a.stats.endMs - w.syncedAt!);
    expect(formatPodWaits(a.podWaits)).toMatch(/default\/web-0 on 10\.0\.0\.12: still waiting at the end, \d+m\d\d\.\d{3}s after its creation \(ContainerCreating /);
    const r = b.podWaits[1]!;
    expect(r.runningAt! - r.createdAt).toBe(r.waitedMs);
    expect(formatPodWaits(b.podWaits)).toMatch(/Running at \+/);
  });
});

describe("invariants follow the release's rules", () => {
  it("a volume kept attached to a Ready node whose kubelet still has it in use is a leak before #110721, not on 1.25 where that is the rule", () => {
    const sc = load(fixture("unmount-stuck-ready-node"));
    const r25 = runK8sScenario(sc, { version: "1.25" });
    expect(r25.violations.map((v) => v.name)).not.toContain("released-after-pods");
    expect(r25.objects.some((o) => o.kind === "VolumeAttachment")).toBe(true);
    // the same run with the switch off force-detaches after 6 min: nothing stays attached
    const off = runK8sScenario(sc, { version: "1.25", fixes: { "110721": false } });
    expect(off.objects.some((o) => o.kind === "VolumeAttachment")).toBe(false);
  });
});

describe("k8s diff leads with the events", () => {
  it("the first line after the title says where behaviour first differs, and releases of different log formats get a note", () => {
    const sc = load(fixture("npo-pending-first"));
    const d = diffK8sRuns(runK8sScenario(sc, { version: "1.25.0" }), runK8sScenario(sc, { version: "1.25.1" }));
    expect(d.first).toEqual({ part: "events", t: 62_220 });
    const text = formatK8sDiff(d, "npo-pending-first").split("\n");
    expect(text[1]).toBe("first difference: events at +1m02.220s (the logs part earlier, at +1m01.020s)");
    const sc2 = load(fixture("adc-restart-dangling-va"));
    const d2 = diffK8sRuns(runK8sScenario(sc2, { version: "1.20" }), runK8sScenario(sc2, { version: "1.21" }));
    expect(d2.logFormats).toMatch(/structured logs/);
    expect(formatK8sDiff(d2, "x")).toMatch(/note: A and B log in different formats/);
  });
});

describe("the kubelet's WaitForAttach and a VolumeAttachment being deleted", () => {
  it("fails with `volume attachment is being deleted` while the attachment still says attached (verifyAttachmentStatus checks the deletion timestamp first)", () => {
    const va = getAttachmentName("vol-del", "ebs.csi.aws.com", "n1");
    const sc = load(
      fixture("unmount-stuck-ready-node")
        .replace(/timeline:\n[\s\S]*?\nfaults:/, `timeline:\n  - {at: 1500ms, action: delete, kind: VolumeAttachment, name: ${va}}\nfaults:`)
        .replace(/vol-stuck/g, "vol-del")
        .replace(/    - \{op: nodeUnstage.*\n/, "    - {op: controllerUnpublish, volume: vol-del, latency: 20s}\n"),
    );
    for (const v of ["1.10", "1.22", "1.35"]) {
      const r = runK8sScenario(sc, { version: v });
      const failed = r.logs.filter((l) => l.text.includes("MountVolume.WaitForAttach failed") && l.text.includes("volume attachment is being deleted"));
      expect(failed.length, v).toBeGreaterThan(0);
      expect(r.logs.some((l) => l.text.includes(`VolumeAttachment [${va}] has deletion timestamp, will not continue to wait for attachment`)), v).toBe(true);
    }
  });
});
