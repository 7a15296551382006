// The scenario format's example in bindings/k8s/README.md is a complete
// scenario: it loads as written and runs (its `manifest: {...}` placeholder
// made the loader stop at timeline[1].manifest.kind).
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { loadK8sScenario } from "./loader.js";
import { runK8sScenario } from "./run.js";

const README = readFileSync(resolve(__dirname, "..", "README.md"), "utf8");
const example = /## Scenario format\n[\s\S]*?```yaml\n([\s\S]*?)```/.exec(README)![1]!;

describe("the README's scenario example", () => {
  it("loads as written and replays with its expectation holding", () => {
    const sc = loadK8sScenario(example, "README.md");
    expect(sc.objects.map((o) => o.kind)).toEqual(["Node", "PersistentVolume", "PersistentVolumeClaim", "Pod"]);
    expect(sc.timeline.map((t) => t.action.kind)).toEqual(["deletePod", "createPod", "restartKubelet"]);
    const r = runK8sScenario(sc, { steps: true });
    // the detach fault fires and the re-created pod comes up on 1.22 with #104526 on
    expect(r.steps.some((s) => s.name === "adc.DetachFailed")).toBe(true);
    expect(r.violations).toEqual([]);
    expect(r.expectations.map((e) => e.held)).toEqual([true]);
  });
});
