// `iosim replay` shows progress (issue #32: progress on every long command):
// while the trace is read and replayed (one simulation call) the bar says so
// without a fraction, then the fraction counts the lines written and reaches
// 1 when the last is out; the bar is stopped on success and on a bad trace.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { replayAction } from "../../bindings/cli/commands/replay.js";

const ROOT = resolve(__dirname, "..", "..");
const TRACE = join(ROOT, "test/fixtures/oracle/throtl/traces/iops100_qd1_read/run1.jsonl");
const dir = mkdtempSync(join(tmpdir(), "iosim-replay-progress-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sink() {
  const seen: Array<[number | undefined, string]> = [];
  let stops = 0;
  return { seen, stops: () => stops, sink: { update: (f: number | undefined, d: string) => seen.push([f, d]), stop: () => void stops++ } };
}

describe("iosim replay's progress", () => {
  it("names the phase while it replays, then rises with the lines written to 1, then stops", () => {
    const s = sink();
    const out = join(dir, "r.jsonl");
    replayAction(TRACE, { periodTimer: "recorded", output: out }, s.sink);
    const lines = readFileSync(out, "utf8").trim().split("\n").length;
    expect(lines).toBeGreaterThan(1);
    expect(s.seen[0]).toEqual([undefined, `reading ${TRACE}`]);
    expect(s.seen[1]![0]).toBeUndefined();
    expect(s.seen[1]![1]).toMatch(/^replaying a \S+ trace$/);
    const known = s.seen.slice(2).map(([f]) => f!);
    expect(known[0]).toBe(0);
    for (let i = 1; i < known.length; i++) expect(known[i]!).toBeGreaterThanOrEqual(known[i - 1]!);
    expect(s.seen.at(-1)).toEqual([1, `${lines}/${lines} lines written`]);
    expect(s.stops()).toBe(1);
  });

  it("on stdout, the bar is at 1 and gone before the first line", () => {
    const s = sink();
    const events: string[] = [];
    const w = process.stdout.write;
    process.stdout.write = ((chunk: string) => {
      events.push(`out:${chunk.length}`);
      return true;
    }) as typeof process.stdout.write;
    try {
      replayAction(
        TRACE,
        { periodTimer: "recorded" },
        {
          update: (f, d) => {
            s.sink.update(f, d);
            events.push("update");
          },
          stop: () => {
            s.sink.stop();
            events.push("stop");
          },
        },
      );
    } finally {
      process.stdout.write = w;
    }
    expect(s.seen.at(-1)![0]).toBe(1);
    expect(events.indexOf("stop")).toBeLessThan(events.findIndex((e) => e.startsWith("out:")));
    expect(events.filter((e) => e.startsWith("out:")).length).toBeGreaterThan(0);
  });

  it("stops the bar when the trace is bad, and the error still names the file", () => {
    const s = sink();
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, '{"type":"nonsense"}\n');
    expect(() => replayAction(bad, { periodTimer: "recorded" }, s.sink)).toThrow(/bad\.jsonl/);
    expect(s.stops()).toBe(1);
  });
});
