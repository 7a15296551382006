// What a run prints for someone who greps a real cluster's logs with it:
// klog lines and retry times as Go prints them, the event timeline as
// `kubectl events` lists it, and the final objects as the API serves them.
// Each test is named for the scenario whose output it checks.
import { describe, expect, it } from "vitest";
import { builtinK8sScenario } from "../index.js";
import { runK8sScenario } from "../scenario/run.js";
import { formatEvents, humanDuration, Recorder } from "./recorder.js";
import { kubernetesEventJson, kubernetesObjectJson, rfc3339 } from "./objects.js";

const run = (name: string, version: string) => runK8sScenario(builtinK8sScenario(name)!, { version, logs: true });
const lines = (r: ReturnType<typeof run>, contains: string): string[] => r.logs.filter((l) => l.text.includes(contains)).map((l) => l.text);

describe("klog lines", () => {
  it("rbd-unmap-busy 1.14: the retry time is Go's Time.String (fraction without trailing zeros, m= with nine digits), as seed 001 quotes it", () => {
    const r = run("rbd-unmap-busy", "1.14");
    // the first UnmountDevice failure (before #106853 the pod's mount at the start has its own, "Volume has not been added to the list of VolumesInUse")
    const first = lines(r, "No retries permitted until").find((l) => l.includes("UnmountDevice failed"))!;
    // seed 001: E0708 09:50:14.407804   26508 nestedpendingoperations.go:267] Operation for "\"kubernetes.io/rbd/k8s:...\"" failed.
    //   No retries permitted until 2019-07-08 09:50:14.907753132 +0800 CST m=+247869.135080115 (durationBeforeRetry 500ms). Error: "UnmountDevice failed ...
    expect(first).toMatch(/^E0708 09:46:31\.220000 {4}\d{4} nestedpendingoperations\.go:267\] Operation for "\\"kubernetes\.io\/rbd\/k8s:kubernetes-dynamic-pvc-998825ec-9c79-11e9-a3b2-fa163ed7c802\\"" failed\. /);
    expect(first).toContain("No retries permitted until 2019-07-08 09:46:31.72 +0800 CST m=+91.720000000 (durationBeforeRetry 500ms). Error: \"UnmountDevice failed for volume \\\"pvc-9984bdab-9c79-11e9-b8ba-fa163ed7c802\\\"");
    expect(first).toContain("rbd: failed to unmap device /dev/rbd0, error exit status 16, rbd output: [114 98 100 58 32 115 121 115 102 115 32 119 114 105 116 101 32 102 97 105 108 101 100 10 ");
  });

  it("Go's `.999999999` drops the dot on a whole second, and keeps leading zeros of the fraction", () => {
    let now = 0;
    const out = new Recorder(true, { startUtcMs: Date.UTC(2024, 2, 12, 7, 28, 0), offsetMin: -420, zone: "-07" }, () => now);
    out.processStarted("kubelet/n1");
    expect(out.goTime(2000, "kubelet/n1")).toBe("2024-03-12 00:28:02 -0700 -07 m=+2.000000000");
    expect(out.goTime(2007, "kubelet/n1")).toBe("2024-03-12 00:28:02.007 -0700 -07 m=+2.007000000");
    now = 1500;
    out.log("kubelet/n1", "E", "nestedpendingoperations.go:335", "x");
    // klog: Lmmdd hh:mm:ss.uuuuuu, a space, the thread id right-aligned in 7 columns, file:line]
    expect(out.logs[0]!.text).toMatch(/^E0312 00:28:01\.500000 {4}\d{4} nestedpendingoperations\.go:335\] x$/);
  });

  it("detach-backoff-node-status 1.22: the pod worker logs syncPod's bare error, after kubelet.go's own line (klog.ErrorS)", () => {
    const r = run("detach-backoff-node-status", "1.22");
    const err = "unmounted volumes=[data], unattached volumes=[data]: timed out waiting for the condition";
    const kubelet = lines(r, "Unable to attach or mount volumes for pod; skipping pod");
    const worker = lines(r, "Error syncing pod, skipping");
    expect(kubelet.length).toBeGreaterThan(0);
    expect(kubelet.length).toBe(worker.length);
    expect(kubelet[0]).toContain(`"Unable to attach or mount volumes for pod; skipping pod" err="${err}" pod="default/web-0"`);
    expect(worker[0]).toMatch(new RegExp(`"Error syncing pod, skipping" err="${err.replace(/[[\]]/g, "\\$&")}" pod="default/web-0" podUID=[0-9a-f-]{36}$`));
    // the event wraps it: "Unable to attach or mount volumes: %v"
    expect(r.timeline.find((e) => e.reason === "FailedMount")!.message).toBe(`Unable to attach or mount volumes: ${err}`);
  });

  it("detach-backoff-node-status 1.16 and 1.20: unstructured lines, 1.16 with the older wording", () => {
    const r16 = run("detach-backoff-node-status", "1.16");
    const w16 = lines(r16, "Error syncing pod");
    expect(w16.length).toBeGreaterThan(0);
    // pod_workers: Error syncing pod <uid> ("name_ns(uid)"), skipping: <the volume manager's error>
    expect(w16[0]).toMatch(/Error syncing pod ([0-9a-f-]{36}) \("web-0_default\(\1\)"\), skipping: timeout expired waiting for volumes to attach or mount for pod "default"\/"web-0"\. list of unmounted volumes=\[data\]\. list of unattached volumes=\[data\]$/);
    expect(lines(r16, "; skipping pod")[0]).toMatch(/Unable to mount volumes for pod "web-0_default\([0-9a-f-]{36}\)": timeout expired waiting .*; skipping pod$/);
    const r20 = run("detach-backoff-node-status", "1.20");
    expect(lines(r20, "Error syncing pod")[0]).toMatch(/\), skipping: unmounted volumes=\[data\], unattached volumes=\[data\]: timed out waiting for the condition$/);
  });
});

describe("the event timeline (kubectl events)", () => {
  it("detach-backoff-node-status 1.22: the re-created web-0 is another object: its own Scheduled row, not `(x2)`", () => {
    const r = run("detach-backoff-node-status", "1.22");
    const scheduled = r.timeline.filter((e) => e.reason === "Scheduled");
    expect(scheduled.map((e) => e.count)).toEqual([1, 1]);
    expect(scheduled[0]!.uid).not.toBe(scheduled[1]!.uid);
    expect(scheduled.map((e) => e.t)).toEqual([0, 72420]);
    const failed = r.timeline.filter((e) => e.reason === "FailedMount");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.count).toBe(10);
    expect(failed[0]!.firstT).toBeLessThan(failed[0]!.t);
  });

  it("detach-backoff-node-status 1.22: columns, ages at the end of the run, `(x10 over 21m)`, messages trimmed, rows by last seen", () => {
    const r = run("detach-backoff-node-status", "1.22");
    const table = formatEvents(r.timeline, r.stats.endMs).split("\n");
    expect(table[0]).toMatch(/^LAST SEEN +TYPE +REASON +OBJECT +MESSAGE$/);
    expect(table.filter((l) => / Scheduled /.test(l))).toHaveLength(2);
    const fm = table.find((l) => l.includes("FailedMount"))!;
    expect(fm).toMatch(/^\d+s \(x10 over 21m\) +Warning +FailedMount +Pod\/web-0 +Unable to attach or mount volumes: /);
    expect(table[table.length - 1]).toBe(fm);
    // upstream's message ends in a space ("%v for volume %q %v" with an empty suffix); kubectl trims it
    const attach = r.timeline.find((e) => e.reason === "SuccessfulAttachVolume")!;
    expect(attach.message.endsWith(" ")).toBe(true);
    expect(table.find((l) => l.includes("SuccessfulAttachVolume"))!.endsWith('for volume "pvc-7bfqsft5"')).toBe(true);
  });

  it("rbd-unmap-busy 1.14: a NAMESPACE column when the events span two namespaces (as -A)", () => {
    const r = run("rbd-unmap-busy", "1.14");
    const table = formatEvents(r.timeline, r.stats.endMs).split("\n");
    expect(table[0]).toMatch(/^NAMESPACE +LAST SEEN +TYPE +REASON +OBJECT +MESSAGE$/);
    expect(table.some((l) => /^monitoring +19m +Normal +Scheduled +Pod\/node-exporter-x7k2p /.test(l))).toBe(true);
  });

  it("HumanDuration as apimachinery's util/duration has it", () => {
    expect([1_999, 119_999, 120_000, 200_000, 600_000, 3 * 3600_000 - 1, 3 * 3600_000, 9 * 3600_000, 50 * 3600_000].map(humanDuration)).toEqual([
      "1s", "119s", "2m", "3m20s", "10m", "179m", "3h", "9h", "2d2h",
    ]);
  });
});

describe("--json objects", () => {
  it("detach-backoff-node-status 1.22: metav1.Time fields are RFC 3339 in UTC, whole seconds; the run's own objects keep ms", () => {
    const sc = builtinK8sScenario("detach-backoff-node-status")!;
    const r = runK8sScenario(sc, { version: "1.22" });
    const objs = r.objects.map((o) => kubernetesObjectJson(o, sc.clock));
    for (const o of objs) {
      expect(Object.keys(o).slice(0, 3)).toEqual(["apiVersion", "kind", "metadata"]);
      expect((o.metadata as { creationTimestamp: unknown }).creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
    // clock 2020-02-26T10:00:00Z; the re-created pod at +1m12.420s
    const pod = objs.find((o) => o.kind === "Pod")!;
    expect((pod.metadata as { creationTimestamp: string }).creationTimestamp).toBe("2020-02-26T10:01:12Z");
    expect(r.objects.find((o) => o.kind === "Pod")!.metadata.creationTimestamp).toBe(72420);
    const ev = kubernetesEventJson(r.timeline.find((e) => e.reason === "FailedMount")!, sc.clock);
    expect([ev.firstTimestamp, ev.lastTimestamp]).toEqual([rfc3339(sc.clock, ev.firstT), rfc3339(sc.clock, ev.t)]);
    expect(rfc3339({ startUtcMs: 0, offsetMin: 480, zone: "CST" }, 1999)).toBe("1970-01-01T00:00:01Z");
  });
});

describe("violation explanations", () => {
  it("csi-attachment-name 1.22: liveness and released-after-pods name the cause, the detacher's DELETE of the volume's own name (404 taken as done)", () => {
    const r = run("csi-attachment-name", "1.22");
    for (const name of ["liveness", "released-after-pods"]) {
      const v = r.violations.find((x) => x.name === name)!;
      expect(v.explanation).toMatch(/At \+1m10\.120s: the CSI detacher took the volume name kubernetes\.io\/csi\/csi-unity\.dellemc\.com\^csiunity-3a9c1d2e7f-iSCSI-APM00193821231-sv_42 \(68 characters starting with "csi-"\) for a VolumeAttachment name/);
      expect(v.explanation).toContain("got 404 Not Found and reported the detach from worker01.my-cluster.ocp as done; the real VolumeAttachment (csi-");
    }
    // not on the fixed version: the detach deletes csi-<sha256>
    expect(run("csi-attachment-name", "1.24").violations).toEqual([]);
  });

  it("detach-backoff-node-status 1.22: attached-reported says what starts its 60 s (a later node status change), not that the list lacked the volume only since then", () => {
    const r = run("detach-backoff-node-status", "1.22");
    const v = r.violations.find((x) => x.name === "attached-reported")!;
    expect(v.explanation).not.toContain("has not listed it since");
    expect(v.explanation).toContain("does not list it, more than 60 s after the node's status last changed, at +1m20.020s");
    // and the removal itself, 10 s earlier, is quoted
    expect(v.explanation).toContain("At +1m10.120s: the attach/detach controller removed kubernetes.io/qcloud-cbs/disk-7bfqsft5 from 10.0.0.12's report list");
  });
});
