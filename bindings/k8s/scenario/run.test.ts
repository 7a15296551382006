// `between: [A, B]` timeline items (runK8sScenario resolves them with a probe
// run): the action lands inside [A, B) at an instant drawn from the run's seed.
import { describe, expect, it } from "vitest";
import { BUILTIN_YAML, builtinK8sScenario } from "../index.js";
import { loadK8sScenario } from "./loader.js";
import { finalPods, runK8sScenario } from "./run.js";

// seed 002 with a 1 ms controller-manager restart somewhere between the pod
// running (~5 s) and its volume torn down after the delete (~61 s)
const yaml = (between: string): string =>
  BUILTIN_YAML["detach-backoff-node-status"]!.replace(
    "faults:\n",
    `  - between: ${between}\n    action: restartControllerManager\n    down: 1ms\nfaults:\n`,
  );

/** when the restarted controller-manager's ADC starts (the restart fired 1 ms earlier) */
function restartedAt(r: ReturnType<typeof runK8sScenario>): number | undefined {
  const starts = r.logs.filter((l) => l.component === "kube-controller-manager" && l.text.endsWith("] Starting attach detach controller"));
  return starts.length > 1 ? starts[1]!.t - 1 : undefined;
}

describe("between: [A, B] in the k8s scenario format", () => {
  const sc = loadK8sScenario(yaml("[kubelet.PodRunning, kubelet.TearDownSucceeded]"), "between.yaml");

  it("fires at a seed-chosen instant inside the interval, the same one for the same seed", () => {
    const times: number[] = [];
    for (let seed = 1; seed <= 12; seed++) {
      const r = runK8sScenario(sc, { seed, steps: true });
      const tA = r.steps.find((s) => s.name === "kubelet.PodRunning")!.t;
      const tB = r.steps.find((s) => s.name === "kubelet.TearDownSucceeded" && s.t >= tA)!.t;
      const t = restartedAt(r)!;
      expect(t, `seed ${seed}`).toBeGreaterThanOrEqual(tA);
      expect(t, `seed ${seed}`).toBeLessThan(tB);
      expect(restartedAt(runK8sScenario(sc, { seed, steps: true }))).toBe(t);
      times.push(t - tA);
    }
    // not pinned to the first step: spread over the ~56 s interval
    expect(new Set(times).size).toBeGreaterThanOrEqual(10);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(20_000);
  });

  it("never fires when A never happens", () => {
    const r = runK8sScenario(loadK8sScenario(yaml("[adc.ForceDetachTimeout, kubelet.TearDownSucceeded]"), "between.yaml"));
    expect(restartedAt(r)).toBeUndefined();
  });

  it("rejects a delay, which between: does not take", () => {
    const text = yaml("[kubelet.PodRunning, kubelet.TearDownSucceeded]").replace("    down: 1ms\n", "    down: 1ms\n    delay: 1s\n");
    expect(() => loadK8sScenario(text, "between.yaml")).toThrow(/between\.yaml:\d+: timeline\[2\]\.delay: between: picks its own instant/);
  });
});

describe("step: checks", () => {
  const withExpect = (lines: string): string => BUILTIN_YAML["detach-backoff-node-status"]!.replace("expect:\n  - podRunning: web-0\n", `expect:\n  - podRunning: web-0\n${lines}`);

  it("are counted in a run that did not ask for steps, as `iosim k8s run` runs (they held unread before)", () => {
    const sc = loadK8sScenario(withExpect("  - step: {name: adc.DetachFailed, min: 1, max: 1}\n  - step: {name: adc.DetachFailed, max: 0}\n"), "steps.yaml");
    const r = runK8sScenario(sc, { version: "1.22" });
    // one refused detach (the scenario's fault), so min 1 max 1 holds and max 0 fails
    expect(r.expectations.map((e) => [e.held, e.detail])).toEqual([
      [false, "pod default/web-0 phase Pending"],
      [true, "step adc.DetachFailed seen 1 times"],
      [false, "step adc.DetachFailed seen 1 times"],
    ]);
    expect(r.violations.filter((v) => v.kind === "expectation").map((v) => v.name)).toContain('step {"name":"adc.DetachFailed","max":0}');
  });

  it("`max: 0` holds for a step that never came (min defaulted to 1, so \"never\" failed whatever the run did)", () => {
    const sc = loadK8sScenario(withExpect("  - step: {name: adc.ForceDetachTimeout, max: 0}\n  - step: {name: adc.ForceDetachTimeout, min: 0, max: 0}\n"), "steps.yaml");
    const r = runK8sScenario(sc, { version: "1.23" });
    expect(r.steps.some((s) => s.name === "adc.ForceDetachTimeout")).toBe(false);
    expect(r.expectations.map((e) => [e.held, e.detail])).toEqual([
      [true, "pod default/web-0 phase Running"],
      [true, "step adc.ForceDetachTimeout seen 0 times"],
      [true, "step adc.ForceDetachTimeout seen 0 times"],
    ]);
    expect(r.violations).toEqual([]);
  });
});

describe("a check written as a plain string", () => {
  const withExpect = (lines: string): string => BUILTIN_YAML["detach-backoff-node-status"]!.replace("expect:\n  - podRunning: web-0\n", `expect:\n${lines}`);

  it("`event: FailedMount` / `noEvent: FailedMount` ask for the reason alone (they also asked for the text FailedMount in the message: the event check failed and noEvent held while FailedMount events were there)", () => {
    const r = runK8sScenario(loadK8sScenario(withExpect("  - event: FailedMount\n  - noEvent: FailedMount\n  - log: durationBeforeRetry 2m2s\n  - step: adc.DetachFailed\n"), "short.yaml"), { version: "1.22" });
    expect(r.timeline.some((e) => e.reason === "FailedMount" && !e.message.includes("FailedMount"))).toBe(true);
    expect(r.expectations.map((e) => [e.name, e.held])).toEqual([
      ['event "FailedMount"', true],
      ['noEvent "FailedMount"', false],
      ['log "durationBeforeRetry 2m2s"', true],
      ['step "adc.DetachFailed"', true],
    ]);
  });

  it("is refused, at its line, for a check that needs more than one field (`nodeVolumesAttached: NODE` asked for a volume named like the node)", () => {
    expect(() => loadK8sScenario(withExpect("  - nodeVolumesAttached: 10.0.0.12\n"), "short.yaml")).toThrow(
      /^short\.yaml:\d+: expect\[0\]\.nodeVolumesAttached: expected a mapping \(node, contains, lacks\), got "10\.0\.0\.12"$/,
    );
  });
});

describe("a timeline action the API server refuses", () => {
  it("does not happen and the run goes on (an injected InternalError on the timeline's pod delete was thrown out of the replay: `iosim: internal error`, exit 3)", () => {
    const text = BUILTIN_YAML["detach-backoff-node-status"]!.replace("faults:\n", "faults:\n  api:\n    - {verb: delete, kind: Pod, name: default/web-0, count: 1}\n");
    const r = runK8sScenario(loadK8sScenario(text, "refused.yaml"), { version: "1.22", steps: true });
    // the delete at 60 s was refused: web-0 keeps running, its disk is never detached
    expect(r.expectations.map((e) => [e.name, e.held])).toEqual([['podRunning "web-0"', true]]);
    expect(r.steps.some((s) => s.name === "adc.DetachStarted")).toBe(false);
    expect(r.violations).toEqual([]);
  });
});

describe("an API fault's name", () => {
  it("names a pod as the timeline does, without its namespace (the server keys pods by default/web-0, so `name: web-0` never matched and the fault never fired)", () => {
    const text = BUILTIN_YAML["detach-backoff-node-status"]!.replace("faults:\n", "faults:\n  api:\n    - {verb: delete, kind: Pod, name: web-0, count: 1}\n");
    const sc = loadK8sScenario(text, "named.yaml");
    expect(sc.apiFaults[0]!.name).toBe("default/web-0");
    const r = runK8sScenario(sc, { version: "1.22", steps: true });
    expect(r.steps.some((s) => s.name === "adc.DetachStarted")).toBe(false);
    expect(r.expectations.map((e) => [e.name, e.held])).toEqual([['podRunning "web-0"', true]]);
  });
});

describe("the timeline's delete of a pod or claim", () => {
  it("names it as deletePod does, without its namespace (the server keys pods by default/web-0, so `delete {kind: Pod, name: web-0}` was a NotFound, swallowed, and the pod ran on)", () => {
    const text = BUILTIN_YAML["detach-backoff-node-status"]!.replace("    action: deletePod\n    pod: web-0\n", "    action: delete\n    kind: Pod\n    name: web-0\n");
    expect(text).not.toBe(BUILTIN_YAML["detach-backoff-node-status"]);
    const r = runK8sScenario(loadK8sScenario(text, "delete.yaml"), { version: "1.22", steps: true });
    // the pod went away, and its disk's detach started (and failed, as the scenario's fault says)
    expect(r.steps.some((s) => s.name === "adc.DetachStarted")).toBe(true);
    expect(r.steps.some((s) => s.name === "adc.DetachFailed")).toBe(true);
  });
});

describe("the kubelet's final pod delete refused by the API server", () => {
  it("is logged and sent again 10 s later (at the next pass), as the status manager does (it was thrown out of the replay: `iosim: internal error`), the same whether idle ticks are skipped or not", () => {
    const text = BUILTIN_YAML["detach-backoff-node-status"]!.replace("faults:\n", "faults:\n  api:\n    - {verb: delete, kind: Pod, name: default/web-0, count: 2, from: 61s}\n");
    const sc = loadK8sScenario(text, "kubelet-delete.yaml");
    const r = runK8sScenario(sc, { version: "1.23", steps: true });
    const refusals = r.logs.filter((l) => l.text.includes('"Failed to delete status for pod" pod="default/web-0" err="injected InternalError on delete Pod default/web-0"'));
    expect(refusals.map((l) => l.component)).toEqual(["kubelet/10.0.0.12", "kubelet/10.0.0.12"]);
    // (at the first pod-worker pass from then on)
    expect(refusals[1]!.t - refusals[0]!.t).toBeGreaterThanOrEqual(10_000);
    expect(refusals[1]!.t - refusals[0]!.t).toBeLessThan(11_000);
    // deleted at the third try (the re-create after the failed detach came while
    // the old pod still stood, so it was refused: web-0 ends deleted), no invariant broken
    expect(r.expectations.map((e) => e.detail)).toEqual(["pod default/web-0 phase (deleted)"]);
    expect(r.violations.filter((v) => v.kind === "invariant")).toEqual([]);
    const ticked = runK8sScenario(sc, { version: "1.23", steps: true, tickEveryPeriod: true });
    expect(ticked.steps).toEqual(r.steps);
    expect(ticked.timeline).toEqual(r.timeline);
  });
});

describe("an API fault on create", () => {
  it("leaves the scenario's own objects alone and hits the timeline's create (a fault from 0 s hit the set-up and was thrown out of the replay)", () => {
    const text = BUILTIN_YAML["detach-backoff-node-status"]!.replace("faults:\n", "faults:\n  api:\n    - {verb: create, kind: Pod, count: 1}\n");
    const r = runK8sScenario(loadK8sScenario(text, "create.yaml"), { version: "1.23" });
    // the first pod ran; the re-create after the failed detach was refused, so web-0 ends deleted
    expect(r.timeline.filter((e) => e.reason === "Started").length).toBe(1);
    expect(r.expectations.map((e) => e.detail)).toEqual(["pod default/web-0 phase (deleted)"]);
  });
});

describe("finalPods (the final pods without building objects)", () => {
  it("gives the pods of objects in their order, each with the phase objects shows", () => {
    const phases: unknown[] = [];
    for (const name of Object.keys(BUILTIN_YAML)) {
      const sc = loadK8sScenario(BUILTIN_YAML[name]!, `${name}.yaml`);
      for (const version of [sc.incident.affected, sc.incident.fixed]) {
        const r = runK8sScenario(sc, { version, logs: false });
        const pods = finalPods(r).map((p) => [p.metadata.namespace, p.metadata.name, p.status?.phase]);
        // (a separate run: reading objects first would make finalPods give the built views)
        const shown = runK8sScenario(sc, { version, logs: false }).objects.filter((o) => o.kind === "Pod").map((p) => [p.metadata.namespace, p.metadata.name, p.status?.phase]);
        expect(pods).toEqual(shown);
        phases.push(...pods.map((p) => p[2]));
      }
    }
    // (not vacuous: pods end Running and not)
    expect(phases).toContain("Running");
    expect(phases.some((p) => p !== "Running")).toBe(true);
  });
});

describe("a run without log lines", () => {
  it("explains its violations as a run with them does (the causal notes do not depend on logging)", () => {
    // rbd's EBUSY note was kept only while logging: a logs-off run's
    // released-after-pods explanation lacked the process holding the mount
    let explained = 0;
    for (const name of Object.keys(BUILTIN_YAML)) {
      const sc = loadK8sScenario(BUILTIN_YAML[name]!, `${name}.yaml`);
      for (const version of [sc.incident.affected, sc.incident.fixed]) {
        const on = runK8sScenario(sc, { version, logs: true }).violations;
        const off = runK8sScenario(sc, { version, logs: false }).violations;
        expect(off.map((v) => [v.name, v.timeMs, v.explanation])).toEqual(on.map((v) => [v.name, v.timeMs, v.explanation]));
        explained += on.length;
      }
    }
    expect(explained).toBeGreaterThan(0);
  });
});

describe("a pod without volumes", () => {
  // volumemanager.WaitForAttachAndMount returns at once when the pod has no
  // volumes; the replay waited for a desired-state entry that is never made
  // for such a pod, and the pod stayed Pending for ever
  const sc = loadK8sScenario(
    `name: no-volumes
duration: 2m
objects:
  - kind: Node
    metadata: {name: n1}
  - kind: Pod
    metadata: {name: p}
    spec:
      nodeName: n1
      containers: [{name: c}]
expect:
  - podRunning: p
`,
    "no-volumes.yaml",
  );

  it("starts its containers at the kubelet's first sync and runs, with every invariant holding", () => {
    const r = runK8sScenario(sc, { steps: true });
    expect(r.violations).toEqual([]);
    const running = r.steps.find((s) => s.name === "kubelet.PodRunning");
    expect(running?.detail).toBe("default/p");
    expect(running!.t).toBeLessThan(5_000);
    expect(finalPods(r).map((p) => p.status?.phase)).toEqual(["Running"]);
  });
});

describe("a result's objects", () => {
  it("are the caller's to edit: editing one leaves the scenario as loaded, and the next run replays it unchanged", () => {
    const sc = builtinK8sScenario("detach-backoff-node-status")!;
    const version = sc.incident!.fixed;
    const first = runK8sScenario(sc, { version });
    const before = JSON.stringify(sc.objects);
    const firstObjects = JSON.stringify(first.objects);
    for (const o of first.objects) {
      (o.spec as Record<string, unknown>).edited = true;
      if (Array.isArray(o.spec?.volumes)) (o.spec.volumes as unknown[]).length = 0;
      if (o.status !== undefined) (o.status as Record<string, unknown>).edited = true;
    }
    expect(JSON.stringify(sc.objects)).toBe(before);
    const again = runK8sScenario(sc, { version });
    expect(JSON.stringify(again.objects)).toBe(firstObjects);
    expect(again.timeline).toEqual(first.timeline);
    expect(again.violations).toEqual(first.violations);
  });
});

describe("a run's events", () => {
  it("are the same with and without log lines: the kubelet's housekeeping, started only when lines are built, is left out of the count (a logs-on run counted its passes: 224 events against 218 for csi-attachment-name on 1.22)", async () => {
    const { builtinK8sScenarios } = await import("../index.js");
    let housekeeping = 0;
    for (const sc of builtinK8sScenarios())
      for (const version of [sc.incident!.affected, sc.incident!.fixed, "1.18", "1.31"])
        for (const seed of [1, 2]) {
          const on = runK8sScenario(sc, { logs: true, version, seed });
          const off = runK8sScenario(sc, { logs: false, version, seed });
          expect(on.stats.events, `${sc.name} ${version} seed ${seed}`).toBe(off.stats.events);
          if (on.logs.some((l) => l.text.includes("kubelet_volumes.go"))) housekeeping++;
          // the rest of the run is the logs-off run's
          expect(on.steps).toEqual(off.steps);
        }
    // (housekeeping did run and log in some of them: what the count leaves out is there)
    expect(housekeeping).toBeGreaterThan(0);
  });
});

describe("attach failure event text", () => {
  it("quotes the VolumeAttachment's attachError as it is: one `rpc error:` prefix (csi_attacher.go verifyAttachmentStatus: errors.New(attachErr.Message))", () => {
    const r = runK8sScenario(builtinK8sScenario("csi-attachment-name")!, { version: "1.22" });
    const failed = r.timeline.filter((e) => e.reason === "FailedAttachVolume" && e.message.startsWith("AttachVolume.Attach failed"));
    expect(failed.length).toBeGreaterThan(0);
    for (const e of failed) {
      expect(e.message).toMatch(/^AttachVolume\.Attach failed for volume "[^"]+" : rpc error: code = Internal desc = Volume has been published to a different host already$/);
      expect(e.message).not.toContain("rpc error: rpc error:");
    }
  });
});
