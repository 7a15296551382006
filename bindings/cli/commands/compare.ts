// `iosim compare TRACE... [--json]`: replay each trace and score it against
// the recording: share of IOs matched within 4 ms (per throttle group, k-th
// completion against k-th), error p50/p99/max, per-job total-time error, and
// an overall line. Exits non-zero on unreadable input (file:line errors) and
// with status 2 when the fidelity bar (>= 99% overall, every trace with >= 20
// IOs >= 90%) is missed.
import type { Command } from "commander";
import { readFileSync } from "node:fs";
import { readTrace } from "../../oracle/traces.js";
import { compareTrace, overall, type TraceScore } from "../../oracle/compare.js";
import { formatScore } from "../../oracle/score.js";
import type { KernelVersion } from "../../scenario/types.js";
import { fail } from "./replay.js";

export function register(program: Command): void {
  program
    .command("compare")
    .description("score simulated completions against recorded kernel traces")
    .argument("<traces...>", "trace files (.jsonl)")
    .option("--kernel <version>", "kernel profile: 6.18, 6.12 or 6.1 (default: each trace's)")
    .option("--json", "print one JSON object")
    .action((traces: string[], o: { kernel?: string; json?: boolean }) => {
      const scores: TraceScore[] = [];
      try {
        for (const f of traces) scores.push(compareTrace(readTrace(readFileSync(f, "utf8"), f), { kernel: o.kernel as KernelVersion | undefined }));
      } catch (e) {
        fail(e);
      }
      const all = overall(scores);
      if (o.json) {
        process.stdout.write(JSON.stringify({ traces: scores, overall: all }, null, 2) + "\n");
      } else {
        for (const s of scores) for (const p of s.parts) process.stdout.write(formatScore(p) + "\n");
        process.stdout.write(`overall: ${all.matched}/${all.ios} IOs matched (${(100 * all.share).toFixed(2)}%)` +
          (all.weak.length ? `; below 90%: ${all.weak.join(", ")}` : "") + ` -> ${all.pass ? "PASS" : "FAIL"}\n`);
      }
      if (!all.pass) process.exitCode = 2;
    });
}
