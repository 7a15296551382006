// series.csv / series.json carry what the playground charts of the
// controllers, bin by bin: blk-throttle's queue depth and wait where a
// cgroup has io.max, blk-iocost's vrate and hweight_inuse where io.cost ran
// (bindings/report/control-series.ts). Each column is checked against the
// run itself worked out another way: the queue and the waits from the bios'
// own records (BioRecord objects, a second run with record: true), vrate and
// hweight_inuse from the iocost tracepoints read one by one.
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, ROOT } from "../helpers/cli-inproc.js";
import { Simulation } from "../../bindings/engine/simulation.js";
import { iomaxDemo } from "../../bindings/scenario/builtin/iomax-demo.js";
import { devicePreset } from "../../bindings/device/index.js";
import { loadScenario } from "../../bindings/scenario/load.js";
import { readIocostTrace } from "../../bindings/engine/modules/iocost.js";
import { SERIES_CSV_HEADER } from "../../bindings/report/series.js";
import { throttleSeries } from "../../bindings/report/control-series.js";

const tmp = mkdtempSync(join(tmpdir(), "iosim-series-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function csv(dir: string): Array<Record<string, string>> {
  const [head, ...rows] = readFileSync(join(dir, "series.csv"), "utf8").trimEnd().split("\n");
  const keys = head!.split(",");
  return rows.map((r) => Object.fromEntries(r.split(",").map((v, i) => [keys[i]!, v])));
}

describe("series.csv: the controllers' series", () => {
  it("io.max: throttle_queued and throttle_wait_ns per bin are the bios held at the bin's end and the mean wait of those released in it", async () => {
    const out = join(tmp, "demo");
    expect((await cli("run", "-q", "--out", out)).code).toBe(0);
    const rows = csv(out);
    expect(readFileSync(join(out, "series.csv"), "utf8").split("\n")[0]).toBe(`${SERIES_CSV_HEADER},throttle_queued,throttle_wait_ns`);
    const binNs = 100e6;
    const recs = new Simulation({ ...iomaxDemo(devicePreset("ssd")), record: true }).runToEnd().records!;
    let held = 0;
    const capped = recs.filter((b) => b.cgroup === "capped" && b.dir === "R");
    const lastDone = recs.reduce((m, b) => Math.max(m, b.completeNs), 0);
    // the free cgroup has no io.max: none of its bios waits
    expect(recs.filter((b) => b.cgroup === "free").every((b) => b.releaseNs === b.submitNs)).toBe(true);
    for (const row of rows) {
      if (row.cgroup === "free") {
        expect(row.throttle_queued).toBe("0");
        expect(["0", ""]).toContain(row.throttle_wait_ns);
        continue;
      }
      const t0 = Number(row.t0_ns),
        end = t0 + binNs;
      const mine = capped;
      const queued = mine.filter((b) => b.submitNs <= end && b.releaseNs > end).length;
      const left = mine.filter((b) => b.releaseNs >= t0 && b.releaseNs < end);
      expect(Number(row.throttle_queued), `${row.cgroup} at ${t0}`).toBe(queued);
      if (left.length && end <= lastDone) {
        expect(Number(row.throttle_wait_ns)).toBeCloseTo(left.reduce((a, b) => a + b.releaseNs - b.submitNs, 0) / left.length, 2);
      }
      held += queued;
    }
    // the capped cgroup's 16 IOs wait in blk-throttle nearly all the time
    expect(held).toBeGreaterThan(16 * rows.length * 0.4);
    const json = JSON.parse(readFileSync(join(out, "series.json"), "utf8")) as { series: Array<{ cgroup: string; throttleQueued: number[] }> };
    expect(json.series.find((s) => s.cgroup === "capped")!.throttleQueued.map(String)).toEqual(
      rows.filter((r) => r.cgroup === "capped").map((r) => r.throttle_queued),
    );
  });

  it("io.cost: vrate_pct and hweight_inuse_pct per bin are the last tracepoint's values at the bin's end", async () => {
    const file = join(ROOT, "scenarios", "iocost-bursty.yaml");
    const out = join(tmp, "bursty");
    expect((await cli("run", "-q", file, "--out", out)).code).toBe(0);
    expect(readFileSync(join(out, "series.csv"), "utf8").split("\n")[0]).toBe(`${SERIES_CSV_HEADER},vrate_pct,hweight_inuse_pct`);
    const rows = csv(out);
    const sim = new Simulation(loadScenario(readFileSync(file, "utf8"), file).scenario);
    sim.runToEnd();
    const ctx = sim.context();
    const trace = readIocostTrace(
      sim.core,
      ctx.cgroupPaths(),
      ctx.devices().map((d) => d.spec.name),
    );
    const binNs = 50e6;
    const vrates = new Set<string>();
    for (const row of rows) {
      const end = Number(row.t0_ns) + binNs;
      const adj = trace.filter((e) => e.event === "iocost_ioc_vrate_adj" && e.tNs <= end);
      const v = adj.length ? (adj[adj.length - 1]!.vrate as number[])[1]! : (trace.find((e) => e.event === "iocost_ioc_vrate_adj")!.vrate as number[])[0]!;
      expect(Number(row.vrate_pct)).toBeCloseTo((v * 100) / 137438, 3);
      vrates.add(row.vrate_pct!);
      const hw = trace.filter((e) => e.cgroup === `/${row.cgroup}` && e.tNs <= end && (Array.isArray(e.hweight) || Array.isArray(e.hw_inuse)));
      const h = hw[hw.length - 1]!;
      expect(Number(row.hweight_inuse_pct)).toBeCloseTo(
        ((Array.isArray(h.hweight) ? (h.hweight as number[])[0]! : (h.hw_inuse as number[])[1]!) * 100) / 65536,
        3,
      );
    }
    // vrate moves over the run (QoS adjusts it each period) and ends where io.stat says it is
    expect(vrates.size).toBeGreaterThan(2);
    expect(Number(rows[rows.length - 1]!.vrate_pct).toFixed(2)).toBe(/cost\.vrate=([\d.]+)/.exec(readFileSync(join(out, "io.stat"), "utf8"))![1]);
  });

  it("a run with neither io.max nor io.cost keeps the columns it had", async () => {
    const job = join(tmp, "plain.fio");
    writeFileSync(job, "[r]\nrw=randread\nbs=4k\nioengine=libaio\niodepth=4\ndirect=1\nsize=4m\n");
    const out = join(tmp, "plain");
    expect((await cli("run", "-q", job, "--out", out)).code).toBe(0);
    expect(readFileSync(join(out, "series.csv"), "utf8").split("\n")[0]).toBe(SERIES_CSV_HEADER);
  });

  it("the worked example of control-series.ts: a bio held from 150 to 420 ms counts at the ends of bins 1-3 and waits in bin 4", () => {
    const s = throttleSeries(
      {
        cgroup: Int32Array.of(1),
        write: Uint8Array.of(0),
        submitNs: BigInt64Array.of(150_000_000n),
        releaseNs: BigInt64Array.of(420_000_000n),
        cgroupPaths: ["", "capped"],
      },
      100e6,
      6,
    );
    expect(s.get("capped\u0000read")).toEqual({ queued: [0, 1, 1, 1, 0, 0], waitNs: [null, null, null, null, 270e6, null] });
  });
});
