import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { KernelVersion } from "../scenario/types.js";
import { U64_MAX, UINT_MAX } from "./kstr.js";
import {
  formatBlkioThrottle,
  formatIoMax,
  formatIoMaxLine,
  parseBlkioThrottle,
  parseIoMax,
  THROTTLE_UNLIMITED,
  type ThrottleLimits,
} from "./throttle.js";
import { formatRejection, type WriteContext } from "./write.js";

const DEVICES = ["8:0", "259:0", "7:1"];
const PARTS = ["8:1", "259:1"];
const ctx = (version: KernelVersion, extra: Partial<WriteContext> = {}): WriteContext => ({
  version,
  devices: DEVICES,
  partitions: PARTS,
  file: "io.max",
  line: 1,
  ...extra,
});

type Row = [input: string, versions: KernelVersion[], expect: string | Partial<Record<keyof ThrottleLimits, bigint>>];
const ALL: KernelVersion[] = ["6.1", "6.12", "6.18"];

// input, versions, expected errno or the keys the write sets
const IO_MAX_TABLE: Row[] = [
  ["8:0 rbps=1048576", ALL, { rbps: 1048576n }],
  ["8:0 rbps=1048576 wbps=2097152 riops=100 wiops=200", ALL, { rbps: 1048576n, wbps: 2097152n, riops: 100n, wiops: 200n }],
  ["259:0 wbps=max", ALL, { wbps: U64_MAX }],
  ["259:0 riops=max", ALL, { riops: UINT_MAX }],
  ["8:0 riops=99999999999", ALL, { riops: UINT_MAX }], // clamped to UINT_MAX
  ["8:0 wiops=4294967295", ALL, { wiops: UINT_MAX }],
  ["8:0 wiops=4294967294", ALL, { wiops: 4294967294n }],
  ["8:0 rbps=2", ALL, { rbps: 2n }],
  ["8:0 rbps=1", ["6.1", "6.12"], "EINVAL"], // val > 1 before 6.18
  ["8:0 rbps=1", ["6.18"], { rbps: 1n }],
  ["8:0 riops=1", ["6.1", "6.12"], "EINVAL"],
  ["8:0 riops=1", ["6.18"], { riops: 1n }],
  ["8:0 rbps=0", ALL, "ERANGE"],
  ["8:0 foo=0", ALL, "ERANGE"], // zero is checked before the key
  ["8:0 foo=5", ALL, "EINVAL"],
  ["8:0 RBPS=5", ALL, "EINVAL"],
  ["8:0 rbps", ALL, "EINVAL"],
  ["8:0 rbps=", ALL, "EINVAL"],
  ["8:0 rbps=-5", ALL, "EINVAL"],
  ["8:0 rbps=+5", ALL, "EINVAL"],
  ["8:0 rbps=maximum", ALL, "EINVAL"],
  ["8:0 rbps=100abc", ALL, { rbps: 100n }], // %llu ignores trailing junk
  ["8:0 rbps=18446744073709551615", ALL, { rbps: U64_MAX }],
  ["8:0 rbps=18446744073709551616", ALL, "ERANGE"], // wraps to 0
  ["8:0 rbps=18446744073709551617", ["6.1", "6.12"], "EINVAL"], // wraps to 1
  ["8:0 rbps=18446744073709551617", ["6.18"], { rbps: 1n }],
  ["8:0 wiops=18446744073709551615", ALL, { wiops: UINT_MAX }], // the 26-char token
  ["8:0 rbps=000000000000000000001048576", ALL, "EINVAL"], // cut at 26 chars: "rbps=...0001", then "048576" has no "="
  ["8:0 riops=1000000000000000000000", ALL, "EINVAL"], // cut at 26; tail "00" has no '='
  ["8:0 rbps=5 rbps=7", ALL, { rbps: 7n }],
  ["8:0", ALL, {}], // echo appends '\n': body empty, nothing changes
  ["8:0   ", ALL, {}],
  ["8:0\trbps=5", ALL, { rbps: 5n }],
  ["  8:0 rbps=5", ALL, { rbps: 5n }], // %u skips leading spaces
  ["8:0rbps=5", ALL, "EINVAL"],
  ["8 rbps=5", ALL, "EINVAL"],
  ["sda rbps=5", ALL, "EINVAL"],
  ["0x8:0 rbps=5", ALL, "EINVAL"],
  ["8:16 rbps=5", ALL, "ENODEV"],
  ["8:1 rbps=5", ALL, "ENODEV"], // a partition
  ["259:1 rbps=5", ALL, "ENODEV"],
  ["8:1048576 rbps=5", ALL, "ENODEV"], // MKDEV(8, 1<<20) = 9:0, absent
  ["6:1048576 rbps=5", ALL, "ENODEV"], // MKDEV(6, 1<<20) = 7:0, absent
  ["6:1048577 rbps=5", ALL, { rbps: 5n }], // MKDEV(6, 1<<20 | 1) = 7:1, the loop device
  ["8:0 rbps=5\n8:16 wbps=5", ALL, "EINVAL"], // one write: "8:16" is a token without '='
  ["8:0 idle=5", ["6.1"], {}], // 6.1's off == LIMIT_LOW slip accepts io.low keys
  ["8:0 latency=max", ["6.1"], {}],
  ["8:0 idle=5", ["6.12", "6.18"], "EINVAL"],
  ["8:0 idle=0", ["6.1"], "ERANGE"],
];
describe("io.max accepts and rejects writes as tg_set_limit() does", () => {
  for (const [input, versions, want] of IO_MAX_TABLE) {
    for (const v of versions) {
      it(`${v}: ${JSON.stringify(input)} -> ${typeof want === "string" ? want : "ok"}`, () => {
        const r = parseIoMax(input, ctx(v));
        if (typeof want === "string") {
          expect(r.ok).toBe(false);
          if (!r.ok) expect(r.errno).toBe(want);
        } else {
          expect(r.ok, r.ok ? "" : formatRejection(r)).toBe(true);
          if (r.ok) expect(r.set).toEqual(want);
        }
      });
    }
  }

  it("names the device by its canonical number (6:1048577 is 7:1)", () => {
    const r = parseIoMax("6:1048577 rbps=5", ctx("6.12"));
    expect(r.ok && r.device).toBe("7:1");
  });

  it("keeps keys the write does not mention", () => {
    const prev: ThrottleLimits = { ...THROTTLE_UNLIMITED, rbps: 1000n, wiops: 50n };
    const r = parseIoMax("8:0 wbps=2000", { ...ctx("6.12"), previous: prev });
    expect(r.ok && r.limits).toEqual({ rbps: 1000n, wbps: 2000n, riops: UINT_MAX, wiops: 50n });
  });

  it("printf-style writes without a newline: a bare device is EINVAL", () => {
    const r = parseIoMax("8:0", ctx("6.12", { echo: false }));
    expect(!r.ok && r.errno).toBe("EINVAL");
  });

  it("the kernel sees UTF-8 bytes: 26 is counted in bytes, a non-ASCII space is not white space; the rejection shows the text", () => {
    // "wbps=1000\u2003rbps=1048576000" is 25 characters but 27 bytes: cut at 26, then "0"
    const cut = parseIoMax("8:0 wbps=1000\u2003rbps=1048576000", ctx("6.18"));
    expect(!cut.ok && [cut.errno, cut.token]).toEqual(["EINVAL", "0"]);
    const one = parseIoMax("8:0 wbps=1000\u2003rbps=2", ctx("6.18"));
    expect(one.ok && one.set).toEqual({ wbps: 1000n });
    const bad = parseIoMax("8:0 rbps=é", ctx("6.18"));
    expect(!bad.ok && [bad.token, bad.message]).toEqual(["rbps=é", 'value must be a number or "max", got "é"']);
  });

  it("a rejection names file, line, token and errno", () => {
    const r = parseIoMax("8:0 rbps=5 wbps=0", ctx("6.12", { file: "scenario.yaml", line: 12 }));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.token).toBe("wbps=0");
      expect(formatRejection(r)).toMatch(/^scenario\.yaml:12: write rejected with ERANGE at "wbps=0"/);
    }
  });
});

describe("io.max writes the kernel takes but a person surely did not mean are warned about, naming the token", () => {
  const warn = (input: string, v: KernelVersion = "6.18") => {
    const r = parseIoMax(input, ctx(v));
    if (!r.ok) throw new Error(formatRejection(r));
    return r;
  };

  it('"rbps=10m" is 10 bytes/s, as sscanf %llu reads it (kept), with a warning that says so and what 10 MiB/s is', () => {
    const r = warn("259:0 rbps=10m wbps=52428800");
    expect(r.set).toEqual({ rbps: 10n, wbps: 52428800n });
    expect(r.warnings).toEqual(['"rbps=10m": the kernel reads 10 and ignores "m" (no unit suffixes or fractions; for 10MiB/s write 10485760)']);
  });

  it('"riops=2k" and "wbps=1.5" are read as 2 and 1 (a fraction has no hint), on every version that takes them', () => {
    expect(warn("8:0 riops=2k", "6.1").warnings).toEqual(['"riops=2k": the kernel reads 2 and ignores "k" (no unit suffixes or fractions)']);
    expect(warn("8:0 wbps=1.5").warnings).toEqual(['"wbps=1.5": the kernel reads 1 and ignores ".5" (no unit suffixes or fractions)']);
  });

  it("digits past u64 wrap around, and riops above UINT_MAX becomes no limit at all", () => {
    expect(warn("8:0 rbps=18446744073709551716").warnings).toEqual(['"rbps=18446744073709551716": 18446744073709551716 wraps to 100 (sscanf keeps the low 64 bits)']);
    const r = warn("8:0 riops=5000000000");
    expect(r.limits.riops).toBe(UINT_MAX);
    expect(r.warnings).toEqual(['"riops=5000000000": 5000000000 is above UINT_MAX; tg_set_limit() clamps it to UINT_MAX, which is "max": no riops limit at all']);
  });

  it("plain numbers and max are not warned about", () => {
    expect(warn("8:0 rbps=1048576 wbps=max riops=4294967295 wiops=100").warnings).toEqual([]);
  });

  it("v1 blkio.throttle files: '8:0 10m' is 10 bytes/s, warned about", () => {
    const r = parseBlkioThrottle("blkio.throttle.read_bps_device", "8:0 10m", ctx("6.12", { file: "blkio.throttle.read_bps_device" }));
    expect(r.ok && [r.value, r.warning]).toEqual([10n, 'the kernel reads 10 and ignores "m" (no unit suffixes or fractions; for 10MiB/s write 10485760)']);
  });
});

describe("io.max read-back", () => {
  it("prints max for unlimited keys and nothing for an unlimited device", () => {
    const l: ThrottleLimits = { ...THROTTLE_UNLIMITED, wbps: 1048576n };
    expect(formatIoMax([["259:0", l], ["8:0", { ...THROTTLE_UNLIMITED }]])).toBe(
      "259:0 rbps=max wbps=1048576 riops=max wiops=max\n",
    );
  });

  const u64 = fc.bigInt({ min: 1n, max: U64_MAX });
  const keyVal = fc.oneof(
    fc.tuple(fc.constantFrom("rbps", "wbps", "riops", "wiops"), u64).map(([k, v]) => `${k}=${v}`),
    fc.constantFrom("rbps", "wbps", "riops", "wiops").map((k) => `${k}=max`),
  );
  const version = fc.constantFrom<KernelVersion>("6.1", "6.12", "6.18");

  it("any accepted io.max line re-parses from its read-back to the same limits", () => {
    fc.assert(
      fc.property(version, fc.array(keyVal, { maxLength: 6 }), fc.constantFrom(...DEVICES), (v, toks, dev) => {
        const r = parseIoMax(`${dev} ${toks.join(" ")}`, ctx(v));
        if (!r.ok) return; // rejected writes are covered by the table
        const back = formatIoMaxLine(r.device, r.limits);
        if (back === "") {
          expect(r.limits).toEqual(THROTTLE_UNLIMITED);
          return;
        }
        const again = parseIoMax(back.trimEnd(), ctx(v));
        expect(again.ok).toBe(true);
        if (again.ok) expect(again.limits).toEqual(r.limits);
      }),
      { numRuns: 400 },
    );
  });

  it("iops limits never exceed UINT_MAX and bps limits are never 0", () => {
    fc.assert(
      fc.property(version, fc.array(keyVal, { maxLength: 6 }), (v, toks) => {
        const r = parseIoMax(`8:0 ${toks.join(" ")}`, ctx(v));
        if (!r.ok) return;
        expect(r.limits.riops <= UINT_MAX && r.limits.wiops <= UINT_MAX).toBe(true);
        expect(r.limits.rbps > 0n && r.limits.wbps > 0n).toBe(true);
      }),
    );
  });
});

describe("v1 blkio.throttle.*_device as tg_set_conf() parses them", () => {
  const c = { version: "6.1" as KernelVersion, devices: DEVICES, partitions: PARTS };
  const rows: Array<[string, string, string | bigint]> = [
    ["blkio.throttle.read_bps_device", "8:0 1048576", 1048576n],
    ["blkio.throttle.read_bps_device", "8:0 0", U64_MAX], // 0 = unlimited
    ["blkio.throttle.write_bps_device", "8:0 1", 1n], // v1 accepts 1
    ["blkio.throttle.read_iops_device", "8:0 0", UINT_MAX],
    ["blkio.throttle.read_iops_device", "8:0 4294967296", 0n], // unsigned int store truncates
    ["blkio.throttle.write_iops_device", "8:0 4294967297", 1n],
    ["blkio.throttle.read_bps_device", "8:0 max", "EINVAL"],
    ["blkio.throttle.read_bps_device", "8:0 -1", "EINVAL"],
    ["blkio.throttle.read_bps_device", "8:0", "EINVAL"],
    ["blkio.throttle.read_bps_device", "8:0 12abc", 12n],
    ["blkio.throttle.read_bps_device", "8:1 100", "ENODEV"],
    ["blkio.throttle.read_bps_device", "9:0 100", "ENODEV"],
  ];
  for (const [file, input, want] of rows) {
    it(`${file} ${JSON.stringify(input)} -> ${want}`, () => {
      const r = parseBlkioThrottle(file as "blkio.throttle.read_bps_device", input, c);
      if (typeof want === "string") expect(!r.ok && r.errno).toBe(want);
      else expect(r.ok && r.value).toBe(want);
    });
  }

  it("flags the truncated iops store", () => {
    const r = parseBlkioThrottle("blkio.throttle.read_iops_device", "8:0 4294967296", c);
    expect(r.ok && r.warning).toMatch(/stores 0/);
  });

  it("reads back only limited devices", () => {
    const l: ThrottleLimits = { ...THROTTLE_UNLIMITED, rbps: 5000n };
    expect(formatBlkioThrottle("blkio.throttle.read_bps_device", [["8:0", l], ["259:0", { ...THROTTLE_UNLIMITED }]])).toBe(
      "8:0 5000\n",
    );
    expect(formatBlkioThrottle("blkio.throttle.write_bps_device", [["8:0", l]])).toBe("");
  });
});

describe("io.max never throws", () => {
  it("arbitrary writes give limits or an errno", () => {
    const text = fc.oneof(
      fc.string(),
      fc.tuple(fc.constantFrom("8:0 ", "259:0 ", "8:1 "), fc.array(fc.oneof(fc.string(), fc.constantFrom("rbps=", "wiops=", "=", "max")), { maxLength: 5 })).map(
        ([d, t]) => d + t.join(" "),
      ),
    );
    fc.assert(
      fc.property(fc.constantFrom<KernelVersion>("6.1", "6.12", "6.18"), text, (v, s) => {
        const r = parseIoMax(s, ctx(v));
        if (!r.ok) expect(["EINVAL", "ERANGE", "ENODEV"]).toContain(r.errno);
      }),
      { numRuns: 500 },
    );
  });
});
