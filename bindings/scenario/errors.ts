// Errors about a user's input: always say where (file, line, field) and why.

export class InputError extends Error {
  /** the message without its place ("file:line (field): ") or errno: for a caller that says it again at another place */
  readonly detail: string;
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
    this.detail = message;
    this.name = "InputError";
  }
}
