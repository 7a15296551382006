// Fuzz findings kept as regressions: each directory under
// test/fixtures/fuzz/found/ holds a case's files and case.json (its command
// line with "{dir}"); the case must now end as harness.ts requires.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli-inproc.js";
import { runCase } from "./harness.js";

const FOUND = join(ROOT, "test", "fixtures", "fuzz", "found");
const dirs = existsSync(FOUND) ? readdirSync(FOUND).sort() : [];

describe("fuzz findings stay fixed", () => {
  it.skipIf(dirs.length === 0)("each kept case exits 0, 1 or 2, bounded, and writes nothing when rejected", async () => {
    for (const d of dirs) {
      const meta = JSON.parse(readFileSync(join(FOUND, d, "case.json"), "utf8")) as { kind: string; args: string[]; files: string[] };
      const files = Object.fromEntries(meta.files.map((f) => [f, readFileSync(join(FOUND, d, f), "utf8")]));
      const o = await runCase({ kind: meta.kind, args: meta.args, files });
      expect(o.problem, `${d} (${meta.kind})`).toBeUndefined();
    }
    // (a few seconds of CPU each at most; minutes of wall on a loaded machine)
  }, 120_000 + dirs.length * 120_000);
});
