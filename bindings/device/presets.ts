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
import type { DeviceKind, DeviceSpec } from "../scenario/types.js";
import { uniformCurve, seedCurve } from "./seed.js";

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
        : seedCurve(name);
  const spec: DeviceSpec = { ...base, jitterSigma: 0, curve, ...overrides };
  validateDeviceSpec(spec);
  return spec;
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
  for (const dir of ["read", "write"] as const) {
    for (const pat of ["seq", "rand"] as const) {
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
