// The difference table of a side-by-side comparison: B − A for every cell of
// two headline tables with the same columns, rows paired by key.
//
//   numbers (with an optional µs/ms/s unit)  -> "+1.25 ms (+4.0%)", "=" when equal
//   other text                               -> "=" or "A → B"
//   a row only in A                          -> "A → –" per cell
//   a row only in B                          -> "– → B" per cell, after A's rows
//
// Worked example: A "capped | 19.99 | 3.13 ms", B "capped | 10.00 | 6.25 ms"
// -> "capped | -9.99 (-50.0%) | +3.12 ms (+99.7%)".
// A fixed Kubernetes version that no longer breaks an invariant has no row
// for it; one that breaks a new one has a row only in B, which must show too.
import type { TablePanel } from "../families/types.js";

function num(s: string): { v: number; unit: string } | undefined {
  const m = /^(-?[0-9.]+)\s*(µs|ms|s)?$/.exec(s.trim());
  if (!m) return undefined;
  const k = m[2] === "µs" ? 1e-3 : m[2] === "s" ? 1e3 : 1;
  return { v: Number(m[1]) * k, unit: m[2] ? "ms" : "" };
}

function cell(x: string | undefined, y: string | undefined): string {
  const a = x === undefined ? undefined : num(x), b = y === undefined ? undefined : num(y);
  if (!a || !b) return x !== undefined && x === y ? "=" : `${x ?? "–"} → ${y ?? "–"}`;
  const d = b.v - a.v;
  const pct = a.v !== 0 ? ` (${d >= 0 ? "+" : ""}${((100 * d) / a.v).toFixed(1)}%)` : "";
  const unit = a.unit || b.unit; // "0" (no wait) against "2.64 ms"
  return d === 0 ? "=" : `${d > 0 ? "+" : ""}${d.toFixed(2)}${unit ? " " + unit : ""}${pct}`;
}

/** B − A, or undefined when the tables do not have the same columns. */
export function diffTable(a: TablePanel, b: TablePanel, la: string, lb: string): TablePanel | undefined {
  if (a.columns.join() !== b.columns.join()) return undefined;
  const row = (ra: TablePanel["rows"][number] | undefined, rb: TablePanel["rows"][number] | undefined) => {
    const first = (ra ?? rb)!;
    const cells = [first.cells[0]!];
    for (let i = 1; i < a.columns.length; i++) cells.push(cell(ra?.cells[i], rb?.cells[i]));
    return { key: first.key, cells };
  };
  const rows = [
    ...a.rows.map((ra) => row(ra, b.rows.find((r) => r.key === ra.key))),
    ...b.rows.filter((rb) => !a.rows.some((r) => r.key === rb.key)).map((rb) => row(undefined, rb)),
  ];
  return { kind: "table", id: "diff", title: `Difference: ${lb} − ${la}`, columns: a.columns, rows };
}
