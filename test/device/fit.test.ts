// `iosim device fit` on real fio json+ runs (test/fixtures/fio/real: loop on
// tmpfs, recorded by record.sh on a loaded 2-core machine): the fitted device
// must reproduce each run's IOPS within 5 % and p99 latency within 15 %, read
// back from its YAML the same, and run under `iosim run --device dev.yaml`.
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fitDevice, fitYaml, readFioRuns, simulateRun, loadDeviceFile } from "../../bindings/device/index.js";
import { InputError } from "../../bindings/scenario/errors.js";

const ROOT = resolve(__dirname, "..", "..");
const REAL = join(ROOT, "test", "fixtures", "fio", "real");
const MAIN = join(ROOT, "dist", "bindings", "cli", "main.js");
const tmp = mkdtempSync(join(tmpdir(), "iosim-fit-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const files = readdirSync(REAL).filter((f) => f.endsWith(".json")).sort().map((f) => join(REAL, f));
const runs = files.flatMap((f) => readFioRuns(readFileSync(f, "utf8"), f));
const fit = fitDevice(runs);

describe("iosim device fit on real fio runs", () => {
  it("reads every run: direction, pattern, bs, depth, IOPS and the lat histogram", () => {
    expect(runs.length).toBe(files.length);
    expect(runs.length).toBeGreaterThanOrEqual(6);
    expect(new Set(runs.map((r) => `${r.dir}/${r.random}`)).size).toBe(4); // both directions, both patterns
    expect(new Set(runs.map((r) => r.iodepth)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(runs.map((r) => r.bs)).size).toBeGreaterThanOrEqual(3);
    for (const r of runs) {
      expect(r.latKind).toBe("lat");
      const n = r.bins.reduce((a, [, c]) => a + c, 0);
      // (the histogram also holds the few IOs in flight when ramp_time ended: at most a depth's worth)
      expect(Math.abs(n - r.ios)).toBeLessThanOrEqual(r.iodepth);
    }
  });

  it("reproduces each run's IOPS within 5 % and p99 within 15 %", () => {
    expect(fit.rows.length).toBe(runs.length);
    for (const row of fit.rows) {
      expect(Math.abs(row.err.iops), `${row.job} IOPS ${row.real.iops} -> ${row.sim.iops}`).toBeLessThan(0.05);
      expect(Math.abs(row.err.p99), `${row.job} p99 ${row.real.p99Ns} -> ${row.sim.p99Ns}`).toBeLessThan(0.15);
    }
    // and the rows are the simulation's, not copies: another seed gives other numbers, within the bars
    const again = simulateRun(fit.device, runs[0]!, 40_000, 2);
    expect(again.iops).not.toBe(fit.rows[0]!.sim.iops);
    expect(Math.abs(again.iops / runs[0]!.iops - 1)).toBeLessThan(0.05);
  });

  it("the device file it writes reads back as the same device", () => {
    const yaml = fitYaml(fit);
    const dev = loadDeviceFile(yaml, "dev.yaml");
    expect(dev.kind).toBe("fitted");
    expect(dev.channels).toBe(fit.device.channels);
    expect(dev.card?.model).toMatch(/^fitted from \d+ fio runs/);
    for (const r of runs) {
      const a = simulateRun(dev, r, 5000);
      const b = simulateRun(fit.device, r, 5000);
      expect(Math.abs(a.iops / b.iops - 1)).toBeLessThan(0.001); // six significant digits in the file
    }
  });

  it("iosim device fit -o dev.yaml, then iosim run --device dev.yaml names the fitted model", () => {
    const out = join(tmp, "dev.yaml");
    const f = spawnSync(process.execPath, [MAIN, "device", "fit", ...files, "-o", out], { encoding: "utf8" });
    expect(f.status, f.stderr).toBe(0);
    expect(f.stdout).toMatch(/how the fit reproduces each run/);
    expect(f.stdout.split("\n").filter((l) => /IOPS \d+ -> \d+/.test(l)).length).toBe(runs.length);
    const job = join(tmp, "j.fio");
    writeFileSync(job, "[r]\nrw=randread\nbs=4k\niodepth=4\nnumber_ios=2000\nsize=1g\n");
    const r = spawnSync(process.execPath, [MAIN, "run", job, "--device", out, "-q"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^device loop0 \(7:0\): fitted from \d+ fio runs/m);
    expect(r.stdout).toMatch(/^ {4}model: fitted from/m);
  });

  it("bad input: a run without latency bins, a mixed run, not JSON: exit 2 naming file, line and field", () => {
    const plain = JSON.parse(readFileSync(files[0]!, "utf8"));
    for (const d of ["read", "write"]) {
      delete plain.jobs[0][d].clat_ns.bins;
      delete plain.jobs[0][d].lat_ns.bins;
    }
    const text = JSON.stringify(plain, null, 2);
    let e = (() => { try { readFioRuns(text, "plain.json"); } catch (x) { return x; } })() as InputError;
    expect(e).toBeInstanceOf(InputError);
    expect([e.file, e.field]).toEqual(["plain.json", "clat_ns.bins"]);
    expect(e.line).toBe(text.slice(0, text.indexOf('"clat_ns"')).split("\n").length);
    const mixed = JSON.parse(readFileSync(files[0]!, "utf8"));
    mixed.jobs[0]["job options"].rw = "randrw";
    e = (() => { try { readFioRuns(JSON.stringify(mixed, null, 2), "m.json"); } catch (x) { return x; } })() as InputError;
    expect([e.file, e.field]).toEqual(["m.json", "rw"]);
    writeFileSync(join(tmp, "bad.json"), "fio: no such file\n");
    const c = spawnSync(process.execPath, [MAIN, "device", "fit", join(tmp, "bad.json")], { encoding: "utf8" });
    expect(c.status).toBe(2);
    expect(c.stderr).toMatch(/bad\.json:1: not fio JSON output/);
  });
});
