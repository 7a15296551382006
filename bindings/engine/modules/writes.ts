// What the control modules share about a config write: the kernel parsers'
// context for it (bindings/cgroup/*), how a value becomes writes, and a
// rejected write as an InputError naming the scenario's file, line and field.

import type { ConfigWrite } from "../../scenario/types.js";
import { InputError } from "../../scenario/errors.js";
import type { ControlContext } from "../control.js";
import type { WriteContext, WriteRejection } from "../../cgroup/write.js";

/** The kernel parsers' view of a write: the kernel version, the scenario's disks, where the write is from. */
export function moduleWriteContext(ctx: ControlContext, w: ConfigWrite): WriteContext {
  return { version: ctx.kernel, devices: ctx.devices().map((d) => d.spec.devno), file: w.source?.file, line: w.source?.line };
}

/** "s.yaml:6" for messages: the write's source, else the scenario's file. */
export function writeAt(ctx: ControlContext, w: ConfigWrite): string {
  const file = w.source?.file ?? ctx.scenario.source?.file ?? "scenario";
  return w.source?.line !== undefined ? `${file}:${w.source.line}` : file;
}

/** Throw an InputError for a write the module refuses (its file, line and field; the kernel's errno if any). */
export function failWrite(ctx: ControlContext, w: ConfigWrite, msg: string, errno?: string, field?: string): never {
  throw new InputError(msg, w.source?.file ?? ctx.scenario.source?.file ?? "scenario", w.source?.line,
    field ?? w.source?.field ?? w.file, errno);
}

/** A write the kernel parser rejected: `io.max: write rejected at "rbps=0": ...` with its errno. */
export function rejectedWrite(ctx: ControlContext, w: ConfigWrite, r: WriteRejection, field?: string): never {
  return failWrite(ctx, w, `${w.file}: write rejected at ${JSON.stringify(r.token)}: ${r.message}`, r.errno, field);
}

/**
 * The writes of a multi-line value, as `echo` of each line in turn: the
 * non-blank lines; a value with none is one write of itself (which the
 * kernel refuses, as it refuses `echo "" > io.max`).
 */
export function writeLines(value: string): string[] {
  const lines = value.split("\n").filter((l) => l.trim() !== "");
  return lines.length ? lines : [value];
}
