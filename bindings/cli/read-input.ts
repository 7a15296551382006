// Reading a user's input file from the command line (Node only: the
// browser build shares scenario/errors.ts, so this lives apart from it).
import { readFileSync } from "node:fs";
import { InputError } from "../scenario/errors.js";

/**
 * A user's input file as text; a file that cannot be read is an InputError
 * naming `shownAs` (default: the path) and the errno ("cannot read the
 * scenario: ENOENT"), not a crash.
 */
export function readInputFile(path: string, what: string, shownAs = path): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new InputError(`cannot read the ${what}: ${(e as NodeJS.ErrnoException).code ?? e}`, shownAs);
  }
}
