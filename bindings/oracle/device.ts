// The device a replayed trace runs on: an "ideal" loop / null_blk-like disk.
//
// The oracle traces were recorded on a loop device backed by tmpfs (host) and
// on null_blk with immediate completion (guest): without limits a 4 KiB IO
// takes 5-100 us end to end (no_limit_baseline: 500 reads in 2.7-4.3 ms), so
// the device is modelled as a fixed latency with effectively unlimited
// parallelism, and the only thing that shapes completions is blk-throttle.
// (bindings/device had not landed when this was written; when it does, its
// null_blk/loop presets can replace this.)
//
// Release latency: a bio the throttle held leaves on a timer tick; the real
// completion comes after the timer softirq, the kthrotld work, the device and
// the wake-up of the waiting thread. Measured over the host traces (2107 held
// IOs released on time, i.e. < 2 ms after their tick): mean 347 us, median
// 262 us, p1 123 us. The model uses the mean for the whole path
// (WORK_LATENCY_NS + DEVICE_LATENCY_NS = 346 us), and the fastest path
// (RELEASE_LATENCY_MIN_NS) to place ticks when a trace has no jiffies map.

import type { DeviceSpec } from "../scenario/types.js";

/** ns from the pending timer's tick to the kthrotld work submitting the bio */
export const WORK_LATENCY_NS = 338_000;
/** the fastest tick-to-completion path seen (p1 of held IOs) */
export const RELEASE_LATENCY_MIN_NS = 120_000;
/** ns a bio spends in the ideal device (submit to the syscall returning) */
export const DEVICE_LATENCY_NS = 8_000;

export function idealDevice(name: string, devno: string, opts: { maxSectorsKb?: number; rotational?: boolean; nrRequests?: number } = {}): DeviceSpec {
  const flat: Array<[number, number]> = [[512, 1e9], [1 << 20, 1e9]];
  return {
    name, devno, kind: "ideal", channels: 256, nrRequests: Math.max(opts.nrRequests ?? 128, 1024),
    latencyNs: DEVICE_LATENCY_NS, jitterSigma: 0, maxSectorsKb: opts.maxSectorsKb ?? 1280, rotational: opts.rotational ?? false,
    curve: { read: { seq: flat, rand: flat }, write: { seq: flat, rand: flat } },
  };
}
