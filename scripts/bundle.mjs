// Bundles what the package ships (esbuild; from tsc's output in dist/bindings/),
// in one build whose entry points share their code (ES module splitting):
//
// - dist/cli/iosim.js: the command line (bindings/cli/main.ts). Its commands
//   load with lazy `import()`s (bindings/cli/commands/index.ts), so
//   `iosim --help` reads commander and the command declarations only.
// - dist/lib/index.js: the library (bindings/index.ts), for Node and browser
//   bundles alike: nothing it loads imports a Node built-in.
// - dist/lib/mc.js: the Monte Carlo API for Node (bindings/mc/index.ts,
//   `import ... from "iosim/mc"`), and dist/lib/worker.js, a sweep's worker
//   thread (bindings/mc/worker.ts; the runner starts the worker.js beside it).
// - dist/lib/chunk-*.js: the code two or more of them share, the engine, the
//   embedded core (bindings/core/wasm.generated.ts, 230 KB of base64), the
//   Kubernetes replay, once. (The CLI and the library were two builds that
//   each carried the engine and the replay: 709 KB packed; issue #32.)
//
// The CommonJS packages the CLI uses (commander, cli-progress) call require()
// for Node's built-ins; every output file defines `require` as
// process.getBuiltinModule (Node >= 20.16), which is undefined in a browser,
// where nothing calls it. No file imports node:module, so the library's
// chunks stay loadable in a browser bundle.
//
// esbuild because it is the bundler made for this (ES module splitting along
// dynamic imports, well under a second) and is what the playground's vite
// build runs on already; pinned in package.json. Whitespace, syntax and names
// are minified. Not esbuild's keepNames: it keeps a function's name by
// wrapping each function expression in a call that defines its `name`
// property (Object.defineProperty) where it is created, so every closure a
// replay makes per run or per event paid one: ~330 in the Kubernetes chunk
// alone, and the 20,000-run detach-backoff sweep on one worker took
// 4.12-4.44 s of CPU with it vs 3.74-3.81 s without (alternated, load ~20;
// issue #34), the package 20 KB more. An internal error's stack trace names
// minified functions; its chunk, line and column still locate them in the
// build that printed it.
import { build } from "esbuild";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cliDir = join(root, "dist", "cli");
const libDir = join(root, "dist", "lib");
rmSync(cliDir, { recursive: true, force: true });
rmSync(libDir, { recursive: true, force: true });
mkdirSync(cliDir, { recursive: true });

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const out = await build({
  absWorkingDir: root,
  bundle: true,
  format: "esm",
  target: "node20",
  platform: "neutral",
  mainFields: ["module", "main"],
  external: nodeBuiltins,
  legalComments: "none",
  minifyWhitespace: true,
  minifySyntax: true,
  // names shortened (the package stays under 600 KB packed)
  minifyIdentifiers: true,
  keepNames: false,
  logLevel: "warning",
  entryPoints: {
    "cli/iosim": "dist/bindings/cli/main.js",
    "lib/index": "dist/bindings/index.js",
    "lib/mc": "dist/bindings/mc/index.js",
    "lib/worker": "dist/bindings/mc/worker.js",
  },
  outdir: join(root, "dist"),
  splitting: true,
  chunkNames: "lib/chunk-[hash]",
  banner: { js: "const require=globalThis.process?.getBuiltinModule?.bind(globalThis.process);" },
  metafile: true,
});
// which chunks each entry loads before it runs (its static imports): read by bindings/cli/startup.test.ts
writeFileSync(join(cliDir, "meta.json"), JSON.stringify(out.metafile));
