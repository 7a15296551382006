import { readFromMemory } from "../../test/helpers/files-in-memory.js";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { IOSIM_FIO_OPTION_CLASSES, nearestFioOption, parseFioJobFile, type FioParseOptions } from "./fio-jobfile.js";
import { FIO_ENGINE_OPTIONS, FIO_JOB_OPTIONS, FIO_OPTION_NAMES_VERSION } from "./fio-option-names.js";
import { InputError } from "../scenario/errors.js";

const FIX = fileURLToPath(new URL("../../test/fixtures/fio/", import.meta.url));
const read = (name: string) => readFileSync(join(FIX, name), "utf8");
const readFile = (path: string) => read(path);
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

function parse(name: string, opts: FioParseOptions = {}) {
  return parseFioJobFile(read(name), name, { readFile, ...opts });
}

function inputError(f: () => unknown): InputError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error("expected an InputError");
}

describe("fio job-file corpus", () => {
  it("4k random reads at qd32 become one closed-loop, time-based job of 10 GiB on nvme0n1", () => {
    const r = parse("randread-4k.fio");
    expect(r.warnings).toEqual([]);
    expect(r.jobs).toHaveLength(1);
    const j = r.jobs[0]!;
    expect(j).toMatchObject({
      name: "randread-4k", device: "nvme0n1", cgroup: "", rw: "read", random: true, iodepth: 32,
      bs: [{ size: 4096, weight: 1 }], regionLen: 10 * GiB, bytes: 10 * GiB, runtimeNs: 60e9, timeBased: true,
      direct: true, pattern: { kind: "closed" }, align: 4096, groupId: 0, offset: 0,
    });
    expect(j.source).toEqual({ file: "randread-4k.fio", line: 8, field: "randread-4k" });
    expect(r.globalOptions).toEqual({ ioengine: "libaio", direct: "1", filename: "/dev/nvme0n1", group_reporting: "" });
  });

  it("job and global options are listed in fio 3.39's opt_list order: kb_base/unit_base/lockfile first, filename last (they were in file order)", () => {
    // fio 3.39 printed exactly these orders for this file (options.c sort_options() by .prio, stable)
    const r = parseFioJobFile("[global]\nfilename=/dev/sda\nsize=64k\nunit_base=0\n[o]\nfilename=/dev/sda\nsize=64k\nrw=read\n" +
      "directory=/tmp\nlockfile=none\nkb_base=1024\nfilename_format=x\n", "order.fio", { deviceSizes: { sda: 2 ** 30 } });
    expect(Object.keys(r.globalOptions)).toEqual(["unit_base", "size", "filename"]);
    expect(Object.keys(r.meta[0]!.options)).toEqual(["lockfile", "kb_base", "size", "rw", "directory", "filename", "filename_format"]);
    expect(r.meta[0]!.iodepth).toBe(1);
  });

  it("a 70/30 mix with numjobs=2 is two jobs named like fio's clones, sized as 50% of the device", () => {
    const r = parse("mixed-70-30.fio", { deviceSizes: { sda: 500 * GiB } });
    expect(r.jobs.map((j) => j.name)).toEqual(["oltp.0", "oltp.1"]);
    expect(r.meta.map((m) => m.jobname)).toEqual(["oltp", "oltp"]);
    for (const j of r.jobs) {
      expect(j).toMatchObject({ rw: "mix", mixReadPct: 70, random: true, bs: [{ size: 8192, weight: 1 }],
        iodepth: 8, regionLen: 250 * GiB, runtimeNs: 120e9, timeBased: true, device: "sda" });
    }
    expect(r.warnings).toEqual([]);
  });

  it("a near miss of a built-in ioengine is named in its warning (libiao: did you mean libaio?); other engines fio builds elsewhere only get the model's note", () => {
    const w = (engine: string) => parseFioJobFile(`[a]\nfilename=/dev/sda\nioengine=${engine}\niodepth=4\n`, "e.fio", { deviceSizes: { sda: 2 ** 30 } }).warnings.join("\n");
    expect(w("libiao")).toMatch(/e\.fio:3: ioengine=libiao: not one of fio's built-in engines; did you mean libaio\?/);
    expect(w("io-uring")).toMatch(/did you mean io_uring\?/);
    for (const other of ["xnvme", "external:/opt/my-engine.so", "windowsaio"]) {
      expect(w(other)).toMatch(/modelled as an asynchronous engine keeping iodepth IOs in flight/);
      expect(w(other)).not.toMatch(/did you mean/);
    }
    expect(w("libaio")).not.toMatch(/ioengine/);
  });

  it("several bad options in one section are all reported, as fio logs each before it drops the job; the error names the first", () => {
    let err: unknown;
    try {
      parseFioJobFile("[a]\nfilename=/dev/sda\niodeph=32\nrw=randread\nrwmixcycle=5\nblocksise=4k\n", "bad.fio");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({ file: "bad.fio", line: 3, field: "iodeph" });
    const m = (err as Error).message;
    expect(m).toMatch(/^bad\.fio:3 \(iodeph\): fio does not know the option "iodeph".*; and 2 more in this section: line 5 \(rwmixcycle\): fio refuses the deprecated option.*; line 6 \(blocksise\): .*did you mean "blocksize"\?$/);
  });

  it("a file without job sections is refused as fio refuses it (it ran nothing, with a warning)", () => {
    for (const text of ["[global]\nrw=randread\n", "", "; only a comment\n"]) {
      expect(() => parseFioJobFile(text, "empty.fio")).toThrow(InputError);
      expect(() => parseFioJobFile(text, "empty.fio")).toThrow(/No job\(s\) defined/);
    }
    expect(() => parseFioJobFile("[a]\nrw=read\n", "s.fio", { sections: ["b"] })).toThrow(/no job sections named b/);
  });

  it("size=50% without the device size is an error naming the line", () => {
    const e = inputError(() => parse("mixed-70-30.fio"));
    expect(e.file).toBe("mixed-70-30.fio");
    expect(e.line).toBe(15);
    expect(e.field).toBe("size");
  });

  it("rate=,5m caps only writes: the writer gets 5 MiB/s, the reader 200 IOPS and a 3000-IO count", () => {
    const r = parse("rate-limited.fio");
    const [backup, reader] = r.jobs;
    expect(backup).toMatchObject({ rw: "write", random: false, bs: [{ size: MiB, weight: 1 }],
      pattern: { kind: "rate", bps: 5 * MiB }, runtimeNs: 30e9, bytes: GiB, iodepth: 1 });
    expect(reader).toMatchObject({ rw: "read", random: true, pattern: { kind: "rate", iops: 200 }, count: 3000 });
    expect(reader!.pattern).not.toHaveProperty("bps");
    expect(r.warnings).toEqual([]);
  });

  it("cgroup= places jobs in cgroups (slashes trimmed) and numjobs clones share the cgroup", () => {
    const r = parse("cgroups-two-tenants.fio", { deviceSizes: { nvme0n1: 2 ** 40 } });
    expect(r.jobs.map((j) => [j.name, j.cgroup, j.rw])).toEqual([
      ["tenant-a.0", "tenants/a", "read"], ["tenant-a.1", "tenants/a", "read"], ["tenant-b", "tenants/b", "write"],
    ]);
    expect(r.jobs.every((j) => j.regionLen === 2 ** 40 && j.iodepth === 16)).toBe(true);
    expect(r.meta.every((m) => m.groupReporting && m.groupid === 0)).toBe(true);
    expect(r.meta[2]!.options).toEqual({ cgroup: "/tenants/b/", rw: "randwrite", numjobs: "1" });
  });

  it("bssplit fills a blank percentage with the remainder and uses the write list for a write job", () => {
    const r = parse("bssplit.fio");
    expect(r.jobs[0]!.bs).toEqual([{ size: 4096, weight: 10 }, { size: 65536, weight: 50 }, { size: 32768, weight: 40 }]);
    expect(r.jobs[0]!.align).toBe(4096);
    expect(r.jobs[1]!.bs).toEqual([{ size: 4096, weight: 90 }, { size: 8192, weight: 10 }]);
    expect(r.jobs[1]!.rw).toBe("write");
  });

  it("thinktime is in microseconds by default and io_size limits the bytes inside a larger region", () => {
    const j = parse("thinktime.fio").jobs[0]!;
    expect(j).toMatchObject({ thinktimeNs: 500_000, thinktimeBlocks: 4, bytes: 64 * MiB, regionLen: GiB,
      bs: [{ size: 16384, weight: 1 }], rw: "read", random: false });
  });

  it("startdelay is in seconds by default, runtime takes ms, and stonewall starts a new group with a warning", () => {
    const r = parse("startdelay-stonewall.fio");
    expect(r.jobs.map((j) => [j.name, j.startNs, j.groupId])).toEqual([
      ["warm", 0, 0], ["late", 5e9, 0], ["after-wall", 250e6, 1],
    ]);
    expect(r.jobs[1]!.runtimeNs).toBe(500e6);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/^startdelay-stonewall\.fio:19: stonewall/);
  });

  it("offset_increment spreads numjobs clones over disjoint stripes", () => {
    const r = parse("numjobs-offset.fio");
    expect(r.jobs.map((j) => [j.name, j.offset, j.regionLen])).toEqual([
      ["stripe.0", 0, GiB], ["stripe.1", GiB, GiB], ["stripe.2", 2 * GiB, GiB], ["stripe.3", 3 * GiB, GiB],
    ]);
  });

  it("every fio option iosim does not model is one warning naming file:line", () => {
    const r = parse("unmodelled.fio", { deviceSizes: { nvme0n1: GiB } });
    const lines = r.warnings.map((w) => {
      expect(w).toMatch(/^unmodelled\.fio:\d+: /);
      return Number(/:(\d+):/.exec(w)![1]);
    });
    // (line 8, write_lat_log, is modelled: iosim run --out writes fio's logs, report/fio-logs.ts)
    expect(lines.sort((a, b) => a - b)).toEqual([5, 6, 7, 14, 15, 16, 17, 18]);
    // a real fio option iosim has no class for is warned about with fio's own help text
    expect(r.warnings.find((w) => w.includes(":18:"))).toBe(
      'unmodelled.fio:18: exitall_on_error: not modelled by iosim, ignored (fio: "Terminate all jobs when one exits in error")');
    // ramp_time is modelled; on a job without time_based iosim warns how its limit differs from fio's
    expect(r.warnings.find((w) => w.includes(":5:"))).toMatch(/ramp_time with a size or number_ios limit/);
    expect(r.jobs[0]).toMatchObject({ rw: "write", random: true, iodepth: 8 });
  });

  it("psync (fio's default engine) keeps one IO in flight whatever iodepth says, and fio's direct default is 0", () => {
    const r = parse("psync-depth.fio");
    expect(r.jobs[0]).toMatchObject({ iodepth: 1, direct: false });
    // (its buffered reads go through the page cache: no warning about them)
    expect(r.warnings).toEqual([expect.stringMatching(/^psync-depth\.fio:5: iodepth=16 with ioengine=psync/)]);
    expect(r.jobs[0]).toMatchObject({ fadvise: "type", invalidate: true });
  });

  it("include pulls options into the section it appears in", () => {
    const j = parse("with-include.fio").jobs[0]!;
    expect(j).toMatchObject({ iodepth: 8, direct: true, regionLen: 128 * MiB, device: "nvme0n1" });
  });

  it("more than fio's 4096 jobs is refused at numjobs (100,000 ran the core out of memory)", () => {
    const e = (() => { try { parseFioJobFile("[a]\nsize=1m\n[b]\nsize=1m\nnumjobs=4096\n", "t.fio", { defaultDevice: "vda" }); } catch (x) { return x as InputError; } })();
    expect([e?.line, e?.field]).toEqual([5, "numjobs"]);
    expect(e?.message).toMatch(/at most 4096 jobs \(REAL_MAX_JOBS\); this file asks for 4097/);
    expect(parseFioJobFile("[b]\nsize=1m\nnumjobs=4096\n", "t.fio", { defaultDevice: "vda" }).jobs).toHaveLength(4096);
  });

  it("an include inside an included file is found beside that file, as fio finds it (it was looked up from the first file's directory)", () => {
    const files: Record<string, string> = {
      "/w/jobs/j.fio": "[j]\nsize=1m\nioengine=libaio\ndirect=1\ninclude sub/a.inc\n",
      "/w/jobs/sub/a.inc": "iodepth=8\ninclude b.inc\n",
      "/w/jobs/sub/b.inc": "bs=8k\nramp_time=1\n",
    };
    const readFile = readFromMemory(files);
    const r = parseFioJobFile(files["/w/jobs/j.fio"]!, "/w/jobs/j.fio", { defaultDevice: "vda", readFile });
    expect(r.jobs[0]).toMatchObject({ iodepth: 8, bs: [{ size: 8192, weight: 1 }] });
    // and a message names the included file by its path
    expect(r.warnings.find((w) => w.includes("ramp_time"))).toMatch(/^\/w\/jobs\/sub\/b\.inc:2: ramp_time with a size/);
    files["/w/jobs/sub/b.inc"] = "bs=8k\nbogus=1\n";
    const e = inputError(() => parseFioJobFile(files["/w/jobs/j.fio"]!, "/w/jobs/j.fio", { defaultDevice: "vda", readFile }));
    expect([e.file, e.line, e.field]).toEqual(["/w/jobs/sub/b.inc", 2, "bogus"]);
  });

  it("read_iolog turns the job into a replay of the log on the log's device, in the job's cgroup", () => {
    const r = parse("replay-job.fio");
    const j = r.jobs[0]!;
    expect(j).toMatchObject({ device: "sdb", cgroup: "replayer", iodepth: 4 });
    expect(j.pattern).toEqual({ kind: "replay", ios: [
      { tNs: 8_000, off: 0, size: 4096, dir: "R" },
      { tNs: 1_008_000, off: 8192, size: 4096, dir: "W" },
      { tNs: 1_488_000, off: 16384, size: 4096, dir: "W" },
      { tNs: 1_488_000, off: 0, size: 512, dir: "R" },
    ] });
  });
});

describe("fio job-file values and errors", () => {
  const p = (text: string, opts: FioParseOptions = {}) =>
    parseFioJobFile(text, "t.fio", { defaultDevice: "vda", deviceSizes: { vda: 8 * GiB }, ...opts });

  it("kb_base=1000 swaps the meaning of k and ki", () => {
    expect(p("[a]\nkb_base=1000\nbs=4ki\nsize=1m\n").jobs[0]).toMatchObject({ bs: [{ size: 4096, weight: 1 }], regionLen: 1e6 });
    expect(p("[a]\nbs=4k\nsize=1mi\n").jobs[0]).toMatchObject({ bs: [{ size: 4096, weight: 1 }], regionLen: 1e6 });
  });

  it("of rwmixread and rwmixwrite, the later line wins", () => {
    expect(p("[a]\nrw=randrw\nrwmixread=80\nrwmixwrite=40\n").jobs[0]!.mixReadPct).toBe(60);
    expect(p("[a]\nrw=randrw\nrwmixwrite=40\nrwmixread=80\n").jobs[0]!.mixReadPct).toBe(80);
  });

  it("bs=4k,16k and bssplit=R,W on a mix give the reads and the writes their own sizes (they were merged, with a warning)", () => {
    const r = p("[a]\nrw=randrw\ndirect=1\nbs=4k,16k\n");
    expect(r.jobs[0]).toMatchObject({ bs: [{ size: 4096, weight: 1 }], bsWrite: [{ size: 16384, weight: 1 }] });
    expect(r.warnings).toEqual([]);
    const s = p("[a]\nrw=randrw\nbssplit=4k/75:8k/25,64k\n").jobs[0]!;
    expect([s.bs, s.bsWrite]).toEqual([[{ size: 4096, weight: 75 }, { size: 8192, weight: 25 }], [{ size: 65536, weight: 100 }]]);
    // one list for both when they agree, or when the job only reads
    expect(p("[a]\nrw=randrw\nbs=4k,4k\n").jobs[0]!.bsWrite).toBeUndefined();
    const ro = p("[a]\nrw=randread\nbs=4k,16k\n").jobs[0]!;
    expect([ro.bs, ro.bsWrite]).toEqual([[{ size: 4096, weight: 1 }], undefined]);
  });

  it("rate and rate_iops on a mix cap each direction", () => {
    const pat = (opts: string) => p(`[a]\nrw=randrw\n${opts}\n`).jobs[0]!.pattern;
    expect(pat("rate=1m,500k")).toEqual({ kind: "rate", read: { bps: 1 << 20 }, write: { bps: 500 << 10 } });
    // fio: one value caps each direction, "1m," reads only, ",500k" writes only
    expect(pat("rate=1m")).toEqual({ kind: "rate", read: { bps: 1 << 20 }, write: { bps: 1 << 20 } });
    expect(pat("rate=1m,")).toEqual({ kind: "rate", read: { bps: 1 << 20 } });
    expect(pat("rate_iops=,50")).toEqual({ kind: "rate", write: { iops: 50 } });
    expect(p("[a]\nrw=randrw\ndirect=1\nrate=1m,500k\n").warnings).toEqual([]);
    // a job of one direction keeps its one cap
    expect(p("[a]\nrw=randwrite\nrate=1m,500k\n").jobs[0]!.pattern).toEqual({ kind: "rate", bps: 500 << 10 });
  });

  it("rate with rate_iops is refused as fio refuses it (fixup_options), whichever directions they name, naming the later line", () => {
    for (const opts of ["rate=1m\nrate_iops=10", "rate=1m,\nrate_iops=,50", "rate_iops=10\nrate=,,1m"]) {
      const e = inputError(() => p(`[a]\nrw=randrw\n${opts}\n`));
      expect(e.message).toMatch(/mutually exclusive: fio refuses the job/);
      expect([e.file, e.line, e.field]).toEqual(["t.fio", 4, opts.endsWith("rate=,,1m") ? "rate" : "rate_iops"]);
    }
    // a [global] rate and a job's rate_iops are one job's options too
    expect(inputError(() => p("[global]\nrate=1m\n[a]\nrate_iops=10\n")).line).toBe(4);
    // so are rate_min and rate_iops_min (ratemin is fio's other name for rate_min)
    expect(inputError(() => p("[a]\nratemin=1m\nrate_iops_min=10\n")).field).toBe("rate_iops_min");
  });

  it("rate_iops is a byte rate at the direction's smallest listed block size (fio's __setup_rate), an IO cap when all IOs are that size", () => {
    const pat = (opts: string) => p(`[a]\n${opts}\n`).jobs[0]!.pattern;
    expect(pat("rw=randread\nbssplit=4k/50:64k/50\nrate_iops=100")).toEqual({ kind: "rate", bps: 100 * 4096 });
    // an entry of 0% is never drawn but is still fio's min_bs
    expect(pat("rw=randread\nbssplit=4k/0:64k/100\nrate_iops=100")).toEqual({ kind: "rate", bps: 100 * 4096 });
    expect(pat("rw=randrw\nbssplit=8k/50:64k/50,16k/50:128k/50\nrate_iops=100,50"))
      .toEqual({ kind: "rate", read: { bps: 100 * 8192 }, write: { bps: 50 * 16384 } });
    // each direction at its own min_bs; reads of one size are in bytes too, the same pacing
    expect(pat("rw=randrw\nbs=4k\nbssplit=,4k/50:64k/50\nrate_iops=100")).toEqual({ kind: "rate", read: { bps: 100 * 4096 }, write: { bps: 100 * 4096 } });
    expect(pat("rw=randrw\nbs=4k,8k\nrate_iops=100,50")).toEqual({ kind: "rate", read: { iops: 100 }, write: { iops: 50 } });
    expect(pat("rw=randwrite\nbs=4k,64k\nrate_iops=100")).toEqual({ kind: "rate", iops: 100 });
    expect(p("[a]\nrw=randread\nbssplit=4k/50:64k/50\nrate_iops=100\n").warnings.filter((w) => /rate/.test(w))).toEqual([]);
  });

  it("a regular file runs on the default device with a warning; /dev paths name the device", () => {
    const r = p("[a]\nfilename=/mnt/data/testfile\n");
    expect(r.jobs[0]!.device).toBe("vda");
    expect(r.warnings[0]).toMatch(/^t\.fio:2: filename=\/mnt\/data\/testfile: not a block device/);
    expect(p("[a]\nfilename=/dev/mapper/vg-data\n", { deviceSizes: {} }).jobs[0]!.device).toBe("vg-data");
  });

  it("${VAR} comes from opts.env; $pagesize is 4096", () => {
    const r = p("[a]\nsize=${SIZE}\nbs=$pagesize\n", { env: { SIZE: "64m" } });
    expect(r.jobs[0]).toMatchObject({ regionLen: 64 * MiB, bs: [{ size: 4096, weight: 1 }] });
  });

  it("--section picks job sections; global always applies", () => {
    const r = p("[global]\nbs=8k\n[a]\n[b]\nrw=write\n", { sections: ["b"] });
    expect(r.jobs.map((j) => [j.name, j.rw, j.bs[0]!.size])).toEqual([["b", "write", 8192]]);
  });

  it("a global section only affects the jobs below it", () => {
    const r = p("[a]\n[global]\nbs=64k\n[b]\n");
    expect(r.jobs.map((j) => j.bs[0]!.size)).toEqual([4096, 65536]);
  });

  it("inline comments end a value, as fio's strip_blank_end does", () => {
    expect(p("[a]\nbs=8k ; small blocks\niodepth=4 # four\nioengine=libaio\ndirect=1\n").jobs[0]).toMatchObject({
      bs: [{ size: 8192, weight: 1 }], iodepth: 4 });
  });

  it.each([
    ["[a]\nbs=4q\n", 2, "bs"],
    ["[a]\nrw=trim\n", 2, "rw"],
    ["[a]\nrw=sideways\n", 2, "rw"],
    ["[a]\niodepth=0\n", 2, "iodepth"],
    ["[a]\nnumjobs=0\n", 2, "numjobs"],
    ["[a]\nbssplit=4k/60:8k/50\n", 2, "bssplit"],
    ["[a]\nruntime=soon\n", 2, "runtime"],
    ["[a]\n\nthinktime=5parsecs\n", 3, "thinktime"],
    ["[a]\nrwmixread=120\nrw=randrw\n", 2, "rwmixread"],
    ["[a]\nkb_base=512\n", 2, "kb_base"],
    ["[a]\ndirect=maybe\n", 2, "direct"],
    ["[a]\nsize=(1024*2)\n", 2, "size"],
    ["bs=4k\n[a]\n", 1, "bs"],
    ["[a]\niodepth\n", 2, "iodepth"],
  ])("bad input %j is an InputError at line %i naming %s", (text, line, field) => {
    const e = inputError(() => p(text));
    expect([e.file, e.line, e.field]).toEqual(["t.fio", line, field]);
    expect(e.message).toContain(`t.fio:${line}`);
  });

  it("a job without filename and without a default device is an error at its section line", () => {
    const e = inputError(() => parseFioJobFile("[global]\nbs=4k\n\n[lonely]\nrw=read\n", "x.fio"));
    expect([e.line, e.field]).toEqual([4, "filename"]);
  });

  it("a device outside the scenario is an error", () => {
    const e = inputError(() => p("[a]\nfilename=/dev/sdz\n", { devices: ["vda"] }));
    expect([e.line, e.field]).toEqual([2, "filename"]);
  });
});

describe("fio option names (fio 3.39's, fio-option-names.ts)", () => {
  const job = (lines: string, file = "jobs.fio") => parseFioJobFile(lines, file, { defaultDevice: "nvme0n1" });

  it("a misspelt option is refused as fio refuses it, at its line, with the nearest name (it ran at depth 1 with a warning)", () => {
    const text = "[global]\nioengine=libaio\ndirect=1\n\n; tenant a\n[a]\nrw=randread\nbs=4k\niodeph=32\nsize=1g\n";
    const e = inputError(() => job(text));
    expect([e.file, e.line, e.field]).toEqual(["jobs.fio", 9, "iodeph"]);
    expect(e.message).toBe('jobs.fio:9 (iodeph): fio does not know the option "iodeph" (fio: Bad option <iodeph=32>); did you mean "iodepth"?');
    // in [global] too, and a bare name; fio's text is the line as written, comment cut
    const g = inputError(() => job("[global]\ndirrect   ; typo\n[a]\nsize=1m\n"));
    expect([g.line, g.field]).toEqual([2, "dirrect"]);
    expect(g.message).toMatch(/\(fio: Bad option <dirrect>\); did you mean "direct"\?$/);
  });

  it("no suggestion when nothing is close (fio's bound: at most half the name's length)", () => {
    const e = inputError(() => job("[a]\nsize=1m\nzqxwvkj=1\n"));
    expect(e.message).toBe('jobs.fio:3 (zqxwvkj): fio does not know the option "zqxwvkj" (fio: Bad option <zqxwvkj=1>)');
  });

  it("option names are case-sensitive, as in fio (IODEPTH=32 was read as iodepth=32)", () => {
    const e = inputError(() => job("[a]\nsize=1m\nIODEPTH=32\n"));
    expect(e.message).toMatch(/fio does not know the option "IODEPTH" \(fio: Bad option <IODEPTH=32>\); did you mean "iodepth"\? \(fio's option names are case-sensitive\)$/);
  });

  it("a real fio option iosim does not model still runs, with one warning worded from the table", () => {
    const r = job("[a]\nsize=1m\nexitall_on_error\nnr_files=2\nlog_entries=4096\nss_dur=10s\n");
    expect(r.jobs).toHaveLength(1);
    expect(r.warnings).toEqual([
      'jobs.fio:3: exitall_on_error: not modelled by iosim, ignored (fio: "Terminate all jobs when one exits in error")',
      "jobs.fio:4: nr_files=2 (fio's nrfiles): not modelled by iosim, ignored (one file (device region) per job)",
      'jobs.fio:5: log_entries=4096: not modelled by iosim, ignored (fio: "Initial number of entries in a job IO log")',
      "jobs.fio:6: ss_dur=10s (fio's steadystate_duration): not modelled by iosim, ignored (no steady-state detection)",
    ]);
  });

  it("an option fio knows only as an alias is the option it names (fileoffset=1m was ignored: the job started at 0)", () => {
    const r = job("[a]\nrw=write\nsize=4m\nfileoffset=1m\nblocksize=8k\nreadwrite=randwrite\ntimeout=2\n");
    expect(r.warnings).toEqual([]);
    expect(r.jobs[0]).toMatchObject({ offset: MiB, bs: [{ size: 8192, weight: 1 }], rw: "write", random: true, runtimeNs: 2e9 });
    // fio's "ba" is iosim's blockalign, under either name
    expect(job("[a]\nsize=1m\nba=8k\n").jobs[0]!.align).toBe(8192);
    expect(job("[a]\nsize=1m\nblockalign=8k\n").jobs[0]!.align).toBe(8192);
  });

  it("an engine's option is accepted with that engine: hipri with io_uring, also named before ioengine= or in [global]", () => {
    for (const text of [
      "[a]\nsize=1m\nioengine=io_uring\nhipri\n",
      "[a]\nsize=1m\nhipri\nioengine=io_uring\n",
      "[global]\nioengine=io_uring\nhipri\n[a]\nsize=1m\n",
      "[global]\nioengine=pvsync2\n[a]\nsize=1m\nhipri\n",
      "[a]\nsize=1m\nioengine=libaio\nuserspace_reap\n",
    ]) {
      const r = job(text);
      expect(r.jobs).toHaveLength(1);
      expect(r.warnings.filter((w) => /hipri|userspace_reap/.test(w))).toEqual([expect.stringMatching(/: (hipri|userspace_reap): no effect in a simulation, ignored$/)]);
    }
    const r = job("[a]\nsize=1m\nioengine=io_uring\nsqthread_poll_cpu=3\n");
    expect(r.warnings[0]).toBe('jobs.fio:4: sqthread_poll_cpu=3: not modelled by iosim, ignored (an option of ioengine=io_uring; fio: "What CPU to run SQ thread polling on")');
  });

  it("an engine's option with another engine is refused, as fio refuses it (hipri with psync, or in [global] when only the job names io_uring)", () => {
    const e = inputError(() => job("[a]\nsize=1m\nioengine=libaio\nhipri\n"));
    expect([e.line, e.field]).toEqual([4, "hipri"]);
    expect(e.message).toMatch(/fio does not know the option "hipri" \(fio: Bad option <hipri>\); it is an option of ioengine io_uring, io_uring_cmd, pvsync2, sg, not of ioengine=libaio$/);
    // fio reads [global] with the engine [global] names (psync, its default): "fio: job global dropped"
    const g = inputError(() => job("[global]\nhipri\n[a]\nioengine=io_uring\nsize=1m\n"));
    expect([g.line, g.field]).toEqual([2, "hipri"]);
    expect(g.message).toMatch(/not of ioengine=psync$/);
  });

  it("an engine iosim has no option list for (not built into the fio the table was read from) leaves a name it cannot check to a warning", () => {
    const r = job("[a]\nsize=1m\nioengine=xnvme\nxnvme_async=io_uring\niodeph=4\n");
    expect(r.jobs).toHaveLength(1);
    expect(r.warnings.find((w) => w.startsWith("jobs.fio:4:"))).toMatch(/xnvme_async=io_uring: not one of fio's job options; .* ioengine=xnvme, which iosim cannot check/);
    expect(r.warnings.find((w) => w.startsWith("jobs.fio:5:"))).toMatch(/\(did you mean "iodepth"\?\)$/);
  });

  it("a deprecated option: refused where fio refuses it (rwmixcycle), warned where fio accepts it (verifysort)", () => {
    const e = inputError(() => job("[a]\nsize=1m\nrwmixcycle=500\n"));
    expect(e.message).toBe('jobs.fio:3 (rwmixcycle): fio refuses the deprecated option "rwmixcycle" (fio: Option rwmixcycle is deprecated; fio: failed parsing rwmixcycle=500)');
    expect(job("[a]\nsize=1m\nverifysort=1\n").warnings[0]).toBe('jobs.fio:3: verifysort=1: deprecated in fio ("Option verifysort is deprecated"), no effect, ignored');
  });

  it("a profile's option (fio adds them to its table) is accepted with a warning", () => {
    expect(job("[a]\nsize=1m\nnumruns=2\n").warnings[0]).toBe("jobs.fio:3: numruns=2: an option of fio's tiobench profile, which acts only with --profile=tiobench; ignored");
  });

  it("the suggestion is the nearest known name a typo away (util/nearest-name.ts), an engine's own options included", () => {
    expect(nearestFioOption("iodeph")).toBe("iodepth");
    expect(nearestFioOption("runtme")).toBe("runtime");
    expect(nearestFioOption("hipr", "io_uring")).toBe("hipri");
    expect(nearestFioOption("Direct")).toBe("direct");
    // never a profile's option ("dir", tiobench's, is 3 edits from hipri) nor a deprecated one (rwmixcycle);
    // and no name half changed (fio's own bound offered prio for hipri and rwmixread for rwmixcycl)
    expect(nearestFioOption("hipri")).toBeUndefined();
    expect(nearestFioOption("rwmixcycl")).toBeUndefined();
    expect(nearestFioOption("rwmixred")).toBe("rwmixread");
    expect(nearestFioOption("qqqqqqqq")).toBeUndefined();
  });

  it("the table is fio 3.39's, and every name iosim classifies is one fio knows", () => {
    expect(FIO_OPTION_NAMES_VERSION).toBe("fio-3.39");
    expect(FIO_JOB_OPTIONS.bs).toMatchObject({ alias: "blocksize" });
    expect(FIO_JOB_OPTIONS.offset).toMatchObject({ alias: "fileoffset" });
    expect(Object.keys(FIO_ENGINE_OPTIONS.io_uring!)).toEqual(expect.arrayContaining(["hipri", "fixedbufs", "sqthread_poll", "registerfiles"]));
    expect(Object.keys(FIO_ENGINE_OPTIONS.libaio!)).toContain("userspace_reap");
    const fioNames = new Set(Object.entries(FIO_JOB_OPTIONS).flatMap(([n, o]) => (o.alias ? [n, o.alias] : [n])));
    const engineNames = new Set(Object.values(FIO_ENGINE_OPTIONS).flatMap((m) => Object.entries(m).flatMap(([n, o]) => (o.alias ? [n, o.alias] : [n]))));
    for (const [cls, names] of Object.entries(IOSIM_FIO_OPTION_CLASSES)) {
      for (const n of names) expect(fioNames.has(n) || engineNames.has(n), `${cls}: ${n}`).toBe(true);
    }
  });
});
