// The summary table's rates: a cgroup's IOs over the time its jobs ran, from
// the first one's start to the last completion (with jobs one after another,
// the longest job's runtime counted all of them in its time: twice the IOPS
// the device can serve).
import { describe, expect, it } from "vitest";
import { simulate } from "../engine/simulation.js";
import { jobDefaults, scenarioDefaults } from "../scenario/defaults.js";
import type { DeviceSpec } from "../scenario/types.js";
import { fmtNs, summaryJson, summaryText } from "./summary.js";
import { FIO_PLAT_TOP_NS } from "../scenario/lint.js";

const flat = (iops: number): Array<[number, number]> => [[512, iops], [1 << 20, iops]];
// one bio at a time, 100 us each: 10,000 IOPS at most
const dev: DeviceSpec = {
  name: "d", devno: "8:0", kind: "custom", channels: 1, nrRequests: 64, latencyNs: 0, jitterSigma: 0, maxSectorsKb: 1280,
  rotational: false, curve: { read: { seq: flat(1e4), rand: flat(1e4) }, write: { seq: flat(1e4), rand: flat(1e4) } },
};

describe("summary table", () => {
  it("two jobs of one cgroup, one after the other, run at the device's 10,000 IOPS, not 20,000", () => {
    const r = simulate(scenarioDefaults({
      name: "t", devices: [dev], cgroups: [{ path: "a" }],
      jobs: [jobDefaults({ name: "first", cgroup: "a", device: "d", count: 100 }),
        jobDefaults({ name: "second", cgroup: "a", device: "d", count: 100, startNs: 10e6 })],
    }));
    const row = summaryText(r).split("\n").find((l) => l.startsWith("a "))!.trim().split(/\s+/);
    // cgroup, dir, IOs, MiB/s, IOPS
    expect(row.slice(0, 3)).toEqual(["a", "read", "200"]);
    expect(Number(row[4])).toBe(10000);
    expect(Number(row[3])).toBeCloseTo((10000 * 4096) / (1 << 20), 2);
  });

  it("a cgroup's p99 is over all its IOs together: 64 slow IOs beside 10,000 fast ones leave it at the fast ones' 100 us, not the slow job's ms", () => {
    // "slow": 64 IOs at depth 32 on a one-at-a-time device (each waits up to
    // 3.2 ms); "fast", after it: 10,000 IOs at depth 1 (100 us each). The
    // combined p99 is the 9,964th of 10,064 IOs, a fast one; the largest
    // job's p99 (what the table showed) is the slow job's, in ms.
    const r = simulate(scenarioDefaults({
      name: "t", devices: [dev], cgroups: [{ path: "a" }],
      jobs: [jobDefaults({ name: "slow", cgroup: "a", device: "d", count: 64, iodepth: 32 }),
        jobDefaults({ name: "fast", cgroup: "a", device: "d", count: 10_000, startNs: 10e6 })],
    }));
    const slowP99 = r.jobs.find((j) => j.name === "slow")!.read.lat.percentiles["99.000000"]!;
    expect(slowP99).toBeGreaterThan(1e6);
    const row = summaryText(r).split("\n").find((l) => l.startsWith("a "))!;
    // cgroup dir IOs MiB/s IOPS mean(2 tokens) p99(2 tokens)
    const p99 = row.trim().split(/\s+/).slice(7, 9).join(" ");
    expect(p99).toBe("99.8 us"); // fio's bucket of 100,000 ns reads back 2^16 + 33.5 * 2^10 = 99,840
  });

  it("IOPS above the io.max cap carry a note naming the first slice's burst (riops/10 IOs with the 100 ms throtl_slice); under the cap, none", () => {
    const run = (riops: number, count: number) => {
      const sc = scenarioDefaults({
        name: "t", devices: [dev], cgroups: [{ path: "a", files: { "io.max": `8:0 riops=${riops}` } }, { path: "b" }],
        jobs: [jobDefaults({ name: "r", cgroup: "a", device: "d", count, iodepth: 16 }), jobDefaults({ name: "free", cgroup: "b", device: "d", count: 50 })],
      });
      return summaryText(simulate(sc), { scenario: sc });
    };
    // 300 IOs under riops=1000: the first slice passes 100 at once, the other 200 at 1000/s: ~0.2 s, ~1500 IOPS
    const short = run(1000, 300);
    const row = short.split("\n").find((l) => l.startsWith("a "))!.trim().split(/\s+/);
    expect(Number(row[4])).toBeGreaterThan(1000);
    const notes = short.split("\n").filter((l) => l.startsWith("note: "));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^note: a read: \d+ IOPS is above io\.max riops=1000: blk-throttle lets the first slice's whole allowance through at once \(throtl_slice 100 ms = HZ\/10 on kernel 6\.18: 100 IOs before the first wait\)/);
    // the same cgroup far under its cap, and the unlimited one: no note
    expect(run(100000, 300)).not.toMatch(/^note: /m);
  });

  it("a mean above the p99 is explained under the table: a rare tail (throttle slices spent early), its p99.9 and max from the run", () => {
    // 16 channels, 200,000 IOPS; riops=20000 lets 2,000 IOs through per 100 ms slice, served in
    // ~12.5 ms at depth 16; then the 16 in flight wait ~87 ms for the next slice: 16 of every
    // 2,000 IOs (0.8 %) slow, so the p99 is a fast IO's and the mean is not
    const wide: DeviceSpec = { ...dev, channels: 16, curve: { read: { seq: flat(2e5), rand: flat(2e5) }, write: { seq: flat(2e5), rand: flat(2e5) } } };
    const sc = scenarioDefaults({
      name: "t", devices: [wide], cgroups: [{ path: "a", files: { "io.max": "8:0 riops=20000" } }],
      jobs: [jobDefaults({ name: "r", cgroup: "a", device: "d", count: 20_000, iodepth: 16 })],
      record: true,
    });
    const r = simulate(sc);
    const text = summaryText(r, { scenario: sc });
    const row = text.split("\n").find((l) => l.startsWith("a "))!.trim().split(/\s+/);
    const [mean, p99] = [row.slice(5, 7).join(" "), row.slice(7, 9).join(" ")];
    // the run's own records: the tail is real (under 1 % of IOs, far above the p99)
    const lat = r.records!.map((b) => b.completeNs - b.submitNs).sort((a, b) => a - b);
    const avg = lat.reduce((a, b) => a + b, 0) / lat.length;
    expect(avg).toBeGreaterThan(lat[Math.ceil(0.99 * lat.length) - 1]!);
    expect(lat.filter((x) => x > avg).length / lat.length).toBeLessThan(0.01);
    const notes = text.split("\n").filter((l) => l.startsWith("note: a read: the mean"));
    expect(notes).toEqual([
      `note: a read: the mean (${mean}) is above the p99 (${p99}): under 1 % of its IOs are far slower ` +
        `(p99.9 ${fmtNs(r.jobs[0]!.read.lat.percentiles["99.900000"]!)}, max ${fmtNs(lat.at(-1)!)}); the p99 leaves them out, the mean counts them`,
    ]);
    // without a tail, no such note
    const free = scenarioDefaults({ name: "t", devices: [wide], cgroups: [{ path: "a" }], jobs: [jobDefaults({ name: "r", cgroup: "a", device: "d", count: 2000, iodepth: 16 })] });
    expect(summaryText(simulate(free), { scenario: free })).not.toMatch(/^note: /m);
  });

  it("a p99 past fio's histogram (17.11 s) shows as >17.11 s, with a note, not as a plain 17.11 s under a larger mean", () => {
    // riops=1 at depth 32: each IO waits ~32 s, longer than fio's last bucket
    const sc = scenarioDefaults({
      name: "t", devices: [dev], cgroups: [{ path: "a", files: { "io.max": "8:0 riops=1" } }],
      jobs: [jobDefaults({ name: "r", cgroup: "a", device: "d", count: 64, iodepth: 32 })],
    });
    const r = simulate(sc);
    expect(r.jobs[0]!.read.lat.max).toBeGreaterThan(FIO_PLAT_TOP_NS);
    const text = summaryText(r, { scenario: sc });
    const row = text.split("\n").find((l) => l.startsWith("a "))!.trim().split(/\s+/);
    expect(row.slice(7, 9).join(" ")).toBe(">17.11 s");
    expect(text).toMatch(new RegExp(`^note: a read: the p99 is past fio's latency histogram, which ends at 17\\.11 s \\(latencies reach ${fmtNs(r.jobs[0]!.read.lat.max).replace(".", "\\.")}\\)`, "m"));
    expect(text).not.toMatch(/the mean .* is above the p99/);
    // and so says the summary as data: the flag on the row, the note in notes
    const doc = summaryJson(r, {}, sc) as { notes: string[]; cgroups: Array<{ cgroup: string; p99PastHistogram: boolean }> };
    expect(doc.cgroups.find((c) => c.cgroup === "a")?.p99PastHistogram).toBe(true);
    expect(doc.notes).toEqual(text.split("\n").filter((l) => l.startsWith("note: ")));
  });
});

