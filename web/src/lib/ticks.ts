// Axis ticks for the swimlanes: round steps (1, 2 or 5 x 10^k ns) from 0 to
// the end of the run, instead of sixths of it (a 9.07 s run was labelled
// 0, 1.51 s, 3.02 s, 4.54 s, ...).
//
// Worked example: niceTicks(9.07e9) -> step 2e9, ticks 0, 2, 4, 6, 8 s;
// niceTicks(1200e9) (20 minutes) -> step 200e9: 0, 200 s, ..., 1200 s.

/** Tick times in ns: multiples of a 1/2/5 step, about `target` of them, none past `end`. */
export function niceTicks(end: number, target = 6): number[] {
  if (!(end > 0)) return [0];
  const raw = end / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let k = 0; k * step <= end * (1 + 1e-9); k++) out.push(k * step);
  return out;
}
