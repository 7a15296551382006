import { describe, expect, it } from "vitest";
import { loadK8sScenario, ScenarioError } from "./loader.js";

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
});
