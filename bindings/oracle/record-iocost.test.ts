// io.cost traces from `iosim record` (6.1 guest, null_blk 2 ms, weights 100:300,
// vrate pinned): the closed-loop replay against the kernel. Fixtures:
// test/fixtures/record (see its README).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import "./index.js";
import { handlerFor } from "./registry.js";
import { replayRecordIocost, scoreRecordIocost, fitBlockEvents, explainRecordIocost } from "./record-iocost.js";
import { compareTrace } from "./compare.js";
import { readTrace } from "./traces.js";

const dir = fileURLToPath(new URL("../../test/fixtures/record/", import.meta.url));
const load = (name: string) => {
  const file = dir + name;
  const text = readFileSync(file, "utf8");
  return { file, text, score: scoreRecordIocost(replayRecordIocost(text, file)) };
};
const tp = load("guest-iocost-fixed.run1.jsonl");
const notp = load("guest-iocost-fixed.notp.jsonl");

describe("io.cost traces from iosim record", () => {
  it("are recognised by the io.cost.qos write in their header, not as throttle traces", () => {
    expect(handlerFor(tp.text, tp.file)?.kind).toBe("record-iocost");
    expect(handlerFor(notp.text, notp.file)?.kind).toBe("record-iocost");
  });

  it("give each cgroup the kernel's share of the IOs (within 1 point) and its mean latency (within 5 %)", () => {
    for (const c of [tp, notp]) {
      const real = c.score.groups.reduce((a, g) => a + g.real, 0);
      const sim = c.score.groups.reduce((a, g) => a + g.sim, 0);
      expect(c.score.groups.map((g) => g.cgroup)).toEqual(["A", "B"]);
      for (const g of c.score.groups) {
        expect(Math.abs(g.real / real - g.sim / sim)).toBeLessThan(0.01);
        expect(Math.abs(g.simLatNs / g.realLatNs - 1)).toBeLessThan(0.05);
      }
    }
  });

  it("match most IOs' latencies within 4 ms, where the open-loop throttle replay of the same IOs does not", () => {
    expect(tp.score.total.share).toBeGreaterThan(0.85);
    expect(notp.score.total.share).toBeGreaterThan(0.85);
    // the throttle replay (each IO at its recorded submit time) of the same trace: whether B's
    // iocg starts at the edge of its budget decides everything (here: 6 of 1011 within 4 ms)
    const open = compareTrace(readTrace(notp.text, notp.file));
    expect(open.total.share).toBeLessThan(0.5);
  });

  it("take the period timer from the recorded iocost tracepoints and the device from the recorded requests", () => {
    expect(tp.score.timer).toMatch(/^\d+ recorded firings$/);
    expect(notp.score.timer).toMatch(/kernel's own expiry/);
    const recs = tp.text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const fit = fitBlockEvents(recs)!;
    // null_blk completes after completion_nsec = 2 ms (header facts); the guest adds its own delay
    expect(recs[0].device.null_blk.completion_nsec).toBe("2000000");
    expect(fit.meanNs).toBeGreaterThan(2_000_000);
    expect(fit.meanNs).toBeLessThan(2_500_000);
  });

  it("explain tells what the model's io.cost did with one recorded IO", () => {
    const lines = explainRecordIocost(tp.text, tp.file, "A", 100);
    expect(lines[0]).toMatch(/^IO A#100 .* cgroup A \(io\.cost/);
    expect(lines.join("\n")).toMatch(/waited [\d.]+ ms in io\.cost/);
    expect(() => explainRecordIocost(tp.text, tp.file, "C", 1)).toThrow(/no job "C"/);
  });
});
