import { describe, expect, it } from "vitest";
import { InputError } from "../scenario/errors.js";
import { BlkcgConfig } from "./config.js";

const devices = [
  { devno: "8:0", rotational: true, queueDepth: 32, partitions: ["8:1"] },
  { devno: "259:0", rotational: false, queueDepth: 1023 },
];

describe("a cgroup hierarchy's block files, written and read back", () => {
  it("io.max exists only below the root; io.cost.* only on the root", () => {
    const c = new BlkcgConfig({ version: "6.12", devices });
    expect(c.write("", "io.max", "8:0 rbps=5000")).toMatchObject({ ok: false, errno: "ENOENT" });
    expect(c.write("web", "io.cost.qos", "8:0 enable=1")).toMatchObject({ ok: false, errno: "ENOENT" });
    expect(c.write("", "io.weight", "100")).toMatchObject({ ok: false, errno: "ENOENT" });
    expect(c.write("web", "io.max", "8:0 rbps=5000").ok).toBe(true);
  });

  it("cgroup v1 has the blkio.throttle files (also on the root) and no io.max", () => {
    const c = new BlkcgConfig({ version: "6.1", cgroupVersion: 1, devices });
    expect(c.write("", "blkio.throttle.read_bps_device", "8:0 1048576").ok).toBe(true);
    expect(c.write("a", "io.max", "8:0 rbps=5000")).toMatchObject({ errno: "ENOENT" });
    expect(c.read("", "blkio.throttle.read_bps_device")).toBe("8:0 1048576\n");
    expect(c.write("", "blkio.throttle.read_bps_device", "8:0 0").ok).toBe(true);
    expect(c.read("", "blkio.throttle.read_bps_device")).toBe("");
  });

  it("a rejected write applies nothing, even its valid keys", () => {
    const c = new BlkcgConfig({ version: "6.12", devices });
    c.writeOrThrow("web", "io.max", "259:0 rbps=1000");
    const r = c.write("web", "io.max", "259:0 wbps=2000 riops=1");
    expect(r).toMatchObject({ ok: false, errno: "EINVAL", token: "riops=1" });
    expect(c.read("web", "io.max")).toBe("259:0 rbps=1000 wbps=max riops=max wiops=max\n");
  });

  it("the same write is accepted on 6.18", () => {
    const c = new BlkcgConfig({ version: "6.18", devices });
    expect(c.write("web", "io.max", "259:0 wbps=2000 riops=1").ok).toBe(true);
    expect(c.read("web", "io.max")).toBe("259:0 rbps=max wbps=2000 riops=1 wiops=max\n");
  });

  it("read-back lists the most recently configured device first", () => {
    const c = new BlkcgConfig({ version: "6.12", devices });
    c.writeOrThrow("a/b", "io.max", "8:0 wiops=10");
    c.writeOrThrow("a/b", "io.max", "259:0 riops=20");
    c.writeOrThrow("a/b", "io.max", "8:0 wiops=30");
    expect(c.read("a/b", "io.max")).toBe(
      "259:0 rbps=max wbps=max riops=20 wiops=max\n8:0 rbps=max wbps=max riops=max wiops=30\n",
    );
    expect(c.read("a", "io.max")).toBe(""); // the parent has blkgs but no limits
  });

  it("per-device io.weight waits for iocost; qos and model read back per device", () => {
    const c = new BlkcgConfig({ version: "6.12", devices });
    expect(c.write("web", "io.weight", "259:0 300")).toMatchObject({ errno: "EOPNOTSUPP" });
    c.writeOrThrow("web", "io.weight", "default 200");
    c.writeOrThrow("", "io.cost.qos", "259:0 enable=1");
    c.writeOrThrow("web", "io.weight", "259:0 300");
    expect(c.read("web", "io.weight")).toBe("default 200\n259:0 300\n");
    expect(c.weight("web", "259:0")).toBe(300);
    expect(c.weight("web", "8:0")).toBe(200);
    expect(c.read("", "io.cost.qos")).toBe(
      "259:0 enable=1 ctrl=auto rpct=0.00 rlat=25000 wpct=0.00 wlat=25000 min=1.00 max=10000.00\n",
    );
    expect(c.read("", "io.cost.model")).toBe(
      "259:0 ctrl=auto model=linear rbps=488636629 rseqiops=8932 rrandiops=8518 wbps=427891549 wseqiops=28755 wrandiops=21940\n",
    );
    c.writeOrThrow("", "io.cost.model", "8:0 ctrl=auto");
    expect(c.read("", "io.cost.qos").split("\n")[1]).toMatch(/^8:0 enable=0 ctrl=auto .* rlat=250000 /);
    c.writeOrThrow("web", "io.weight", "259:0 default");
    expect(c.read("web", "io.weight")).toBe("default 200\n");
  });

  it("writeOrThrow raises an InputError naming file, line, token and errno", () => {
    const c = new BlkcgConfig({ version: "6.12", devices });
    let err: unknown;
    try {
      c.writeOrThrow("web", "io.max", "8:1 rbps=5", { file: "cluster.yaml", line: 7 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    const ie = err as InputError;
    expect([ie.file, ie.line, ie.field, ie.errno]).toEqual(["cluster.yaml", 7, "8:1", "ENODEV"]);
    expect(ie.message).toMatch(/cluster\.yaml:7 \(8:1\): .*partition.*\[ENODEV\]/);
  });

  it("6.1 accepts io.low's idle= on io.max and changes nothing", () => {
    const c = new BlkcgConfig({ version: "6.1", devices });
    const r = c.write("web", "io.max", "8:0 idle=1000 wbps=4096");
    expect(r).toMatchObject({ ok: true, warning: expect.stringMatching(/idle=1000/) });
    expect(c.read("web", "io.max")).toBe("8:0 rbps=max wbps=4096 riops=max wiops=max\n");
  });
});
