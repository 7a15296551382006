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
  return JSON.stringify(value, (key, v) => {
    if (key === "wallMs") return undefined;
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>);
    if (typeof v === "bigint") return v.toString();
    return v;
  });
}

/** The fingerprint of a result: sha256 of its canonical JSON. */
export function resultHash(result: unknown): string {
  return sha256Hex(canonicalJson(result));
}
