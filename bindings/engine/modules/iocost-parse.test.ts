// io.weight / io.cost.qos / io.cost.model: what the kernel accepts and rejects.
import { describe, expect, it } from "vitest";
import { cgroupParseFloat, IocostParseError, parseIoCostModel, parseIoCostQos, parseIoWeight } from "./iocost-parse.js";

const errno = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as IocostParseError).errno;
  }
  return "ok";
};

describe("io.weight", () => {
  it('"default 300" and "300" set the cgroup default; "8:0 50" a device override; "8:0 default" clears it', () => {
    expect(parseIoWeight("default 300")).toEqual({ kind: "default", weight: 300 });
    expect(parseIoWeight("300")).toEqual({ kind: "default", weight: 300 });
    expect(parseIoWeight("8:0 50")).toEqual({ kind: "device", devno: "8:0", weight: 50 });
    expect(parseIoWeight("8:0 default")).toEqual({ kind: "device", devno: "8:0", weight: 0 });
  });
  it("weights outside 1..10000 and non-numbers are -EINVAL", () => {
    expect(errno(() => parseIoWeight("0"))).toBe("EINVAL");
    expect(errno(() => parseIoWeight("10001"))).toBe("EINVAL");
    expect(errno(() => parseIoWeight("heavy"))).toBe("EINVAL");
    expect(errno(() => parseIoWeight("8:0 0"))).toBe("EINVAL");
    expect(errno(() => parseIoWeight("8:0"))).toBe("EINVAL"); // echo adds "\n": "8:0\n" then no body number
  });
});

describe("io.cost.qos", () => {
  it("parses the guest oracle's line into ppm and µs, and any QoS key switches to ctrl=user", () => {
    const q = parseIoCostQos("253:0 enable=1 ctrl=auto rpct=90.00 rlat=20000 wpct=90.00 wlat=20000 min=50.00 max=150.00", false);
    expect(q).toEqual({ devno: "253:0", enable: true, user: true,
      set: { rpct: 900000, rlat: 20000, wpct: 900000, wlat: 20000, min: 500000, max: 1500000 } });
  });
  it("ctrl=auto alone goes back to the built-in parameters; enable=0 disables", () => {
    expect(parseIoCostQos("8:0 ctrl=auto enable=0", false)).toEqual({ devno: "8:0", user: false, enable: false, set: {} });
  });
  it("min/max are clamped to 1%..10000%, a third decimal is rounded (cgroup_parse_float)", () => {
    expect(parseIoCostQos("8:0 min=0.5 max=20000", false).set).toEqual({ min: 10000, max: 100000000 });
    expect(cgroupParseFloat("50.555", 2)).toBe(5056);
    expect(cgroupParseFloat("-0.5", 2)).toBe(50); // "-0" is 0, the fraction is added: the kernel accepts it
  });
  it("rejects unknown keys, pct over 100, negative min, bad ctrl, trailing junk after a number", () => {
    expect(errno(() => parseIoCostQos("8:0 foo=1", false))).toBe("EINVAL");
    expect(errno(() => parseIoCostQos("8:0 rpct=100.01", false))).toBe("EINVAL");
    expect(errno(() => parseIoCostQos("8:0 min=-1", false))).toBe("EINVAL");
    expect(errno(() => parseIoCostQos("8:0 ctrl=manual", false))).toBe("EINVAL");
    expect(errno(() => parseIoCostQos("8:0 rlat=12ms", false))).toBe("EINVAL");
    expect(errno(() => parseIoCostQos("8:0enable=1", false))).toBe("EINVAL");
  });
  it("6.1 ignores an enable= value that overflows u64, 6.12 rejects it", () => {
    const big = "8:0 enable=99999999999999999999999";
    expect(errno(() => parseIoCostQos(big, false))).toBe("ok");
    expect(errno(() => parseIoCostQos(big, true))).toBe("ERANGE");
  });
});

describe("io.cost.model", () => {
  it("takes the six coefficients as u64 and model=linear only", () => {
    const m = parseIoCostModel("8:0 ctrl=user model=linear rbps=104857600 rseqiops=1000 rrandiops=0x3e8 wbps=1 wseqiops=2 wrandiops=3");
    expect(m.set).toEqual({ rbps: 104857600n, rseqiops: 1000n, rrandiops: 1000n, wbps: 1n, wseqiops: 2n, wrandiops: 3n });
    expect(m.user).toBe(true);
    expect(errno(() => parseIoCostModel("8:0 model=quadratic"))).toBe("EINVAL");
    expect(errno(() => parseIoCostModel("8:0 rbps=-1"))).toBe("EINVAL");
    expect(errno(() => parseIoCostModel("8:0 riops=5"))).toBe("EINVAL");
  });
});
