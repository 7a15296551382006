// The summary's tally (summary.ts SweepTally) is a function of the set of
// records: the order they come in and repeated run indices do not change it.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { JournalHeader, RunRecord } from "./journal.js";
import type { McModel } from "./model.js";
import { humanValue, SweepTally } from "./summary.js";

const header: JournalHeader = { mc: 1, scenario: { file: "s.yaml", digest: "d", text: "" }, seed: "1", runs: 64, shard: { index: 0, count: 1 } };
const model = { name: "m", domain: "k8s" } as unknown as McModel<unknown>;
const table = [{ param: "delay", bins: [0, 10, 20] }, { param: "fix" }];

const record = fc.record({
  i: fc.integer({ min: 0, max: 63 }),
  classes: fc.subarray(["incident", "liveness", "slow"]),
  t: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
  delay: fc.integer({ min: -5, max: 30 }),
  fix: fc.boolean(),
  size: fc.integer({ min: 0, max: 3 }),
}).map((x): RunRecord => ({
  i: x.i, seed: x.i * 7, classes: x.classes, metrics: x.t === undefined ? {} : { t: x.t }, params: { delay: x.delay, fix: x.fix }, size: x.size,
}));

describe("SweepTally", () => {
  it("the same summary whatever the order and however often a run index repeats (the first record of an index counts)", () => {
    fc.assert(fc.property(fc.array(record, { minLength: 1, maxLength: 60 }), fc.array(fc.nat(), { minLength: 1, maxLength: 30 }), (recs, picks) => {
      const first = new Map<number, RunRecord>();
      for (const r of recs) if (!first.has(r.i)) first.set(r.i, r);
      const sorted = [...first.values()].sort((a, b) => a.i - b.i);
      const a = new SweepTally({ table });
      for (const r of sorted) a.add(r);
      // the firsts in reverse order, then repeats of any index (which must be ignored)
      const b = new SweepTally({ table });
      for (const r of [...sorted].reverse()) expect(b.add(r)).toBe(true);
      for (const p of picks) expect(b.add(recs[p % recs.length]!)).toBe(false);
      expect(b.completed).toBe(sorted.length);
      expect(b.summary(header, model)).toEqual(a.summary(header, model));
      const s = a.summary(header, model);
      // each class's first run is its least index; counts add up per table cell
      for (const [c, e] of Object.entries(s.classes)) {
        const with_ = sorted.filter((r) => (r.classes.length ? r.classes : ["ok"]).includes(c));
        expect(e.count).toBe(with_.length);
        expect(e.firstRun).toBe(with_[0]!.i);
        if (c === "ok") continue;
        const least = Math.min(...with_.map((r) => r.size));
        expect(a.smallestRun(c)).toBe(with_.find((r) => r.size === least));
        expect(b.smallestRun(c)).toBe(a.smallestRun(c));
      }
      expect(s.table!.cells.reduce((n, c) => n + c.runs, 0)).toBe(sorted.length);
    }));
  });

  it("pool workers' chunk tallies, merged in any order, equal adding the records one by one (delta/merge)", () => {
    fc.assert(fc.property(fc.array(record, { minLength: 1, maxLength: 60 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 20 }), fc.boolean(),
      (recs, cuts, reverse) => {
        const first = new Map<number, RunRecord>();
        for (const r of recs) if (!first.has(r.i)) first.set(r.i, r);
        const sorted = [...first.values()].sort((a, b) => a.i - b.i);
        const a = new SweepTally({ table });
        for (const r of sorted) a.add(r);
        // cut into chunks as a pool would, each counted by a fresh tally and posted (structured clone)
        const deltas = [];
        for (let k = 0, c = 0; k < sorted.length; c++) {
          const chunk = sorted.slice(k, k + cuts[c % cuts.length]!);
          k += chunk.length;
          const t = new SweepTally({ table });
          for (const r of chunk) t.count(r.i, r.classes, r.metrics, r.params, r.size, JSON.stringify(r));
          deltas.push(structuredClone(t.delta(chunk.map((r) => r.i))));
        }
        if (reverse) deltas.reverse();
        const m = new SweepTally({ table });
        for (const d of deltas) m.merge(d);
        expect(m.completed).toBe(sorted.length);
        expect(sorted.every((r) => m.has(r.i))).toBe(true);
        expect(m.summary(header, model)).toEqual(a.summary(header, model));
        for (const c of ["incident", "liveness", "slow"]) expect(m.smallestRun(c)).toEqual(a.smallestRun(c));
        // a run counted twice is an error, not a silent double count
        expect(() => m.merge(deltas[0]!)).toThrow(/counted twice/);
      }));
  });

  it("keeps a bit per run index, past its first allocation too", () => {
    const t = new SweepTally();
    for (const i of [0, 9_999, 123_456, 5]) t.add({ i, seed: i, classes: [], metrics: {}, params: {}, size: 0 });
    expect([0, 5, 9_999, 123_456].every((i) => t.has(i))).toBe(true);
    expect([1, 6, 10_000, 123_455].some((i) => t.has(i))).toBe(false);
    expect(t.completed).toBe(4);
  });
});

// The summary's metric table printed bare numbers: 150000 for a job's bw
// (KiB/s), 1.536e+8 for bw_bytes, 375540 for a latency in ns, 81420 for a time
// in ms; nothing said which.
describe("the metric table's units", () => {
  it("each metric of the io, k8s and multi domains gets the unit its name implies", async () => {
    const { metricUnit } = await import("./summary.js");
    const want: Record<string, string> = {
      "job.a.read.bw": "KiB/s", "job.a.read.bw_bytes": "bytes/s", "job.a.read.iops": "IOPS",
      "job.a.0.write.lat.mean": "ns", "job.a.read.lat.p50": "ns", "job.a.read.lat.p90": "ns", "job.a.read.lat.p99": "ns",
      "cgroup.tenants/a.read.bw": "KiB/s", "cgroup.kubepods/pod-web-0.write.lat.p99": "ns", "cgroup.tenants/a.throttleWaitNs.write": "ns",
      simulatedNs: "ns", "pod.default/web-0.runningAtMs": "ms", nodePatches: "count", storageCalls: "count", events: "count",
      "pods.running": "count", "node-io/job.volume.read.bw": "KiB/s", "volumes/pod.default/web-0.runningAtMs": "ms", "volumes/events": "count",
      "some.other": "",
    };
    expect(Object.fromEntries(Object.keys(want).map((k) => [k, metricUnit(k)]))).toEqual(want);
  });

  it("the table prints each value in human units of the unit its name implies (no raw ns, no e-notation)", async () => {
    const { formatSummary } = await import("./cli.js");
    const t = new SweepTally();
    for (let i = 0; i < 4; i++) {
      t.add({ i, seed: i, classes: [], metrics: { "job.a.read.bw": 100 + i, "job.a.read.lat.p99": 1.085e8, "pod.default/web-0.runningAtMs": 81420, events: 7, "job.a.read.bw_bytes": 1.536e8 }, params: {}, size: 0 });
    }
    const text = formatSummary(t.summary(header, model, {}));
    const rows = text.split("\n").filter((l) => /^(metric|job|pod|events)/.test(l)).map((l) => l.trim().split(/\s{2,}/).slice(0, 2));
    expect(rows).toEqual([["metric", "p50"], ["events", "7"], ["job.a.read.bw", "101 KiB/s"], ["job.a.read.bw_bytes", "146 MiB/s"], ["job.a.read.lat.p99", "109 ms"], ["pod.default/web-0.runningAtMs", "81.4 s"]]);
    expect(text).not.toMatch(/\de[+-]\d/);
  });

  it("humanValue scales times, rates and counts", () => {
    expect([humanValue(536576, "ns"), humanValue(0, "ns"), humanValue(81420, "ms"), humanValue(2.405e10, "ns")]).toEqual(["537 µs", "0 ns", "81.4 s", "24.1 s"]);
    expect([humanValue(1.536e8, "bytes/s"), humanValue(2_400_000, "KiB/s"), humanValue(37500, "IOPS"), humanValue(3.2e7, "")]).toEqual(["146 MiB/s", "2.29 GiB/s", "37.5 k IOPS", "32.0 M"]);
  });
});

describe("the class table by parameter", () => {
  it("prints as a Markdown table whose columns line up: a rule under the header, axes left, counts and probabilities right", async () => {
    const { formatSummary } = await import("./cli.js");
    const t = new SweepTally({ table });
    const runs: Array<[number, boolean, string[]]> = [[1, false, ["incident"]], [2, false, []], [12, true, []], [25, false, ["incident", "liveness"]], [25, false, []]];
    runs.forEach(([delay, fix, classes], i) => t.add({ i, seed: i, classes, metrics: {}, params: { delay, fix }, size: 0 }));
    const text = formatSummary(t.summary(header, model, {}));
    const rows = text.split("\n").filter((l) => l.startsWith("|"));
    // header, rule, and one row per (delay bin, fix) cell seen
    expect(rows.length).toBe(2 + 3);
    // every row has the same width and its pipes at the same columns
    const pipes = (l: string) => [...l].flatMap((ch, k) => (ch === "|" ? [k] : []));
    for (const r of rows) expect(pipes(r)).toEqual(pipes(rows[0]!));
    expect(rows[1]).toMatch(/^\|-+\|-+\|-+:\|-+:\|-+:\|$/);
    const cells = rows.map((r) => r.split("|").slice(1, -1).map((c) => c.trim()));
    expect(cells[0]).toEqual(["delay", "fix", "runs", "P(incident)", "P(liveness)"]);
    const row = cells.find((c) => c[0] === ">=20")!;
    expect(row.slice(1, 3)).toEqual(["false", "2"]);
    expect(row.slice(3)).toEqual(["0.500 [0.095, 0.905]", "0.500 [0.095, 0.905]"]);
    // the numbers are right-aligned: a short "0" ends where the column ends
    const zero = rows.find((r) => / 0 \|$/.test(r));
    expect(zero).toBeDefined();
  });
});
