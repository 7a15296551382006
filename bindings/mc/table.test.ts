// A binned table axis compares a value's number with the bins, so a param
// whose values come in more than one unit ("2s" and "500ms") would land in the
// bins of 2 and 500. Such a sweep is refused where it is written.
import { describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { InputError } from "../scenario/errors.js";
import { compileTemplate, drawUnits } from "./distributions.js";
import { modelFromText } from "./run-one.js";

const ROOT = resolve(__dirname, "..", "..");
const K8S = join(ROOT, "bindings", "mc", "examples", "k8s-detach-backoff.yaml");
const IO = join(ROOT, "bindings", "mc", "examples", "io-depth.yaml");
const ENTRY = join(ROOT, "dist", "bindings", "mc", "cli-entry.js");
const LAND = 'landDelay: {uniform: ["0ms", "6000ms"]}';

const withLand = (dist: string): string => {
  const text = readFileSync(K8S, "utf8");
  expect(text).toContain(LAND);
  return text.replace(LAND, `landDelay: ${dist}`);
};

describe("a binned table axis keeps to one unit", () => {
  it("a choice of 2s and 500ms binned by number is refused, naming the file, the bins' line and field", () => {
    const text = withLand('{choice: ["2s", "500ms", "1500ms"]}');
    const binsLine = text.split("\n").findIndex((l) => l.includes("{param: landDelay, bins:")) + 1;
    let err: unknown;
    try {
      modelFromText(text, "sweep.yaml");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    const ie = err as InputError;
    expect(ie.file).toBe("sweep.yaml");
    expect(ie.line).toBe(binsLine);
    expect(ie.field).toBe("mc.table[0].bins");
    expect(ie.message).toMatch(/"landDelay" is binned by number, but its values come in more than one unit \("ms", "s"\)/);
  });

  it("one unit throughout is fine: a uniform in ms, a choice of ms values, a choice of plain numbers", () => {
    for (const d of ['{uniform: ["0ms", "6000ms"]}', '{choice: ["2000ms", "500ms"]}', "{choice: [2000, 500]}"]) {
      expect(() => modelFromText(withLand(d), "sweep.yaml")).not.toThrow();
    }
  });

  it("the same values without bins are tabulated by value, so any mix is fine", () => {
    const text = withLand('{choice: ["2s", "500ms"]}').replace(/\{param: landDelay, bins: \[[^\]]*\]\}/, "{param: landDelay}");
    expect(() => modelFromText(text, "sweep.yaml")).not.toThrow();
  });

  it("drawUnits follows params, choices among distributions and named draws inside the document", () => {
    const t = compileTemplate(
      { a: { choice: [{ param: "d" }, "3s"], name: "mix" }, bs: { choice: ["4k", "16k"], name: "bs" } },
      "doc.yaml", undefined, { d: { uniform: ["1ms", "5ms"] }, n: { randint: [1, 4] } });
    expect(drawUnits(t, "d")).toEqual(["ms"]);
    expect(drawUnits(t, "n")).toEqual([""]);
    expect(drawUnits(t, "mix")).toEqual(["ms", "s"]);
    expect(drawUnits(t, "bs")).toEqual(["k"]);
    expect(drawUnits(t, "nope")).toBeUndefined();
  });

  it("a table axis that names no param or named draw is refused (a typo would tabulate every run as (unset))", () => {
    const text = readFileSync(K8S, "utf8").replace("- {param: fix104526}", "- {param: fix10452}");
    const line = text.split("\n").findIndex((l) => l.includes("{param: fix10452}")) + 1;
    expect(() => modelFromText(text, "sweep.yaml")).toThrow(`sweep.yaml:${line} (mc.table[1].param): table axis "fix10452" names no param or named draw of the sweep`);
  });

  it("iosim mc --by PARAM:edges checks the same and names --by", () => {
    const dir = mkdtempSync(join(tmpdir(), "mc-table-"));
    try {
      const f = join(dir, "io.yaml");
      writeFileSync(f, readFileSync(IO, "utf8").replace("bs: {choice: [4k, 16k], name: bs}", "bs: {choice: [4k, 1M], name: bs}"));
      let stderr = "";
      try {
        execFileSync(process.execPath, [ENTRY, "mc", f, "--runs", "4", "--by", "bs:1,8", "--out", join(dir, "o")], { encoding: "utf8", stdio: "pipe" });
      } catch (e) {
        stderr = String((e as { stderr: string }).stderr);
      }
      expect(stderr).toMatch(/command line \(--by\): table axis "bs" is binned by number, but its values come in more than one unit \("M", "k"\)/);
      // the unbinned --by bs runs
      const out = execFileSync(process.execPath, [ENTRY, "mc", f, "--runs", "4", "--by", "bs", "--out", join(dir, "p"), "--json", "--no-shrink"],
        { encoding: "utf8", stdio: "pipe" });
      expect(Object.keys(JSON.parse(out).table.cells[0].key)).toEqual(["bs"]);
      // an unknown --by param is a usage error before any run
      const r = spawnSync(process.execPath, [ENTRY, "mc", f, "--runs", "4", "--by", "nosuch", "--out", join(dir, "q")], { encoding: "utf8" });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('command line (--by): table axis "nosuch" names no param or named draw of the sweep');
      expect(existsSync(join(dir, "q", "runs.jsonl"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
