// Every figure block in README.md and docs/*.md (`<!-- figure:NAME -->`) is
// what `npm run docs:figures` makes now: the cheap ones (every command's
// output the README shows, the fidelity totals, the WASM size, the device
// presets) are made again here and compared; the costly one (the packed
// package's size) must be what the script last wrote to docs/figures.json.
// A stale README output, a figure nobody regenerated after a change, or a
// block naming no known figure fails here.
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
// @ts-expect-error a plain .mjs script without types
import * as figs from "../../scripts/docs-figures.mjs";

interface Figure {
  cheap: boolean;
  make: () => string | Promise<string>;
}
const { figures, blocksOf, figureFiles, ROOT, FIGURES_JSON } = figs as {
  figures: Record<string, Figure>;
  blocksOf: (md: string) => Array<[string, string]>;
  figureFiles: () => string[];
  ROOT: string;
  FIGURES_JSON: string;
};

const blocks = figureFiles().flatMap((f) => blocksOf(readFileSync(join(ROOT, f), "utf8")).map(([name, text]) => ({ file: f, name, text })));
const saved = JSON.parse(readFileSync(FIGURES_JSON, "utf8")) as Record<string, string>;

describe("README and docs figures (npm run docs:figures)", () => {
  it("the README answers the five newcomer questions, each with a command's output", () => {
    const readme = blocks.filter((b) => b.file === "README.md").map((b) => b.name);
    for (const n of ["demo-summary", "bursty-summary", "k8s-stuck", "mc-detach", "library"]) expect(readme).toContain(n);
  });

  it("every block names a figure the script makes, and none is empty", () => {
    for (const b of blocks) {
      expect(Object.keys(figures), `${b.file}: figure:${b.name}`).toContain(b.name);
      expect(b.text.trim(), `${b.file}: figure:${b.name} is empty: run npm run docs:figures`).not.toBe("");
    }
  });

  const cheap = [...new Set(blocks.map((b) => b.name))].filter((n) => figures[n]?.cheap);
  it.each(cheap)("%s is what its command prints now", async (name) => {
    const now = await figures[name]!.make();
    for (const b of blocks.filter((x) => x.name === name)) expect(b.text, `${b.file}: figure:${name} is stale: run npm run docs:figures`).toBe(now);
    expect(saved[name], `docs/figures.json: ${name} is stale`).toBe(now);
  });

  it("fidelity and Monte Carlo pages state no measured percentage or table by hand: those are figure blocks", () => {
    // a percentage outside a figure block is the 95 % bar or interval, or quoted from a file the
    // same paragraph links that holds it; a Markdown table of measured numbers is a figure
    const outside = (md: string) => md.replace(/<!-- figure:[a-z0-9-]+ -->\n[\s\S]*?<!-- \/figure -->/g, "");
    for (const file of ["docs/fidelity.md", "docs/monte-carlo.md"]) {
      for (const para of outside(readFileSync(join(ROOT, file), "utf8")).split(/\n\s*\n/)) {
        const links = [...para.matchAll(/\]\(([^)#\s]+)/g)].map((m) => m[1]!).filter((l) => !/^https?:/.test(l));
        const quoted = (n: string) =>
          links.some((l) => {
            try {
              return readFileSync(join(ROOT, "docs", l), "utf8").includes(n);
            } catch {
              return false;
            }
          });
        for (const m of para.matchAll(/(\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?) ?%/g)) {
          const bar = m[1] === "95" && /\bbar\b|Wilson|interval/.test(para);
          expect(bar || quoted(`${m[1]}%`) || quoted(`${m[1]} %`), `${file}: "${m[0]}" written by hand in: ${para.trim().slice(0, 160)}`).toBe(true);
        }
        for (const row of para.split("\n").filter((l) => /^\|/.test(l) && !/^\|[-| :]+\|$/.test(l)))
          expect(/\d\.\d/.test(row), `${file}: a table of measured numbers written by hand: ${row}`).toBe(false);
      }
    }
  });

  it("docs/cli.md names every option of every command (the README calls it the page of every command and option)", () => {
    const md = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");
    const { cliCommands, cliOptions } = figs as unknown as { cliCommands: () => string[][]; cliOptions: (c: string[]) => string[] };
    const cmds = cliCommands();
    expect(cmds.map((c) => c.join(" "))).toEqual(expect.arrayContaining(["run", "compare", "k8s run", "mc", "mc merge", "record"]));
    const missing = cmds.flatMap((c) => cliOptions(c).filter((o) => !new RegExp(`${o}\\b`).test(md)).map((o) => `iosim ${c.join(" ")} ${o}`));
    expect(missing).toEqual([]);
  });

  it("README and docs/development.md state no speed by hand: speed is docs/performance.md's dated record", () => {
    for (const file of ["README.md", "docs/development.md"]) {
      const md = readFileSync(join(ROOT, file), "utf8").replace(/<!-- figure:[a-z0-9-]+ -->\n[\s\S]*?<!-- \/figure -->/g, "");
      expect(md, file).not.toMatch(/(under|within|in) a second|\b(runs|bios|IOs|events)\/s\b|~?\d+(\.\d+)? ?s over `node -e 0`|\d+(\.\d+)? ?s to (resolve|load)/);
    }
  });

  it("docs/performance.md says it is a dated record, and every table row names the command that made it", () => {
    const md = readFileSync(join(ROOT, "docs", "performance.md"), "utf8");
    expect(md.split("\n").slice(0, 6).join(" ")).toMatch(/dated record, not regenerated/);
    const processBench = readFileSync(join(ROOT, "bench", "process.ts"), "utf8");
    const rows = md.split("\n").filter((l) => /^\| `/.test(l));
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) {
      const command = row.split(" | ")[1] ?? "";
      // a bench's built form (its source in bench/), or a row of the whole-process bench
      const bench = /^`node dist\/bench\/([a-z0-9-]+)\.js`$/.exec(command)?.[1];
      const only = /^`--only ([a-z0-9]+)`$/.exec(command)?.[1];
      expect(bench !== undefined || only !== undefined, `docs/performance.md: no command in: ${row.slice(0, 100)}`).toBe(true);
      if (bench) expect(existsSync(join(ROOT, "bench", `${bench}.ts`)), `bench/${bench}.ts`).toBe(true);
      if (only) expect(processBench, `bench/process.ts has no row "${only}"`).toMatch(new RegExp(`want\\(\\"${only}\\"\\)|\\["${only}", \\d+\\]`));
    }
  });

  it("the costly figures are the ones docs/figures.json holds", () => {
    for (const b of blocks.filter((x) => !figures[x.name]?.cheap)) expect(b.text, `${b.file}: figure:${b.name}`).toBe(saved[b.name]);
  });
});
