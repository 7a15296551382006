import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { ioLogToJobs, parseIoLog } from "./iolog.js";
import { InputError } from "../scenario/errors.js";

const FIX = fileURLToPath(new URL("../../test/fixtures/fio/", import.meta.url));
const read = (name: string) => readFileSync(join(FIX, name), "utf8");

describe("fio iolog v2", () => {
  it("replays back to back (tNs 0) until a wait sets a 5 ms floor; sync and trim are dropped with a count", () => {
    const log = parseIoLog(read("replay-v2.log"), "replay-v2.log");
    expect(log.version).toBe(2);
    expect(log.files).toHaveLength(1);
    expect(log.files[0]!.device).toBe("nvme0n1");
    expect(log.files[0]!.ios).toEqual([
      { tNs: 0, off: 0, size: 4096, dir: "R" },
      { tNs: 0, off: 4096, size: 4096, dir: "R" },
      { tNs: 0, off: 1048576, size: 8192, dir: "W" },
      { tNs: 5e6, off: 8192, size: 4096, dir: "R" },
    ]);
    expect(log.warnings).toEqual([
      'replay-v2.log:9: 1 "sync" record(s) dropped: iosim replays reads and writes only',
      'replay-v2.log:10: 1 "trim" record(s) dropped: iosim replays reads and writes only',
    ]);
  });

  it("replay_no_stall ignores waits", () => {
    const log = parseIoLog(read("replay-v2.log"), "x", { noStall: true });
    expect(log.files[0]!.ios.every((io) => io.tNs === 0)).toBe(true);
  });
});

describe("fio iolog v3", () => {
  it("sums fio's per-record delays (µs): 0 after a zero timestamp, 0 when time goes backwards", () => {
    const ios = parseIoLog(read("replay-v3.log"), "v3").files[0]!.ios;
    expect(ios.map((io) => io.tNs)).toEqual([8_000, 1_008_000, 1_488_000, 1_488_000]);
    expect(ios.map((io) => io.dir).join("")).toBe("RWWR");
  });

  it("replay_time_scale=200 halves the gaps (fio truncates the scaled delay)", () => {
    const ios = parseIoLog(read("replay-v3.log"), "v3", { timeScalePct: 200 }).files[0]!.ios;
    expect(ios.map((io) => io.tNs)).toEqual([4_000, 504_000, 744_000, 744_000]);
    const slow = parseIoLog("fio version 3 iolog\n10 /dev/a add\n13 /dev/a read 0 512\n", "s", { timeScalePct: 200 });
    expect(slow.files[0]!.ios[0]!.tNs).toBe(1_000); // 3 * 0.5 = 1.5 -> 1 µs
  });

  it("timestampUnit ms reads the same log a thousand times slower", () => {
    const ios = parseIoLog(read("replay-v3.log"), "v3", { timestampUnit: "ms" }).files[0]!.ios;
    expect(ios[1]!.tNs).toBe(1_008_000_000);
  });

  it("a wait in a v3 log is ignored with a warning, as fio does", () => {
    const log = parseIoLog("fio version 3 iolog\n0 /dev/a add\n5 /dev/a wait 100 0\n9 /dev/a read 0 4096\n", "w");
    expect(log.warnings[0]).toMatch(/^w:3: "wait" is not allowed/);
    expect(log.files[0]!.ios[0]!.tNs).toBe(4_000);
  });

  it("IOs are grouped per file, each file becoming a replay job on its device", () => {
    const text = "fio version 3 iolog\n1 /dev/sda add\n1 /dev/sdb add\n2 /dev/sda read 0 4096\n3 /dev/sdb write 4096 8192\n";
    const log = parseIoLog(text, "two.log");
    const jobs = ioLogToJobs(log, "two.log", { iodepth: 2, cgroup: "x" });
    expect(jobs.map((j) => [j.name, j.device, j.rw, j.count, j.iodepth, j.cgroup, j.regionLen])).toEqual([
      ["two.log.0", "sda", "read", 1, 2, "x", 4096],
      ["two.log.1", "sdb", "write", 1, 2, "x", 12288],
    ]);
    expect(jobs[1]!.pattern).toEqual({ kind: "replay", ios: [{ tNs: 2000, off: 4096, size: 8192, dir: "W" }] }); // one fio thread: delays add up across files
  });
});

describe("fio iolog errors", () => {
  it.each([
    ["not a log\n", 1, "header"],
    ["fio version 3 iolog\nabc /dev/a add\n", 2, "timestamp"],
    ["fio version 2 iolog\n/dev/a read 0\n", 2, "action"],
    ["fio version 2 iolog\n/dev/a read -5 4096\n", 2, "offset"],
    ["fio version 2 iolog\n/dev/a read 0 0\n", 2, "length"],
    ["fio version 2 iolog\n/dev/a frobnicate 0 4096\n", 2, "action"],
  ])("%j fails at line %i naming %s", (text, line, field) => {
    try {
      parseIoLog(text, "bad.log");
      throw new Error("no error");
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      expect([(e as InputError).file, (e as InputError).line, (e as InputError).field]).toEqual(["bad.log", line, field]);
    }
  });
});
