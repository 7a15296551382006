// `iosim explain TRACE.jsonl|ORACLE_SCENARIO.json --job J --seq N`: why one bio waited, in words
// (the slice, the limit, what was allowed and already dispatched, the wait,
// the timer and the release), from the throttle core's decision trace.
// (The command's options are declared in commands/index.ts, which loads this
// module only when `explain` is the command.)
import { explainText } from "../../oracle/explain.js";
import { readTraceText } from "./compare.js";

export function explainAction(file: string, o: { job: string; seq: number }): void {
  process.stdout.write(explainText(readTraceText(file), file, o.job, o.seq).join("\n") + "\n");
}
