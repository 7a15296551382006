// A run that keeps no log line but still decides its log checks (logs:
// "checks", the Monte Carlo setting): every `log:` / `noLog:` expectation and
// symptom comes out as a run with the full log decides it, and a run without
// logs says it did not check them instead of passing them quietly.
import { describe, expect, it } from "vitest";
import { builtinK8sScenarios } from "../index.js";
import { decideK8sLogChecks, runK8sScenario } from "../scenario/run.js";
import { Recorder, type LogNeedle } from "./recorder.js";

const isLog = (kind: string): boolean => kind === "log" || kind === "noLog";

describe("log checks without keeping the log (logs: \"checks\", decideK8sLogChecks)", () => {
  const scenarios = builtinK8sScenarios();

  it("decides every built-in scenario's log checks as the full log does, on its affected and fixed versions, keeping no line", () => {
    let logChecks = 0;
    let failed = 0;
    for (const sc of scenarios)
      for (const version of [sc.incident!.affected, sc.incident!.fixed, "1.18", "1.31"])
        for (const seed of [1, 7]) {
          const opts = { version, seed, steps: true };
          const full = runK8sScenario(sc, { ...opts, logs: true });
          const lean = runK8sScenario(sc, { ...opts, logs: "checks" });
          expect(lean.logs).toEqual([]);
          expect(lean.symptoms, `${sc.name} ${version} seed ${seed}`).toEqual(full.symptoms);
          expect(lean.expectations).toEqual(full.expectations);
          expect(lean.violations.map((v) => [v.name, v.timeMs])).toEqual(full.violations.map((v) => [v.name, v.timeMs]));
          // and the run that stops once every log check's text is found gives the same log checks
          const isLogCheck = (c: { name: string }): boolean => c.name.startsWith("log ") || c.name.startsWith("noLog ");
          expect(decideK8sLogChecks(sc, opts)).toEqual({ expectations: full.expectations.filter(isLogCheck), symptoms: full.symptoms.filter(isLogCheck) });
          for (const s of full.symptoms) if (isLogCheck(s)) (logChecks++, (failed += s.held ? 0 : 1));
        }
    // the symptoms' log lines are there on affected versions and missing on fixed ones: both outcomes were compared
    expect(logChecks).toBeGreaterThan(40);
    expect(failed).toBeGreaterThan(5);
    expect(failed).toBeLessThan(logChecks);
  });

  it("matches a line's klog header too, and turns logging off once every check's text is found", () => {
    let now = 0;
    const clock = { startUtcMs: Date.UTC(2020, 1, 26, 10, 0, 0), offsetMin: 480, zone: "CST" };
    const needles: LogNeedle[] = [
      { contains: "not attached", component: "kubelet", hit: null },
      { contains: "E0226 18:00:01", component: undefined, hit: null },
    ];
    const out = new Recorder(needles, clock, () => now);
    expect(out.on).toBe(true);
    now = 500;
    out.log("kube-controller-manager", "E", "x.go:1", "volume not attached"); // the header's second, not the component
    expect(needles.map((n) => n.hit)).toEqual([null, null]);
    now = 1200;
    out.log("kubelet/node-1", "E", "reconciler.go:7", "Volume not attached according to node status");
    expect(needles[0]!.hit!.text).toMatch(/^E0226 18:00:01\.200000 +1 reconciler\.go:7\] Volume not attached/);
    expect(needles[1]!.hit).toBe(needles[0]!.hit);
    expect(out.on).toBe(false);
    expect(out.logs).toEqual([]);
  });

  it("a run without logs (logs: false) marks its log checks as not checked", () => {
    for (const sc of scenarios) {
      const r = runK8sScenario(sc, { version: sc.incident!.fixed, logs: false });
      sc.symptom.forEach((s, i) => {
        expect(r.symptoms[i]!.checked).toBe(isLog(s.check.kind) ? false : undefined);
        if (isLog(s.check.kind)) expect(r.symptoms[i]!.detail).toBe("logs off: not checked");
      });
    }
  });
});
