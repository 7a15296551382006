import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { diffK8sRuns } from "../diff.js";
import { builtinK8sScenario } from "../index.js";
import { loadK8sScenario } from "../scenario/loader.js";
import { runK8sScenario } from "../scenario/run.js";
import type { K8sScenario } from "../scenario/schema.js";
import { CATALOGUE, MODELLED, NOT_MODELLED, REVIEWED } from "./fixes.js";
import { FIXES, MAX_MINOR, parseFixOverrides, resolveProfile, type FixId } from "./profile.js";
import { countsSentence, formatVersions, versionsTable } from "./table.js";

const here = dirname(fileURLToPath(import.meta.url));
function scenario(name: string): K8sScenario {
  const b = builtinK8sScenario(name);
  if (b) return b;
  const file = join(here, "scenarios", `${name}.yaml`);
  return loadK8sScenario(readFileSync(file, "utf8"), file);
}

describe("the fix catalogue", () => {
  it("every modelled entry is a switch, and every switch a modelled entry with a test", () => {
    expect(FIXES.map((f) => f.id).sort()).toEqual(MODELLED.map((e) => e.id).sort());
    for (const e of MODELLED) expect(e.test, e.id).toBeDefined();
    // and the count the README gives
    const readme = readFileSync(join(here, "..", "README.md"), "utf8");
    const counts = `**${CATALOGUE.length} catalogued changes: ${MODELLED.length} switches, ${REVIEWED.length} reviewed and not switches**`;
    expect(readme).toContain(
      NOT_MODELLED.length > 0 ? `${counts},\nand ${NOT_MODELLED.length} changes not modelled yet` : `${counts}: each`,
    );
    expect(MODELLED.length + REVIEWED.length + NOT_MODELLED.length).toBe(CATALOGUE.length);
  });

  it("the reviewed entries are apart: not switches, no diff test, each saying why", () => {
    for (const e of REVIEWED) {
      expect(e.reviewed, e.id).toBe(true);
      expect(typeof e.modelled, e.id).toBe("string");
      expect(e.test, e.id).toBeUndefined();
    }
    // every entry of the behaviour-change part that is modelled is a switch with a test
    for (const e of CATALOGUE.filter((x) => !x.reviewed && x.modelled === true)) expect(e.test, e.id).toBeDefined();
    expect(REVIEWED.map((e) => e.id).sort()).toEqual(["56288", "96952", "node-lease-ga", "podgc-out-of-service"]);
  });

  it("a catalogued change that is not modelled is refused as a switch, with the reason (no switch that does nothing)", () => {
    for (const e of CATALOGUE.filter((x) => x.modelled !== true)) {
      expect(typeof e.modelled).toBe("string");
      expect(() => parseFixOverrides([`${e.id}=on`]), e.id).toThrow(/catalogued but not modelled/);
    }
  });

  it("releases 1.10 to 1.35 resolve, each with its switches", () => {
    expect(MAX_MINOR).toBe(35);
    expect(resolveProfile("1.35").text).toBe("1.35.0");
    expect(() => resolveProfile("1.36")).toThrow(/outside the modelled range 1.10-1.35/);
    const rows = versionsTable();
    expect(rows.map((r) => r.version)).toEqual(Array.from({ length: 26 }, (_, i) => `1.${i + 10}`));
    const r22 = rows.find((r) => r.version === "1.22")!;
    expect(r22.switches["104526"]).toEqual({ on: false, from: "1.22.4" });
    expect(r22.switches["102344"]).toEqual({ on: true, from: null });
    expect(r22.patches).toEqual([
      { patch: "1.22.4", on: ["104526"] },
      { patch: "1.22.8", on: ["108167"] },
      { patch: "1.22.14", on: ["111205", "107025"] },
    ]);
    const text = formatVersions(rows).split("\n");
    expect(text[0]).toMatch(/^release +96617 +104526 /);
    expect(text.find((l) => l.startsWith("1.22 "))).toMatch(/^1\.22 +on +\.4 +\.8 +\.14 /);
    expect(text.at(-1)).toBe(`${countsSentence()} (docs/k8s-fixes.md says why)`);
    expect(countsSentence()).toMatch(new RegExp(`^${MODELLED.length} switches; ${REVIEWED.length} reviewed and not switches`));
    // the table and the profile agree, patch by patch
    for (const r of rows)
      for (const f of FIXES) {
        const s = r.switches[f.id]!;
        expect(resolveProfile(r.version).fix[f.id], `${r.version} ${f.id}`).toBe(s.on);
        if (s.from) expect(resolveProfile(s.from).fix[f.id], `${s.from} ${f.id}`).toBe(true);
      }
  });

  it("a change a cherry-picked revert takes out again: NewVolumeManagerReconstruction (113262) on in 1.27.0-1.27.1, off from 1.27.2 (#117752), on from 1.28", () => {
    expect(["1.26.9", "1.27.0", "1.27.1", "1.27.2", "1.27.16", "1.28.0", "1.35"].map((v) => resolveProfile(v).fix["113262"])).toEqual([false, true, true, false, false, true, true]);
    const r27 = versionsTable().find((r) => r.version === "1.27")!;
    expect(r27.switches["113262"]).toEqual({ on: true, from: null, offFrom: "1.27.2" });
    expect(formatVersions(versionsTable()).split("\n").find((l) => l.startsWith("1.27 "))).toContain("x.2");
  });

  it("node status reports: every 10 s up to 1.13, every minute from 1.14 (#72096), every 5 minutes from 1.17 (#84007)", () => {
    expect([resolveProfile("1.13").nodeStatusReportMs, resolveProfile("1.14").nodeStatusReportMs, resolveProfile("1.16").nodeStatusReportMs, resolveProfile("1.17").nodeStatusReportMs, resolveProfile("1.35").nodeStatusReportMs]).toEqual([0, 60_000, 60_000, 300_000, 300_000]);
  });
});

describe("each switch changes behaviour: `iosim k8s diff` across it differs in a scenario that exercises it", () => {
  for (const e of MODELLED) {
    const t = e.test!;
    const flag = e.since.length === 0;
    it(`${e.id}: ${t.scenario} ${flag ? `${t.after} off vs on` : `${t.before} vs ${t.after}`}, and ${t.after} with the switch flipped`, () => {
      const sc = scenario(t.scenario);
      const id = e.id as FixId;
      // the releases on either side (a flag: off and on at the same release)
      const a = runK8sScenario(sc, { version: t.before, fixes: flag ? { [id]: false } : {} });
      const b = runK8sScenario(sc, { version: t.after, fixes: flag ? { [id]: true } : {} });
      expect(a.fixes[id], "before").toBe(false);
      expect(b.fixes[id], "after").toBe(true);
      const d = diffK8sRuns(a, b);
      expect(d.first, "the releases on either side differ").not.toBeNull();
      // the switch alone, at the fixed release: the difference is the fix's, not the release's formats
      const off = runK8sScenario(sc, { version: t.after, fixes: { [id]: false } });
      const alone = diffK8sRuns(off, b);
      expect(alone.first, "the switch alone changes the run").not.toBeNull();
      expect(alone.logFormats).toBeNull();
    });
  }
});
