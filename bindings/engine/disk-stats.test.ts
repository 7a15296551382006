// A disk's /sys/block/<dev>/stat (RunResult.devices), what fio's disk_util
// and the root cgroup's io.stat read: Linux 6.12 blk_account_io_start/_done
// and update_io_ticks (assembly/device/device.ts, "Disk statistics").
// Each test works the expected figures out of the run's per-bio records by
// its own arithmetic, so the core's accounting is checked, not repeated.
import { describe, expect, it } from "vitest";
import { loadScenario } from "../scenario/load.js";
import { simulate } from "./simulation.js";
import { toIoStat } from "../report/io-stat.js";
import { fioDiskUtil, toFioJson } from "../report/fio-json.js";
import { toFioText } from "../report/fio-text.js";
import type { BioRecord, RunResult } from "../scenario/types.js";
import { parseFioJobFile } from "../workload/fio-jobfile.js";
import { scenarioDefaults } from "../scenario/defaults.js";
import { devicePreset } from "../device/presets.js";

const run = (yaml: string): RunResult => simulate(loadScenario(yaml, "disk-stats.yaml").scenario);

/**
 * io_ticks (in jiffies) replayed from the records: update_io_ticks(jiffy, end)
 * at each request's start (issueNs) and completion, in time order, with the
 * in-flight count before the start / before the completion's decrement.
 */
function ioTicksFromRecords(recs: BioRecord[], tickNs: number): number {
  const ev: Array<{ t: number; start: boolean }> = [];
  for (const r of recs) {
    ev.push({ t: r.issueNs, start: true }, { t: r.completeNs, start: false });
  }
  // (at one instant the order does not change the sum: see the design note)
  ev.sort((a, b) => a.t - b.t || Number(a.start) - Number(b.start));
  let stamp = -Infinity;
  let inFlight = 0;
  let ticks = 0;
  for (const e of ev) {
    const j = Math.floor(e.t / tickNs);
    if (j > stamp) {
      if (stamp !== -Infinity && (!e.start || inFlight > 0)) ticks += j - stamp;
      stamp = j;
    }
    inFlight += e.start ? 1 : -1;
  }
  return ticks;
}

describe("a disk's statistics, from its requests", () => {
  // an SSD with jitter, a queue-depth-8 random reader and a writer:
  // overlapping requests, idle gaps (thinktime) and both directions, every
  // request completed by the end
  const r = run(`name: ds
duration: 5s
record: true
devices:
  - {preset: ssd, jitter: 0.3}
jobs:
  - {name: rd, filename: /dev/sda, rw: randread, bs: 4k, direct: 1, ioengine: libaio, iodepth: 8, thinktime: 3ms, thinktime_blocks: 64, number_ios: 3000}
  - {name: wr, filename: /dev/sda, rw: write, bs: 16k, direct: 1, ioengine: psync, thinktime: 700us, number_ios: 300}
`);
  const st = r.devices![0]!.stat;
  const recs = r.records!;
  const dir = (d: "R" | "W") => recs.filter((x) => x.dir === d);

  it("counts each completed request and its sectors, per direction", () => {
    expect(st.readIos).toBe(dir("R").length);
    expect(st.writeIos).toBe(dir("W").length);
    expect(st.readIos).toBe(3000);
    expect(st.writeIos).toBe(300);
    expect(st.readSectors).toBe(dir("R").reduce((s, x) => s + x.size / 512, 0));
    expect(st.writeSectors).toBe(dir("W").reduce((s, x) => s + x.size / 512, 0));
    expect(st.readMerges + st.writeMerges).toBe(0);
  });

  it("ticks are the requests' allocation-to-completion times summed, in ms truncated; time_in_queue is both directions'", () => {
    const ns = (d: "R" | "W") => dir(d).reduce((s, x) => s + (x.completeNs - x.issueNs), 0);
    expect(st.readTicksMs).toBe(Math.floor(ns("R") / 1e6));
    expect(st.writeTicksMs).toBe(Math.floor(ns("W") / 1e6));
    expect(st.timeInQueueMs).toBe(Math.floor((ns("R") + ns("W")) / 1e6));
  });

  it("io_ticks counts the jiffies with a request in flight, as update_io_ticks() does (less than the run: it idles)", () => {
    expect(st.inFlight).toBe(0);
    const jiffies = ioTicksFromRecords(recs, 4e6); // HZ 250
    expect(st.ioTicksMs).toBe(jiffies * 4);
    // (busy for a good part of the run: 96 ms of io_ticks on the shaped ssd preset)
    expect(st.ioTicksMs).toBeGreaterThan(80);
    expect(st.ioTicksMs).toBeLessThan(r.simulatedNs / 1e6);
  });
});

describe("io_ticks at another HZ", () => {
  it("HZ 100: a jiffy is 10 ms, and jiffies_to_msecs multiplies by 10", () => {
    const r = run(`name: hz
hz: 100
duration: 300ms
record: true
devices: [{preset: hdd}]
jobs:
  - {name: rd, filename: /dev/sdb, rw: randread, bs: 4k, direct: 1, ioengine: psync, thinktime: 25ms}
`);
    const st = r.devices![0]!.stat;
    expect(st.ioTicksMs % 10).toBe(0);
    expect(st.ioTicksMs).toBe(ioTicksFromRecords(r.records!, 10e6) * 10);
    expect(st.ioTicksMs).toBeGreaterThan(0);
  });
});

describe("a bio larger than max_sectors", () => {
  it("counts as its pieces: a 1 MiB read with max_sectors_kb 256 is 4 requests, each with the bio's time", () => {
    const r = run(`name: split
duration: 100ms
record: true
devices: [{preset: nvme, max_sectors_kb: 256}]
jobs:
  - {name: big, filename: /dev/nvme0n1, rw: read, bs: 1m, direct: 1, number_ios: 10}
`);
    const st = r.devices![0]!.stat;
    expect(r.records!.length).toBe(10);
    expect(st.readIos).toBe(40);
    expect(st.readSectors).toBe(10 * 2048);
    const ns = r.records!.reduce((s, x) => s + 4 * (x.completeNs - x.issueNs), 0);
    expect(st.readTicksMs).toBe(Math.floor(ns / 1e6));
  });
});

describe("the root cgroup's io.stat is the disk's statistics", () => {
  // a run cut at 50 ms with requests in flight: the children count bios as
  // they are issued (blk_cgroup_bio_start), the root reads part_stat, which
  // counts requests as they complete (blkcg_fill_root_iostats)
  const r = run(`name: root
duration: 50ms
devices: [{preset: hdd}]
cgroups: {a: {}, b: {}}
jobs:
  - {name: a, cgroup: a, filename: /dev/sdb, rw: randread, bs: 4k, direct: 1, ioengine: libaio, iodepth: 4}
  - {name: b, cgroup: b, filename: /dev/sdb, rw: randwrite, bs: 8k, direct: 1, ioengine: libaio, iodepth: 2}
`);
  const st = r.devices![0]!.stat;
  const total = (p: string) => r.cgroups.find((c) => c.path === p)!.total["8:16"]!;

  it("requests in flight at the end are in the children's counts and not in the root's", () => {
    expect(st.inFlight).toBeGreaterThan(0);
    const root = total("");
    expect(root.rios).toBe(st.readIos);
    expect(root.wios).toBe(st.writeIos);
    expect(root.rbytes).toBe(st.readSectors * 512);
    expect(total("a").rios + total("b").rios + total("a").wios + total("b").wios - root.rios - root.wios).toBe(st.inFlight);
  });

  it("the root's io.stat line prints those counts", () => {
    expect(toIoStat(r)[""]).toBe(`8:16 rbytes=${st.readSectors * 512} wbytes=${st.writeSectors * 512} rios=${st.readIos} wios=${st.writeIos} dbytes=0 dios=0\n`);
  });

  it("with requests in flight, io_ticks runs up to the moment it is read (part_stat_show)", () => {
    // the disk never idles in this run: it is busy from the first jiffy to the last
    const firstJ = 0;
    const lastJ = Math.floor(r.simulatedNs / 4e6);
    expect(st.ioTicksMs).toBe((lastJ - firstJ) * 4);
  });
});

describe("fio's disk_util", () => {
  const fio = `name: fio
duration: 200ms
devices: [{preset: nvme}, {preset: ssd}]
jobs:
  - {name: n, filename: /dev/nvme0n1, rw: randread, bs: 4k, direct: 1, ioengine: libaio, iodepth: 4, runtime: 100ms, time_based: 1}
  - {name: s, filename: /dev/sda, rw: randwrite, bs: 4k, direct: 1, ioengine: psync, thinktime: 1ms, runtime: 100ms, time_based: 1}
`;
  const r = run(fio);

  it("lists each disk a job's file is on, in job order, with fio 3.39's keys", () => {
    const du = toFioJson(r).disk_util;
    expect(du.map((d) => d.name)).toEqual(["nvme0n1", "sda"]);
    expect(Object.keys(du[0]!)).toEqual(["name", "read_ios", "write_ios", "read_sectors", "write_sectors", "read_merges", "write_merges", "read_ticks", "write_ticks", "in_queue", "util"]);
    const nv = r.devices!.find((d) => d.name === "nvme0n1")!.stat;
    expect(du[0]!.read_ios).toBe(nv.readIos);
    expect(du[0]!.read_ticks).toBe(nv.readTicksMs);
  });

  it("util is 100 x io_ticks / the run's ms, at most 100: the queue-depth-4 reader keeps its disk busy, the thinking writer does not", () => {
    const du = toFioJson(r).disk_util;
    const msec = Math.floor(r.simulatedNs / 1e6);
    for (const d of du) {
      const st = r.devices!.find((x) => x.name === d.name)!.stat;
      expect(d.util).toBeCloseTo(Math.min(100, (100 * st.ioTicksMs) / msec), 10);
    }
    expect(du[0]!.util).toBeGreaterThan(40);
    expect(du[1]!.util).toBeLessThan(du[0]!.util);
  });

  it("a job with disk_util=0 adds no disk (fio's init_disk_util skips it)", () => {
    const du = fioDiskUtil(r, [{ spec: "s", jobname: "s", groupid: 0, diskUtil: false }]);
    expect(du.map((d) => d.name)).toEqual(["nvme0n1"]);
  });

  it("the normal output ends with fio's 'Disk stats (read/write):' lines", () => {
    const text = toFioText(r);
    const du = toFioJson(r).disk_util[0]!;
    expect(text).toContain("\nDisk stats (read/write):\n");
    expect(text).toContain(`  nvme0n1: ios=${du.read_ios}/${du.write_ios}, sectors=${du.read_sectors}/${du.write_sectors}, merge=0/0, ` +
      `ticks=${du.read_ticks}/${du.write_ticks}, in_queue=${du.in_queue}, util=${du.util.toFixed(2)}%\n`);
  });

  it("disk_util=0 in a job file's [global] section leaves every disk out, as fio does; in one job, that job's disk", () => {
    const file = (global: string, a: string) => `[global]\nioengine=libaio\ndirect=1\nbs=4k\nsize=1m\nrw=randread\n${global}\n[a]\nfilename=/dev/nvme0n1\n${a}\n[b]\nfilename=/dev/sda\n`;
    const names = (text: string) => {
      const f = parseFioJobFile(text, "jobs.fio");
      const r = simulate(scenarioDefaults({ name: "t", devices: [devicePreset("nvme"), devicePreset("ssd")], jobs: f.jobs }));
      return toFioJson(r, { jobs: f.meta }).disk_util.map((d) => d.name);
    };
    expect(names(file("", ""))).toEqual(["nvme0n1", "sda"]);
    expect(names(file("disk_util=0", ""))).toEqual([]);
    expect(names(file("", "disk_util=0"))).toEqual(["sda"]);
    expect(names(file("", "disk_util"))).toEqual(["nvme0n1", "sda"]);
  });

  it("a result without devices (made before iosim kept them) has no disk_util", () => {
    expect(fioDiskUtil({ ...r, devices: undefined })).toEqual([]);
  });
});
