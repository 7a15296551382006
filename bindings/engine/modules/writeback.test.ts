// The writeback ControlModule: the cgroup-writeback verdict, input errors,
// and small engine runs (fsync votes, dead cgroups, dirty throttling).
import { describe, expect, it } from "vitest";
import { cgwbVerdict, parseSize, writebackReport } from "./writeback.js";
import { Simulation } from "../simulation.js";
import { jobDefaults, scenarioDefaults } from "../../scenario/defaults.js";
import type { ConfigWrite, DeviceSpec, Scenario } from "../../scenario/types.js";

const flat = (iops: number): Array<[number, number]> => [[4096, iops], [1 << 20, iops / 50]];
const dev: DeviceSpec = {
  name: "sda", devno: "8:0", kind: "custom", channels: 4, nrRequests: 64, latencyNs: 100_000, jitterSigma: 0,
  maxSectorsKb: 1280, rotational: false,
  curve: { read: { seq: flat(50000), rand: flat(50000) }, write: { seq: flat(50000), rand: flat(50000) } },
};
const io = { v2: new Set(["io", "memory"]) };

describe("is writeback attributed to cgroups? (the `why`)", () => {
  it("v2 with io+memory on ext4, xfs, btrfs: yes", () => {
    for (const fs of ["ext4", "xfs", "btrfs", "ext2", "f2fs"]) expect(cgwbVerdict("6.1", 2, fs, io.v2).enabled).toBe(true);
  });
  it("cgroup v1: no, and the explanation names the root cgroup and blkio.throttle", () => {
    const v = cgwbVerdict("6.12", 1, "ext4", io.v2);
    expect(v.enabled).toBe(false);
    expect(v.why).toMatch(/root cgroup/);
    expect(v.why).toMatch(/blkio\.throttle/);
  });
  it("v2 without the memory controller, nfs, ext4 data=journal, xfs on 4.16: no", () => {
    expect(cgwbVerdict("6.1", 2, "ext4", new Set(["io"])).why).toMatch(/memory/);
    expect(cgwbVerdict("6.1", 2, "nfs", io.v2).enabled).toBe(false);
    expect(cgwbVerdict("6.1", 2, "ext4:data=journal", io.v2).enabled).toBe(false);
    expect(cgwbVerdict("4.16", 2, "xfs", io.v2).enabled).toBe(false);
    expect(cgwbVerdict("4.17", 2, "xfs", io.v2).enabled).toBe(true);
  });
  it("sizes take k/m/g suffixes", () => {
    expect(parseSize("64m")).toBe(64 << 20);
    expect(parseSize("2g")).toBe(2 ** 31);
    expect(parseSize("12x")).toBeUndefined();
  });
});

function scen(over: Partial<Scenario>, writes: ConfigWrite[] = []): Scenario {
  return scenarioDefaults({ name: "t", devices: [dev], writes, ...over });
}
const w = (file: string, value: string, cgroup = "", atNs = 0): ConfigWrite => ({ atNs, cgroup, file, value });
const bufWrite = (name: string, cgroup: string, off: number, bytes: number, startNs = 0) =>
  jobDefaults({ name, cgroup, device: "sda", rw: "write", direct: false, offset: off, regionLen: bytes, bytes,
    bs: [{ size: 1 << 20, weight: 1 }], startNs });

describe("bad settings are rejected with file and field", () => {
  it("a ratio over 100, a per-cgroup file on the root, a file on an unknown device", () => {
    const bad = (ws: ConfigWrite[]) => () => new Simulation(scen({ cgroups: [{ path: "a" }] }, ws));
    expect(bad([w("vm.dirty_ratio", "150")])).toThrow(/vm\.dirty_ratio.*percentage/);
    expect(bad([w("wb.memcg", "off")])).toThrow(/non-root/);
    expect(bad([w("vm.dirty_ratio", "10", "a")])).toThrow(/global setting/);
    expect(bad([w("wb.file", "log nvme9 0 1m")])).toThrow(/device "nvme9"/);
    expect(bad([w("wb.file", "log sda 0 1m"), w("wb.fsync", "nolog", "a", 1e9)])).toThrow(/file "nolog"/);
  });
});

describe("small runs", () => {
  it("fsync is a pass that votes: B's fsyncs of a file A created switch it to B", () => {
    // A dirties 16 MiB; B overwrites it after drop_caches; B fsyncs three times
    const writes = [w("wb.file", "f sda 0 16m"), w("vm.dirty_writeback_centisecs", "0"), w("wb.sync", "", "", 1e9),
      w("vm.drop_caches", "1", "", 1.1e9)];
    const jobs = [bufWrite("a", "A", 0, 16 << 20)];
    for (let k = 0; k < 3; k++) {
      jobs.push(bufWrite(`b${k}`, "B", 0, 16 << 20, 2e9 + k * 1e9));
      writes.push(w("wb.fsync", "f", "B", 2.5e9 + k * 1e9));
    }
    const sim = new Simulation(scen({ cgroups: [{ path: "A" }, { path: "B" }], jobs }, writes));
    sim.runToEnd();
    const rep = writebackReport(sim);
    const hist = rep.tracepoints.filter((t) => t.event === "inode_foreign_history").map((t) => (t as { history: number }).history);
    // 4096 pages = 1311 units = 2 slots per fsync: 0x3, 0xf, 0x3f (6 bits), no switch yet
    expect(hist).toEqual([0x3, 0xf, 0x3f]);
    expect(rep.files[0]!.owner).toBe("A");
  });

  it("a removed cgroup's pages do not vote", () => {
    const writes = [w("wb.file", "f sda 0 64m"), w("vm.dirty_writeback_centisecs", "0"), w("wb.sync", "", "", 1e9),
      w("vm.drop_caches", "1", "", 1.1e9)];
    const jobs = [bufWrite("a", "A", 0, 64 << 20)];
    for (let k = 0; k < 3; k++) {
      jobs.push(bufWrite(`b${k}`, "B", 0, 64 << 20, 2e9 + k * 2e9));
      writes.push(w("wb.sync", "", "", 3.5e9 + k * 2e9));
    }
    const run = (kill: boolean) => {
      const ws = kill ? [...writes, w("wb.online", "0", "B", 3e9)] : writes;
      const sim = new Simulation(scen({ cgroups: [{ path: "A" }, { path: "B" }], jobs }, ws));
      sim.runToEnd();
      return writebackReport(sim);
    };
    expect(run(false).files[0]!.owner).toBe("B"); // 5 + 5 bits: switched
    const dead = run(true);
    expect(dead.files[0]!.owner).toBe("A");
    expect(dead.tracepoints.some((t) => t.event === "inode_foreign_history")).toBe(false);
  });

  it("a sync writes each run of dirty pages as one bio (up to 256 pages), wherever it lies in a 1 GiB file", () => {
    // the page cache is sparse (assembly/writeback/pages.ts: 16-page chunks in
    // 4096-page groups): runs that cross chunk and group boundaries, pages far
    // apart, the file's last pages
    const PAGE = 4096;
    const at = (name: string, page: number, pages: number) =>
      jobDefaults({ name, cgroup: "A", device: "sda", rw: "write", direct: false, offset: page * PAGE,
        regionLen: pages * PAGE, bytes: pages * PAGE, bs: [{ size: pages * PAGE, weight: 1 }] });
    const last = (1 << 30) / PAGE - 2;
    const jobs = [at("cross", 60, 11), at("far", 200_000, 1), at("end", last, 2), at("long", 1000, 300), at("edge", 127, 2),
      at("group", 4090, 10), at("hop", 96, 1), at("g2", 8224, 3)]; // (the chunk and the group right after a clean one)
    const sim = new Simulation(scen({ cgroups: [{ path: "A" }], jobs, record: true },
      [w("wb.file", "f sda 0 1g"), w("wb.sync", "", "", 1e9)])); // (the flusher first wakes at 5 s)
    const wb = sim.runToEnd().records!.filter((r) => r.job === "(writeback)").map((r) => [r.off / PAGE, r.size / PAGE]);
    // the sync's first pass finds every dirty page (a later pass can pick up
    // one a wrong skip passed over, which the bios alone would not show)
    const passes = writebackReport(sim).tracepoints.filter((t) => t.event === "writeback_pass") as Array<{ wrote: number }>;
    expect(passes[0]!.wrote).toBe(330);
    expect(wb.sort((a, b) => a[0]! - b[0]!)).toEqual([[60, 11], [96, 1], [127, 2], [1000, 256], [1256, 44], [4090, 10], [8224, 3], [200_000, 1], [last, 2]]);
  });

  it("dirty throttling: a writer above the freerun ceiling is paused, below it is not", () => {
    const run = (dirtyBytes: string) => {
      const sim = new Simulation(scen({ cgroups: [{ path: "A" }], jobs: [bufWrite("a", "A", 0, 256 << 20)] },
        [w("vm.dirty_bytes", dirtyBytes), w("vm.dirty_background_bytes", String(Number(dirtyBytes) / 2))]));
      return sim.runToEnd().jobs[0]!.runtimeMs;
    };
    const free = run(String(1 << 30)); // 256 MiB never reaches (1G + 512M) / 2
    const tight = run(String(32 << 20)); // freerun 24 MiB: paused at the device's pace
    expect(free).toBeLessThan(300); // copy cost only: 65536 pages x 1 us
    expect(tight).toBeGreaterThan(3 * free);
  });
});
