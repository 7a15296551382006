// A value as an error message shows it: JSON for strings, lists and objects,
// but a number as JavaScript prints it, so a YAML `.inf` or `.nan` reads
// "got Infinity" / "got NaN" (JSON.stringify made both "got null").
export function shown(v: unknown): string {
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  return JSON.stringify(v) ?? String(v);
}
