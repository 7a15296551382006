// Errors about a user's input: always say where (file, line, field) and why.

import { readFileSync } from "node:fs";

export class InputError extends Error {
  constructor(
    message: string,
    public readonly file: string,
    public readonly line?: number,
    public readonly field?: string,
    public readonly errno?: string,
  ) {
    super(
      `${file}${line !== undefined ? `:${line}` : ""}${field ? ` (${field})` : ""}: ${message}` +
        (errno ? ` [${errno}]` : ""),
    );
    this.name = "InputError";
  }
}

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
