import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { BUILTIN_YAML } from "../scenarios/builtin.generated.js";
import { k8sScenarioFromValue, k8sScenarioKeysFromValue, loadK8sScenario, ScenarioError } from "./loader.js";

const base = `name: t
objects:
  - kind: Node
    metadata: {name: n1}
`;

function err(text: string): ScenarioError {
  try {
    loadK8sScenario(text, "bad.yaml");
  } catch (e) {
    return e as ScenarioError;
  }
  throw new Error("no error");
}

describe("scenario loader", () => {
  it("names file, line and field of a bad duration", () => {
    const e = err(base + "timeline:\n  - at: soon\n    action: nodeReady\n    node: n1\n");
    expect(e.message).toBe('bad.yaml:6: timeline[0].at: expected a duration like "500ms" or "2m2s", got "soon"');
  });
  it("rejects an unknown action with the known ones", () => {
    const e = err(base + "timeline:\n  - at: 1s\n    action: explode\n");
    expect(e.line).toBe(7);
    expect(e.message).toContain("unknown action");
  });
  it("rejects a pod without a node, an unknown field, a bad version and a YAML syntax error", () => {
    expect(err(base + "  - kind: Pod\n    metadata: {name: p}\n    spec: {containers: [{name: c}]}\n").message).toMatch(/^bad\.yaml:7: objects\[1\]\.spec\.nodeName: pods must name their node/);
    expect(err(base + "colour: blue\n").message).toMatch(/^bad\.yaml:5: colour: unknown field/);
    expect(err(base + "version: '2.0'\n").message).toMatch(/^bad\.yaml:5: version: bad Kubernetes version/);
    expect(err("name: [\n").message).toMatch(/^bad\.yaml:\d+: YAML:/);
  });
  it("rejects a step name no component announces, and counts and seeds that are not whole numbers, at their line", () => {
    const tl = (item: string) => err(base + "timeline:\n  - " + item + "\n    action: nodeReady\n    node: n1\n");
    const typo = tl("after: adc.DetachFaild");
    expect(typo.message).toMatch(/^bad\.yaml:6: timeline\[0\]\.after: unknown step "adc\.DetachFaild" \(known: adc\.AttachSucceeded, /);
    expect(tl("between: [adc.DetachFailed, kubelet.Nope]").message).toMatch(/^bad\.yaml:6: timeline\[0\]\.between\[1\]: unknown step "kubelet\.Nope"/);
    for (const c of ["0", "abc", "1.5", "-2"]) {
      expect(err(base + `timeline:\n  - after: adc.DetachFailed\n    count: ${c}\n    action: nodeReady\n    node: n1\n`).message)
        .toMatch(/^bad\.yaml:7: timeline\[0\]\.count: expected a whole number >= 1/);
    }
    expect(err(base + "faults:\n  storage:\n    - {op: detach, count: -1, error: busy}\n").message).toMatch(/^bad\.yaml:\d+: faults\.storage\[0\]\.count: expected a whole number >= 0, got -1/);
    expect(err(base + "seed: 1.5\n").message).toMatch(/^bad\.yaml:5: seed: expected a whole number >= 0, got 1\.5/);
    expect(err(base + "expect:\n  - step: {name: adc.Detached}\n").message).toMatch(/expect\[0\]\.step\.name: unknown step "adc\.Detached"/);
    // what the docs allow still loads
    const ok = loadK8sScenario(base + "seed: 7\ntimeline:\n  - between: [adc.DetachFailed, adc.DetachSucceeded]\n    count: 2\n    action: nodeReady\n    node: n1\nfaults:\n  storage:\n    - {op: detach, count: always, error: busy}\n    - {op: attach, count: \"3\", error: busy}\n", "ok.yaml");
    expect(ok.seed).toBe(7);
    expect(ok.timeline[0]!.between).toEqual({ from: "adc.DetachFailed", to: "adc.DetachSucceeded", count: 2 });
    expect(ok.storageFaults.map((f) => f.count)).toEqual([Infinity, 3]);
  });

  it("parses faults, the timeline and checks", () => {
    const sc = loadK8sScenario(
      base +
        `timeline:
  - after: adc.DetachFailed
    delay: 300ms
    action: restartControllerManager
faults:
  storage:
    - {op: detach, count: 2, error: busy}
  watch:
    - {component: kube-controller-manager, delay: 5s, from: 1m, until: 2m}
expect:
  - podRunning: web-0
`,
      "ok.yaml",
    );
    expect(sc.timeline[0]!.after).toEqual({ step: "adc.DetachFailed", count: 1, delayMs: 300 });
    expect(sc.storageFaults[0]).toMatchObject({ op: "detach", count: 2, error: "busy" });
    expect(sc.watchFaults[0]).toEqual({ component: "kube-controller-manager", extraMs: 5000, fromMs: 60000, untilMs: 120000 });
    expect(sc.expect[0]!.check).toEqual({ kind: "podRunning", pod: "default/web-0" });
  });

  it("loads some keys as the whole load does (fields, defaults, errors) and reads no other", () => {
    const fieldsOf: Record<string, string[]> = { version: ["version"], fixes: ["fixes"], clock: ["clock"], settings: ["settings"], duration: ["durationMs"], timeline: ["timeline"], faults: ["storageFaults", "apiFaults", "watchFaults"], expect: ["expect"] };
    for (const text of Object.values(BUILTIN_YAML)) {
      const doc = parse(text) as Record<string, unknown>;
      const whole = k8sScenarioFromValue(parse(text), "w.yaml") as unknown as Record<string, unknown>;
      for (const [key, fields] of Object.entries(fieldsOf)) {
        // the other keys are junk the whole load would reject
        const part = k8sScenarioKeysFromValue({ ...doc, name: 7, objects: "junk", [key]: doc[key] }, [key], "w.yaml") as Record<string, unknown>;
        for (const f of fields) expect(part[f]).toEqual(whole[f]);
      }
    }
    const lines = new Map([["timeline[0].at", 9]]);
    const bad = { name: "t", timeline: [{ at: "soon", action: "nodeReady", node: "n1" }] };
    const errOf = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as Error).message;
      }
      return "";
    };
    expect(errOf(() => k8sScenarioKeysFromValue(bad, ["timeline"], "b.yaml", lines))).toBe(errOf(() => k8sScenarioFromValue(bad, "b.yaml", lines)));
    expect(errOf(() => k8sScenarioKeysFromValue(bad, ["timeline"], "b.yaml", lines))).toBe('b.yaml:9: timeline[0].at: expected a duration like "500ms" or "2m2s", got "soon"');
  });
  it("reuses the load of a frozen manifest or timeline item, and gives what an unfrozen document gives", () => {
    const freeze = <T>(v: T): T => {
      if (typeof v === "object" && v !== null) {
        Object.freeze(v);
        for (const x of Object.values(v)) freeze(x);
      }
      return v;
    };
    for (const text of Object.values(BUILTIN_YAML)) {
      const plain = k8sScenarioFromValue(parse(text), "f.yaml");
      const frozen = freeze(parse(text));
      const a = k8sScenarioFromValue(frozen, "f.yaml");
      const b = k8sScenarioFromValue(frozen, "f.yaml");
      expect(a).toEqual(plain);
      expect(b).toEqual(plain);
      for (let i = 0; i < a.objects.length; i++) {
        expect(b.objects[i]).toBe(a.objects[i]);
        expect(Object.isFrozen(a.objects[i]!.metadata)).toBe(true);
      }
      for (let i = 0; i < a.timeline.length; i++) expect(b.timeline[i]).toBe(a.timeline[i]);
    }
  });
});

describe("a check's fields", () => {
  const check = (line: string) => err(base + "expect:\n  - " + line + "\n").message;

  it("refuses a misspelt field at its line (nodeVolumesAttached {node, contain} held whatever the node had; log {compnent} read every component)", () => {
    expect(check("nodeVolumesAttached: {node: n1, contain: kubernetes.io/csi/d^v}")).toBe("bad.yaml:6: expect[0].nodeVolumesAttached.contain: unknown field (expected one of node, contains, lacks)");
    expect(check("log: {contains: x, compnent: kubelet}")).toMatch(/^bad\.yaml:6: expect\[0\]\.log\.compnent: unknown field/);
    expect(check("step: {name: adc.DetachFailed, mx: 0}")).toMatch(/^bad\.yaml:6: expect\[0\]\.step\.mx: unknown field/);
  });

  it("refuses nodeVolumesAttached with neither contains nor lacks, which held on any node", () => {
    expect(check("nodeVolumesAttached: {node: n1}")).toMatch(/^bad\.yaml:6: expect\[0\]\.nodeVolumesAttached: give contains or lacks/);
  });

  it("takes only true or false for exists, present and mapped (a quoted \"false\" or a YAML 1.1 `no` was read as true)", () => {
    expect(check("volumeAttachment: {volumeHandle: v, node: n1, exists: no}")).toBe('bad.yaml:6: expect[0].volumeAttachment.exists: expected true or false, got "no"');
    expect(check('hostMount: {node: n1, pathContains: x, present: "false"}')).toMatch(/^bad\.yaml:6: expect\[0\]\.hostMount\.present: expected true or false, got "false"/);
    expect(check("rbdMapped: {node: n1, image: p/i, mapped: 0}")).toMatch(/^bad\.yaml:6: expect\[0\]\.rbdMapped\.mapped: expected true or false, got 0/);
    const ok = loadK8sScenario(base + "expect:\n  - rbdMapped: {node: n1, image: p/i, mapped: false}\n  - hostMount: {node: n1, pathContains: x}\n", "ok.yaml");
    expect(ok.expect.map((e) => e.check)).toEqual([
      { kind: "rbdMapped", node: "n1", image: "p/i", mapped: false },
      { kind: "hostMount", node: "n1", pathContains: "x", present: true },
    ]);
  });

  it("refuses a log component no component logs as (a noLog check on `kublet` held unread) and a pod phase Kubernetes has not", () => {
    expect(check("noLog: {contains: attach, component: kublet}")).toMatch(/^bad\.yaml:6: expect\[0\]\.noLog\.component: unknown component "kublet" \(known: kube-controller-manager, csi-attacher, kubelet, rbd, kubelet\/NODE, rbd\/NODE\)/);
    expect(check("podPhase: {pod: p, phase: running}")).toMatch(/^bad\.yaml:6: expect\[0\]\.podPhase\.phase: unknown pod phase "running"/);
    const ok = loadK8sScenario(base + "expect:\n  - log: {contains: x, component: kubelet/n1}\n  - log: {contains: x, component: kube-controller-manager}\n  - log: {contains: x, component: rbd}\n", "ok.yaml");
    expect(ok.expect.map((e) => (e.check as { component?: string }).component)).toEqual(["kubelet/n1", "kube-controller-manager", "rbd"]);
  });

  it("refuses a step check whose max is below its min", () => {
    expect(check("step: {name: adc.DetachFailed, min: 2, max: 1}")).toMatch(/^bad\.yaml:6: expect\[0\]\.step\.max: max 1 is below min 2/);
  });
});

describe("fixes:", () => {
  it("takes on, off, true or false and refuses anything else (`79940: 1` or `104526: yes` turned the fix off, even where the version has it)", () => {
    expect(err(base + "fixes: {79940: 1}\n").message).toBe("bad.yaml:5: fixes.79940: expected on or off, got 1");
    expect(err(base + "fixes: {104526: yes}\n").message).toBe('bad.yaml:5: fixes.104526: expected on or off, got "yes"');
    const ok = loadK8sScenario(base + "fixes: {104526: on, 79940: off, 107025: true, '#108997': false}\n", "ok.yaml");
    expect(ok.fixes).toEqual({ 104526: true, 79940: false, 107025: true, 108997: false });
  });
});

describe("a timeline item's fields", () => {
  const item = (fields: string) => err(base + "timeline:\n  - {" + fields + "}\n").message;

  it("refuses a field its action does not take (restartKubelet's `delay: 4s` was dropped and the kubelet came back after the default 2 s; `count:` with `at:` fired once)", () => {
    expect(item("at: 60s, action: restartKubelet, node: n1, delay: 4s")).toBe("bad.yaml:6: timeline[0].delay: delay is for after:, not at:");
    expect(item("at: 60s, action: deletePod, pod: p, count: 3")).toBe("bad.yaml:6: timeline[0].count: count is for after: and between:, not at:");
    expect(item("at: 60s, action: deletePod, pod: p, node: n1")).toBe("bad.yaml:6: timeline[0].node: deletePod does not take node (it takes pod, grace)");
    expect(item("at: 60s, action: crashControllerManager, down: 5s")).toBe("bad.yaml:6: timeline[0].down: crashControllerManager does not take down (it takes no other field)");
    const ok = loadK8sScenario(base + "timeline:\n  - {after: adc.DetachFailed, count: 2, delay: 1s, action: restartKubelet, node: n1, down: 4s}\n", "ok.yaml");
    expect(ok.timeline[0]).toMatchObject({ after: { step: "adc.DetachFailed", count: 2, delayMs: 1000 }, action: { kind: "restartKubelet", node: "n1", downMs: 4000 } });
  });
});

describe("deletePod's grace", () => {
  it("needs a unit: `grace: 30` (kubectl's --grace-period=30) was 30 ms", () => {
    expect(err(base + "timeline:\n  - {at: 60s, action: deletePod, pod: p, grace: 30}\n").message).toBe('bad.yaml:6: timeline[0].grace: give a unit, e.g. "30s" (a bare number would be ms, not kubectl\'s --grace-period seconds)');
    const ok = loadK8sScenario(base + "timeline:\n  - {at: 60s, action: deletePod, pod: p, grace: 30s}\n  - {at: 70s, action: deletePod, pod: q, grace: 0s}\n  - {at: 80s, action: deletePod, pod: r, grace: 0}\n", "ok.yaml");
    expect(ok.timeline.map((t) => (t.action as { graceSeconds?: number }).graceSeconds)).toEqual([30, 0, 0]);
  });
});

describe("a timeline item's at:", () => {
  it("past the end of the run is refused (it never fired)", () => {
    expect(err(base + "duration: 10m\ntimeline:\n  - {at: 30m, action: nodeReady, node: n1}\n").message).toBe("bad.yaml:7: timeline[0].at: 30m0s is after the end of the run (duration 10m0s)");
    expect(err(base + "timeline:\n  - {at: 21m, action: nodeReady, node: n1}\n").message).toBe("bad.yaml:6: timeline[0].at: 21m0s is after the end of the run (duration 20m0s, the default)");
  });
});
