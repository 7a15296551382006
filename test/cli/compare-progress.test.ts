// `iosim compare` shows progress over its traces (issue #32: progress on every
// long command): the fraction rises with the traces' bytes replayed, reaches 1
// when the last one is scored, and the bar is stopped before the output.
import { afterEach, describe, expect, it, vi } from "vitest";
import { join, resolve } from "node:path";
import { compareAction } from "../../bindings/cli/commands/compare.js";

const ROOT = resolve(__dirname, "..", "..");
const TRACES = ["bps1m_read_4k/run1.jsonl", "iops100_qd1_read/run1.jsonl", "limit_change_iops/run1.jsonl"].map((f) =>
  join(ROOT, "test/fixtures/oracle/throtl/traces", f),
);

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

describe("iosim compare's progress", () => {
  it("rises trace by trace to 1 before the results are printed, then stops", () => {
    const events: string[] = [];
    const seen: Array<[number | undefined, string]> = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      events.push(`out:${String(chunk).split(":")[0]}`);
      return true;
    });
    compareAction(
      TRACES,
      { periodTimer: "recorded" },
      {
        update: (fraction, detail) => {
          seen.push([fraction, detail]);
          events.push("update");
        },
        stop: () => events.push("stop"),
      },
    );
    expect(seen.map(([, d]) => d)).toEqual(["0/3 traces", "1/3 traces", "2/3 traces", "3/3 traces"]);
    const f = seen.map(([x]) => x!);
    expect(f[0]).toBe(0);
    for (let i = 1; i < f.length; i++) expect(f[i]!).toBeGreaterThan(f[i - 1]!);
    expect(f.at(-1)).toBe(1);
    // the bar is gone before the first line of output
    expect(events.indexOf("stop")).toBeLessThan(events.findIndex((e) => e.startsWith("out:")));
    expect(events.filter((e) => e.startsWith("out:")).length).toBeGreaterThan(3);
  });
});
