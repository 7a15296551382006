import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fioStartupText, toFioText } from "./fio-text.js";
import { parseFioJobFile } from "../workload/fio-jobfile.js";
import { simulate } from "../engine/simulation.js";
import { scenarioDefaults } from "../scenario/defaults.js";
import { devicePreset } from "../device/presets.js";
import { dirStats, job, runResult } from "../../test/helpers/run-result.js";

describe("fio normal output", () => {
  it("one read job: the header, IOPS/BW line, lat lines and percentiles read as fio prints them", () => {
    const r = runResult([job("job1", dirStats(new Array(10_000).fill(1_000_000)), dirStats([]), 2000.7)]);
    const lines = toFioText(r).split("\n");
    expect(lines.slice(0, 10)).toEqual([
      "",
      "job1: (groupid=0, jobs=1): err= 0: pid=0: Thu Jan  1 00:00:00 1970",
      "  read: IOPS=5000, BW=19.5MiB/s (20.5MB/s)(39.1MiB/2000msec)",
      "    clat (nsec): min=1000.0k, max=1000.0k, avg=1000000.00, stdev= 0.00",
      "     lat (nsec): min=1000.0k, max=1000.0k, avg=1000000.00, stdev= 0.00",
      "    clat percentiles (usec):",
      "     |  1.00th=[ 1004],  5.00th=[ 1004], 10.00th=[ 1004], 20.00th=[ 1004],",
      "     | 30.00th=[ 1004], 40.00th=[ 1004], 50.00th=[ 1004], 60.00th=[ 1004],",
      "     | 70.00th=[ 1004], 80.00th=[ 1004], 90.00th=[ 1004], 95.00th=[ 1004],",
      "     | 99.00th=[ 1004], 99.50th=[ 1004], 99.90th=[ 1004], 99.95th=[ 1004],",
    ]);
    expect(lines[10]).toBe("     | 99.99th=[ 1004]");
    expect(lines).toContain("  lat (msec)   : 2=100.00%");
    expect(lines).toContain("     issued rwts: total=10000,0,0,0 short=0,0,0,0 dropped=0,0,0,0");
    // fio 3.39 prints this line for every job (ts->latency_depth is the iodepth option)
    expect(lines[lines.indexOf("     issued rwts: total=10000,0,0,0 short=0,0,0,0 dropped=0,0,0,0") + 1])
      .toBe("     latency   : target=0, window=0, percentile=100.00%, depth=1");
    expect(lines).toContain("Run status group 0 (all jobs):");
    expect(lines).toContain(
      "   READ: bw=19.5MiB/s (20.5MB/s), 19.5MiB/s-19.5MiB/s (20.5MB/s-20.5MB/s), io=39.1MiB (41.0MB), run=2000-2000msec");
  });

  it("latencies with a spread switch to usec, as fio's display_lat does (min > 2000, max > 99999, stdev > 1000)", () => {
    const lats = Array.from({ length: 1000 }, (_, i) => 50_000 + i * 100);
    const text = toFioText(runResult([job("w", dirStats([]), dirStats(lats), 1000)]));
    // fio 3.39 ends a write line with zbd_write_status(): "; 0 zone resets" even on a plain disk
    expect(text).toMatch(/\n {2}write: IOPS=1000, BW=[^\n]*\(\d+KiB\/1000msec\); 0 zone resets\n/);
    expect(text).toMatch(/\n {4}clat \(usec\): min=50, max=149, avg=99.95, stdev=28.88\n/);
  });

  it("a group with two jobs prints min-max bandwidth across them (4 significant digits: 6,144,000 B/s is 6000KiB/s)", () => {
    const a = job("a", dirStats(new Array(1000).fill(100_000)), dirStats([]), 1000);
    const b = job("b", dirStats(new Array(500).fill(100_000)), dirStats([]), 1000);
    const text = toFioText(runResult([a, b]));
    expect(text).toContain("   READ: bw=6000KiB/s (6144kB/s), 2000KiB/s-4000KiB/s (2048kB/s-4096kB/s), io=6000KiB (6144kB), run=1000-1000msec");
  });
});

// fio's start-up lines, checked against what Debian's fio 3.39 binary printed
// for the job files in test/fixtures/fio/startup (their *.fio39.txt: the lines
// up to "Starting ...", without its "Laying out IO file" and "note:" lines)
describe("start-up lines (fio 3.39 init.c add_job, backend.c run_threads)", () => {
  const dir = join(__dirname, "..", "..", "test", "fixtures", "fio", "startup");
  const files = readdirSync(dir).filter((f) => f.endsWith(".fio"));

  it("there are job files to check (clones, threads, groups, per-direction sizes, bsrange, bssplit, kb_base=1000)", () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
  });

  for (const f of files) {
    it(`${f}: the same lines as fio 3.39 (but the version line, which names iosim)`, () => {
      const parsed = parseFioJobFile(readFileSync(join(dir, f), "utf8"), f, { defaultDevice: "sda" });
      const want = readFileSync(join(dir, f.replace(/\.fio$/, ".fio39.txt")), "utf8");
      expect(fioStartupText(parsed.meta, "fio-3.39")).toBe(want);
      expect(fioStartupText(parsed.meta)).toBe(want.replace("\nfio-3.39\n", "\niosim (fio-3.39)\n"));
    });
  }

  it("toFioText opens with them, and jobs built without a job file have none", () => {
    const parsed = parseFioJobFile(readFileSync(join(dir, files[0]!), "utf8"), files[0]!, { defaultDevice: "sda" });
    const r = simulate(scenarioDefaults({ name: "t", devices: [devicePreset("ssd")], jobs: parsed.jobs.map((j) => ({ ...j, runtimeNs: 1e6 })) }));
    expect(toFioText(r, { jobs: parsed.meta }).startsWith(fioStartupText(parsed.meta) + "\n")).toBe(true);
    expect(toFioText(r).startsWith("\n")).toBe(true);
    expect(toFioText(r)).not.toContain("Starting ");
  });
});
