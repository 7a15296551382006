// The playground's pure helpers (web/src/lib): the comparison's difference
// table, cgroup.conf's timed lines, the swimlane's axis ticks, the charts' y axis.
import { describe, expect, it } from "vitest";
import { diffTable } from "../../web/src/lib/diff.js";
import { parseCgConf } from "../../web/src/lib/cgconf.js";
import { niceTicks } from "../../web/src/lib/ticks.js";
import { stepDecimals, tickLabels, zeroBased } from "../../web/src/lib/axis.js";
import { decodeState, encodeState } from "../../web/src/lib/urlstate.js";
import type { TablePanel } from "../../web/src/families/types.js";

const table = (rows: Array<[string, ...string[]]>): TablePanel => ({
  kind: "table", id: "t", title: "t", columns: ["name", "x", "y"],
  rows: rows.map(([key, ...cells]) => ({ key, cells })),
});

describe("the difference table", () => {
  it("numbers as B − A with units, text as A → B", () => {
    const d = diffTable(table([["capped", "capped", "19.99", "3.13 ms"]]), table([["capped", "capped", "10.00", "6.25 ms"]]), "A", "B")!;
    expect(d.rows[0]!.cells).toEqual(["capped", "-9.99 (-50.0%)", "+3.12 ms (+99.7%)"]);
  });

  it("keeps the unit when A is a bare 0 (no throttle wait) and B has one", () => {
    const d = diffTable(table([["a", "a", "0", "0"]]), table([["a", "a", "0", "2.64 ms"]]), "A", "B")!;
    expect(d.rows[0]!.cells).toEqual(["a", "=", "+2.64 ms"]);
  });

  it("shows rows only in B after A's (a check that breaks only in the second version)", () => {
    const d = diffTable(table([["x", "x", "held", "1"]]), table([["x", "x", "held", "1"], ["y", "y", "broken", "2"]]), "A", "B")!;
    expect(d.rows.map((r) => r.cells)).toEqual([["x", "=", "="], ["y", "– → broken", "– → 2"]]);
  });

  it("a row only in A shows A → –", () => {
    const d = diffTable(table([["x", "x", "broken", "t"]]), table([]), "A", "B")!;
    expect(d.rows[0]!.cells).toEqual(["x", "broken → –", "t → –"]);
  });
});

describe("cgroup.conf timed writes", () => {
  it("a bad time names the time and the field, not the whole line", () => {
    const err = (t: string) => { try { parseCgConf(t); } catch (e) { return e as { message: string; line?: number; field?: string }; } };
    const e = err('mkdir a\nat 5x echo "8:0 rbps=max" > a/io.max\n')!;
    expect([e.line, e.field]).toEqual([2, "at"]);
    expect(e.message).toContain('bad time "5x"');
    const e2 = err("at 5s\n")!;
    expect([e2.line, e2.field, e2.message]).toEqual([1, "at", expect.stringContaining("nothing to write at 5s")]);
  });

  it("a good time still parses", () => {
    expect(parseCgConf('at 1.5s echo "8:0 rbps=max" > a/io.max\n').writes[0]!.atNs).toBe(1.5e9);
  });
});

describe("swimlane ticks", () => {
  it("round 1/2/5 steps up to the end", () => {
    expect(niceTicks(9.07e9)).toEqual([0, 2e9, 4e9, 6e9, 8e9]);
    expect(niceTicks(1200e9)).toEqual([0, 200e9, 400e9, 600e9, 800e9, 1000e9, 1200e9]);
    expect(niceTicks(0)).toEqual([0]);
  });
});

describe("the URL state", () => {
  it("round-trips, edits included", async () => {
    const st = { family: "block", scenario: "two-tenants", seed: 0, version: "6.1", fixes: [], device: "hdd",
      vs: { version: "6.18", fixes: [] }, files: { "jobs.fio": "[a]\nrw=read\n" } };
    expect(await decodeState(await encodeState(st))).toEqual({ ...st, problems: [] });
  });

  it("lists what it could not read instead of dropping it silently", async () => {
    const d = await decodeState("#family=block&scenario=two-tenants&seed=abc&v=6.18&edit=garbage");
    expect(d.seed).toBeUndefined();
    expect(d.files).toBeUndefined();
    expect(d.problems).toEqual([expect.stringContaining('seed "abc"'), expect.stringContaining("edited files could not be read")]);
    expect((await decodeState("#seed=99999999999999999999")).problems).toHaveLength(1);
  });
});

describe("the charts' y axis", () => {
  it("labels ticks with the decimals their step needs, so they differ", () => {
    expect(stepDecimals(20)).toBe(0);
    expect(stepDecimals(0.5)).toBe(1);
    expect(stepDecimals(0.25)).toBe(2);
    expect(stepDecimals(0.0001)).toBe(4);
    // a flat 0.2428 ms line: uPlot's own formatter printed all four as "0.243"
    expect(tickLabels([0.2427, 0.2428, 0.2429, 0.243], 0.0001)).toEqual(["0.2427", "0.2428", "0.2429", "0.2430"]);
    expect(tickLabels([0, 20000, 40000, null], 20000)).toEqual(["0", "20,000", "40,000", ""]);
  });
  it("always includes 0", () => {
    expect(zeroBased(0.2427, 0.2429)).toEqual([0, 0.2429]);
    expect(zeroBased(-3, 5)).toEqual([-3, 5]);
    expect(zeroBased(0, 0)).toEqual([0, 1]);
    expect(zeroBased(null, null)).toEqual([0, 1]);
  });
});
