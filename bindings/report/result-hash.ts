// A fingerprint of a run's result, the same in Node, in the CLI (`iosim run`
// and `iosim k8s run` print it) and in the playground (each run's hash).
//
// canonicalJson(result): JSON.stringify with typed arrays as plain arrays and
// `wallMs` (host wall-clock time, the one field that is not a function of
// scenario + seed) left out. Key order is the order the bindings build
// objects in, which is the same code in both places.
//
// sha256Hex(text) (bindings/util/sha256.ts, shared with the Kubernetes
// replay's CSI names): SHA-256 of the UTF-8 bytes in plain JavaScript, so it
// also works where crypto.subtle does not (a page opened over plain http from
// another host is not a secure context).
//
// Check by hand: the hash the page shows for a run equals the one
// `iosim run` prints for the same scenario and seed, and
//   sha256sum <<< "$(node -e 'print canonicalJson(simulate(scenario))')"
// minus the newline; test/browser/playground.test.ts checks the page against
// Node, bindings/cli/result-hash.test.ts the CLI.

import { sha256Hex } from "../util/sha256.js";

export function canonicalJson(value: unknown): string {
  // the same text, from a plain copy when the value is made of plain objects, arrays, typed
  // arrays and primitives (every result is): JSON.stringify without a replacer, which calls
  // none per value (the replacer was called for each element of every histogram: ~6 ms of
  // a small `iosim run`, cold)
  try {
    const copy = plainCopy(value);
    if (copy !== NOT_PLAIN) return JSON.stringify(copy);
  } catch {
    // (a cycle overflows the copy's recursion: the replacer's stringify says what it says)
  }
  return JSON.stringify(value, (key, v) => {
    if (key === "wallMs") return undefined;
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>);
    if (typeof v === "bigint") return v.toString();
    return v;
  });
}

const NOT_PLAIN = Symbol("not plain");

/**
 * What canonicalJson's replacer makes of `v`, as a value JSON.stringify
 * writes the same without one: `wallMs` keys left out, typed arrays as
 * arrays, bigints as strings; NOT_PLAIN when `v` holds anything else that is
 * an object (a Date or another object with toJSON, a DataView, a Map, a class
 * instance, a boxed primitive), which the replacer's stringify then writes.
 * Values JSON leaves out or writes as null (undefined, functions, symbols)
 * are kept for JSON.stringify to do so (a "__proto__" key is defined as an
 * own key, as the original's is).
 */
function plainCopy(v: unknown): unknown {
  if (typeof v === "bigint") return v.toString();
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const c = plainCopy(v[i]);
      if (c === NOT_PLAIN) return NOT_PLAIN;
      out[i] = c;
    }
    return out;
  }
  if (ArrayBuffer.isView(v)) {
    if (v instanceof DataView) return NOT_PLAIN;
    if (v instanceof BigInt64Array || v instanceof BigUint64Array) return Array.from(v, (x) => x.toString());
    return Array.from(v as unknown as ArrayLike<number>);
  }
  const proto = Object.getPrototypeOf(v);
  if ((proto !== Object.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === "function") return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    if (k === "wallMs") continue;
    const c = plainCopy((v as Record<string, unknown>)[k]);
    if (c === NOT_PLAIN) return NOT_PLAIN;
    if (k === "__proto__") Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
    else out[k] = c;
  }
  return out;
}

/** The fingerprint of a result: sha256 of its canonical JSON. */
export function resultHash(result: unknown): string {
  return sha256Hex(canonicalJson(result));
}
