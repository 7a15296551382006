// A controller-manager restart in the middle of a detach (the noisy
// detach-backoff sweep's released-after-pods finding, bindings/mc/examples/
// k8s-detach-backoff-noisy.yaml). The restarted ADC rebuilds its actual state
// of world from node.status.volumesAttached; a volume the old one had already
// taken off that list before its DetachVolume is lost, as in real Kubernetes
// 1.22/1.23 (kubernetes/kubernetes#81097, #92145), while a volume still listed
// is found and detached.
import { describe, expect, it } from "vitest";
import { builtinK8sScenario } from "../index.js";
import { runK8sScenario } from "../scenario/run.js";
import type { K8sScenario, TimelineItem } from "../scenario/schema.js";

const DISK = "disk-7bfqsft5";
const NODE = "10.0.0.12";

/** the seed-002 built-in plus extra timeline items (and optionally without the refused detach) */
function story(extra: TimelineItem[], opts: { cloudRefusesFirstDetach?: boolean } = {}): K8sScenario {
  const base = builtinK8sScenario("detach-backoff-node-status")!;
  const sc = structuredClone(base);
  sc.timeline.push(...extra);
  if (opts.cloudRefusesFirstDetach === false) sc.storageFaults = [];
  return sc;
}

const restartAtDetachStarted: TimelineItem = { after: { step: "adc.DetachStarted", count: 1, delayMs: 0 }, action: { kind: "restartControllerManager", downMs: 1000 } };

function attachedAtEnd(r: ReturnType<typeof runK8sScenario>): boolean {
  const node = r.objects.find((o) => o.kind === "Node" && o.metadata.name === NODE)!;
  return ((node.status?.volumesAttached ?? []) as Array<{ name: string }>).some((v) => v.name.endsWith(DISK));
}

describe("attach/detach controller restart during a detach", () => {
  for (const fix of [false, true]) {
    it(`a restart right at adc.DetachStarted, while the cloud refuses the detach, leaves the disk attached with no pod and nobody to detach it (1.22, #104526 ${fix ? "on" : "off"})`, () => {
      const r = runK8sScenario(story([restartAtDetachStarted]), { fixes: { "104526": fix }, steps: true });
      const names = r.steps.map((s) => s.name);
      // the refusal reaches nobody: no DetachFailed, so the re-created pod of the story never comes
      expect(names).toContain("adc.DetachStarted");
      expect(names).not.toContain("adc.DetachFailed");
      expect(names).not.toContain("adc.DetachSucceeded");
      // exactly one detach reached the cloud: the restarted controller never tries again
      expect(names.filter((n) => n === "adc.DetachStarted")).toHaveLength(1);
      expect(attachedAtEnd(r)).toBe(false);
      const v = r.violations.find((x) => x.name === "released-after-pods");
      expect(v, JSON.stringify(r.violations.map((x) => x.name))).toBeDefined();
      expect(v!.explanation).toContain(`volume ${DISK} is still attached to ${NODE} at the storage backend`);
      expect(v!.explanation).toContain("kube-controller-manager stopped while its DetachVolume of kubernetes.io/qcloud-cbs/disk-7bfqsft5");
      expect(v!.explanation).toContain("with an error nobody receives: DetachCbsStorage failed");
      expect(v!.explanation).toContain("does not know the volume");
      expect(v!.explanation).toContain("no VolumeAttachment records it");
      expect(v!.explanation).toContain("Real Kubernetes does the same");
      expect(v!.explanation).toContain("kubernetes/kubernetes#81097");
    });
  }

  it("the same restart is harmless when the cloud carries out the detach it was sent", () => {
    const r = runK8sScenario(story([restartAtDetachStarted], { cloudRefusesFirstDetach: false }), { steps: true });
    const names = r.steps.map((s) => s.name);
    // its answer is lost too, but the cloud did the work: nothing is left attached
    expect(names.filter((n) => n === "adc.DetachStarted")).toHaveLength(1);
    expect(names).not.toContain("adc.DetachSucceeded");
    expect(r.violations.map((x) => x.name)).not.toContain("released-after-pods");
  });

  it("a controller-manager down while the pod is deleted finds the volume in node status on restart and detaches it", () => {
    // down from 30 s to 70 s: the pod is deleted (60 s) and unmounted while no ADC runs
    const down: TimelineItem = { atMs: 30_000, action: { kind: "restartControllerManager", downMs: 40_000 } };
    const r = runK8sScenario(story([down]), { steps: true });
    const detaches = r.steps.filter((s) => s.name === "adc.DetachStarted");
    expect(detaches.length).toBeGreaterThanOrEqual(1);
    expect(detaches[0]!.t).toBeGreaterThanOrEqual(70_000);
    // the restarted controller learned the volume from node.status.volumesAttached alone (no pod wanted it)
    expect(r.steps.some((s) => s.name === "adc.DetachFailed")).toBe(true);
  });
});

describe("DetachVolume's safe-to-detach check (operation_generator.go verifyVolumeIsSafeToDetach, v1.22.0)", () => {
  /** seed 002's cluster: the pod deleted at 60 s, the cloud detaches at once, no re-created pod */
  function quiet(): K8sScenario {
    const sc = structuredClone(builtinK8sScenario("detach-backoff-node-status")!);
    sc.timeline = sc.timeline.filter((t) => !("after" in t && t.after));
    sc.storageFaults = [];
    return sc;
  }

  it("an API error on the node GET fails the detach and it is retried after the backoff; only NotFound skips the check", () => {
    const base = runK8sScenario(quiet(), { steps: true });
    const t0 = base.steps.find((s) => s.name === "adc.DetachStarted")!.t;
    const sc = quiet();
    sc.apiFaults = [{ verb: "get", kind: "Node", name: NODE, reason: "InternalError", message: "etcdserver: request timed out", count: Infinity, fromMs: t0, untilMs: t0 + 1 }];
    const r = runK8sScenario(sc, { steps: true });
    const names = r.steps.map((s) => `${s.name}@${s.t}`);
    expect(names).toContain(`adc.DetachFailed@${t0}`);
    const started = r.steps.filter((s) => s.name === "adc.DetachStarted");
    expect(started).toHaveLength(1);
    expect(started[0]!.t).toBeGreaterThan(t0 + 500);
    expect(r.logs.some((l) => l.text.includes(`DetachVolume failed fetching node from API server for volume "pvc-7bfqsft5"`) && l.text.includes("etcdserver: request timed out"))).toBe(true);
    expect(r.violations.map((v) => v.name)).not.toContain("released-after-pods");
  });
});
