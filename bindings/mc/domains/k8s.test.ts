// The Kubernetes domain: the detach-backoff sweep (seed 002) finds the
// incident, and its shrunk repro is a plain scenario that the k8s loader
// (what `iosim k8s run` reads) replays to the same failure.
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadK8sScenario } from "../../k8s/scenario/loader.js";
import { runK8sScenario } from "../../k8s/scenario/run.js";
import { k8sDomain, k8sOutcome, INCIDENT_CLASS } from "./k8s.js";
import { TemplateModel } from "../model.js";
import { modelFromText, runOne } from "../run-one.js";
import { summarise } from "../summary.js";
import type { JournalHeader } from "../journal.js";
import { runSeed } from "../rng.js";
import { shrinkToClass } from "../shrink.js";

const FILE = resolve(__dirname, "..", "examples", "k8s-detach-backoff.yaml");
const TEXT = readFileSync(FILE, "utf8");

describe("k8s domain: seed incident 002 as a sweep", () => {
  const model = modelFromText(TEXT, FILE);
  const header: JournalHeader = { mc: 1, scenario: { file: FILE, digest: "x", text: TEXT }, seed: "3", runs: 200, shard: { index: 0, count: 1 } };
  const records = Array.from({ length: 200 }, (_, i) => runOne(model, 3n, i));

  it("the stuck pod happens only without #104526, and only when the new pod lands inside a detach backoff", () => {
    const stuck = records.filter((r) => r.classes.includes(INCIDENT_CLASS));
    expect(stuck.length).toBeGreaterThan(5);
    for (const r of stuck) expect(r.params.fix104526).toBe(false);
    // landing within 500 ms of the first failed detach, before its retry, is always the incident on 1.22
    const early = records.filter((r) => r.params.fix104526 === false && parseInt(String(r.params.landDelay), 10) < 400);
    expect(early.length).toBeGreaterThan(0);
    for (const r of early) expect(r.classes).toContain(INCIDENT_CLASS);
  });

  it("the shrunk repro is a plain k8s scenario that replays, with its seed, to the same failure", () => {
    const dir = mkdtempSync(join(tmpdir(), "mc-k8s-"));
    try {
      const s = summarise(header, records, model, { outDir: dir });
      const c = s.classes[INCIDENT_CLASS]!;
      expect(c.repro).toBeDefined();
      const text = readFileSync(join(dir, c.repro!.file), "utf8");
      expect(text).not.toMatch(/param:|uniform|randint|bernoulli/);
      const sc = loadK8sScenario(text, c.repro!.file);
      expect(sc.seed).toBe(c.repro!.seed);
      expect(k8sOutcome(sc, sc.seed).classes).toContain(INCIDENT_CLASS);
      // shrinking moved towards the simplest case: the earliest landing still stuck, one refused detach
      const from = records.find((r) => r.i === c.repro!.run)!;
      expect(parseInt(String(c.repro!.params.landDelay), 10)).toBeLessThanOrEqual(parseInt(String(from.params.landDelay), 10));
      expect(c.repro!.params.busyDetaches).toBe(1);
      expect(c.repro!.sizeAfter).toBeLessThanOrEqual(c.repro!.sizeBefore);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a sampled value the k8s loader rejects is an error outcome naming the field, not a crash", () => {
    const bad = TEXT.replace("landDelay: {uniform: [\"0ms\", \"6000ms\"]}", "landDelay: {choice: [\"soon\"]}");
    const m = modelFromText(bad, "bad.yaml");
    const out = m.run(m.sample(runSeed(1n, 0)), 1);
    expect(out.classes).toHaveLength(1);
    expect(out.classes[0]).toMatch(/^error:bad\.yaml:\d+: timeline\[1\]\.delay: expected a duration/);
  });
});

describe("k8s domain: shrinking drops the faults a failure does not need", () => {
  const NOISY = resolve(__dirname, "..", "examples", "k8s-detach-backoff-noisy.yaml");
  const text = readFileSync(NOISY, "utf8");
  const model = modelFromText(text, NOISY);
  const header: JournalHeader = { mc: 1, scenario: { file: NOISY, digest: "x", text }, seed: "1", runs: 400, shard: { index: 0, count: 1 } };
  const records = Array.from({ length: 400 }, (_, i) => runOne(model, 1n, i));

  it("shrinking a noisy stuck run keeps the refused detach and the early landing, and drops the restarts, NotReady and watch delays", () => {
    // the noisiest run that shows the incident
    const noise = (i: number) => {
      const d = model.sample(records[i]!.seed).doc as { timeline: unknown[]; faults: { watch: unknown[] } };
      return d.timeline.length - 2 + d.faults.watch.length;
    };
    const stuck = records.filter((r) => r.classes.includes(INCIDENT_CLASS));
    const worst = stuck.reduce((a, b) => (noise(b.i) > noise(a.i) ? b : a));
    expect(noise(worst.i)).toBeGreaterThanOrEqual(2);
    const r = shrinkToClass(model, model.sample(worst.seed), worst.seed, INCIDENT_CLASS);
    expect(r.sizeAfter).toBeLessThan(r.sizeBefore);
    const text = model.serialize(r.concrete, worst.seed, "test");
    const sc = loadK8sScenario(text, "repro.yaml");
    expect(sc.timeline.map((t) => t.action.kind)).toEqual(["deletePod", "createPod"]);
    expect(sc.watchFaults).toEqual([]);
    expect(sc.storageFaults.map((f) => [f.op, f.count])).toEqual([["detach", 1]]);
    expect(sc.timeline[1]!.after?.delayMs).toBe(0);
    expect(k8sOutcome(sc, sc.seed).classes).toContain(INCIDENT_CLASS);
  });

  it("the sweep's repro file replays through `iosim k8s run` to the same violations", () => {
    const dir = mkdtempSync(join(tmpdir(), "mc-k8s-noisy-"));
    try {
      const s = summarise(header, records, model, { outDir: dir });
      const c = s.classes[INCIDENT_CLASS]!;
      const main = resolve(__dirname, "..", "..", "..", "dist", "bindings", "cli", "main.js");
      if (!existsSync(main)) return; // the lead's CLI is not built in this checkout
      let out = "";
      try {
        out = execFileSync(process.execPath, [main, "k8s", "run", join(dir, c.repro!.file), "--json"], { encoding: "utf8" });
      } catch (e) {
        out = (e as { stdout: string }).stdout; // exit 1: violations found
      }
      const j = JSON.parse(out) as { violations: Array<{ name: string }>; symptoms: Array<{ held: boolean }> };
      expect(j.violations.map((v) => v.name)).toContain("attached-reported");
      expect(j.symptoms.every((x) => x.held)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("k8s domain: the scenario compiled once per worker", () => {
  // (the other seed incidents' sweeps draw inside objects or settings, which the compiled path loads per run too)
  for (const name of ["k8s-detach-backoff.yaml", "k8s-detach-backoff-noisy.yaml", "k8s-rbd-unmap-busy.yaml", "k8s-csi-attachment-name.yaml", "k8s-csi-inline-orphan.yaml"]) {
    it(`${name}: 300 runs give the same outcomes as loading each whole sample, and the shared base is never written`, () => {
      const file = resolve(__dirname, "..", "examples", name);
      const text = readFileSync(file, "utf8");
      const fast = modelFromText(text, file);
      const slow = new TemplateModel({ ...fast.spec, domain: { ...k8sDomain, preparer: undefined } });
      if (name.startsWith("k8s-detach-backoff")) {
        expect(fast.randomKeys()).toEqual(expect.arrayContaining(["timeline", "faults"]));
        expect(fast.randomKeys()).not.toContain("objects");
      } else expect(fast.randomKeys().length).toBeGreaterThan(0);
      expect(fast.compiled()).toBe(true);
      expect(slow.compiled()).toBe(false);
      for (let i = 0; i < 300; i++) {
        const seed = runSeed(5n, i);
        const a = fast.run(fast.sample(seed), seed);
        expect(a.classes.filter((c) => c.startsWith("error:"))).toEqual([]);
        expect(a).toEqual(slow.run(slow.sample(seed), seed));
      }
    });
  }

  it("a loader that writes into a shared (frozen) literal part of a sample: the compiled path copies what it loads, same outcome", () => {
    // the loader turns `emptyDir:` (null) into {} in place: in the re-created pod's manifest, a literal every sample shares
    const at = TEXT.lastIndexOf("persistentVolumeClaim: {claimName: data-web-0}");
    const text = `${TEXT.slice(0, at)}persistentVolumeClaim: {claimName: data-web-0}\n            - name: scratch\n              emptyDir:${TEXT.slice(at + "persistentVolumeClaim: {claimName: data-web-0}".length)}`;
    const fast = modelFromText(text, "scratch.yaml");
    const slow = new TemplateModel({ ...fast.spec, domain: { ...k8sDomain, preparer: undefined } });
    expect(fast.compiled()).toBe(true);
    for (let i = 0; i < 30; i++) {
      const seed = runSeed(4n, i);
      const a = fast.run(fast.sample(seed), seed);
      expect(a.classes.filter((c) => c.startsWith("error:"))).toEqual([]);
      expect(a).toEqual(slow.run(slow.sample(seed), seed));
    }
  });

  it("a sampled value the loader rejects gives the same error outcome on both paths", () => {
    const bad = TEXT.replace("busyDetaches: {randint: [1, 4]}", "busyDetaches: {choice: [1, \"many\", -1]}").replace("count: {param: busyDetaches}", "count: {param: busyDetaches}\n        latency: {choice: [\"1s\", \"soon\"]}");
    const fast = modelFromText(bad, "bad.yaml");
    const slow = new TemplateModel({ ...fast.spec, domain: { ...k8sDomain, preparer: undefined } });
    expect(fast.compiled()).toBe(true);
    let errors = 0;
    for (let i = 0; i < 40; i++) {
      const seed = runSeed(2n, i);
      const a = fast.run(fast.sample(seed), seed);
      errors += a.classes.some((c) => c.startsWith("error:bad.yaml")) ? 1 : 0;
      expect(a).toEqual(slow.run(slow.sample(seed), seed));
    }
    expect(errors).toBeGreaterThan(5);
  });
});

describe("k8s domain: the names a sampled key gives, checked against the constant keys", () => {
  it("a sampled deletePod of a pod that never exists is the whole load's error on the compiled path too; the base's pod passes", () => {
    // the timeline is random, the objects (web-0) are the frozen base's
    const text = TEXT.replace("      action: deletePod\n      pod: web-0\n", "      action: deletePod\n      pod: {choice: [web-0, web-O]}\n");
    expect(text).not.toBe(TEXT);
    const fast = modelFromText(text, "typo.yaml");
    const slow = new TemplateModel({ ...fast.spec, domain: { ...k8sDomain, preparer: undefined } });
    expect(fast.randomKeys()).toContain("timeline");
    expect(fast.randomKeys()).not.toContain("objects");
    expect(fast.compiled()).toBe(true);
    let errors = 0;
    let ok = 0;
    for (let i = 0; i < 30; i++) {
      const seed = runSeed(6n, i);
      const c = fast.sample(seed);
      const typo = JSON.stringify(c.doc).includes('"web-O"');
      if (typo) {
        // the compiled path itself refuses it (not only the general path it falls back to)
        expect(() => fast.prepare(c)).toThrow(/^typo\.yaml:\d+: timeline\[0\]\.pod: pod "web-O" never exists in this scenario .*did you mean "web-0"\?$/);
      } else expect(() => fast.prepare(c)).not.toThrow();
      const a = fast.run(c, seed);
      expect(a).toEqual(slow.run(slow.sample(seed), seed));
      if (typo) expect(a.classes).toEqual([expect.stringMatching(/^error:typo\.yaml:\d+: timeline\[0\]\.pod: pod "web-O" never exists/)]);
      else expect(a.classes.filter((x) => x.startsWith("error:"))).toEqual([]);
      typo ? errors++ : ok++;
    }
    expect(errors).toBeGreaterThan(5);
    expect(ok).toBeGreaterThan(5);
  });
});

describe("k8s domain: a sweep's log checks are decided as `iosim k8s run` decides them", () => {
  // seed 002's sweep, its incident told by log lines alone, and a `noLog:` expectation
  const text = TEXT.replace(
    /\n  expect:[\s\S]*$/,
    `
  expect:
    - noLog: {contains: "durationBeforeRetry 2m2s", component: kubelet}
  symptom:
    - log: {contains: "Volume not attached according to node status", component: kubelet}
    - log: {contains: "durationBeforeRetry 2m2s", component: kubelet}
`,
  );
  const model = modelFromText(text, "logs.yaml");
  const records = Array.from({ length: 48 }, (_, i) => runOne(model, 5n, i));

  it("each run's classes are those of its repro file replayed with the full log (no log check passes unread)", () => {
    for (const r of records) {
      const sc = loadK8sScenario(model.serialize(model.sample(r.seed), r.seed, "test"), "run.yaml");
      const full = runK8sScenario(sc, { seed: sc.seed, logs: true });
      const want = full.violations.map((v) => (v.kind === "invariant" ? v.name : `expect:${v.name}`));
      if (full.symptoms.every((s) => s.held)) want.push(INCIDENT_CLASS);
      expect([...r.classes].sort(), `run ${r.i}`).toEqual(want.sort());
    }
    // both outcomes were compared: stuck runs (the 2m2s backoff is logged) and runs whose pod came up
    const stuck = records.filter((r) => r.classes.includes(INCIDENT_CLASS));
    expect(stuck.length).toBeGreaterThan(0);
    expect(stuck.length).toBeLessThan(records.length);
    for (const r of stuck) expect(r.classes).toContain('expect:noLog {"contains":"durationBeforeRetry 2m2s","component":"kubelet"}');
  });
});
