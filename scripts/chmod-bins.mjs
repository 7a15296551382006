// Make the package's "bin" files executable after tsc writes them (tsc creates
// them 0644). `npm install` sets the bit itself, but `npm ci` does not, and a
// later build keeps whatever mode the file had: without this, `npm ci && npx
// iosim run` fails with "Permission denied".
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const bins = typeof pkg.bin === "string" ? [pkg.bin] : Object.values(pkg.bin ?? {});
for (const b of bins) {
  const p = join(root, b);
  if (!existsSync(p)) {
    console.error(`chmod-bins: ${b} (package.json "bin") was not built`);
    process.exit(1);
  }
  chmodSync(p, 0o755);
}
