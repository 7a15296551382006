// Both domains in one run: a device under io.max serving a pod's volume while
// the pod churns through a failing detach, fed by the same draws.
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
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
