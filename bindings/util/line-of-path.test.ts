// Lines of a YAML document's fields, as errors name them: a field is at its
// key's line, also when its value is a block that starts on the next line
// (`mc:\n  expects:\n    - ...` named `expects` a line low, at its first item).
import { describe, expect, it } from "vitest";
import { LineCounter, parseDocument } from "yaml";
import { lineOfPath, yamlFieldLines } from "./line-of-path.js";

const linesOf = (text: string): Map<string, number> => {
  const lc = new LineCounter();
  return yamlFieldLines(parseDocument(text, { lineCounter: lc }).contents, lc);
};

describe("yamlFieldLines", () => {
  const text = ["mc:", "  expects:", "    - {name: x, metric: m}", "scenario:", "  jobs:", "    - name: a", "      bs: 4k", "  flags: {a: 1}"].join("\n");
  const lines = linesOf(text);

  it("names a field whose value is a block at its key's line, not at the block's first line", () => {
    expect(lines.get("mc")).toBe(1);
    expect(lines.get("mc.expects")).toBe(2);
    expect(lines.get("scenario")).toBe(4);
    expect(lines.get("scenario.jobs")).toBe(5);
  });

  it("names list items, inline values and the fields inside them at their own lines", () => {
    expect(lines.get("")).toBe(1);
    expect(lines.get("mc.expects[0]")).toBe(3);
    expect(lines.get("mc.expects[0].metric")).toBe(3);
    expect(lines.get("scenario.jobs[0]")).toBe(6);
    expect(lines.get("scenario.jobs[0].bs")).toBe(7);
    expect(lines.get("scenario.flags")).toBe(8);
  });

  it("lineOfPath falls back to the nearest enclosing field, then the document", () => {
    expect(lineOfPath(lines, "scenario.jobs[0].iodepth")).toBe(6);
    expect(lineOfPath(lines, "mc.expects.oops")).toBe(2);
    expect(lineOfPath(lines, "nowhere")).toBe(1);
  });
});
