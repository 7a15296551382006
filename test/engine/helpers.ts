// Small scenario builders for engine tests.
import type { CurvePoints, DeviceSpec } from "../../bindings/scenario/types.js";

export const flat = (iops: number): CurvePoints => [[512, iops], [1 << 20, iops]];

/** A device serving every bio in `serviceNs`, `channels` at a time. */
export function fixedDevice(serviceNs: number, channels = 1, nrRequests = 64, over: Partial<DeviceSpec> = {}): DeviceSpec {
  const iops = (channels * 1e9) / serviceNs;
  return {
    name: "dev0", devno: "8:0", kind: "custom", channels, nrRequests, latencyNs: 0, jitterSigma: 0, maxSectorsKb: 1280,
    rotational: false,
    curve: { read: { seq: flat(iops), rand: flat(iops) }, write: { seq: flat(iops), rand: flat(iops) } },
    ...over,
  };
}
