import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { KernelVersion } from "../scenario/types.js";
import {
  AUTOP,
  autopClassFor,
  formatIoCostModelLine,
  formatIoCostQosLine,
  formatIoWeight,
  initialQosState,
  parseIoCostModel,
  parseIoCostQos,
  parseIoWeight,
  type IocQosState,
} from "./iocost.js";
import { cgroupParseFloat } from "./kstr.js";

const DEVICES = ["8:0", "259:0"];
const ALL: KernelVersion[] = ["6.1", "6.12", "6.18"];
const base = (version: KernelVersion) => ({ version, devices: DEVICES, partitions: ["259:1"] });

describe("cgroup_parse_float with two decimals", () => {
  const rows: Array<[string, bigint | null]> = [
    ["95", 9500n],
    ["95.5", 9550n],
    ["95.55", 9555n],
    ["95.555", 9556n], // rounded to closest
    ["95.554", 9555n],
    ["99.999", 10000n],
    ["95abc", 9500n], // trailing text ignored
    ["95.", 9500n],
    ["-5", -500n],
    ["-0.5", 50n], // the sign of a zero whole part is lost
    ["1.-5", null],
    [".5", null],
    ["abc", null],
    ["+5", null],
    ["", null],
  ];
  for (const [s, want] of rows) it(`${JSON.stringify(s)} -> ${want}`, () => expect(cgroupParseFloat(s, 2)).toBe(want));
});

describe("io.weight as ioc_weight_write() parses it", () => {
  type R = [string, string | { kind: "default" | "device"; weight: number | null; device?: string }];
  const rows: R[] = [
    ["100", { kind: "default", weight: 100 }],
    ["default 50", { kind: "default", weight: 50 }],
    ["default50", { kind: "default", weight: 50 }],
    ["  50", { kind: "default", weight: 50 }],
    ["50abc", { kind: "default", weight: 50 }],
    ["1", { kind: "default", weight: 1 }],
    ["10000", { kind: "default", weight: 10000 }],
    ["4294967297", { kind: "default", weight: 1 }], // %u keeps the low 32 bits
    ["0", "EINVAL"],
    ["10001", "EINVAL"],
    ["default", "EINVAL"],
    ["-5", "EINVAL"],
    ["heavy", "EINVAL"],
    ["", "EINVAL"],
    ["8:0 200", { kind: "device", device: "8:0", weight: 200 }],
    ["8:0 default", { kind: "device", device: "8:0", weight: null }],
    ["8:0 defaultish", { kind: "device", device: "8:0", weight: null }], // strncmp(.., 7)
    ["8:0 0", "EINVAL"],
    ["8:0 10001", "EINVAL"],
    ["8:0 max", "EINVAL"],
    ["8:16 100", "ENODEV"],
    ["259:1 100", "ENODEV"],
    ["default 100 8:0", "EINVAL"], // a ':' anywhere selects the per-device form
  ];
  for (const [input, want] of rows) {
    for (const v of ALL) {
      it(`${v}: ${JSON.stringify(input)} -> ${typeof want === "string" ? want : JSON.stringify(want)}`, () => {
        const r = parseIoWeight(input, base(v));
        if (typeof want === "string") expect(!r.ok && r.errno).toBe(want);
        else expect(r).toMatchObject({ ok: true, ...want });
      });
    }
  }

  it('"default 150.5" and "8:0 4294967396" are taken as 150 and 100 (sscanf %u), with a warning naming the token', () => {
    const d = parseIoWeight("default 150.5", base("6.12"));
    expect(d).toMatchObject({ ok: true, weight: 150, warning: '"default 150.5": the kernel reads 150 and ignores ".5" (no unit suffixes or fractions)' });
    const w = parseIoWeight("8:0 4294967396", base("6.1"));
    expect(w).toMatchObject({ ok: true, weight: 100, warning: '"4294967396": 4294967396 wraps to 100 (sscanf keeps the low 32 bits)' });
    expect(parseIoWeight("8:0 200", base("6.18"))).not.toHaveProperty("warning");
  });

  it("a per-device weight needs iocost initialised on the device: EOPNOTSUPP", () => {
    const r = parseIoWeight("8:0 200", { ...base("6.12"), iocostDevices: ["259:0"] });
    expect(!r.ok && r.errno).toBe("EOPNOTSUPP");
    const d = parseIoWeight("300", { ...base("6.12"), iocostDevices: [] });
    expect(d.ok).toBe(true); // the default weight never needs a device
  });

  it("reads back the default then the overrides", () => {
    expect(formatIoWeight(100, [["259:0", 300]])).toBe("default 100\n259:0 300\n");
  });
});

describe("io.cost.qos as ioc_qos_write() parses it", () => {
  const ssd = initialQosState("ssd_dfl");
  type Want = string | Partial<{ enable: boolean; user: boolean; rppm: number; rlatUs: number; wppm: number; wlatUs: number; minPpm: number; maxPpm: number }>;
  const rows: Array<[string, KernelVersion[], Want]> = [
    ["259:0 enable=1", ALL, { enable: true, user: false, rlatUs: 25000 }],
    ["259:0 enable=0x10", ALL, { enable: true }],
    ["259:0 enable=0", ALL, { enable: false }],
    ["259:0 enable=010", ALL, { enable: true }], // octal
    ["259:0 enable=08", ALL, "EINVAL"], // not all consumed by %u in base 0
    ["259:0 enable=yes", ALL, "EINVAL"],
    ["259:0 enable=-1", ALL, "EINVAL"],
    ["259:0 enable=99999999999999999999", ["6.12", "6.18"], "EINVAL"],
    ["259:0 enable=99999999999999999999", ["6.1"], { enable: false }], // 6.1 ignores the error
    ["259:0 enable=1 ctrl=user", ALL, { enable: true, user: true }],
    ["259:0 ctrl=manual", ALL, "EINVAL"],
    ["259:0 ctrl=", ALL, "EINVAL"],
    ["259:0 rpct=95 rlat=5000", ALL, { user: true, rppm: 950000, rlatUs: 5000, wlatUs: 25000 }],
    ["259:0 rpct=99.99", ALL, { rppm: 999900 }],
    ["259:0 rpct=99.995", ALL, { rppm: 1000000 }], // rounds to 100.00
    ["259:0 rpct=100.01", ALL, "EINVAL"],
    ["259:0 rpct=-1", ALL, "EINVAL"],
    ["259:0 wpct=abc", ALL, "EINVAL"],
    ["259:0 rpct=0.0000000000000000000000000000001", ALL, "EINVAL"], // 33 chars >= buf[32]
    ["259:0 rlat=4294967296", ALL, { rlatUs: 0 }], // u32 store
    ["259:0 rlat=0x100", ALL, { rlatUs: 256 }],
    ["259:0 rlat=5ms", ALL, "EINVAL"],
    ["259:0 rlat=", ALL, "EINVAL"],
    ["259:0 min=50 max=150", ALL, { minPpm: 500000, maxPpm: 1500000 }],
    ["259:0 min=0", ALL, { minPpm: 10000 }], // clamped to 1 %
    ["259:0 max=20000", ALL, { maxPpm: 100000000 }], // clamped to 10000 %
    ["259:0 min=-1", ALL, "EINVAL"],
    ["259:0 min=200 max=100", ALL, "EINVAL"],
    ["259:0 max=50 min=60", ALL, "EINVAL"], // order of fields does not matter for the check
    ["259:0 min=50 ctrl=auto", ALL, { user: false, minPpm: 10000 }], // auto drops the write's values
    ["259:0 ctrl=auto min=50", ALL, { user: true, minPpm: 500000 }],
    ["259:0 foo=1", ALL, "EINVAL"],
    ["259:0 enable=1\r", ALL, "EINVAL"], // only space, tab, newline separate fields
    ["259:0\tenable=1\t\trpct=50", ALL, { enable: true, rppm: 500000 }],
    ["8:16 enable=1", ALL, "ENODEV"],
    ["259:1 enable=1", ALL, "ENODEV"],
  ];
  for (const [input, versions, want] of rows) {
    for (const v of versions) {
      it(`${v}: ${JSON.stringify(input)} -> ${typeof want === "string" ? want : JSON.stringify(want)}`, () => {
        const r = parseIoCostQos(input, { ...base(v), current: ssd, deviceClass: "ssd_dfl" });
        if (typeof want === "string") expect(!r.ok && r.errno).toBe(want);
        else {
          expect(r.ok).toBe(true);
          if (r.ok) expect({ enable: r.state.enable, user: r.state.user, ...r.state.qos }).toMatchObject(want);
        }
      });
    }
  }

  it("reads back in the kernel's format", () => {
    const r = parseIoCostQos("259:0 enable=1 rpct=95 rlat=5000 min=50 max=150", { ...base("6.12"), current: ssd });
    expect(r.ok && formatIoCostQosLine(r.device, r.state)).toBe(
      "259:0 enable=1 ctrl=user rpct=95.00 rlat=5000 wpct=0.00 wlat=25000 min=50.00 max=150.00\n",
    );
    expect(formatIoCostQosLine("8:0", initialQosState("hdd"))).toBe(
      "8:0 enable=0 ctrl=auto rpct=0.00 rlat=250000 wpct=0.00 wlat=250000 min=1.00 max=10000.00\n",
    );
  });

  it("a read-back line written back gives the same state", () => {
    const pct = fc.integer({ min: 0, max: 10000 }).map((v) => `${Math.floor(v / 100)}.${String(v % 100).padStart(2, "0")}`);
    fc.assert(
      fc.property(
        fc.boolean(),
        pct,
        pct,
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.integer({ min: 1, max: 1000000 }),
        fc.integer({ min: 1, max: 1000000 }),
        (en, rp, wp, rl, wl, a, b) => {
          const [mn, mx] = a <= b ? [a, b] : [b, a];
          const line = `259:0 enable=${en ? 1 : 0} ctrl=user rpct=${rp} rlat=${rl} wpct=${wp} wlat=${wl} min=${mn / 100} max=${mx / 100}`;
          const r1 = parseIoCostQos(line, { ...base("6.12"), current: ssd });
          expect(r1.ok).toBe(true);
          if (!r1.ok) return;
          const back = formatIoCostQosLine(r1.device, r1.state).trimEnd();
          const r2 = parseIoCostQos(back, { ...base("6.12"), current: ssd });
          expect(r2.ok && r2.state).toEqual(r1.state);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("io.cost.model as ioc_cost_model_write() parses it", () => {
  it("takes the six coefficients, any of them switching to user mode", () => {
    const r = parseIoCostModel(
      "259:0 ctrl=user model=linear rbps=2318575949 rseqiops=133833 rrandiops=124446 wbps=447984567 wseqiops=20139 wrandiops=15017",
      base("6.12"),
    );
    expect(r.ok && formatIoCostModelLine(r.device, r.state)).toBe(
      "259:0 ctrl=user model=linear rbps=2318575949 rseqiops=133833 rrandiops=124446 wbps=447984567 wseqiops=20139 wrandiops=15017\n",
    );
    const one = parseIoCostModel("259:0 rbps=1000", base("6.12"));
    expect(one.ok && one.state.user).toBe(true);
    expect(one.ok && one.state.params.rseqiops).toBe(AUTOP.ssd_dfl.model.rseqiops); // others keep their value
  });

  const rows: Array<[string, string | "ok"]> = [
    ["259:0 model=linear", "ok"],
    ["259:0 model=quadratic", "EINVAL"],
    ["259:0 ctrl=maybe", "EINVAL"],
    ["259:0 rbps=0", "ok"],
    ["259:0 rbps=0x10", "ok"],
    ["259:0 rbps=18446744073709551616", "EINVAL"],
    ["259:0 rbps=1e9", "EINVAL"],
    ["259:0 riops=100", "EINVAL"],
    ["259:0 rbps", "EINVAL"],
    ["8:16 rbps=1", "ENODEV"],
  ];
  for (const [input, want] of rows) {
    it(`${JSON.stringify(input)} -> ${want}`, () => {
      const r = parseIoCostModel(input, base("6.18"));
      if (want === "ok") expect(r.ok).toBe(true);
      else expect(!r.ok && r.errno).toBe(want);
    });
  }

  it("ctrl=auto restores the device class's built-in coefficients", () => {
    const user = parseIoCostModel("8:0 rbps=5", { ...base("6.12"), deviceClass: "hdd" });
    if (!user.ok) throw new Error("setup");
    const r = parseIoCostModel("8:0 ctrl=auto", { ...base("6.12"), deviceClass: "hdd", current: user.state });
    expect(r.ok && r.state).toEqual({ user: false, params: AUTOP.hdd.model });
  });
});

describe("device classes for ctrl=auto", () => {
  it("rotational is HDD, queue depth 1 is SSD_QD1, else SSD_DFL", () => {
    expect(autopClassFor({ rotational: true, queueDepth: 32 })).toBe("hdd");
    expect(autopClassFor({ rotational: false, queueDepth: 1 })).toBe("ssd_qd1");
    expect(autopClassFor({ rotational: false, queueDepth: 1023 })).toBe("ssd_dfl");
  });
  it("HDD's qos is rlat=wlat=250 ms, SSD_FAST's 5 ms", () => {
    const s: IocQosState = initialQosState("ssd_fast");
    expect([AUTOP.hdd.qos.rlatUs, s.qos.wlatUs]).toEqual([250000, 5000]);
  });
});

describe("no input makes a parser throw", () => {
  it("arbitrary writes give a result or an errno, never an exception", () => {
    const text = fc.oneof(
      fc.string(),
      fc.tuple(fc.constantFrom("8:0 ", "259:0 ", "259:1 ", "8:0"), fc.string()).map(([a, b]) => a + b),
    );
    fc.assert(
      fc.property(fc.constantFrom<KernelVersion>("6.1", "6.12", "6.18"), text, (v, s) => {
        for (const f of [parseIoWeight, parseIoCostQos, parseIoCostModel]) {
          const r = f(s, base(v));
          expect(typeof r.ok).toBe("boolean");
          if (!r.ok) expect(["EINVAL", "ERANGE", "ENODEV", "EOPNOTSUPP"]).toContain(r.errno);
        }
      }),
      { numRuns: 300 },
    );
  });
});
