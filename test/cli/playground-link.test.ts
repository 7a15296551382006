// `iosim run` prints a playground link for its run (bindings/cli/playground-link.ts):
// the page's families, run here in Node on the state the link holds (as the
// page's worker runs them), give the result hash the CLI printed, for the
// demo, a scenario YAML (with --device and --kernel) and a fio job file.
import { describe, expect, it } from "vitest";
import { inflateRawSync } from "node:zlib";
import { join } from "node:path";
import { cli, ROOT } from "../helpers/cli-inproc.js";
import { family } from "../../web/src/families/index.js";
import type { BlockFamily } from "../../web/src/families/blockio.js";
import { resultHash } from "../../bindings/report/result-hash.js";
import { simulate } from "../../bindings/engine/simulation.js";

async function linkAndHash(...args: string[]): Promise<{ link?: string; hash: string }> {
  const r = await cli("run", ...args);
  expect(r.code, r.stderr).toBe(0);
  return { link: /this run in the playground \(npm run web\): (\S+)/.exec(r.stderr)?.[1], hash: /result sha256 ([0-9a-f]{64})/.exec(r.stdout)![1]! };
}

/** what the page runs for a link (decodeState + the family's scenario), run in Node */
async function pageHash(link: string): Promise<string> {
  const url = new URL(link);
  expect(url.origin + url.pathname).toBe("http://127.0.0.1:4173/");
  const p = new URLSearchParams(url.hash.slice(1));
  const edit = p.get("edit");
  const files = edit
    ? (JSON.parse(inflateRawSync(Buffer.from(edit.replace(/-/g, "+").replace(/_/g, "/"), "base64")).toString("utf8")) as Record<string, string>)
    : undefined;
  const fam = family(p.get("family")!) as BlockFamily;
  const s = await fam.scenario({
    family: p.get("family")!,
    scenario: p.get("scenario")!,
    seed: Number(p.get("seed")),
    version: p.get("v")!,
    fixes: [],
    device: p.get("dev") ?? undefined,
    files,
  });
  return resultHash(simulate(s));
}

describe("iosim run's playground link", () => {
  it("the demo: the page's io.max demo with the seed and kernel", async () => {
    const r = await linkAndHash("--seed", "3", "--kernel", "6.12");
    expect(r.link).toBe("http://127.0.0.1:4173/#family=throttle&scenario=iomax-demo&seed=3&v=6.12");
    expect(await pageHash(r.link!)).toBe(r.hash);
    // the demo built on another device is not the page's demo
    expect((await linkAndHash("--device", "nvme")).link).toBeUndefined();
  });

  it("a scenario YAML: the file itself, run by the page's scenario-file family", async () => {
    const r = await linkAndHash(join(ROOT, "scenarios", "iocost-bursty.yaml"), "--seed", "9");
    expect(r.link).toMatch(/#family=file&scenario=file&seed=9&v=6\.12&edit=/);
    expect(await pageHash(r.link!)).toBe(r.hash);
    const d = await linkAndHash(join(ROOT, "scenarios", "shared-log-writeback.yaml"), "--device", "hdd", "--kernel", "6.1");
    expect(await pageHash(d.link!)).toBe(d.hash);
  });

  it("a fio job file: wrapped in a scenario YAML on the --device preset", async () => {
    const r = await linkAndHash(join(ROOT, "test", "fixtures", "fio", "cgroups-two-tenants.fio"), "--device", "nvme");
    expect(await pageHash(r.link!)).toBe(r.hash);
  });

  it("no link where the page could not run the same thing, and none with -q", async () => {
    expect((await linkAndHash(join(ROOT, "test", "fixtures", "oracle", "throtl", "scenarios", "iops100_qd1_read.json"))).link).toBeUndefined();
    expect((await cli("run", "-q")).stderr).not.toMatch(/playground/);
  });
});
