// Keeps package-lock.json valid for `npm ci` when the package registry this
// project installs from does not serve every platform build of a package.
//
// rollup (through vite) lists one optional dependency per platform
// (@rollup/rollup-<os>-<cpu>[-<libc>]). When the registry answers 404 for the
// builds of other platforms, `npm install` leaves them out of the lock file,
// and `npm ci` then refuses the lock as "not in sync" ("Missing:
// @rollup/rollup-darwin-x64@ from lock file"). This script adds a lock entry
// for every optional dependency that has none, with the os/cpu/libc its name
// states, marked optional: npm ci records it and skips it on this platform,
// exactly as it would with the registry's own metadata.
//
//   node scripts/lock-optional-platforms.mjs   (after any `npm install` that changes the lock)
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
const pk = lock.packages;
const OS = { android: "android", darwin: "darwin", freebsd: "freebsd", linux: "linux", openbsd: "openbsd", win32: "win32", openharmony: "openharmony" };
const CPU = { arm: "arm", arm64: "arm64", x64: "x64", ia32: "ia32", loong64: "loong64", ppc64: "ppc64", riscv64: "riscv64", s390x: "s390x" };
let added = 0;
for (const [path, meta] of Object.entries(pk)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (pk[key] || pk[`${path}/node_modules/${dep}`]) continue;
    const m = /^@rollup\/rollup-([a-z0-9]+)-([a-z0-9]+)(?:-([a-z0-9]+))?$/.exec(dep);
    if (!m || !OS[m[1]] || !CPU[m[2]]) {
      console.warn(`no lock entry for ${dep}@${version} and no platform in its name: left alone`);
      continue;
    }
    // the keys in the order npm writes them (alphabetical after "version"), so
    // a later `npm install` finds the entry as it would write it and leaves the lock alone
    const entry = { version, cpu: [CPU[m[2]]] };
    if (meta.dev) entry.dev = true;
    if (m[3] && /gnu|musl/.test(m[3])) entry.libc = [m[3].startsWith("musl") ? "musl" : "glibc"];
    Object.assign(entry, { license: "MIT", optional: true, os: [OS[m[1]]] });
    pk[key] = entry;
    added++;
  }
}
const sorted = Object.fromEntries(Object.entries(pk).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)));
lock.packages = sorted;
writeFileSync(file, JSON.stringify(lock, null, 2) + "\n");
console.log(`package-lock.json: added ${added} platform entries`);
