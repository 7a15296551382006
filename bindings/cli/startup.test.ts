// The published `iosim` (package.json "bin": the esbuild bundle in dist/cli/,
// scripts/bundle.mjs) loads what the command needs: `iosim --help` reads
// commander and the command declarations, never the WebAssembly core, the
// Kubernetes replay or the YAML parser; a sweep's workers find their bundled
// entry. (How fast that is: bench/process.ts, side by side with node itself.)
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; bin: Record<string, string> };
const BIN = join(ROOT, "dist", "cli", "iosim.js");

interface Meta { outputs: Record<string, { imports: Array<{ path: string; kind: string }>; inputs: Record<string, unknown> }> }

/** the source modules in the chunks `entry` imports statically (what Node reads before the command runs) */
function loadedBefore(entry: string): string[] {
  const meta = JSON.parse(readFileSync(join(ROOT, "dist", "cli", "meta.json"), "utf8")) as Meta;
  const seen = new Set<string>();
  const visit = (f: string) => {
    if (seen.has(f) || !meta.outputs[f]) return;
    seen.add(f);
    for (const i of meta.outputs[f].imports) if (i.kind === "import-statement") visit(i.path);
  };
  visit(entry);
  return [...seen].flatMap((f) => Object.keys(meta.outputs[f]!.inputs));
}

describe("the iosim bundle", () => {
  it("is the package's bin, and its start-up chunks hold commander and the command declarations, not the simulators", () => {
    // the bin is bin/iosim.js, which hands over to the bundle (or builds a clone first: test/package)
    expect(pkg.bin.iosim).toBe("bin/iosim.js");
    expect(readFileSync(join(ROOT, "bin", "iosim.js"), "utf8")).toContain('import(new URL("../dist/cli/iosim.js"');
    const mods = loadedBefore("dist/cli/iosim.js");
    expect(mods).toContain("dist/bindings/cli/commands/index.js");
    expect(mods.some((m) => m.startsWith("node_modules/commander/"))).toBe(true);
    const heavy = mods.filter((m) => /wasm\.generated|bindings\/(core|engine|k8s\/(?!commands)|mc\/(?!commands)|report|oracle|workload)\/|node_modules\/(yaml|cli-progress)\//.test(m));
    expect(heavy).toEqual([]);
  });

  it("shares its code with the library, whose files (dist/lib/index.js and all it imports) import no Node built-in", () => {
    const meta = JSON.parse(readFileSync(join(ROOT, "dist", "cli", "meta.json"), "utf8")) as { outputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }>; inputs: Record<string, unknown> }> };
    const closure = (entry: string) => {
      const seen = new Set<string>();
      const ext: string[] = [];
      const visit = (f: string) => {
        if (seen.has(f) || !meta.outputs[f]) return;
        seen.add(f);
        for (const i of meta.outputs[f].imports) if (i.external) ext.push(i.path); else visit(i.path);
      };
      visit(entry);
      return { files: seen, ext };
    };
    const lib = closure("dist/lib/index.js");
    expect(lib.ext).toEqual([]);
    // one copy of the engine and the embedded core, in a chunk both the CLI and the library load
    const withCore = Object.entries(meta.outputs).filter(([, o]) => Object.keys(o.inputs).some((m) => m.endsWith("core/wasm.generated.js")));
    expect(withCore.length).toBe(1);
    expect(lib.files.has(withCore[0]![0])).toBe(true);
    expect(closure("dist/cli/iosim.js").ext.every((m) => m.startsWith("node:") || !m.includes("/"))).toBe(true);
  });

  it("answers --help and --version (the package's version, found from dist/cli/)", () => {
    const h = spawnSync(process.execPath, [BIN, "--help"], { encoding: "utf8" });
    expect(h.status).toBe(0);
    expect(h.stdout).toMatch(/^Usage: iosim/);
    for (const c of ["run", "replay", "compare", "explain", "k8s", "mc"]) expect(h.stdout).toContain(`  ${c} `);
    const v = spawnSync(process.execPath, [join(ROOT, pkg.bin.iosim!), "--version"], { encoding: "utf8" });
    expect(v.stdout.trim()).toBe(pkg.version);
  });

  it("runs a sweep on two workers from the bundled worker entry", () => {
    const out = mkdtempSync(join(tmpdir(), "iosim-bundle-"));
    try {
      const r = spawnSync(process.execPath, [BIN, "mc", join(ROOT, "bindings", "mc", "examples", "k8s-detach-backoff.yaml"), "--runs", "40", "--workers", "2",
        "--no-shrink", "--no-progress", "--json", "--out", out], { encoding: "utf8" });
      expect(r.stderr).toMatch(/mc: 40 runs in .* 2 workers/);
      expect(r.status).toBe(0);
      expect((JSON.parse(r.stdout) as { completed: number }).completed).toBe(40);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
