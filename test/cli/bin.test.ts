// The package's command as a user's shell runs it: `npx iosim ...` executes
// package.json's "bin" file itself (its #! line), so the built file must be
// executable whichever way the project was installed (`npm ci` does not set
// the bit; scripts/chmod-bins.mjs does, after every build).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };

describe("the iosim command", () => {
  it("runs as an executable file, as npx runs it", () => {
    const out = execFileSync(join(ROOT, pkg.bin.iosim!), ["k8s", "list", "--json"], { encoding: "utf8" });
    const list = JSON.parse(out) as Array<{ name: string; affected: string; fixed: string }>;
    expect(list.map((s) => s.name)).toContain("detach-backoff-node-status");
  });
});
