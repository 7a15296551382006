// Devices for the playground's block-IO scenarios: iosim's presets (ssd,
// nvme, hdd, ideal, nullb; see bindings/device/presets.ts). The "Device"
// choice in the page swaps the scenario's first device for a preset while
// keeping its name and MAJ:MIN, exactly as `iosim run --device` does, so the
// jobs' filename= and the io.max lines still name it.
//
// Example: the io.max demo on "sda" (8:0, ssd preset) with Device = hdd runs
// on a 100-IOPS rotational disk still called sda 8:0: "capped" can no
// longer reach its 20 MiB/s, since the whole disk does 0.4 MiB/s of 4 KiB.
import { devicePreset, isPresetName, InputError, PRESET_NAMES, type DeviceSpec, type PresetName, type Scenario } from "../iosim.js";

export const DEVICE_CHOICES: readonly string[] = PRESET_NAMES;

export function preset(name: PresetName): DeviceSpec {
  return devicePreset(name);
}

/** The scenario with its first device replaced by a preset (same name and devno). */
export function withDevice(s: Scenario, name: string | undefined): Scenario {
  if (!name) return s;
  if (!isPresetName(name)) throw new InputError(`unknown device preset "${name}" (have ${PRESET_NAMES.join(", ")})`, "url", undefined, "dev");
  return {
    ...s,
    devices: s.devices.map((d, i) => (i === 0 ? { ...devicePreset(name), name: d.name, devno: d.devno } : d)),
  };
}

/** Device sizes by name, for fio's size=N%. */
export function deviceSizes(devs: readonly DeviceSpec[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of devs) if (d.sizeBytes) out[d.name] = d.sizeBytes;
  return out;
}
