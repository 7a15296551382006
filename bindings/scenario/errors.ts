// Errors about a user's input: always say where (file, line, field) and why.

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
