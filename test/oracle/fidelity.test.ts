// Fidelity against real kernels: every oracle trace (Linux 6.18.44 host,
// blkio.throttle on loop; Linux 6.1 guest, io.max on null_blk) is replayed and
// scored the oracle's way (per throttle group, k-th completion against k-th,
// matched within 4 ms). The bar: >= 99% of all IOs matched, and every trace
// (guest: every case) with >= 20 IOs >= 90% matched.
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readTrace, compareTrace, overall, type TraceScore } from "../../bindings/index.js";

const FIX = join(__dirname, "../fixtures/oracle");

function traceFiles(): string[] {
  const out: string[] = [];
  const tdir = join(FIX, "throtl/traces");
  for (const s of readdirSync(tdir).sort()) {
    for (const f of readdirSync(join(tdir, s)).sort()) if (f.endsWith(".jsonl")) out.push(join(tdir, s, f));
  }
  out.push(join(FIX, "guest/iomax.jsonl"));
  return out;
}

describe("replaying every recorded kernel trace", () => {
  const scores: TraceScore[] = traceFiles().map((f) => compareTrace(readTrace(readFileSync(f, "utf8"), f)));

  it("covers the 57 host runs and the 8 guest io.max cases", () => {
    expect(scores.length).toBe(58);
    expect(scores.flatMap((s) => s.parts).length).toBe(65);
  });

  it("matches at least 99% of all IOs within one jiffy (4 ms)", () => {
    const o = overall(scores);
    expect(o.ios).toBeGreaterThan(15000);
    expect(o.share).toBeGreaterThanOrEqual(0.99);
  });

  it("matches at least 90% of every trace with 20 or more IOs", () => {
    const weak = scores.flatMap((s) => s.parts).filter((p) => p.ios >= 20 && p.share < 0.9).map((p) => `${p.name} ${(100 * p.share).toFixed(1)}%`);
    expect(weak).toEqual([]);
  });

  it("reproduces each job's total time to within 25 ms in every host run", () => {
    const far = scores.flatMap((s) => s.parts).flatMap((p) => p.jobs.filter((j) => Math.abs(j.errNs) > 25e6).map((j) => `${p.name}:${j.job} ${(j.errNs / 1e6).toFixed(1)} ms`));
    expect(far).toEqual([]);
  });
});
