// `npm pack` / `npm publish` (prepack): the package ships the prebuilt dist/
// (built from build/iosim.wasm), so they must exist and be newer than every source
// they are built from. Checking instead of building keeps `npm pack` to a few
// seconds (it ran the whole build, ~60 s) and never packs a stale build.
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const built = ["dist/cli/iosim.js", "dist/lib/worker.js", "dist/lib/index.js", "dist/lib/mc.js", "dist/bindings/index.d.ts", "build/iosim.wasm"];
const missing = built.filter((f) => !existsSync(join(root, f)));
if (missing.length) {
  console.error(`prepack: ${missing.join(", ")} not built: run \`npm run build\` first`);
  process.exit(1);
}
const mtime = (f) => statSync(join(root, f)).mtimeMs;
function newest(dir) {
  let best = { t: 0, f: "" };
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    const x = e.isDirectory() ? newest(p) : /\.test\.ts$|\.generated\.ts$/.test(e.name) || !/\.ts$/.test(e.name) ? { t: 0, f: "" } : { t: statSync(p).mtimeMs, f: p };
    if (x.t > best.t) best = x;
  }
  return best;
}
// the core from assembly/, the JavaScript from bindings/ (its wasm.generated.ts is written by the build itself)
for (const [src, outs] of [["assembly", ["build/iosim.wasm"]], ["bindings", built.filter((f) => f.startsWith("dist/"))]]) {
  const n = newest(join(root, src));
  if (n.t > Math.min(...outs.map(mtime))) {
    console.error(`prepack: ${n.f.slice(root.length + 1)} is newer than ${outs.join(", ")}: run \`npm run build\` first`);
    process.exit(1);
  }
}
