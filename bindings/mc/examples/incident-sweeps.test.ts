// Sweeps of the built-in incidents where timing decides (k8s-incidents):
// each finds its incident exactly where the mechanics put it, and never on
// the fixed release.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { INCIDENT_CLASS } from "../domains/k8s.js";
import { modelFromText, runOne } from "../run-one.js";
import type { RunRecord } from "../journal.js";

const RUNS = 160;

function sweep(name: string): RunRecord[] {
  const file = resolve(__dirname, `${name}.yaml`);
  const model = modelFromText(readFileSync(file, "utf8"), file);
  return Array.from({ length: RUNS }, (_, i) => runOne(model, 5n, i));
}
const ms = (v: unknown): number => {
  const m = /^(\d+)ms$/.exec(String(v));
  if (!m) throw new Error(`not a duration in ms: ${String(v)}`);
  return Number(m[1]);
};
const incident = (r: RunRecord): boolean => r.classes.includes(INCIDENT_CLASS);

describe("k8s-detach-status-update-failure (#111000, fixed by #111205)", () => {
  const records = sweep("k8s-detach-status-update-failure");
  it("the re-created pod is stuck exactly when it comes back while the node status PATCHes fail (+70.12 s .. +90 s), and only on 1.25.0", () => {
    let stuck = 0;
    for (const r of records) {
      const t = ms(r.params.recreateAt);
      const inWindow = t > 70_200 && t < 89_900;
      const outside = t < 70_050 || t > 90_100;
      if (r.params.version === "1.25.1" || outside) expect(incident(r), `run ${r.i}: ${t} ms, ${String(r.params.version)}`).toBe(false);
      else if (inWindow) expect(incident(r), `run ${r.i}: ${t} ms`).toBe(true);
      if (incident(r)) stuck++;
    }
    expect(stuck).toBeGreaterThan(10);
  });
});

describe("k8s-force-detach-healthy-node (#106710, fixed by #110721)", () => {
  const records = sweep("k8s-force-detach-healthy-node");
  it("a busy mount still failing when the 6 minutes run out (~+7 min, later by the kubelet's retry backoff) is force-detached on 1.24, never on 1.25", () => {
    let forced = 0;
    for (const r of records) {
      const busy = ms(r.params.busyUntil);
      if (r.params.version === "1.25" || busy < 240_000) expect(incident(r), `run ${r.i}: busy until ${busy} ms, ${String(r.params.version)}`).toBe(false);
      else if (busy > 425_000) expect(incident(r), `run ${r.i}: busy until ${busy} ms`).toBe(true);
      if (incident(r)) forced++;
    }
    expect(forced).toBeGreaterThan(10);
  });
});

describe("k8s-dangling-attach-apiserver-outage (#94912, #96617)", () => {
  const records = sweep("k8s-dangling-attach-apiserver-outage");
  it("the attachment dangles only when the outage outlasts the controller-manager's 10 s lease renew deadline, and only before 1.21", () => {
    let dangling = 0;
    for (const r of records) {
      const outage = ms(r.params.outage);
      if (r.params.version === "1.21" || outage < 9_900) expect(incident(r), `run ${r.i}: ${outage} ms, ${String(r.params.version)}`).toBe(false);
      else if (outage > 10_100) expect(incident(r), `run ${r.i}: ${outage} ms`).toBe(true);
      if (incident(r)) dangling++;
    }
    expect(dangling).toBeGreaterThan(10);
  });
});

describe("k8s-csi-unstage-error-no-restage (#100182, fixed by #100183)", () => {
  const records = sweep("k8s-csi-unstage-error-no-restage");
  it("the re-created pod gets NodePublish without NodeStage exactly while the failed NodeUnstage is out (+62 s .. ~+181 s), and only on 1.20", () => {
    let hit = 0;
    for (const r of records) {
      const t = ms(r.params.recreateAt);
      if (r.params.version === "1.21" || t > 183_000) expect(incident(r), `run ${r.i}: ${t} ms, ${String(r.params.version)}`).toBe(false);
      else if (t > 64_000 && t < 180_000) expect(incident(r), `run ${r.i}: ${t} ms`).toBe(true);
      if (incident(r)) hit++;
    }
    expect(hit).toBeGreaterThan(10);
  });
});

describe("k8s-detach-while-formatting (#70319, fixed by #71145)", () => {
  const records = sweep("k8s-detach-while-formatting");
  it("the disk is detached under mkfs when the pod goes while MountDevice runs (~+6 s .. ~+92 s), and only on 1.12", () => {
    let hit = 0;
    for (const r of records) {
      const t = ms(r.params.deleteAt);
      if (r.params.version === "1.13" || t > 94_000) expect(incident(r), `run ${r.i}: ${t} ms, ${String(r.params.version)}`).toBe(false);
      else if (t > 6_000 && t < 90_000) expect(incident(r), `run ${r.i}: ${t} ms`).toBe(true);
      if (incident(r)) hit++;
    }
    expect(hit).toBeGreaterThan(10);
  });
});

describe("k8s-kubelet-restart-remount-fails (#70044, fixed by #110670)", () => {
  const records = sweep("k8s-kubelet-restart-remount-fails");
  it("the deleted pod's mounts are left when it goes before the CSI plugin registers and the remount succeeds (~+127 s), and only on 1.24", () => {
    let hit = 0;
    for (const r of records) {
      const t = ms(r.params.deleteAt);
      if (r.params.version === "1.25" || t > 128_000) expect(incident(r), `run ${r.i}: ${t} ms, ${String(r.params.version)}`).toBe(false);
      else if (t < 122_000) expect(incident(r), `run ${r.i}: ${t} ms`).toBe(true);
      if (incident(r)) hit++;
    }
    expect(hit).toBeGreaterThan(10);
  });
});

describe("k8s-csi-nodepublish-timeout-stale-mount (#89112, fixed by #82492)", () => {
  const records = sweep("k8s-csi-nodepublish-timeout-stale-mount");
  it("the pod's mount is left exactly when NodePublish lands after the pod's deletion (+130 s), and only on 1.17", () => {
    let hit = 0;
    for (const r of records) {
      const t = ms(r.params.publishLatency);
      if (r.params.version === "1.18" || t < 129_000) expect(incident(r), `run ${r.i}: ${t} ms, ${String(r.params.version)}`).toBe(false);
      else if (t > 131_000) expect(incident(r), `run ${r.i}: ${t} ms`).toBe(true);
      if (incident(r)) hit++;
    }
    expect(hit).toBeGreaterThan(10);
  });
});

describe("k8s-mount-device-interleave (settings.interleave: a MountVolume ending inside the kubelet reconciler's pass)", () => {
  const records = sweep("k8s-mount-device-interleave");
  it("the global mount leaks only when MountDevice ends on the reconciler's grid (3000 ms), in some runs, never off it (3050 ms)", () => {
    const failed = (r: RunRecord): boolean => r.classes.some((c) => c.startsWith("expect:hostMount"));
    const on = records.filter((r) => r.params.mountDeviceMs === "3000ms");
    const off = records.filter((r) => r.params.mountDeviceMs === "3050ms");
    expect(on.length).toBeGreaterThan(20);
    expect(off.length).toBeGreaterThan(20);
    for (const r of off) expect(failed(r), `run ${r.i}`).toBe(false);
    const leaks = on.filter(failed).length;
    expect(leaks).toBeGreaterThan(0);
    expect(leaks).toBeLessThan(on.length);
  });
});
