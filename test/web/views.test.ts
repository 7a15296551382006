// What the playground's families put on screen, checked against the result
// they came from (no browser needed: the adapters are plain modules).
import { describe, expect, it } from "vitest";
import "../../web/src/iosim.js";
import { Simulation, simulate, jobDefaults, scenarioDefaults, iomaxDemo, devicePreset } from "../../web/src/iosim.js";
import { summaryText } from "../../bindings/cli/summary.js";
import { blockCharts, cgroupSummary, diskPanels } from "../../web/src/families/blockio.js";
import { family } from "../../web/src/families/index.js";
import type { BlockFamily } from "../../web/src/families/blockio.js";
import { throttlePanels } from "../../web/src/families/throttle.js";
import { writebackSharing } from "../../web/src/families/writeback.js";
import { diffTable } from "../../web/src/lib/diff.js";
import type { ChartPanel, TablePanel } from "../../web/src/families/types.js";
import { fixedDevice } from "../engine/helpers.js";

const MiB = 1 << 20;
const cell = (t: TablePanel, row: string, col: string) => t.rows.find((r) => r.key === row)!.cells[t.columns.indexOf(col)];

describe("the per-cgroup table", () => {
  it("throttle wait is the mean per bio, as the CLI prints it (not 135 s of summed waits in a 10 s run)", () => {
    const s = iomaxDemo(devicePreset("ssd"));
    const r = simulate(s);
    const t = cgroupSummary(r, s);
    // the table's cell is the CLI's figure: the mean wait per bio (2.65 ms on the shaped ssd preset)
    const cliWait = /^capped .* (\S+ ms) avg$/m.exec(summaryText(r))![1]!;
    expect(cell(t, "capped", "mean throttle wait")).toBe(cliWait);
    expect(parseFloat(cliWait)).toBeGreaterThan(2);
    expect(parseFloat(cliWait)).toBeLessThan(3.5);
    expect(cell(t, "free", "mean throttle wait")).toBe("0");
  });

  it("a cgroup none of whose bios left blk-throttle shows no mean throttle wait ('–', not '0'): io.max of 10 B/s starves it", () => {
    const dev = fixedDevice(100_000);
    const s = scenarioDefaults({ name: "t", devices: [dev], cgroups: [{ path: "starved", files: { "io.max": `${dev.devno} rbps=10` } }, { path: "free" }],
      jobs: [jobDefaults({ name: "s", cgroup: "starved", device: dev.name, count: 10 }), jobDefaults({ name: "f", cgroup: "free", device: dev.name, count: 100 })],
      durationNs: 200e6 });
    const r = simulate(s);
    const t = cgroupSummary(r, s);
    expect(r.jobs.find((j) => j.name === "s")!.read.ios).toBe(0);
    expect(cell(t, "starved", "mean throttle wait")).toBe("–");
    expect(cell(t, "free", "mean throttle wait")).toBe("0");
  });

  it("buffered writers: what the jobs wrote next to what io.stat charged (writeback-sharing: a wrote 64 MiB, is charged 224 MiB)", () => {
    const s = writebackSharing();
    const r = simulate(s);
    const t = cgroupSummary(r, s);
    expect(t.columns).toContain("io.stat wbytes");
    expect(cell(t, "a", "jobs wrote")).toBe("64.0 MiB");
    expect(cell(t, "b", "jobs wrote")).toBe("256.0 MiB");
    const charged = (cg: string) => Object.values(r.cgroups.find((c) => c.path === cg)!.own).reduce((a, c) => a + c.wbytes, 0);
    expect(cell(t, "a", "io.stat wbytes")).toBe(`${(charged("a") / MiB).toFixed(1)} MiB`);
    expect(charged("a")).toBeGreaterThan(64 * MiB); // b's pages flushed while a owned the inode
    // a's jobs wrote at their 32 MiB/s, not io.stat bytes over the jobs' span (113.78 before)
    expect(Number(cell(t, "a", "write() MiB/s"))).toBeLessThan(33);
  });
});

describe("the disks table", () => {
  it("shows fio's Disk stats per disk: the io.max demo's SSD is busy all run (util ~100 %), with every request the cgroups' io.stat counts", () => {
    const s = iomaxDemo(devicePreset("ssd"));
    const r = simulate(s);
    const [t] = diskPanels(r);
    expect(t!.rows.map((x) => x.key)).toEqual(["sda"]);
    const ios = r.cgroups.filter((c) => c.path !== "").reduce((a, c) => a + c.own["8:0"]!.rios, 0);
    expect(cell(t!, "sda", "read IOs")).toBe(String(ios));
    expect(Number(cell(t!, "sda", "util").replace(" %", ""))).toBeGreaterThan(99);
  });

  it("an idle-most-of-the-time disk shows a low util", () => {
    const dev = fixedDevice(100_000);
    const s = scenarioDefaults({ name: "t", devices: [dev], jobs: [jobDefaults({ name: "a", device: dev.name, count: 100, thinktimeNs: 900_000 })] });
    const [t] = diskPanels(simulate(s));
    expect(Number(cell(t!, dev.name, "util").replace(" %", ""))).toBeLessThan(15);
  });
});

describe("the throughput chart", () => {
  it("the last bin, cut by the end of the run, is divided by the time it covers", () => {
    // 10 500 reads at 10 k IOPS: the job is busy until 1.05 s, half of the 1.0-1.1 s bin
    const dev = fixedDevice(100_000);
    const s = scenarioDefaults({ name: "t", devices: [dev], cgroups: [{ path: "a" }],
      jobs: [jobDefaults({ name: "a", cgroup: "a", device: dev.name, count: 10_500 })], seriesBinNs: 100e6 });
    const r = simulate(s);
    expect(r.simulatedNs).toBe(1.05e9);
    const bw = blockCharts(r, s).find((c) => c.id === "throughput") as ChartPanel;
    const v = bw.series[0]!.values as number[];
    const steady = (10_000 * 4096) / MiB;
    expect(v[5]).toBeCloseTo(steady, 6);
    // was about steady / 2: a drop at the end of every run that ends inside a bin
    expect(Math.abs(v[v.length - 1]! / steady - 1)).toBeLessThan(0.01);
  });
});

describe("blk-throttle's decision table", () => {
  it("counts the timers armed on the device's queue, which releases top-level cgroups' queued bios", async () => {
    const fam = family("throttle") as BlockFamily;
    if (!(await fam.load()).available) return;
    const s = await fam.scenario({ family: "throttle", scenario: "oracle-siblings_iops100_50", seed: 1, version: "6.18", fixes: [] });
    const sim = new Simulation(s);
    const r = sim.runToEnd();
    const t = (await throttlePanels(r, sim, s)).find((p) => p.id === "throttle-decisions") as TablePanel;
    const queued = t.rows.reduce((a, row) => a + (Number(row.cells[t.columns.indexOf("queued: iops")]) || 0), 0);
    expect(queued).toBeGreaterThan(0);
    expect(Number(cell(t, "(device queue)", "timers"))).toBeGreaterThan(0);
  });
});

describe("Kubernetes checks", () => {
  it("the comparison shows a check that only the second run has (fixed version first, affected second)", async () => {
    const k = family("k8s")!;
    const fixed = await k.run({ family: "k8s", scenario: "rbd-unmap-busy", seed: 1, version: "1.16", fixes: [] }, () => {});
    const broken = await k.run({ family: "k8s", scenario: "rbd-unmap-busy", seed: 1, version: "1.14", fixes: [] }, () => {});
    const inv = broken.summary.rows.find((r) => r.cells[1] === "invariant")!;
    expect(fixed.summary.rows.some((r) => r.key === inv.key)).toBe(false);
    const d = diffTable(fixed.summary, broken.summary, fixed.label, broken.label)!;
    const row = d.rows.find((r) => r.key === inv.key);
    expect(row?.cells.slice(1, 3)).toEqual(["– → invariant", "– → broken"]);
  });
});
