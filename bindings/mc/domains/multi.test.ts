// Both domains in one run: a device under io.max serving a pod's volume while
// the pod churns through a failing detach, fed by the same draws.
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { modelFromText, runOne } from "../run-one.js";
import { shrinkToClass } from "../shrink.js";
import { replayFile } from "../cli.js";

const FILE = resolve(__dirname, "..", "examples", "multi-node-io-and-churn.yaml");
const model = modelFromText(readFileSync(FILE, "utf8"), FILE);
const records = Array.from({ length: 36 }, (_, i) => runOne(model, 4n, i));

describe("multi domain: node IO under io.max while pods churn", () => {
  it("one run reports both parts' outcomes, prefixed, and the shared cap decides the IO expectation", () => {
    for (const r of records) {
      expect(Object.keys(r.metrics).some((k) => k.startsWith("node-io/job.volume.read"))).toBe(true);
      expect(r.metrics["volumes/nodePatches"]).toBeGreaterThan(0);
      for (const c of r.classes) expect(c).toMatch(/^(volumes\/|node-io\/|expect:)/);
      // 2000 IOPS of 4 KiB reads at depth 8 queue ~4 ms each: always over the 2 ms bound; no cap never is
      if (r.params.cap === "259:0 riops=2000") expect(r.classes).toContain("expect:volume-p99-over-2ms");
      if (r.params.cap === "259:0 riops=max") expect(r.classes).not.toContain("expect:volume-p99-over-2ms");
    }
    expect(records.some((r) => r.classes.includes("volumes/incident"))).toBe(true);
  });

  it("a shrunk joint repro replays with `iosim mc replay` to the same classes", () => {
    const r = records.find((x) => x.classes.includes("volumes/incident") && x.classes.includes("expect:volume-p99-over-2ms"))
      ?? records.find((x) => x.classes.includes("volumes/incident"))!;
    const cls = "volumes/incident";
    const s = shrinkToClass(model, model.sample(r.seed), r.seed, cls, 40);
    const dir = mkdtempSync(join(tmpdir(), "mc-multi-"));
    try {
      const f = join(dir, "repro.yaml");
      writeFileSync(f, model.serialize(s.concrete, r.seed, "test repro"));
      const out = replayFile(f);
      expect(out.seed).toBe(r.seed);
      expect(out.classes).toEqual([...new Set(model.run(s.concrete, r.seed).classes)].sort());
      expect(out.classes).toContain(cls);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// A multi repro's k8s part kept its own `seed: 2` while the run gave it the
// run seed: `iosim k8s run` on that part alone ran another seed, and with a
// seed-chosen instant (between:) another timeline. The io part, with no seed,
// ran seed 1 under `iosim run`.
describe("multi domain: each part of a repro replays alone as it ran", () => {
  it("the k8s part (seed: 2 in the file, a between: instant) and the io part carry the run seed, and run alone give the run's steps and metrics", async () => {
    const { parse } = await import("yaml");
    const { k8sDomain, ioDomain } = await import("./index.js");
    const { runK8sScenario } = await import("../../k8s/scenario/run.js");
    const text = readFileSync(FILE, "utf8").replace("          - after: adc.DetachFailed\n            delay: {param: landDelay}\n",
      "          - between: [adc.DetachFailed, adc.DetachSucceeded]\n");
    expect(text).toContain("between: [adc.DetachFailed");
    const m = modelFromText(text, FILE);
    const steps = (sc: Parameters<typeof runK8sScenario>[0], seed?: number) =>
      runK8sScenario(sc, { ...(seed !== undefined ? { seed } : {}), logs: false, steps: true }).steps.map((s) => `${s.t} ${s.name}`);
    // a run whose k8s part goes otherwise under seed 2 than under its run seed
    // (with one busy detach, both seeds may pick the same side of the retry)
    let found = 0;
    for (let i = 0; i < 12 && found < 2; i++) {
      const r = runOne(m, 4n, i);
      const repro = parse(m.serialize(m.sample(r.seed), r.seed, "test repro")) as { scenario: { seed: number; parts: Record<string, { scenario: Record<string, unknown> }> } };
      const k8sPart = repro.scenario.parts.volumes!.scenario;
      const ioPart = repro.scenario.parts["node-io"]!.scenario;
      expect([repro.scenario.seed, k8sPart.seed, ioPart.seed]).toEqual([r.seed, r.seed, r.seed]);
      const sc = k8sDomain.prepare(k8sPart as never, FILE, new Map());
      const inRun = steps(sc, r.seed);
      if (isDeepStrictEqual(steps(sc, 2), inRun)) continue;
      found++;
      // the k8s part as `iosim k8s run` runs it: the scenario's own seed
      expect(steps(sc)).toEqual(inRun);
      // the io part as `iosim run` runs it: its metrics are the run's node-io/ metrics
      const io = ioDomain.prepare(ioPart as never, FILE, new Map());
      const ioAlone = ioDomain.run(io, io.seed).metrics;
      for (const [k, v] of Object.entries(ioAlone)) if (Number.isFinite(v)) expect([k, r.metrics[`node-io/${k}`]]).toEqual([k, expect.closeTo(v, 6)]);
    }
    expect(found).toBe(2);
  });
});
