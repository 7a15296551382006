// Smallest and largest of a list without spreading it into arguments:
// Math.max(...xs) puts every element on the call stack and throws
// "Maximum call stack size exceeded" past ~100,000 elements (a 200,000-IO
// trace did). Empty: the given default (Math.max() would be -Infinity).

export function maxOf(xs: ArrayLike<number>, empty = -Infinity): number {
  if (xs.length === 0) return empty;
  let m = xs[0]!;
  for (let i = 1; i < xs.length; i++) if (xs[i]! > m || Number.isNaN(xs[i]!)) m = xs[i]!;
  return m;
}

export function minOf(xs: ArrayLike<number>, empty = Infinity): number {
  if (xs.length === 0) return empty;
  let m = xs[0]!;
  for (let i = 1; i < xs.length; i++) if (xs[i]! < m || Number.isNaN(xs[i]!)) m = xs[i]!;
  return m;
}
