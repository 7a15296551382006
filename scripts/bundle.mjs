// Bundles the command line (dist/bindings/cli/main.js, from tsc) and the Monte
// Carlo worker (dist/bindings/mc/worker.js) into dist/cli/: one ES module per
// entry point (iosim.js, worker.js) and shared chunks that the commands' lazy
// `import()`s load (bindings/cli/commands/index.ts). Node then resolves and
// reads a handful of files instead of ~130 modules and their packages
// (commander, yaml, cli-progress): `iosim --help` loads commander and the
// command declarations only, a sweep's worker one file.
//
// esbuild because it is the bundler made for this (ES module splitting along
// dynamic imports, Node platform, in ~0.3 s) and is already what the
// playground's vite build runs on; pinned in package.json.
import { build } from "esbuild";
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "cli");
rmSync(outdir, { recursive: true, force: true });
const r = await build({
  absWorkingDir: root,
  entryPoints: { iosim: "dist/bindings/cli/main.js", worker: "dist/bindings/mc/worker.js" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // the CommonJS packages (commander, yaml) call require() for Node's built-ins
  banner: { js: 'import { createRequire as __iosimRequire } from "node:module"; const require = __iosimRequire(import.meta.url);' },
  chunkNames: "chunk-[hash]",
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
});
// which chunks each entry loads before it runs (its static imports): read by the start-up test
writeFileSync(join(outdir, "meta.json"), JSON.stringify(r.metafile));
