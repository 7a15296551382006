// fio's write_bw_log / write_lat_log / write_iops_log as fio 3.39 writes them
// (report/fio-logs.ts), and fio's own tools/fiologparser.py reading them.
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fioJobLogs } from "./fio-logs.js";
import type { BioRecord, RunResult } from "../scenario/types.js";

const MAIN = join(resolve(__dirname, "..", ".."), "dist", "bindings", "cli", "main.js");
const tmp = mkdtempSync(join(tmpdir(), "iosim-fiologs-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const rec = (seq: number, dir: "R" | "W", submitNs: number, completeNs: number, size = 4096): BioRecord =>
  ({ job: "j", seq, worker: 0, cgroup: "", dir, off: 0, size, submitNs, releaseNs: submitNs, issueNs: submitNs, completeNs });
function result(records: BioRecord[], startNs = 1_000_000): RunResult {
  const lastDoneNs = Math.max(...records.map((r) => r.completeNs));
  return { jobs: [{ name: "j", startNs, lastDoneNs }], records } as unknown as RunResult;
}

describe("fio logs", () => {
  it("one line per IO without log_avg_msec: time in whole ms since the job's start, ns latency, ddir, bs, prio", () => {
    // the worked example of fio-logs.ts, the job starting at 1 ms
    const r = result([rec(0, "R", 1_000_000, 1_131_000), rec(1, "R", 1_131_000, 1_262_000), rec(2, "W", 1_262_000, 2_400_000, 8192)]);
    const logs = fioJobLogs(r, { spec: "j", jobname: "j", threadNumber: 3, lat: "", bw: "b", iops: "", avgMsec: 0, perJob: true });
    expect([...logs.keys()].sort()).toEqual(["b_bw.3.log", "j_clat.3.log", "j_iops.3.log", "j_lat.3.log", "j_slat.3.log"]);
    expect(logs.get("j_lat.3.log")).toBe("0, 131000, 0, 4096, 0\n0, 131000, 0, 4096, 0\n1, 1138000, 1, 8192, 0\n");
    expect(logs.get("j_slat.3.log")).toBe("0, 0, 0, 4096, 0\n0, 0, 0, 4096, 0\n1, 0, 1, 8192, 0\n");
    // add_bw_sample(): bytes * 1000000 / clat ns
    expect(logs.get("b_bw.3.log")).toBe(`0, ${Math.floor(4096e6 / 131000)}, 0, 4096, 0\n0, 31267, 0, 4096, 0\n1, ${Math.floor(8192e6 / 1138000)}, 1, 8192, 0\n`);
    expect(logs.get("j_iops.3.log")).toBe("0, 1, 0, 4096, 0\n0, 1, 0, 4096, 0\n1, 1, 1, 8192, 0\n");
    // per_job_logs=0: no thread number
    expect([...fioJobLogs(r, { spec: "j", jobname: "j", threadNumber: 3, iops: "", avgMsec: 0, perJob: false }).keys()]).toEqual(["j_iops.log"]);
  });

  it("log_avg_msec: lat windows end at the first IO M ms on (mean + 0.5, bs 0), the rest at the job's end", () => {
    // IOs completing at 1, 5, 12, 14, 30 ms after the start, latencies 100..500 us
    const t = [1, 5, 12, 14, 30];
    const r = result(t.map((ms, i) => rec(i, "R", ms * 1e6 + 1e6 - (i + 1) * 100_000, ms * 1e6 + 1e6)));
    const lat = fioJobLogs(r, { spec: "j", jobname: "j", threadNumber: 1, lat: "", avgMsec: 10, perJob: true }).get("j_lat.1.log");
    // window [0, 10): 100k, 200k, and 300k arriving at 12 ms closes it at 12: mean 200,000; next from 10:
    // 400k at 14 (4 ms in), 500k at 30 (20 ms in): mean 450,000 at 30; nothing left at the end
    expect(lat).toBe("12, 200000, 0, 0, 0\n30, 450000, 0, 0, 0\n");
  });

  it("log_avg_msec: bw and iops are the helper's samples per window (KiB/s, IO/s), bs the job's when it has one", () => {
    const recs: BioRecord[] = [];
    for (let i = 0; i < 30; i++) recs.push(rec(i, "W", i * 10e6, i * 10e6 + 5e6)); // one 4 KiB write every 10 ms from 0
    const r = result(recs, 0);
    const logs = fioJobLogs(r, { spec: "j", jobname: "j", threadNumber: 1, bw: "", iops: "", avgMsec: 100, perJob: true, fixedBs: 4096 });
    // 10 writes a 100 ms window: 40960 B * 1000 / 100 / 1024 = 400 KiB/s, 100 IO/s; windows end at 100, 200 (the third, to 295 ms, is not whole)
    expect(logs.get("j_bw.1.log")).toBe("100, 400, 1, 4096, 0\n200, 400, 1, 4096, 0\n");
    expect(logs.get("j_iops.1.log")).toBe("100, 100, 1, 4096, 0\n200, 100, 1, 4096, 0\n");
  });

  it("iosim run --out writes them for a fio job file; fio's tools/fiologparser.py reads them", () => {
    writeFileSync(join(tmp, "j.fio"), [
      "[global]", "ioengine=libaio", "direct=1", "bs=4k", "size=64m",
      "[r]", "rw=randread", "iodepth=4", "number_ios=3000", "write_bw_log=r", "write_lat_log=r", "write_iops_log=r",
      "[w]", "rw=randwrite", "iodepth=2", "runtime=3", "time_based", "write_bw_log", "write_iops_log=wi", "log_avg_msec=500", "",
    ].join("\n"));
    const out = join(tmp, "out");
    const run = spawnSync(process.execPath, [MAIN, "run", join(tmp, "j.fio"), "--out", out, "-q"], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    const logs = readdirSync(out).filter((f) => f.endsWith(".log")).sort();
    expect(logs).toEqual(["r_bw.1.log", "r_clat.1.log", "r_iops.1.log", "r_lat.1.log", "r_slat.1.log", "w_bw.2.log", "wi_iops.2.log"]);
    const lines = (f: string) => readFileSync(join(out, f), "utf8").trim().split("\n");
    expect(lines("r_lat.1.log").length).toBe(3000);
    expect(lines("w_bw.2.log").length).toBe(6); // 3 s in 500 ms windows
    for (const l of [...lines("r_lat.1.log"), ...lines("wi_iops.2.log")]) expect(l).toMatch(/^\d+, \d+, [01], \d+, 0$/);
    // the lat log holds the job's latencies: its mean is the fio JSON's lat mean
    const fio = JSON.parse(readFileSync(join(out, "fio.json"), "utf8"));
    const vals = lines("r_lat.1.log").map((l) => Number(l.split(", ")[1]));
    expect(vals.reduce((a, b) => a + b, 0) / vals.length).toBeCloseTo(fio.jobs[0].read.lat_ns.mean, 0);
    // fio's own parser (read from the fetched fio 3.39 tree when it and python3 are here)
    const mirror = "/work/.mirror/axboe+fio/repo";
    const py = spawnSync("python3", ["--version"], { encoding: "utf8" });
    if (!existsSync(mirror) || py.status !== 0) return;
    const parser = spawnSync("git", ["-C", mirror, "show", "fio-3.39:tools/fiologparser.py"], { encoding: "utf8" });
    if (parser.status !== 0) return;
    writeFileSync(join(tmp, "fiologparser.py"), parser.stdout);
    for (const f of logs) {
      const p = spawnSync("python3", [join(tmp, "fiologparser.py"), join(out, f)], { encoding: "utf8" });
      expect(p.status, `${f}: ${p.stderr}`).toBe(0);
      expect(p.stdout.trim()).toMatch(/^\d+(\.\d+)?$/);
    }
    // its default output, the interval-weighted average, of the iops samples: their mean
    const wi = lines("wi_iops.2.log").map((l) => Number(l.split(", ")[1]));
    const p = spawnSync("python3", [join(tmp, "fiologparser.py"), join(out, "wi_iops.2.log")], { encoding: "utf8" });
    expect(Number(p.stdout.trim())).toBeCloseTo(wi.reduce((a, b) => a + b, 0) / wi.length, 2);
  });
});
