// `iosim device fit FIO_JSON... [-o dev.yaml] [--json]`: a device file fitted
// to real fio json+ runs, and how well it reproduces each (bindings/device/fit.ts).
import { writeFileSync } from "node:fs";
import { fitDevice, fitRowText, fitYaml, readFioRuns } from "../../device/fit.js";
import { inputCap, readCapped } from "../read-input.js";
import { InputError } from "../../scenario/errors.js";

export async function deviceFitAction(files: string[], o: { output?: string; name?: string; devno?: string; json?: boolean }): Promise<void> {
  if (o.devno !== undefined && !/^\d+:\d+$/.test(o.devno)) throw new InputError(`--devno: expected MAJ:MIN, got "${o.devno}"`, "command line", undefined, "--devno");
  const runs = files.flatMap((f) => readFioRuns(readCapped(f, inputCap("text"), f, "fio JSON"), f));
  let fit;
  try {
    fit = fitDevice(runs, { ...(o.name ? { name: o.name } : {}), ...(o.devno ? { devno: o.devno } : {}) });
  } catch (e) {
    // validateDeviceSpec's complaints about --name / --devno
    if (e instanceof RangeError && /^device .*: (name|devno) /.test(e.message)) throw new InputError(e.message, "command line", undefined, /: name /.test(e.message) ? "--name" : "--devno");
    throw e;
  }
  const yaml = fitYaml(fit);
  if (o.output) {
    try {
      writeFileSync(o.output, yaml);
    } catch (e) {
      throw new InputError(`cannot write the device file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, o.output, undefined, "-o");
    }
  }
  if (o.json) {
    process.stdout.write(JSON.stringify({ channels: fit.channels, worst: fit.worst, notes: fit.notes, runs: fit.rows, ...(o.output ? {} : { device: fit.device }) }, null, 2) + "\n");
    return;
  }
  const out: string[] = [];
  out.push(`fitted ${fit.device.name} (${fit.device.devno}) from ${runs.length} run(s): ${fit.channels} channel(s)${o.output ? `, written to ${o.output}` : ""}`);
  for (const n of fit.notes) out.push(`note: ${n}`);
  out.push("how the fit reproduces each run (real -> simulated):");
  for (const r of fit.rows) out.push(`  ${fitRowText(r)}`);
  out.push(`worst: IOPS ${(fit.worst.iops * 100).toFixed(1)} %, p99 ${(fit.worst.p99 * 100).toFixed(1)} %`);
  process.stdout.write(out.join("\n") + "\n" + (o.output ? "" : "\n" + yaml));
}
