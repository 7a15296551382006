// The published package as a consumer gets it: `npm pack` of this build,
// installed into a fresh project in a temporary directory. It installs
// without building anything (no install or prepare script, no assemblyscript
// or playground dependency pulled in), runs a simulation from its `iosim` bin
// and from `import "iosim"`, and carries what it needs only: prebuilt JS and
// types, no .wat, no benches, no source maps without their sources.
// The clone's side: bin/iosim.js in a checkout that has not been built says
// it is building, builds once (npm run build), then runs.
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "..", "..");
const tmp = mkdtempSync(join(tmpdir(), "iosim-pkg-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const npm = (args: string[], cwd: string) => spawnSync("npm", args, { cwd, encoding: "utf8", timeout: 300_000, env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" } });

describe("the packed package", () => {
  it("packs prebuilt JS and types (under 785 KB), installs in a fresh project without building, and simulates", () => {
    const packed = npm(["pack", "--json", "--pack-destination", tmp], ROOT);
    expect(packed.status, packed.stderr).toBe(0);
    const info = (JSON.parse(packed.stdout) as Array<{ filename: string; size: number; files: Array<{ path: string }> }>)[0]!;
    const files = info.files.map((f) => f.path);
    // issue #32 asks for < 600 KB: 597 KB before the merge of main's report page, buffered-read
    // oracle and versions table, 658-676 KB after; the library bundle and the CLI's chunks each carry the
    // replay and the engine (~190 KB packed twice): sharing them is what is left. This bound keeps
    // what was cut (1.0 MB: the .wat, a second .wasm, benches, maps, a 176 KB .d.ts) from coming back.
    // 709 KB after io.latency, wbt and the page cache grew the core (the embedded WASM: 132 -> 145 KB);
    // 689 KB without esbuild's keepNames (scripts/bundle.mjs: it cost the replay's closures time).
    // main at 769 KB after session 2's merges (its bound was still 720 KB); 779 KB with the
    // io.cost replay of iosim record traces (record-iocost.ts, in both bundles) and the
    // buffered-read replay's recorded driver times and closed-loop option.
    expect(info.size).toBeLessThan(785_000);
    expect(files.filter((f) => /\.wat$|\.map$|^dist\/bench\/|^bench\/|^assembly\/|\.test\./.test(f))).toEqual([]);
    expect(files).toContain("dist/cli/iosim.js");
    expect(files).toContain("dist/lib/index.js");
    expect(files).toContain("dist/bindings/index.d.ts");
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string>; dependencies: Record<string, string> };
    for (const s of ["preinstall", "install", "postinstall", "prepare"]) expect(manifest.scripts[s]).toBeUndefined();
    // uplot: `iosim run --report` inlines its charts into the page
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["cli-progress", "commander", "uplot", "yaml"]);

    const app = join(tmp, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    const inst = npm(["install", "--prefer-offline", "--no-package-lock", join(tmp, info.filename)], app);
    expect(inst.status, inst.stderr).toBe(0);
    const mods = readdirSync(join(app, "node_modules"));
    expect(mods).toContain("iosim");
    for (const dev of ["assemblyscript", "typescript", "esbuild", "vite", "vitest"]) expect(mods).not.toContain(dev);

    const run = spawnSync(join(app, "node_modules", ".bin", "iosim"), ["run", "-q", "--json"], { cwd: app, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/building/);
    const fio = JSON.parse(run.stdout) as { jobs: Array<{ read: { io_bytes: number } }> };
    expect(fio.jobs.length).toBeGreaterThan(0);
    expect(fio.jobs.some((j) => j.read.io_bytes > 0)).toBe(true);

    writeFileSync(join(app, "lib.mjs"), `import { simulate, scenarioDefaults, jobDefaults, devicePreset } from "iosim";
const r = simulate(scenarioDefaults({ name: "x", devices: [devicePreset("nvme")], jobs: [jobDefaults({ name: "r", device: "nvme0n1", count: 1000 })] }));
console.log(r.jobs[0].read.ios);`);
    expect(execFileSync(process.execPath, ["lib.mjs"], { cwd: app, encoding: "utf8" }).trim()).toBe("1000");
  });
});

describe("the committed package-lock.json", () => {
  it("is what npm install writes: an install leaves it unchanged (it rewrote 168 lines: key order of the platform entries)", () => {
    const dir = join(tmp, "lock");
    mkdirSync(dir);
    for (const f of ["package.json", "package-lock.json"]) copyFileSync(join(ROOT, f), join(dir, f));
    const r = npm(["install", "--package-lock-only", "--prefer-offline", "--ignore-scripts"], dir);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(dir, "package-lock.json"), "utf8")).toBe(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
  });
});

describe("bin/iosim.js in a clone", () => {
  it("says it is building when dist/ is not built, builds once with npm run build, then runs; afterwards it just runs", () => {
    const clone = join(tmp, "clone");
    mkdirSync(join(clone, "bin"), { recursive: true });
    mkdirSync(join(clone, "assembly"));
    copyFileSync(join(ROOT, "bin", "iosim.js"), join(clone, "bin", "iosim.js"));
    writeFileSync(join(clone, "assembly", "index.ts"), "");
    // a stand-in build: what `npm run build` leaves (a CLI that prints its arguments)
    writeFileSync(join(clone, "build.mjs"), `import { mkdirSync, writeFileSync } from "node:fs";
mkdirSync("dist/cli", { recursive: true });
writeFileSync("dist/cli/iosim.js", "console.log('ran', process.argv.slice(2).join(' '), process.argv[1].endsWith('dist/cli/iosim.js'));\\n");`);
    writeFileSync(join(clone, "package.json"), JSON.stringify({ name: "iosim", type: "module", scripts: { build: "node build.mjs" } }));
    const first = spawnSync(process.execPath, [join(clone, "bin", "iosim.js"), "run", "-q"], { cwd: clone, encoding: "utf8", timeout: 120_000 });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/first run in this checkout: building/);
    expect(first.stdout.trim()).toBe("ran run -q true");
    expect(statSync(join(clone, "dist", "cli", "iosim.js")).isFile()).toBe(true);
    const again = spawnSync(process.execPath, [join(clone, "bin", "iosim.js"), "run"], { cwd: clone, encoding: "utf8" });
    expect(again.stderr).toBe("");
    expect(again.stdout.trim()).toBe("ran run true");
  });

  it("an installed package without its dist/ is an error naming the file, not a build", () => {
    const broken = join(tmp, "broken");
    mkdirSync(join(broken, "bin"), { recursive: true });
    copyFileSync(join(ROOT, "bin", "iosim.js"), join(broken, "bin", "iosim.js"));
    const r = spawnSync(process.execPath, [join(broken, "bin", "iosim.js"), "--help"], { encoding: "utf8" });
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/dist\/cli\/iosim\.js is missing from this install/);
    expect(existsSync(join(broken, "dist"))).toBe(false);
  });
});
