// Device presets: the seed's SSD / NVMe / HDD, an "ideal" loop-on-tmpfs
// device and null_blk, as DeviceSpec values the core can load.
//
// A device in the core is `channels` servers behind `nrRequests` request
// slots; a bio holds a channel for channels * 1e9 / IOPS(size) ns, so the
// curve's IOPS is reached with `channels` bios in flight, and a lone bio
// (QD1) sees channels times the full-parallelism service time. `latencyNs`
// is added without holding a channel (a completion delay: null_blk's
// completion_nsec, a bus round trip); `jitterSigma` multiplies both by a
// seeded log-normal factor with mean 1.
//
// Defaults (and why):
//   preset  name     devno   channels nr_req  latency  max_sectors_kb rot
//   ssd     sda      8:0     8        64      0        1280           no
//   nvme    nvme0n1  259:0   16       1023    0        512            no
//   hdd     sdb      8:16    1        64      0        1280           yes
//   ideal   loop1    7:1     1        128     0        1280           no
//   nullb   nullb0   251:0   1        64      2 ms     127            no
//
//   ssd: a SATA SSD has NCQ depth 32 and mq-deadline's nr_requests is
//     2 * min(depth, 128) = 64; 8 channels give QD1 4 KiB reads of
//     8e9/65,898 = 121 µs (8.2k IOPS), a typical SATA SSD, and the full 65.9k
//     IOPS from QD 8 on.
//   nvme: no scheduler, nr_requests = the NVMe queue depth (1024 - 1);
//     16 channels: QD1 4 KiB at 16e9/150,000 = 107 µs, full speed from QD 16.
//     max_sectors_kb depends on the controller's MDTS; 512 is common.
//   hdd: one arm; 100 IOPS = 10 ms per IO at any depth; rotational, so
//     iocost picks its HDD class.
//   ideal: the oracle's loop device on tmpfs served 500 x 4 KiB QD1 reads in
//     2.7-4.3 ms (5.4-8.6 µs each); we charge 5 µs per IO + 4 GB/s
//     (4 KiB: 6.02 µs), one channel (loop serves a queue through one
//     worker), loop's hw_queue_depth 128, the oracle's max_sectors_kb 1280.
//   nullb: null_blk with irqmode=2 (timer) completes every request
//     completion_nsec after submission, in parallel up to hw_queue_depth
//     (64); we give it 100 ns of service per IO and the completion as
//     latency (2 ms default, as in the guest iocost traces). null_blk leaves
//     max_hw_sectors 0, which blk_validate_limits() turns into 255 sectors:
//     max_sectors_kb 127.
// Capacities (for fio's size=N%): ssd 480 GB, nvme 1 TB, hdd 4 TB, ideal 64 MiB
// (the oracle's tmpfs backing file), nullb 250 GiB (null_blk's gb=250).
// All presets are deterministic (jitterSigma 0) unless overridden.

import { shown } from "../util/shown.js";
import { quantileUs, type CurvePoints, type DeviceCard, type DeviceCurve, type DeviceKind, type DeviceShape, type DeviceSpec, type PerTable } from "../scenario/types.js";
import { uniformCurve, seedCurvePoints, SEED_CURVE_END_BYTES } from "./seed.js";

export type PresetName = "ssd" | "nvme" | "hdd" | "ideal" | "nullb";
export const PRESET_NAMES: readonly PresetName[] = ["ssd", "nvme", "hdd", "ideal", "nullb"];

/** The ideal device: per-IO cost and bandwidth. */
export const IDEAL_PER_IO_NS = 5_000;
export const IDEAL_BYTES_PER_SEC = 4e9;
/** null_blk service per IO and default completion latency. */
export const NULLB_SERVICE_NS = 100;
export const NULLB_DEFAULT_COMPLETION_NS = 2_000_000;

/** Affine service time t(s) = perIoNs + s / bytesPerSec as table points (exact for s >= 512). */
export function affineCurvePoints(perIoNs: number, bytesPerSec: number): Array<[number, number]> {
  return [512, 64 << 20].map((s) => [s, 1e9 / (perIoNs + (s * 1e9) / bytesPerSec)] as [number, number]);
}

interface PresetBase {
  name: string;
  devno: string;
  kind: DeviceKind;
  channels: number;
  nrRequests: number;
  latencyNs: number;
  maxSectorsKb: number;
  rotational: boolean;
  sizeBytes: number;
}

const GB = 1e9;
export const PRESET_DEFAULTS: Readonly<Record<PresetName, PresetBase>> = Object.freeze({
  ssd: { name: "sda", devno: "8:0", kind: "ssd", channels: 8, nrRequests: 64, latencyNs: 0, maxSectorsKb: 1280, rotational: false, sizeBytes: 480 * GB },
  nvme: { name: "nvme0n1", devno: "259:0", kind: "nvme", channels: 16, nrRequests: 1023, latencyNs: 0, maxSectorsKb: 512, rotational: false, sizeBytes: 1000 * GB },
  hdd: { name: "sdb", devno: "8:16", kind: "hdd", channels: 1, nrRequests: 64, latencyNs: 0, maxSectorsKb: 1280, rotational: true, sizeBytes: 4000 * GB },
  ideal: { name: "loop1", devno: "7:1", kind: "ideal", channels: 1, nrRequests: 128, latencyNs: 0, maxSectorsKb: 1280, rotational: false, sizeBytes: 64 << 20 },
  nullb: {
    name: "nullb0",
    devno: "251:0",
    kind: "nullb",
    channels: 1,
    nrRequests: 64,
    latencyNs: NULLB_DEFAULT_COMPLETION_NS,
    maxSectorsKb: 127,
    rotational: false,
    sizeBytes: 250 * 1024 * 1024 * 1024,
  },
});

export function isPresetName(s: string): s is PresetName {
  return (PRESET_NAMES as readonly string[]).includes(s);
}

/** A preset device, with any DeviceSpec field overridden. */
export function devicePreset(name: PresetName, overrides: Partial<DeviceSpec> = {}): DeviceSpec {
  const base = PRESET_DEFAULTS[name];
  if (!base) throw new RangeError(`unknown device preset ${JSON.stringify(name)} (${PRESET_NAMES.join(", ")})`);
  const curve =
    name === "ideal"
      ? uniformCurve(affineCurvePoints(IDEAL_PER_IO_NS, IDEAL_BYTES_PER_SEC))
      : name === "nullb"
        ? uniformCurve([[4096, 1e9 / NULLB_SERVICE_NS]])
        : shapedCurve(name);
  const shape = PRESET_SHAPES[name];
  const card = presetCard(name);
  const spec: DeviceSpec = { ...base, jitterSigma: 0, curve, ...(shape ? { shape: cloneShape(shape) } : {}), card, ...overrides };
  validateDeviceSpec(spec);
  return spec;
}

// ---------------------------------------------------------------------------
// Shape of the seed presets (ssd, nvme, hdd). `ideal` and `nullb` are the
// oracle's devices and keep their calibration: no shape, the same tables.
//
// Curves (IOPS with the whole device busy):
//   read rand:  the seed curve exactly (seed.ts).
//   read seq:   the seed curve up to 16 KiB, then bandwidth rising to the
//               interface's sequential rate at 128 KiB and constant beyond
//               (ssd 550 MB/s, SATA 6 Gb/s after 8b/10b; nvme 3.5 GB/s, a
//               PCIe 3.0 x4 drive's datasheet class); service time is linear
//               in size between 16 and 128 KiB, so bandwidth rises monotonically.
//   write rand: WRITE_RAND_RATIO (0.85) of the seed's IOPS at every size: a
//               drive's steady random-write rate below its read rate; within
//               the seed curve.
//   write seq:  the seed curve up to 16 KiB, then to 520 MB/s (ssd) or
//               3.0 GB/s (nvme) at 128 KiB.
//   hdd:        rand tables keep the seed's 100 IOPS (the mechanics below
//               replace them for random bios); seq tables 20 us per IO +
//               200 MB/s (the media rate: read-ahead and the write cache
//               serve a stream without seeks).
// Latency distributions: log-normal sigma per table, chosen so p99/p50 =
// exp(2.326 sigma) is 1.4x (seq reads) to 4x (random writes, garbage
// collection): ssd 0.15/0.3/0.3/0.6 and nvme 0.12/0.25/0.25/0.5 (read seq,
// read rand, write seq, write rand). These are assumptions of the class, not
// one drive's measurement; `iosim device fit` makes a device from a real one.
// HDD mechanics: settle 0.8 ms, full stroke 10.2 ms, 7200 rpm, 200 MB/s
// media: a 4 KiB random IO over the whole 4 TB averages 10.0 ms (the seed's
// 100 IOPS; worked example in assembly/device/device.ts), a short-stroked
// job (fio size=1G) about 0.8 ms less seek, a sequential one no seek at all.

export const WRITE_RAND_RATIO = 0.85;
const SEQ_END_BYTES = 128 * 1024;
const INTERFACE_BPS: Readonly<Record<"ssd" | "nvme", { read: number; write: number }>> = {
  ssd: { read: 550e6, write: 520e6 },
  nvme: { read: 3.5e9, write: 3.0e9 },
};
export const HDD_MECHANICS = Object.freeze({ settleNs: 800_000, fullStrokeNs: 10_200_000, rpm: 7200, mediaBytesPerSec: 200e6 });
export const HDD_SEQ_PER_IO_NS = 20_000;

const sig = (rs: number, rr: number, ws: number, wr: number): PerTable<number> => ({ read: { seq: rs, rand: rr }, write: { seq: ws, rand: wr } });
const PRESET_SHAPES: Readonly<Partial<Record<PresetName, DeviceShape>>> = {
  ssd: { sigma: sig(0.15, 0.3, 0.3, 0.6) },
  nvme: { sigma: sig(0.12, 0.25, 0.25, 0.5) },
  hdd: { sigma: sig(0.1, 0, 0.1, 0), mechanics: { ...HDD_MECHANICS } },
};

function cloneShape(s: DeviceShape): DeviceShape {
  return JSON.parse(JSON.stringify(s)) as DeviceShape;
}

/** The seed curve's points up to 16 KiB, then to `bps` at 128 KiB. */
function toInterface(name: "ssd" | "nvme", bps: number, scale = 1): CurvePoints {
  const pts = seedCurvePoints(name).filter(([x]) => x <= SEED_CURVE_END_BYTES).map(([x, i]) => [x, i * scale] as [number, number]);
  pts.push([SEQ_END_BYTES, bps / SEQ_END_BYTES]);
  return pts;
}

/** The preset's four tables (design note above). */
export function shapedCurve(name: "ssd" | "nvme" | "hdd"): DeviceCurve {
  const seed = seedCurvePoints(name);
  if (name === "hdd") {
    const seq = affineCurvePoints(HDD_SEQ_PER_IO_NS, HDD_MECHANICS.mediaBytesPerSec);
    return { read: { seq, rand: seed }, write: { seq: seq.map((p) => [...p] as [number, number]), rand: seed.map((p) => [...p] as [number, number]) } };
  }
  const bps = INTERFACE_BPS[name];
  return {
    read: { seq: toInterface(name, bps.read), rand: seed },
    write: { seq: toInterface(name, bps.write), rand: seed.map(([x, i]) => [x, i * WRITE_RAND_RATIO] as [number, number]) },
  };
}

/** What each preset is, its numbers and where they come from (`iosim devices`). */
export function presetCard(name: PresetName): DeviceCard {
  const b = PRESET_DEFAULTS[name];
  const common = `${b.channels} channel${b.channels > 1 ? "s" : ""} (full speed from QD ${b.channels}), nr_requests ${b.nrRequests}, max_sectors_kb ${b.maxSectorsKb}${b.rotational ? ", rotational" : ""}`;
  switch (name) {
    case "ssd":
      return {
        model: "SATA SSD: seed curve, read/write and seq/rand asymmetry, log-normal latencies",
        what: [
          "random read = the seed curve: 80,000 IOPS below 4 KiB, BPS = 70e6 + 57e3 x - 2 x^2 to 16 KiB (65,898 IOPS at 4 KiB), constant BPS beyond",
          "sequential read/write rise to 550 / 520 MB/s at 128 KiB; random write = 0.85 x the seed's IOPS",
          "latency sigma 0.15 / 0.3 / 0.3 / 0.6 (read seq, read rand, write seq, write rand): p99/p50 1.4x to 4x",
          common + "; QD1 4 KiB random read 121 us mean",
        ],
        sources: ["seed notes (the SSD quadratic, 4-16 KiB)", "SATA 6 Gb/s ceiling; write ratio and sigmas: assumptions of the class (bindings/device/presets.ts)"],
      };
    case "nvme":
      return {
        model: "NVMe SSD: seed curve, read/write and seq/rand asymmetry, log-normal latencies",
        what: [
          "random read = the seed curve: 150,000 IOPS up to 16 KiB, constant BPS (2.46 GB/s) beyond",
          "sequential read/write rise to 3.5 / 3.0 GB/s at 128 KiB; random write = 0.85 x the seed's IOPS",
          "latency sigma 0.12 / 0.25 / 0.25 / 0.5 (read seq, read rand, write seq, write rand)",
          common + "; QD1 4 KiB random read 107 us mean",
        ],
        sources: ["seed notes (NVMe 150k IOPS to 16 KiB)", "PCIe 3.0 x4 datasheet class; write ratio and sigmas: assumptions (bindings/device/presets.ts)"],
      };
    case "hdd":
      return {
        model: "7200 rpm HDD: seek + rotation from offsets, 200 MB/s media",
        what: [
          "random IO: seek 0.8 ms + 9.4 ms x sqrt(distance / 4 TB), rotation uniform in 8.33 ms, transfer at 200 MB/s",
          "a 4 KiB random IO over the whole disk averages 10.0 ms (the seed's 100 IOPS); short strokes seek less",
          "sequential IO (continues a stream): 20 us + size / 200 MB/s, no seek",
          common,
        ],
        sources: ["seed notes (HDD 100 IOPS to 16 KiB)", "seek/rotation: a 7200 rpm 3.5\" drive's datasheet class, calibrated to the seed's 100 IOPS"],
      };
    case "ideal":
      return {
        model: "loop on tmpfs (oracle calibration): 5 us per IO + 4 GB/s, fixed",
        what: ["every IO takes 5 us + size / 4 GB/s (4 KiB: 6.02 us); no spread", common],
        sources: ["the oracle's loop device on tmpfs: 500 x 4 KiB QD1 reads took 5.4-8.6 us each (../shared/oracle/throtl)"],
      };
    case "nullb":
      return {
        model: "null_blk irqmode=2 (oracle calibration): 100 ns service + 2 ms completion, fixed",
        what: ["each IO completes completion_nsec (2 ms) after 100 ns of service, up to hw_queue_depth 64 at once", common],
        sources: ["the guest oracle's null_blk settings (../shared/oracle/guest)"],
      };
  }
}

/** Throw a RangeError naming the field when a DeviceSpec is unusable. */
export function validateDeviceSpec(d: DeviceSpec): void {
  const bad = (field: string, why: string) => {
    throw new RangeError(`device ${d.name || "?"}: ${field} ${why}`);
  };
  if (!d.name) bad("name", "must not be empty");
  if (!/^\d+:\d+$/.test(d.devno)) bad("devno", `must be "MAJ:MIN", got ${shown(d.devno)}`);
  // (the core keeps these in 32-bit fields: 4294967297 channels wrapped to 1)
  if (!Number.isInteger(d.channels) || d.channels < 1) bad("channels", `must be a whole number >= 1, got ${d.channels}`);
  if (d.channels > 65536) bad("channels", `must be at most 65536, got ${d.channels}`);
  if (!Number.isInteger(d.nrRequests) || d.nrRequests < 1) bad("nr_requests", `must be a whole number >= 1, got ${d.nrRequests}`);
  if (d.nrRequests > 65536) bad("nr_requests", `must be at most 65536, got ${d.nrRequests}`);
  const maj = devnoMajorFor(d.name);
  if (maj && !maj.majors.includes(Number(d.devno.split(":")[0]))) bad("devno", `${d.devno} is not a ${maj.what} number (major ${maj.text}) but the name is ${d.name}: give a devno that agrees with the name`);
  if (!(d.latencyNs >= 0) || !Number.isFinite(d.latencyNs)) bad("latency", `must be >= 0, got ${d.latencyNs}`);
  if (!(d.jitterSigma >= 0) || d.jitterSigma > 3) bad("jitter", `must be within [0, 3], got ${d.jitterSigma}`);
  if (!Number.isInteger(d.maxSectorsKb) || d.maxSectorsKb < 4) bad("max_sectors_kb", `must be a whole number >= 4, got ${d.maxSectorsKb}`);
  if (d.maxSectorsKb > 1 << 21) bad("max_sectors_kb", `must be at most 2097152, got ${d.maxSectorsKb}`);
  const sh = d.shape;
  if (sh?.mechanics) {
    const m = sh.mechanics;
    for (const [k, v] of [["settle", m.settleNs], ["full_stroke", m.fullStrokeNs], ["rpm", m.rpm], ["media_bps", m.mediaBytesPerSec]] as const) {
      if (!(typeof v === "number" && v > 0 && Number.isFinite(v))) bad(`mechanics.${k}`, `must be a positive number, got ${shown(v)}`);
    }
    if (m.fullStrokeNs < m.settleNs) bad("mechanics.full_stroke", `must be at least the settle time (${m.settleNs} ns), got ${m.fullStrokeNs}`);
  }
  if (sh?.depth) {
    let lastQ = 0;
    for (const p of sh.depth) {
      if (!Array.isArray(p) || !Number.isInteger(p[0]) || !(p[0] > lastQ) || p[0] > 4096) bad("depth", `points must be [in flight, multiplier] with whole, rising depths 1..4096, got ${shown(p)}`);
      if (!(p[1] > 0 && p[1] <= 1000)) bad("depth", `multipliers must be within (0, 1000], got ${shown(p[1])} at depth ${p[0]}`);
      lastQ = p[0];
    }
  }
  for (const dir of ["read", "write"] as const) {
    for (const pat of ["seq", "rand"] as const) {
      const sg = sh?.sigma?.[dir]?.[pat];
      if (sh?.sigma && !(typeof sg === "number" && sg >= 0 && sg <= 3)) bad(`latency_sigma.${dir}.${pat}`, `must be within [0, 3], got ${shown(sg)}`);
      const rowsSeen = new Set<string>();
      for (const row of sh?.quantiles?.[dir]?.[pat] ?? []) {
        const where = `quantiles.${dir}.${pat}`;
        if (!d.curve?.[dir]?.[pat]?.some(([x]) => x === row.size)) bad(where, `size ${shown(row.size)} is not a point of the ${dir} ${pat} curve`);
        if (rowsSeen.has(`${row.size}@${row.depth ?? 1}`)) bad(where, `two distributions at ${row.size} bytes, depth ${row.depth ?? 1}`);
        rowsSeen.add(`${row.size}@${row.depth ?? 1}`);
        const f = row.factors;
        if (!Array.isArray(f) || f.length < 2 || f.length > 65) bad(where, `needs 2 to 65 factors at ${row.size} bytes, got ${Array.isArray(f) ? f.length : shown(f)}`);
        let prev = 0;
        for (const x of f) {
          if (!(typeof x === "number" && x >= prev && Number.isFinite(x))) bad(where, `factors must be non-decreasing numbers >= 0, got ${shown(x)} after ${prev} at ${row.size} bytes`);
          prev = x;
        }
        const us = quantileUs(row);
        if (us.length !== f.length) bad(where, `u has ${us.length} values and factors ${f.length} at ${row.size} bytes`);
        if (us[0] !== 0 || us[us.length - 1] !== 1 || us.some((u, i) => i > 0 && !(u > us[i - 1]!))) bad(where, `u must rise from 0 to 1 at ${row.size} bytes`);
        let mean = 0;
        for (let i = 1; i < f.length; i++) mean += ((f[i]! + f[i - 1]!) / 2) * (us[i]! - us[i - 1]!);
        if (Math.abs(mean - 1) > 0.01) bad(where, `factors must have mean 1 (trapezoid rule), got ${mean.toFixed(4)} at ${row.size} bytes`);
      }
      const pts = d.curve?.[dir]?.[pat];
      const where = `curve.${dir}.${pat}`;
      if (!Array.isArray(pts) || pts.length === 0) bad(where, "needs at least one (size, iops) point");
      if (pts.length > 32) bad(where, `has ${pts.length} points; the core holds 32`);
      let last = 0;
      for (const [s, i] of pts) {
        if (!(s > last) || !Number.isFinite(s)) bad(where, `sizes must be positive and increasing, got ${s} after ${last}`);
        // (0.01 IOPS is 100 s a bio: slower would run simulated time past what an i64 of ns holds)
        if (!(i >= 0.01) || !Number.isFinite(i)) bad(where, `IOPS must be at least 0.01, got ${i} at ${s} bytes`);
        // (a bio faster than a nanosecond takes no simulated time: a run at 1e12 IOPS never left time 0)
        if (i > 1e9) bad(where, `IOPS must be at most 1e9 (a bio of at least 1 ns), got ${i} at ${s} bytes`);
        if (s > 2 ** 31) bad(where, `sizes must be at most 2 GiB, got ${s}`);
        last = s;
      }
    }
  }
}

/**
 * The majors a kernel name implies (Documentation/admin-guide/devices.txt):
 * sd* SCSI disks 8, 65-71, 128-135; nvme*n* the block-extended major 259;
 * loop* 7 (259 past its minors). Other names (nullb, vd, dm-, custom) take
 * dynamic majors: not checked.
 */
export function devnoMajorFor(name: string): { what: string; majors: number[]; text: string } | undefined {
  if (/^sd[a-z]+$/.test(name)) return { what: "SCSI disk", majors: [8, 65, 66, 67, 68, 69, 70, 71, 128, 129, 130, 131, 132, 133, 134, 135], text: "8, 65-71 or 128-135" };
  if (/^nvme\d+n\d+$/.test(name)) return { what: "NVMe namespace", majors: [259], text: "259" };
  if (/^loop\d+$/.test(name)) return { what: "loop device", majors: [7, 259], text: "7 or 259" };
  return undefined;
}
