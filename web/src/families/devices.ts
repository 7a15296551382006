// Devices for the playground's block-IO scenarios.
//
// iosim's device presets (fitted curves for real models) come with the
// device-config capability; until a build has them, the playground uses two
// illustrative devices whose curves are round numbers, said so in their
// descriptions: a datacenter NVMe drive (8 channels, ~400 k random 4 KiB
// reads/s, 3 GB/s sequential) and a SATA SSD (~90 k random 4 KiB reads/s,
// 520 MB/s sequential).
//
// Worked example (nvme, 4 KiB random reads): 400 000 IOPS with the whole
// device busy -> one bio holds one of 8 channels for 8 / 400 000 s = 20 us.

import type { CurvePoints, DeviceSpec } from "../iosim.js";

const KiB = 1024;
const MB = 1e6;

/** IOPS points from a 4 KiB IOPS figure and a sequential bandwidth ceiling. */
function curve(iops4k: number, bwBytes: number): CurvePoints {
  return [4 * KiB, 16 * KiB, 64 * KiB, 128 * KiB, 256 * KiB, 1024 * KiB].map((size) => [
    size,
    Math.round(Math.min(iops4k * (4 * KiB / size) ** 0.25, bwBytes / size)),
  ]);
}

export const PLAYGROUND_DEVICES: Record<string, { title: string; spec: DeviceSpec }> = {
  nvme: {
    title: "NVMe (illustrative: 400k IOPS, 3 GB/s)",
    spec: {
      name: "nvme0n1", devno: "259:0", kind: "nvme", channels: 8, nrRequests: 1023, latencyNs: 8_000,
      jitterSigma: 0.05, maxSectorsKb: 1280, rotational: false,
      curve: {
        read: { seq: curve(450_000, 3000 * MB), rand: curve(400_000, 3000 * MB) },
        write: { seq: curve(250_000, 2000 * MB), rand: curve(200_000, 1800 * MB) },
      },
    },
  },
  ssd: {
    title: "SATA SSD (illustrative: 90k IOPS, 520 MB/s)",
    spec: {
      name: "sda", devno: "8:0", kind: "ssd", channels: 4, nrRequests: 64, latencyNs: 20_000,
      jitterSigma: 0.1, maxSectorsKb: 1280, rotational: false,
      curve: {
        read: { seq: curve(95_000, 540 * MB), rand: curve(90_000, 520 * MB) },
        write: { seq: curve(80_000, 500 * MB), rand: curve(70_000, 480 * MB) },
      },
    },
  },
};
