// Internalised strings, for text that hot code compares or uses as a Map key.
//
// V8 keeps one copy of each internalised string (property names, literals),
// so two of them are equal exactly when they are the same object: a Map
// lookup or `===` between them is a pointer compare. Any other string (one a
// YAML parser cut out of its text, a concatenation, a number turned into
// text) is compared character by character with every equal string that is
// not the same object, and a cut or concatenated one goes through V8's
// runtime to do it (String::SlowEquals, flattening a concatenation first):
// ~4x a literal's compare in a microbenchmark, and in a replay, where the
// same node, claim, driver and volume names reach the components' maps from
// different places of a scenario, ~5 % of the instructions.
//
// A property key is internalised when the object gets it, and for-in gives
// the key back: that is the internalised string (an array index such as "12"
// comes back as a flat string of its own, the same text). Same characters,
// so nothing a user sees changes.
//
// It is not free: ~0.2 us a call even when the text is internalised already
// (a runtime call to define the key), ~1 us when it is not (the string is
// copied into old space and the table grows), so it is for text loaded once
// (a scenario) and for memos of joined names and paths, at their misses.
// Strings made anew in every run (a pod's UID) are not worth it: interning
// the UIDs cost ~8 % of a replay's time.

/** `s` as V8's internalised string of the same text */
export function intern(s: string): string {
  for (const k in { [s]: 0 }) return k;
  return s;
}

/**
 * A plain-data value with every string in it internalised (in place: arrays
 * and plain objects are walked and their string elements and values replaced;
 * keys are internalised already). A frozen object is left as it is.
 */
export function internStrings<T>(v: T): T {
  if (v === null || typeof v !== "object" || Object.isFrozen(v)) return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x === "string") v[i] = intern(x);
      else internStrings(x);
    }
    return v;
  }
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const x = o[k];
    if (typeof x === "string") o[k] = intern(x);
    else internStrings(x);
  }
  return v;
}
