// A run that keeps no log line but still decides its log checks (logs:
// "checks", the Monte Carlo setting): every `log:` / `noLog:` expectation and
// symptom comes out as a run with the full log decides it, and a run without
// logs says it did not check them instead of passing them quietly.
import { describe, expect, it } from "vitest";
import { builtinK8sScenarios } from "../index.js";
import { decideK8sLogChecks, runK8sScenario } from "../scenario/run.js";
import type { Expectation } from "../scenario/schema.js";
import { monoText, Recorder, type LogNeedle } from "./recorder.js";

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

  it("finds any line's text as the full log does: every component's last line, texts across the header and message, across fixed and variable text, with and without a component", () => {
    // checks made from the full log's own lines, so each needle is found (or,
    // under another component, not) only if the lines it needs are built as
    // the full log has them: a line a shortcut skipped (a component not
    // named, a cached part of a message) would decide a check differently
    let checks = 0;
    for (const sc of scenarios)
      for (const version of [sc.incident!.affected, sc.incident!.fixed]) {
        const full = runK8sScenario(sc, { version, seed: 3, logs: true });
        const comps = [...new Set(full.logs.map((l) => l.component))];
        const symptom: Expectation[] = [];
        const add = (check: Expectation["check"]): void => void symptom.push({ name: `${check.kind} ${symptom.length}`, check });
        for (const comp of comps) {
          const lines = full.logs.filter((l) => l.component === comp);
          for (const l of [lines[0]!, lines[lines.length >> 1]!, lines[lines.length - 1]!]) {
            const m = l.text.indexOf("] ") + 2;
            const mid = l.text.slice(m + ((l.text.length - m) >> 2), m + ((l.text.length - m) >> 2) + 40);
            add({ kind: "log", contains: mid, component: comp.split("/")[0] });
            add({ kind: "log", contains: l.text.slice(m - 12, m + 20) });
            add({ kind: "log", contains: l.text.slice(-30) });
            add({ kind: "noLog", contains: mid, component: comps.find((c) => !c.startsWith(comp.split("/")[0]!))?.split("/")[0] ?? "nobody" });
          }
        }
        add({ kind: "log", contains: "no such text in any line" });
        const probe = { ...sc, symptom };
        const want = runK8sScenario(probe, { version, seed: 3, logs: true }).symptoms;
        expect(want.filter((c) => c.held).length).toBeGreaterThan(symptom.length / 2);
        expect(decideK8sLogChecks(probe, { version, seed: 3 }).symptoms, `${sc.name} ${version}`).toEqual(want);
        expect(runK8sScenario(probe, { version, seed: 3, logs: "checks" }).symptoms).toEqual(want);
        checks += symptom.length;
      }
    expect(checks).toBeGreaterThan(150);
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

  it("finds a text across a klog line's header and message (one ending the header, one starting with the space before the message), one in the header alone, and not one that differs in case", () => {
    const clock = { startUtcMs: Date.UTC(2020, 1, 26, 10, 0, 0), offsetMin: 480, zone: "CST" };
    const texts = [":7] Volume not", " Volume not attached", "reconciler.go:7", "E0226 18:00:01.2", "go:7] volume"];
    const needles: LogNeedle[] = texts.map((contains) => ({ contains, component: undefined, hit: null }));
    const out = new Recorder(needles, clock, () => 1200);
    out.log("kubelet/node-1", "E", "reconciler.go:7", "Volume not attached according to node status");
    // (the last differs in case only: found by none)
    expect(needles.map((n) => n.hit?.text.includes(n.contains) ?? null)).toEqual([true, true, true, true, null]);
    expect(out.on).toBe(true);
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

describe("klog stamps and Go times (the date formatted once a day, the time of day by arithmetic)", () => {
  // the reference: every field read from new Date(local), as the recorder did before
  const p2 = (n: number): string => (n < 10 ? `0${n}` : String(n));
  const frac = (ms: number): string => {
    if (ms === 0) return "";
    let f = String(ms).padStart(3, "0");
    while (f.endsWith("0")) f = f.slice(0, -1);
    return `.${f}`;
  };
  const refStamp = (local: number): string => {
    const d = new Date(local);
    return `${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, "0")}000`;
  };
  const refGoTime = (local: number, offsetMin: number, zone: string, mono: number): string => {
    const d = new Date(local);
    const a = Math.abs(offsetMin);
    return (
      `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ` +
      `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}${frac(d.getUTCMilliseconds())} ` +
      `${offsetMin < 0 ? "-" : "+"}${p2(Math.floor(a / 60))}${p2(a % 60)} ${zone} m=+${mono.toFixed(9)}`
    );
  };

  it("match new Date()'s fields for times across days, months, years, zones, fractions of a ms and before 1970", () => {
    const clocks = [
      { startUtcMs: Date.UTC(2020, 1, 28, 23, 59, 58, 999), offsetMin: 480, zone: "CST" },
      { startUtcMs: Date.UTC(2023, 11, 31, 23, 0, 0), offsetMin: -420, zone: "-07" },
      { startUtcMs: Date.UTC(1969, 11, 31, 23, 59, 59, 500), offsetMin: 0, zone: "UTC" },
      { startUtcMs: -5000, offsetMin: 330, zone: "IST" },
    ];
    const ts = [0, 1, 7.5, 999, 1000, 1001.999, 60_000, 61_234, 86_399_999, 86_400_000, 3_600_000 * 30 + 17, 40 * 86_400_000 + 123];
    let n = 0;
    for (const clock of clocks) {
      let now = 0;
      const out = new Recorder(true, clock, () => now);
      out.processStarted("kubelet/n1", 1500);
      for (const t of ts) {
        now = t;
        out.log("kubelet/n1", "I", "x.go:1", "m");
        const local = clock.startUtcMs + t + clock.offsetMin * 60000;
        expect(out.logs.at(-1)!.text, `${JSON.stringify(clock)} t=${t}`).toBe(`I${refStamp(local)}    1500 x.go:1] m`);
        expect(out.goTime(t, "kubelet/n1")).toBe(refGoTime(local, clock.offsetMin, clock.zone, t / 1000));
        n++;
      }
    }
    expect(n).toBe(clocks.length * ts.length);
  });
});

describe("monoText (goTime's m=+s.nnnnnnnnn)", () => {
  it("is (d / 1000).toFixed(9) for whole and fractional ms, large and negative ones", () => {
    const ds = [0, 1, 7, 999, 1000, 1001, 91_720, 208_420, 123_456_789, 999_999_999, 1e9, 4_294_967_297, 8.5, 0.1, 1234.5678, -1, -1000.5];
    for (let i = 0; i < 20000; i++) ds.push(Math.floor(((i * 2654435761) % 4294967296) / 4.294967296), i * 997);
    for (const d of ds) expect(monoText(d), `d=${d}`).toBe((d / 1000).toFixed(9));
  });
});
