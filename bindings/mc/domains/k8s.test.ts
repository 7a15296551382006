// The Kubernetes domain: the detach-backoff sweep (seed 002) finds the
// incident, and its shrunk repro is a plain scenario that the k8s loader
// (what `iosim k8s run` reads) replays to the same failure.
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadK8sScenario } from "../../k8s/scenario/loader.js";
import { k8sOutcome, INCIDENT_CLASS } from "./k8s.js";
import { modelFromText, runOne } from "../run-one.js";
import { summarise } from "../summary.js";
import type { JournalHeader } from "../journal.js";
import { runSeed } from "../rng.js";

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
    const early = records.filter((r) => r.params.fix104526 === false && parseInt(String(r.params.landDelay)) < 400);
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
      expect(parseInt(String(c.repro!.params.landDelay))).toBeLessThanOrEqual(parseInt(String(from.params.landDelay)));
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
