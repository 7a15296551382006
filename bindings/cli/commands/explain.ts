// `iosim explain TRACE.jsonl|ORACLE_SCENARIO.json --job J --seq N`: why one bio waited, in words
// (the slice, the limit, what was allowed and already dispatched, the wait,
// the timer and the release), from the throttle core's decision trace.
import type { Command } from "commander";
import { explainText } from "../../oracle/explain.js";
import { readTraceText } from "./compare.js";
import { wholeNumberOption } from "../options.js";

export function register(program: Command): void {
  program
    .command("explain")
    .description("explain why a bio waited in blk-throttle")
    .argument("<file>", "a recorded trace (.jsonl) or an oracle throtl scenario (.json)")
    .requiredOption("--job <name>", "job name")
    .requiredOption("--seq <n>", "IO index in the job", (v: string) => wholeNumberOption("--seq", v))
    .action((file: string, o: { job: string; seq: number }) => {
      process.stdout.write(explainText(readTraceText(file), file, o.job, o.seq).join("\n") + "\n");
    });
}
