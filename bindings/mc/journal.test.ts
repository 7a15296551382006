import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSeed } from "./rng.js";
import { JournalWriter, parseShard, readJournal, scanJournal, shardRange, type JournalHeader, type RunRecord } from "./journal.js";

const dir = mkdtempSync(join(tmpdir(), "mc-journal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const header: JournalHeader = { mc: 1, scenario: { file: "s.yaml", digest: "abc", text: "x" }, seed: "1", runs: 100_000, shard: { index: 0, count: 1 } };
const rec = (i: number): RunRecord => ({ i, seed: runSeed(1n, i), classes: i % 2 ? ["stuck"] : [], metrics: { t: i }, params: {}, size: i });

describe("run journal", () => {
  it("a line torn by kill -9 is dropped on read and cut off when the journal is reopened", () => {
    const p = join(dir, "torn.jsonl");
    const w = JournalWriter.create(p, header);
    w.append([rec(0), rec(1), rec(2)]);
    w.close();
    appendFileSync(p, JSON.stringify(rec(3)).slice(0, 17)); // the process died mid-write
    const j = readJournal(p);
    expect(j.torn).toBe(true);
    expect(j.records.map((r) => r.i)).toEqual([0, 1, 2]);
    const w2 = JournalWriter.reopen(p, j.goodBytes);
    w2.append([rec(3)]);
    w2.close();
    const j2 = readJournal(p);
    expect(j2.torn).toBe(false);
    expect(j2.records).toEqual([rec(0), rec(1), rec(2), rec(3)]);
  });

  it("a journal larger than one read chunk streams whole: lines cut by a 4 MiB boundary, multi-byte text, a torn tail", () => {
    const p = join(dir, "big.jsonl");
    const big = (i: number): RunRecord => ({ ...rec(i), params: { note: `écart ✓ ${"x".repeat(i % 97)}` } });
    const n = 30_000; // ~6 MB: one record is ~200 bytes
    let text = JSON.stringify(header) + "\n";
    for (let i = 0; i < n; i++) text += JSON.stringify(big(i)) + "\n";
    const whole = Buffer.byteLength(text);
    expect(whole).toBeGreaterThan(4 << 20);
    writeFileSync(p, text + JSON.stringify(big(n)).slice(0, 40));
    let k = 0;
    const j = scanJournal(p, (r) => {
      expect(r).toEqual(big(k));
      k++;
    });
    expect(k).toBe(n);
    expect(j.records).toBe(n);
    expect(j.goodBytes).toBe(whole);
    expect(j.torn).toBe(true);
  });

  it("damage before the last line is an error naming the line", () => {
    const p = join(dir, "bad.jsonl");
    writeFileSync(p, `${JSON.stringify(header)}\n${JSON.stringify(rec(0))}\n{"i": 1, oops\n${JSON.stringify(rec(2))}\n`);
    expect(() => readJournal(p)).toThrow(/bad\.jsonl:3: .*damaged/);
  });

  // A record was counted as it was read: a run index past the sweep's runs
  // counted as completed (545/3000 of a 544-line journal), a string index
  // dropped, `classes: null` an internal error (exit 3) in mc merge / --resume.
  it("a record that is not this sweep's run record is an error naming the line and field", () => {
    const p = join(dir, "foreign.jsonl");
    const line = (r: unknown) => `${JSON.stringify(header)}\n${JSON.stringify(rec(0))}\n${JSON.stringify(r)}\n${JSON.stringify(rec(2))}\n`;
    for (const [r, msg] of [
      [{ ...rec(1), i: 100_000 }, /foreign\.jsonl:3 \(i\): not a run record of this sweep: i must be a run index in \[0, 100000\), got 100000/],
      [{ ...rec(1), i: "1" }, /:3 \(i\): .*got "1"/],
      [{ ...rec(1), seed: runSeed(2n, 1) }, /:3 \(seed\): .*run 1's seed \d+ \(the header's seed 1\)/],
      [{ ...rec(1), classes: null }, /:3 \(classes\): .*a list of class names, got null/],
      [{ ...rec(1), classes: "stuck" }, /:3 \(classes\): /],
      [{ ...rec(1), metrics: { t: "1" } }, /:3 \(metrics\.t\): .*a number, got "1"/],
      [{ ...rec(1), params: [] }, /:3 \(params\): /],
      [{ ...rec(1), size: "0" }, /:3 \(size\): /],
      [[1, 2], /:3 \(record\): /],
    ] as const) {
      writeFileSync(p, line(r));
      expect(() => readJournal(p)).toThrow(msg);
    }
    writeFileSync(p, line({ ...rec(1), size: null }));
    expect(readJournal(p).records.map((r) => r.i)).toEqual([0, 1, 2]);
  });

  it("refuses to overwrite an existing journal unless forced", () => {
    const p = join(dir, "exists.jsonl");
    JournalWriter.create(p, header).close();
    expect(() => JournalWriter.create(p, header)).toThrow(/--resume/);
    JournalWriter.create(p, header, true).close();
    expect(readFileSync(p, "utf8").split("\n").length).toBe(2);
  });
});

describe("shards", () => {
  it("the N slices of [0, runs) are contiguous, disjoint and cover every run", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 64 }), (runs, n) => {
      let next = 0;
      for (let i = 0; i < n; i++) {
        const [lo, hi] = shardRange(runs, { index: i, count: n });
        if (lo !== next || hi < lo) return false;
        next = hi;
      }
      return next === runs;
    }));
  });

  it("--shard parses i/N and rejects i >= N", () => {
    expect(parseShard("3/4")).toEqual({ index: 3, count: 4 });
    expect(() => parseShard("4/4")).toThrow(/0 <= i < N/);
    expect(() => parseShard("x")).toThrow(/i\/N/);
  });
});
