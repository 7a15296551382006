// Bundles what the package ships (esbuild; from tsc's output in dist/bindings/):
//
// - dist/cli/: the command line (bindings/cli/main.ts) and the Monte Carlo
//   worker (bindings/mc/worker.ts), one ES module per entry point (iosim.js,
//   worker.js) and shared chunks that the commands' lazy `import()`s load
//   (bindings/cli/commands/index.ts). Node resolves and reads a handful of
//   files instead of ~130 modules and their packages: `iosim --help` loads
//   commander and the command declarations only, a sweep's worker one file.
// - dist/lib/index.js: the library (bindings/index.ts) as one ES module for
//   Node and browser bundles alike (platform-neutral: no Node built-in in it).
// - dist/lib/wasm.generated.js: the embedded core (176 KB of base64), one copy
//   that the library and the CLI's chunks both import.
//
// esbuild because it is the bundler made for this (ES module splitting along
// dynamic imports, Node and neutral platforms, well under a second) and is
// what the playground's vite build runs on already; pinned in package.json.
// Whitespace, syntax and names are minified. Not esbuild's keepNames: it
// keeps a function's name by wrapping each function expression in a call
// that defines its `name` property (Object.defineProperty) where it is
// created, so every closure a replay makes per run or per event paid one:
// ~330 in the Kubernetes chunk alone, and the 20,000-run detach-backoff
// sweep on one worker took 4.12-4.44 s of CPU with it vs 3.74-3.81 s
// without (alternated, load ~20; issue #34), the package 20 KB more. An
// internal error's stack trace names minified functions; its chunk, line
// and column still locate them in the build that printed it.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cliDir = join(root, "dist", "cli");
const libDir = join(root, "dist", "lib");
rmSync(cliDir, { recursive: true, force: true });
rmSync(libDir, { recursive: true, force: true });
mkdirSync(libDir, { recursive: true });
copyFileSync(join(root, "dist", "bindings", "core", "wasm.generated.js"), join(libDir, "wasm.generated.js"));

/** the embedded core stays one file: importers get `to` (relative to their output directory) */
const sharedWasm = (to) => ({
  name: "shared-wasm",
  setup(b) {
    b.onResolve({ filter: /wasm\.generated\.js$/ }, () => ({ path: to, external: true }));
  },
});
const common = {
  absWorkingDir: root,
  bundle: true,
  format: "esm",
  target: "node20",
  legalComments: "none",
  minifyWhitespace: true,
  minifySyntax: true,
  // local names shortened (the package stays under 720 KB packed: 689 KB; 735 KB with names kept as written)
  minifyIdentifiers: true,
  keepNames: false,
  logLevel: "warning",
};

const cli = await build({
  ...common,
  entryPoints: { iosim: "dist/bindings/cli/main.js", worker: "dist/bindings/mc/worker.js" },
  outdir: cliDir,
  splitting: true,
  platform: "node",
  // the CommonJS packages (commander, cli-progress) call require() for Node's built-ins
  banner: { js: 'import { createRequire as __iosimRequire } from "node:module"; const require = __iosimRequire(import.meta.url);' },
  chunkNames: "chunk-[hash]",
  metafile: true,
  plugins: [sharedWasm("../lib/wasm.generated.js")],
});
// which chunks each entry loads before it runs (its static imports): read by bindings/cli/startup.test.ts
writeFileSync(join(cliDir, "meta.json"), JSON.stringify(cli.metafile));

await build({
  ...common,
  entryPoints: { index: "dist/bindings/index.js" },
  outdir: libDir,
  platform: "neutral",
  mainFields: ["module", "main"],
  plugins: [sharedWasm("./wasm.generated.js")],
});
