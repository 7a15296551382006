// iocost-benchmarks' published models in systemd's hwdb format as devices
// (bindings/device/hwdb.ts): `--device FILE.hwdb[#MODEL[@SOLUTION]]`, `iosim devices FILE.hwdb`.
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { deviceFromHwdb, linearServiceNs, readIocostHwdb, tableIops } from "../../bindings/device/index.js";
import { InputError } from "../../bindings/scenario/errors.js";

const ROOT = resolve(__dirname, "..", "..");
const FILE = join(ROOT, "test", "fixtures", "devices", "iocost-benchmarks.hwdb");
const MAIN = join(ROOT, "dist", "bindings", "cli", "main.js");
const text = readFileSync(FILE, "utf8");

describe("iocost-benchmarks hwdb rows as devices", () => {
  it("reads each entry: model name, solutions, models, QoS, the MOF comment", () => {
    const e = readIocostHwdb(text, "f.hwdb");
    expect(e.map((x) => x.model)).toEqual(["HFS256GD9TNG-62A0A", "WDC PC SN730 SDBQNTY-256G-1001"]);
    expect(e[0]!.solutions).toEqual(["isolation", "isolated-bandwidth", "bandwidth", "naive"]);
    expect(e[0]!.models["ISOLATED_BANDWIDTH"]!.rrandiops).toBe(63784);
    expect(e[0]!.qos["NAIVE"]).toBe("rpct=99.00 rlat=8807 wpct=99.00 wlat=59023 min=75.00 max=100.00");
    expect(e[0]!.comment).toContain("12 points, MOF=[1.346,1.346], aMOF=[1.249,1.249]");
  });

  it("a device's curve is the solution's linear model (4 KiB random read = 1 / rrandiops)", () => {
    const d = deviceFromHwdb(text, "f.hwdb", "sn730");
    expect(d.kind).toBe("linear");
    expect(tableIops(d.curve.read.rand, 4096)).toBeCloseTo(124446, 0);
    const p = readIocostHwdb(text, "f.hwdb")[1]!.models["NAIVE"]!;
    expect(1e9 / tableIops(d.curve.write.seq, 65536)).toBeCloseTo(linearServiceNs(p, "write", true, 65536), 0);
    expect(d.card?.model).toBe("WDC PC SN730 SDBQNTY-256G-1001 (iocost-benchmarks, solution naive: linear model)");
    expect(deviceFromHwdb(text, "f.hwdb").card?.model).toMatch(/^HFS256GD9TNG-62A0A \(iocost-benchmarks, solution isolation/);
  });

  it("bad input names file, line and field", () => {
    const err = (t: string, pick?: string) => { try { deviceFromHwdb(t, "b.hwdb", pick); } catch (e) { return e as InputError; } throw new Error("no error"); };
    let e = err("block:*:name:X:\n IOCOST_SOLUTIONS=naive\n IOCOST_MODEL_NAIVE=rbps=1 rseqiops=2\n");
    expect([e.file, e.line, e.field]).toEqual(["b.hwdb", 3, "IOCOST_MODEL_NAIVE"]);
    e = err("block:*:name:X:\n IOCOST_SOLUTIONS=naive fast\n IOCOST_MODEL_NAIVE=rbps=1 rseqiops=2 rrandiops=3 wbps=4 wseqiops=5 wrandiops=6\n");
    expect([e.line, e.field]).toEqual([1, "IOCOST_MODEL_FAST"]);
    e = err(text, "nosuchdrive");
    expect(e.message).toMatch(/no entry whose model contains "nosuchdrive"/);
    e = err(text, "sn730@isolation");
    expect(e.message).toMatch(/no solution "isolation"/);
  });

  it("iosim devices FILE.hwdb lists the cards; iosim run --device FILE.hwdb#MODEL uses one", () => {
    const l = spawnSync(process.execPath, [MAIN, "devices", FILE], { encoding: "utf8" });
    expect(l.status, l.stderr).toBe(0);
    expect(l.stdout).toMatch(/^HFS256GD9TNG-62A0A: nvme0n1 \(259:0\) HFS256GD9TNG-62A0A \(iocost-benchmarks, solution isolation/m);
    expect(l.stdout).toMatch(/source: .*iocost-benchmarks\.hwdb:11 block:\*:name:HFS256GD9TNG-62A0A:fwver:\*:/);
    const r = spawnSync(process.execPath, [MAIN, "run", "--device", `${FILE}#SN730`, "-q"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^device nvme0n1 \(259:0\): WDC PC SN730 SDBQNTY-256G-1001 \(iocost-benchmarks, solution naive: linear model\)$/m);
  });
});
