import { describe, expect, it } from "vitest";
import { InputError } from "../scenario/errors.js";
import { loadDeviceFile, parseDurationNs } from "./file.js";
import { linearServiceNs, modelRow } from "./linear.js";
import { devicePreset, validateDeviceSpec } from "./presets.js";
import { seedIops, tableIops } from "./seed.js";

function errorOf(f: () => unknown): InputError {
  try {
    f();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error("expected an InputError");
}

/** QD1 time of one bio on an idle device, as the core computes it. */
function qd1Ns(d: ReturnType<typeof devicePreset>, bytes: number): number {
  return (d.channels * 1e9) / tableIops(d.curve.read.rand, bytes) + d.latencyNs;
}

describe("device presets", () => {
  it("name the devices as the kernel would", () => {
    expect(["ssd", "nvme", "hdd", "ideal", "nullb"].map((n) => {
      const d = devicePreset(n as "ssd");
      return `${d.name} ${d.devno}`;
    })).toEqual(["sda 8:0", "nvme0n1 259:0", "sdb 8:16", "loop1 7:1", "nullb0 251:0"]);
  });

  it("the HDD is one rotational channel: 10 ms per 4 KiB IO at any depth", () => {
    const d = devicePreset("hdd");
    expect([d.channels, d.rotational]).toEqual([1, true]);
    expect(qd1Ns(d, 4096)).toBeCloseTo(10e6, 3);
  });

  it("NVMe reaches 150k IOPS with 16 bios in flight; one alone takes 107 µs", () => {
    const d = devicePreset("nvme");
    expect(d.channels).toBe(16);
    expect(qd1Ns(d, 4096)).toBeCloseTo(16e9 / 150000, 3);
  });

  it("the ideal device serves a 4 KiB QD1 read in 5-9 µs, like the oracle's loop on tmpfs", () => {
    const d = devicePreset("ideal");
    const t = qd1Ns(d, 4096);
    expect(t).toBeGreaterThan(5_000);
    expect(t).toBeLessThan(9_000);
    expect(500 * t).toBeGreaterThan(2.7e6); // 500 reads in 2.7-4.3 ms
    expect(500 * t).toBeLessThan(4.3e6);
    expect(d.maxSectorsKb).toBe(1280);
  });

  it("null_blk completes after its configured latency, 64 at a time", () => {
    const d = devicePreset("nullb", { latencyNs: 5_000_000 });
    expect(qd1Ns(d, 4096)).toBeCloseTo(5_000_100, 3);
    expect(d.nrRequests).toBe(64);
    expect(devicePreset("nullb").latencyNs).toBe(2_000_000);
  });

  it("rejects unusable overrides, naming the field", () => {
    expect(() => devicePreset("ssd", { channels: 0 })).toThrow(/channels/);
    expect(() => devicePreset("ssd", { devno: "sda" })).toThrow(/devno/);
    const d = devicePreset("ssd");
    d.curve.read.seq = [[4096, 100], [2048, 50]];
    expect(() => validateDeviceSpec(d)).toThrow(/curve\.read\.seq.*increasing/);
  });
});

describe("loading a --device file", () => {
  it("a preset with overrides", () => {
    const d = loadDeviceFile(
      ["preset: nvme", "name: nvme1n1", 'devno: "259:2"', "channels: 8", "latency: 20us", "jitter: 0.1", "max_sectors_kb: 128"].join("\n"),
      "dev.yaml",
    );
    expect(d).toMatchObject({ name: "nvme1n1", devno: "259:2", kind: "nvme", channels: 8, latencyNs: 20_000, jitterSigma: 0.1, maxSectorsKb: 128, nrRequests: 1023 });
    // the preset's shape: random writes at 0.85 of the seed's IOPS, random reads the seed's
    expect(tableIops(d.curve.write.rand, 4096)).toBeCloseTo(150000 * 0.85, 6);
    expect(tableIops(d.curve.read.rand, 4096)).toBeCloseTo(150000, 6);
    // jitter: one sigma for all four tables replaces the preset's per-table sigmas
    expect(d.shape?.sigma).toBeUndefined();
  });

  it("linear-model params by name, io.cost.model line or map", () => {
    const byName = loadDeviceFile("preset: nvme\nmodel: wdc-sn730-256g\n", "d.yaml");
    const line = loadDeviceFile(
      "preset: nvme\nmodel: 259:0 ctrl=user model=linear rbps=2318575949 rseqiops=133833 rrandiops=124446 wbps=447984567 wseqiops=20139 wrandiops=15017\n",
      "d.yaml",
    );
    const map = loadDeviceFile(
      "preset: nvme\nmodel: {rbps: 2318575949, rseqiops: 133833, rrandiops: 124446, wbps: 447984567, wseqiops: 20139, wrandiops: 15017}\n",
      "d.json",
    );
    for (const d of [byName, line, map]) {
      expect(d.kind).toBe("linear");
      expect(1e9 / tableIops(d.curve.read.rand, 65536)).toBeCloseTo(
        linearServiceNs(modelRow("wdc-sn730-256g")!.params, "read", false, 65536),
        6,
      );
    }
  });

  it("explicit points, per direction, without a preset", () => {
    const d = loadDeviceFile(
      ["name: vdb", 'devno: "252:16"', "channels: 4", "points:", "  read: [[4096, 20000], [65536, 5000]]", "  write:", "    seq: [[4096, 10000]]", "    rand: [[4096, 2000]]"].join("\n"),
      "vdb.yaml",
    );
    expect(d.kind).toBe("custom");
    expect(d.curve.read.rand).toEqual([[4096, 20000], [65536, 5000]]);
    expect(d.curve.write.rand).toEqual([[4096, 2000]]);
  });

  it("a seed curve with JSON syntax", () => {
    const d = loadDeviceFile('{"name": "sdc", "devno": "8:32", "curve": "ssd", "channels": 8}', "sdc.json");
    expect(tableIops(d.curve.read.seq, 8192)).toBeCloseTo(seedIops("ssd", 8192), 6);
  });

  const bad: Array<[string, string, number, string | undefined, RegExp]> = [
    // file text, description, line, field, message
    ["preset: nvme\nchanels: 4\n", "a misspelt field", 2, "chanels", /unknown field/],
    ["preset: nvme\nchannels: 0\n", "zero channels", 2, "channels", /channels/],
    ["preset: nvme\nchannels: 2.5\n", "fractional channels", 2, "channels", /whole number/],
    ["preset: floppy\n", "an unknown preset", 1, "preset", /unknown preset/],
    ["name: x\ndevno: \"1:2\"\n", "no curve and no preset", 1, "preset", /preset/],
    ["preset: ssd\ncurve: ssd\nmodel: autop-hdd\n", "two curve sources", 3, "model", /only one/],
    ["preset: ssd\nlatency: soon\n", "a bad duration", 2, "latency", /duration/],
    ["preset: ssd\n\n\nmodel: {rbps: 1, rseqiops: 1}\n", "an incomplete model", 4, "model", /rrandiops/],
    ["preset: ssd\npoints: [[4096, 100], [1024, 50]]\n", "decreasing point sizes", 2, "points", /increasing/],
    ["preset: ssd\npoints: [[4096]]\n", "a malformed point", 2, "points", /\[bytes, iops\]/],
    ["preset: ssd\ndevno: sda\n", "a devno that is a name", 2, "devno", /MAJ:MIN/],
    ["preset: ssd\nrotational: yes please\n", "a non-boolean", 2, "rotational", /true or false/],
    ["preset: ssd\nchannels: [1\n", "broken YAML where the parser notices it (end of input)", 3, undefined, /flow/i],
    ["- preset: ssd\n", "a list instead of a map", 1, undefined, /map/],
  ];
  for (const [text, what, line, field, msg] of bad) {
    it(`reports ${what} at line ${line}${field ? ` (${field})` : ""}`, () => {
      const e = errorOf(() => loadDeviceFile(text, "disk.yaml"));
      expect(e.file).toBe("disk.yaml");
      expect(e.line).toBe(line);
      expect(e.field).toBe(field);
      expect(e.message).toMatch(msg);
      expect(e.message.startsWith(`disk.yaml:${line}`)).toBe(true);
    });
  }

  it("durations", () => {
    expect([parseDurationNs(1500), parseDurationNs("20us"), parseDurationNs("2ms"), parseDurationNs("1.5 s"), parseDurationNs("7µs")]).toEqual([
      1500, 20_000, 2_000_000, 1.5e9, 7_000,
    ]);
  });
});

describe("a device file with merge keys", () => {
  it("merges an anchor's fields into a mapping value, as written out", () => {
    const params = "{rbps: 2318575949, rseqiops: 133833, rrandiops: 124446, wbps: 447984567, wseqiops: 20139, wrandiops: 15017}";
    const merged = loadDeviceFile(`preset: nvme\nname: &n nvme1n1\nmodel:\n  <<: &m ${params}\n  wbps: 400000000\n`, "d.yaml");
    const plain = loadDeviceFile(`preset: nvme\nname: nvme1n1\nmodel: ${params.replace("wbps: 447984567", "wbps: 400000000")}\n`, "d.yaml");
    expect(merged).toEqual(plain);
    expect(() => loadDeviceFile("preset: nvme\nmodel:\n  <<: [1]\n", "d.yaml")).toThrow(expect.objectContaining({ line: 3, message: expect.stringMatching(/merge key takes a mapping/) }));
  });
});
