// io.latency and wbt_lat_usec writes: what each kernel profile accepts and
// refuses, row by row from block/blk-iolatency.c iolatency_set_limit() and
// block/blk-sysfs.c queue_wb_lat_store() (6.1.192 and 6.12.117 read; the
// parsing is the same code in both, and in 6.18).
import { describe, expect, it } from "vitest";
import { parseIoLatency, parseWbtLatUsec, formatIoLatencyLine, kstrtos64, WBT_STATE_OFF_MANUAL, WBT_STATE_ON_MANUAL } from "./iolatency.js";
import type { KernelVersion } from "../scenario/types.js";
import { simulate } from "../engine/simulation.js";
import { loadScenario } from "../scenario/load.js";
const loadScenarioText = (t: string, f: string) => loadScenario(t, f).scenario;
import { InputError } from "../scenario/errors.js";

const PROFILES: KernelVersion[] = ["6.1", "6.12", "6.18"];
const ctx = (version: KernelVersion) => ({ version, devices: ["8:16", "259:0"], partitions: ["8:17"] });

// [value as echo writes it, target in us or the errno]
const IO_LATENCY: Array<[string, number | string]> = [
  ["8:16 target=5000", 5000],
  ["8:16 target=max", 0],
  ["8:16 target=0", 0],
  ["8:16 target=1", 1],
  ["8:16 target=100 target=200", 200], // the last token wins
  ["8:16 target=5ms", 5], // %llu stops at 'm': 5 us
  ["8:16 target=1.5", 1],
  ["8:16 target=007", 7],
  ["8:16 target=123456789012345678901234", Number(BigInt.asUintN(64, 12345678901234567890n * 1000n) / 1000n)], // 20 chars kept, x1000 wraps
  ["259:0 target=10", 10],
  ["8:16\ttarget=10", 10], // open_bdev takes any white space after MAJ:MIN
  ["8:16  target=10", 10], // blkg_conf_open_bdev skips the spaces after MAJ:MIN
  ["8:16 target=10  target=20", "EINVAL"], // strsep(" "): an empty token between
  ["8:16 target=10 ", "EINVAL"], // trailing space: the token "\n"
  ["8:16 target=", "EINVAL"],
  ["8:16 target", "EINVAL"],
  ["8:16 =10", "EINVAL"],
  ["8:16 latency=10", "EINVAL"],
  ["8:16 TARGET=10", "EINVAL"],
  ["8:16 target=-1", "EINVAL"],
  ["8:16 target=+1", "EINVAL"],
  ["8:16 target=abc", "EINVAL"],
  ["8:16 target=maxx", "EINVAL"],
  ["8:16 targettargettarget=10", "EINVAL"], // key longer than 15
  ["8:16 target=10\ttarget=20", 10], // a tab is not a separator: %20s stops at it
  ["8:16", "EINVAL"],
  ["8:16 ", "EINVAL"],
  ["8:17 target=10", "ENODEV"], // a partition
  ["9:0 target=10", "ENODEV"],
  ["8:16target=10", "EINVAL"],
  ["sda target=10", "EINVAL"],
];

describe("io.latency writes, per profile (iolatency_set_limit)", () => {
  for (const v of PROFILES) {
    it.each(IO_LATENCY)(`${v}: %j -> %j`, (value, want) => {
      const r = parseIoLatency(value, ctx(v));
      if (typeof want === "string") {
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.errno).toBe(want);
      } else {
        expect(r.ok).toBe(true);
        if (r.ok) expect(Number(r.targetNs / 1000n)).toBe(want);
      }
    });
  }

  it("warns about what the kernel takes but a person did not mean", () => {
    const r = parseIoLatency("8:16 target=5ms", ctx("6.12"));
    expect(r.ok && r.warnings.join(" ")).toMatch(/ignores "ms"/);
    const w = parseIoLatency("8:16 target=123456789012345678901234", ctx("6.12"));
    expect(w.ok && w.warnings.join(" ")).toMatch(/first 20 characters/);
    expect(parseIoLatency("8:16 target=5000", ctx("6.12"))).toMatchObject({ ok: true, warnings: [] });
  });

  it("reads back as iolatency_prfill_limit prints it", () => {
    expect(formatIoLatencyLine("8:16", 5_000_000n)).toBe("8:16 target=5000\n");
    expect(formatIoLatencyLine("8:16", 0n)).toBe("");
  });
});

// [value as echo writes it, ns written (-1 default) or the errno]
const WBT_LAT: Array<[string, number | string]> = [
  ["2000", 2_000_000],
  ["-1", -1],
  ["0", 0],
  ["+75", 75_000],
  ["-0", 0],
  ["007", 7000],
  ["9223372036854775807", Number(BigInt.asIntN(64, 9223372036854775807n * 1000n))],
  ["9223372036854775808", "ERANGE"],
  ["99999999999999999999", "ERANGE"],
  ["-2", "EINVAL"],
  ["-9223372036854775808", "EINVAL"], // below -1
  ["-9223372036854775809", "ERANGE"],
  [" 100", "EINVAL"],
  ["100 ", "EINVAL"],
  ["0x10", "EINVAL"],
  ["1e3", "EINVAL"],
  ["", "EINVAL"],
  ["-", "EINVAL"],
  ["+", "EINVAL"],
  ["-+5", "EINVAL"],
  ["abc", "EINVAL"],
  ["100\n\n", "EINVAL"], // one trailing newline only
];

describe("wbt_lat_usec writes, per profile (queue_wb_lat_store)", () => {
  for (const v of PROFILES) {
    it.each(WBT_LAT)(`${v}: %j -> %j`, (value, want) => {
      const r = parseWbtLatUsec(value, { version: v });
      if (typeof want === "string") {
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.errno).toBe(want);
      } else {
        expect(r.ok).toBe(true);
        if (r.ok) expect(Number(r.latNs)).toBe(want);
      }
    });
  }

  it("0 leaves WBT_STATE_ON_MANUAL on 6.1 and WBT_STATE_OFF_MANUAL from 6.12 (wbt_set_min_lat)", () => {
    expect(parseWbtLatUsec("0", { version: "6.1" })).toMatchObject({ ok: true, state: WBT_STATE_ON_MANUAL });
    expect(parseWbtLatUsec("0", { version: "6.12" })).toMatchObject({ ok: true, state: WBT_STATE_OFF_MANUAL });
    expect(parseWbtLatUsec("0", { version: "6.18" })).toMatchObject({ ok: true, state: WBT_STATE_OFF_MANUAL });
    expect(parseWbtLatUsec("5", { version: "6.18" })).toMatchObject({ ok: true, state: WBT_STATE_ON_MANUAL });
  });

  it("kstrtos64 is base 10 only, one trailing newline", () => {
    expect(kstrtos64("12\n")).toEqual({ val: 12n });
    expect(kstrtos64("012")).toEqual({ val: 12n });
    expect(kstrtos64("12x")).toEqual({ errno: "EINVAL" });
  });
});

describe("refused writes stop a scenario with file, line, token and errno", () => {
  const scen = (files: string) => `name: t\nkernel: "6.12"\ndevices:\n  - preset: nvme\ncgroups:\n  a:\n${files}\njobs:\n  - {name: j, cgroup: a, rw: randread, bs: 4k, number_ios: 10}\n`;

  it("io.latency with two spaces is EINVAL at its line", () => {
    const s = loadScenarioText(scen(`    io.latency: "259:0 target=100  target=5"`), "s.yaml");
    let err: unknown;
    try {
      simulate(s);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect(String((err as Error).message)).toMatch(/EINVAL|empty field/);
    expect((err as InputError).line).toBe(7); // the io.latency line
  });

  it("io.latency on the root is ENOENT", () => {
    const s = loadScenarioText(`name: t\ndevices:\n  - preset: nvme\ncgroups:\n  /:\n    io.latency: "259:0 target=100"\njobs:\n  - {name: j, rw: randread, bs: 4k, number_ios: 10}\n`, "s.yaml");
    expect(() => simulate(s)).toThrow(/root/);
  });

  it("a device's wbt_lat_usec of -2 is EINVAL", () => {
    const s = loadScenarioText(`name: t\ndevices:\n  - preset: nvme\n    wbt_lat_usec: "-2"\njobs:\n  - {name: j, rw: randread, bs: 4k, number_ios: 10}\n`, "s.yaml");
    expect(() => simulate(s)).toThrow(/below -1/);
  });
});
