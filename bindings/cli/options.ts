// Command-line option values shared by the commands: each parser returns the
// value or throws an InputError naming the option (exit 2).
import { InputError } from "../scenario/errors.js";
import { KERNEL_VERSIONS, type KernelVersion } from "../scenario/types.js";

/** --kernel: one of the kernel profiles (undefined: the trace's or scenario's own) */
export function kernelOption(v: string | undefined): KernelVersion | undefined {
  if (v === undefined) return undefined;
  if (!KERNEL_VERSIONS.includes(v as KernelVersion)) throw new InputError(`--kernel must be one of ${KERNEL_VERSIONS.join(", ")}`, "command line", undefined, "--kernel");
  return v as KernelVersion;
}

/** An option that takes a whole number >= 0 (`flag` names it in the error). */
export function wholeNumberOption(flag: string, v: string): number {
  const s = Number(v);
  if (v.trim() === "" || !Number.isSafeInteger(s) || s < 0) throw new InputError(`${flag} must be a non-negative integer, got "${v}"`, "command line", undefined, flag);
  return s;
}

/** --seed: a whole number >= 0 */
export function seedOption(v: string | undefined): number | undefined {
  return v === undefined ? undefined : wholeNumberOption("--seed", v);
}

export function periodTimerOption(v: string): "recorded" | "kernel" {
  if (v !== "recorded" && v !== "kernel") throw new InputError(`--period-timer must be "recorded" or "kernel", not ${JSON.stringify(v)}`, "command line", undefined, "--period-timer");
  return v;
}

export function bufreadReplayOption(v: string | undefined): "recorded" | "closed" | undefined {
  if (v === undefined) return undefined;
  if (v !== "recorded" && v !== "closed") throw new InputError(`--bufread-replay must be "recorded" or "closed", not ${JSON.stringify(v)}`, "command line", undefined, "--bufread-replay");
  return v;
}

export type OutputFormat = "normal" | "json" | "json+";

/**
 * --output-format: fio's names (fio 3.39 init.c, `--output-format=normal|json|json+|terse`);
 * iosim writes normal, json and json+ (json with each latency's "bins", the
 * plat histogram fio_jsonplus_clat2csv reads). `--json` is "json".
 */
export function outputFormatOption(v: string | undefined, json: boolean | undefined): OutputFormat {
  if (v === undefined) return json ? "json" : "normal";
  if (v !== "normal" && v !== "json" && v !== "json+") {
    const why = v === "terse" ? " (fio's terse format is not produced)" : "";
    throw new InputError(`--output-format must be normal, json or json+, not ${JSON.stringify(v)}${why}`, "command line", undefined, "--output-format");
  }
  if (json && v !== "json") throw new InputError(`--json asks for json but --output-format says ${v}`, "command line", undefined, "--output-format");
  return v;
}
