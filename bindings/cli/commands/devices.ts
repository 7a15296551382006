// `iosim devices [NAME|FILE] [--json]`: the device presets' cards (what each
// device is, its numbers, where they come from; bindings/device/presets.ts).
import { devicePreset, hwdbDevice, isPresetName, loadDeviceFile, PRESET_NAMES, readIocostHwdb } from "../../device/index.js";
import type { DeviceSpec } from "../../scenario/types.js";
import { inputCap, readCapped } from "../read-input.js";
import { InputError } from "../../scenario/errors.js";
import { grouped } from "../../util/grouped.js";

function fmtIops(points: Array<[number, number]>, size: number): string {
  // IOPS at `size` as the core's table gives it (seed.ts tableIops)
  let iops = points[0]![1];
  const svc = (i: number) => 1e9 / i;
  if (points.length > 1 && size > points[0]![0]) {
    let done = false;
    for (let k = 1; k < points.length && !done; k++) {
      const [x1, i1] = points[k]!;
      if (size <= x1) {
        const [x0, i0] = points[k - 1]!;
        iops = 1e9 / (svc(i0) + ((svc(i1) - svc(i0)) * (size - x0)) / (x1 - x0));
        done = true;
      }
    }
    if (!done) {
      const [xl, il] = points[points.length - 1]!;
      iops = 1e9 / ((svc(il) * size) / xl);
    }
  }
  return grouped(Math.round(iops));
}

export function deviceCardText(key: string, d: DeviceSpec): string {
  const lines: string[] = [];
  lines.push(`${key}: ${d.name} (${d.devno}) ${d.card?.model ?? d.kind}`);
  for (const w of d.card?.what ?? []) lines.push(`    ${w}`);
  const c = d.curve;
  lines.push(`    IOPS with the device busy (4k / 64k / 1m):  read rand ${[4096, 65536, 1 << 20].map((s) => fmtIops(c.read.rand, s)).join(" / ")}` +
    `  read seq ${[4096, 65536, 1 << 20].map((s) => fmtIops(c.read.seq, s)).join(" / ")}`);
  lines.push(`                                              write rand ${[4096, 65536, 1 << 20].map((s) => fmtIops(c.write.rand, s)).join(" / ")}` +
    ` write seq ${[4096, 65536, 1 << 20].map((s) => fmtIops(c.write.seq, s)).join(" / ")}`);
  for (const s of d.card?.sources ?? []) lines.push(`    source: ${s}`);
  return lines.join("\n");
}

export async function devicesAction(name: string | undefined, o: { json?: boolean }): Promise<void> {
  let list: Array<[string, DeviceSpec]>;
  if (name === undefined) list = PRESET_NAMES.map((n) => [n, devicePreset(n)]);
  else if (isPresetName(name)) list = [[name, devicePreset(name)]];
  else {
    let text: string;
    try {
      text = readCapped(name, inputCap("text"), name, "device file");
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new InputError(`"${name}" is neither a preset (${PRESET_NAMES.join(", ")}) nor a readable device file`, "command line", undefined, "name");
    }
    if (name.endsWith(".hwdb")) list = readIocostHwdb(text, name).map((e) => [e.model, hwdbDevice(e, name)] as [string, DeviceSpec]);
    else list = [[name, loadDeviceFile(text, name)]];
  }
  if (o.json) {
    process.stdout.write(JSON.stringify(list.map(([k, d]) => ({ preset: k, card: d.card ?? null, device: d })), null, 2) + "\n");
    return;
  }
  process.stdout.write(list.map(([k, d]) => deviceCardText(k, d)).join("\n\n") + "\n");
}
