// The team's habits as the repository wires them (issue #32): Biome lints
// what a branch changed and format-checks what it added (`npm test` runs
// scripts/lint-changed.mjs; `.ci/run` lints the whole tree), and TypeScript
// benches and scripts run from their sources through tsx, with no build step.
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "..", "..");
const tmp = mkdtempSync(join(tmpdir(), "iosim-habits-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const run = (cmd: string, args: string[], cwd: string) =>
  spawnSync(cmd, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
  });

describe("Biome on changed files", () => {
  it("npm test and .ci/run run it", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.scripts.test).toMatch(/node scripts\/lint-changed\.mjs && vitest run/);
    expect(pkg.devDependencies["@biomejs/biome"]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(readFileSync(join(ROOT, ".ci", "run"), "utf8")).toMatch(/^npm run lint\b/m);
  });

  it("lints the files a branch changed and format-checks the ones it added, leaving untouched files alone", () => {
    const repo = join(tmp, "repo");
    mkdirSync(join(repo, "scripts"), { recursive: true });
    mkdirSync(join(repo, "bindings"));
    cpSync(join(ROOT, "biome.json"), join(repo, "biome.json"));
    cpSync(join(ROOT, "scripts", "lint-changed.mjs"), join(repo, "scripts", "lint-changed.mjs"));
    symlinkSync(join(ROOT, "node_modules"), join(repo, "node_modules"));
    writeFileSync(join(repo, ".gitignore"), "node_modules\n");
    // on main: an old file laid out its own way, and one that will be edited
    writeFileSync(join(repo, "bindings", "old.ts"), "export const   a = 1 ;\n");
    writeFileSync(join(repo, "bindings", "edited.ts"), "export const b = 2;\n");
    for (const a of [
      ["init", "-q", "-b", "main"],
      ["add", "-A"],
      ["commit", "-qm", "main"],
      ["checkout", "-qb", "topic"],
    ])
      expect(run("git", a, repo).status).toBe(0);
    const lint = () => run(process.execPath, ["scripts/lint-changed.mjs"], repo);
    expect(lint().status).toBe(0);
    // an unused import in an edited file, a new file laid out badly
    writeFileSync(join(repo, "bindings", "edited.ts"), 'import { x } from "./old.js";\nexport const b = 2;\n');
    writeFileSync(join(repo, "bindings", "new.ts"), "export const   c = 3 ;\n");
    const bad = lint();
    expect(bad.status).toBe(1);
    const out = bad.stdout + bad.stderr;
    expect(out).toMatch(/bindings\/edited\.ts.*noUnusedImports/s);
    expect(out).toMatch(/bindings\/new\.ts format/);
    expect(out).not.toMatch(/bindings\/old\.ts/);
    // --write fixes both; the untouched file keeps its layout
    expect(run(process.execPath, ["scripts/lint-changed.mjs", "--write"], repo).status).toBe(0);
    writeFileSync(join(repo, "bindings", "edited.ts"), "export const b = 2;\n");
    expect(lint().status).toBe(0);
    expect(readFileSync(join(repo, "bindings", "new.ts"), "utf8")).toBe("export const c = 3;\n");
    expect(readFileSync(join(repo, "bindings", "old.ts"), "utf8")).toBe("export const   a = 1 ;\n");
  });

  it("the whole tree passes the linter as configured (what .ci/run checks)", () => {
    const r = run(process.execPath, [join(ROOT, "node_modules", "@biomejs", "biome", "bin", "biome"), "lint", "--max-diagnostics=5"], ROOT);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});

describe("tsx", () => {
  it("runs a TypeScript file against the library's sources, no build step", () => {
    const f = join(tmp, "sim.ts");
    writeFileSync(
      f,
      `import { simulate, scenarioDefaults, jobDefaults, devicePreset } from ${JSON.stringify(join(ROOT, "bindings", "index.ts"))};
const n: number = simulate(scenarioDefaults({ name: "x", devices: [devicePreset("nvme")], jobs: [jobDefaults({ name: "r", device: "nvme0n1", count: 500 })] })).jobs[0]!.read.ios;
console.log(n);`,
    );
    const r = run(process.execPath, ["--import", "tsx", f], ROOT);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("500");
    expect(readFileSync(join(ROOT, "scripts", "bench-all.mjs"), "utf8")).toContain('"--import", "tsx"');
  });
});
