// Every block-IO built-in of the playground opens in the editor as
// cgroup.conf + jobs.fio; running that text (any edit, here one more blank
// line) must run the same jobs as the built-in. It did not: the io.max demo,
// two-tenants, million-bios and iocost-weights had regionLen `N << 30`,
// which JavaScript's 32-bit shift makes 0, so jobs.fio said size=0 and every
// edit failed with "jobs.fio:9 (size): size must be > 0"; the oracle's
// bursts jobs silently became closed loops; blockalign was lost.
import { describe, expect, it } from "vitest";
import "../../web/src/iosim.js";
import { FAMILIES } from "../../web/src/families/index.js";
import type { BlockFamily } from "../../web/src/families/blockio.js";
import { FIO_FILE } from "../../web/src/lib/fiofmt.js";
import type { JobSpec } from "../../bindings/scenario/types.js";

/** the fields the built-in job sets (the parser adds fio's defaults, e.g. io_size = size) */
const same = (built: JobSpec, parsed: JobSpec) =>
  Object.fromEntries(Object.keys(built).filter((k) => k !== "source").map((k) => [k, parsed[k as keyof JobSpec]]));
const own = (built: JobSpec) => same(built, built);

describe("the playground's built-ins as editable text", () => {
  it("jobs.fio of every block-IO built-in runs the built-in's jobs", async () => {
    let checked = 0;
    for (const f of FAMILIES.filter((x) => x.id !== "k8s")) {
      const info = await f.load();
      if (!info.available) continue;
      for (const sc of info.scenarios) {
        const req = { family: f.id, scenario: sc.id, seed: 1, version: "6.18", fixes: [] };
        const built = await (f as BlockFamily).scenario(req);
        const edited = await (f as BlockFamily).scenario({ ...req, files: { ...sc.files, [FIO_FILE]: sc.files[FIO_FILE] + "\n" } });
        expect(edited.jobs.length, `${f.id}/${sc.id}`).toBe(built.jobs.length);
        expect(edited.jobs.map((j, i) => same(built.jobs[i]!, j)), `${f.id}/${sc.id}`).toEqual(built.jobs.map(own));
        for (const j of built.jobs) expect(j.regionLen, `${f.id}/${sc.id} ${j.name}`).toBeGreaterThan(0);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(4);
  });

  it("a jobs.fio edited to run longer than the built-in's stop time runs to its runtime (the demo stopped at 11 s)", async () => {
    const f = FAMILIES.find((x) => x.id === "throttle")!;
    const info = await f.load();
    if (!info.available) return;
    const sc = info.scenarios.find((x) => x.id === "iomax-demo")!;
    const req = { family: f.id, scenario: sc.id, seed: 1, version: "6.18", fixes: [] };
    const built = await (f as BlockFamily).scenario(req);
    expect(built.durationNs).toBe(11e9);
    const fio = sc.files[FIO_FILE]!;
    expect(fio).toContain("runtime=10s");
    const longer = await (f as BlockFamily).scenario({ ...req, files: { ...sc.files, [FIO_FILE]: fio.replaceAll("runtime=10s", "runtime=30s") } });
    expect(longer.durationNs).toBe(31e9);
    const shorter = await (f as BlockFamily).scenario({ ...req, files: { ...sc.files, [FIO_FILE]: fio.replaceAll("runtime=10s", "runtime=2s") } });
    expect(shorter.durationNs).toBe(11e9); // never earlier than the built-in's own stop
  });
});
