// Freezing a plain-data value all the way down, for values many runs share
// (a Monte Carlo template's literal parts, a k8s scenario's loaded base and
// memoised loads of frozen parts): a write into one then throws instead of
// leaking into the next run. An already frozen object is taken to be frozen
// all the way down and is not walked again.

export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}
