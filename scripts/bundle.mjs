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
// build runs on already; pinned in package.json. Whitespace, syntax and local
// names are minified; functions and classes keep their names (keepNames: an
// internal error's stack trace stays readable).
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
  // local names shortened (the package stays under 600 KB packed); functions and classes keep their names
  minifyIdentifiers: true,
  keepNames: true,
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
