// `iosim record SCENARIO|JOBFILE -o TRACE.jsonl`: run a scenario on this
// machine's kernel and write the trace `iosim compare` scores
// (bindings/record/record.ts says how; README "Check iosim against your kernel").
import { writeFileSync, renameSync } from "node:fs";
import { InputError } from "../../scenario/errors.js";
import { scenarioForRun } from "./run.js";
import { wholeNumberOption } from "../options.js";
import { dryRun, realHost } from "../../record/host.js";
import { record, RecordError } from "../../record/record.js";

export interface RecordCliOptions {
  out?: string;
  device?: string;
  file?: string;
  yes?: boolean;
  repeats: string;
  tracepoints: boolean;
  dryRun?: boolean;
  nullBlk?: string;
  timeout: string;
  seed?: string;
  kernel?: string;
  recorder?: string;
}

/** -o r.jsonl with 3 repeats -> r.run1.jsonl, r.run2.jsonl, r.run3.jsonl */
export function repeatPath(out: string, k: number, n: number): string {
  if (n === 1) return out;
  return out.replace(/(\.jsonl)?$/, `.run${k}.jsonl`);
}

/** `iosim record`'s action (declared in commands/index.ts, which loads this module only when `record` is the command). */
export async function recordAction(target: string, o: RecordCliOptions): Promise<void> {
  if (!o.out && !o.dryRun) throw new InputError("-o TRACE.jsonl is required (where the trace goes)", "command line", undefined, "-o");
  const repeats = wholeNumberOption("--repeats", o.repeats);
  const timeoutS = wholeNumberOption("--timeout", o.timeout);
  if (repeats < 1) throw new InputError("--repeats must be at least 1", "command line", undefined, "--repeats");
  const nullBlk = o.nullBlk ? Object.fromEntries(o.nullBlk.split(",").map((kv) => kv.split("=") as [string, string])) : undefined;
  const { scenario } = scenarioForRun(target, { seed: o.seed });
  const say = (l: string) => (o.dryRun ? process.stdout.write(`# ${l}\n`) : process.stderr.write(`iosim record: ${l}\n`));
  const host = o.dryRun ? dryRun(realHost(), (l) => process.stdout.write(l + "\n")) : realHost();
  for (let k = 1; k <= (o.dryRun ? 1 : repeats); k++) {
    try {
      const rec = await record(host, scenario, { device: o.device, file: o.file, yes: o.yes, tracepoints: o.tracepoints, repeat: k, timeoutS, nullBlk, say, recorder: o.recorder });
      if (o.dryRun) return;
      const path = repeatPath(o.out!, k, repeats);
      writeFileSync(path + ".part", rec.lines.join("\n") + "\n");
      renameSync(path + ".part", path);
      const last = rec.ios.reduce((m, r) => Math.max(m, r.complete_ns as number), 0);
      say(`${path}: ${rec.ios.length} IOs, ${rec.block.length} block events, last completion ${(last / 1e6).toFixed(1)} ms after t0`);
    } catch (e) {
      if (e instanceof RecordError) throw new InputError(e.message, target);
      throw e;
    }
  }
}
