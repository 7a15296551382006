// resource.Quantity as far as a claim's storage size needs it: a decimal
// number with an optional binary (Ki, Mi, Gi, Ti, Pi, Ei) or decimal (k, M,
// G, T, P, E) suffix, compared by value (apimachinery's resource.Quantity
// Cmp). "10Gi" and "10240Mi" are equal; "1G" is less than "1Gi". Exponent
// forms (1e9) and milli (m) are not taken: a storage size is not written so.

const SUFFIX: Record<string, number> = {
  "": 1,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};
const QUANTITY = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;

/** the quantity's value in bytes, or null when `s` is no storage quantity */
export function parseQuantity(s: unknown): number | null {
  if (typeof s === "number" && Number.isFinite(s) && s >= 0) return s;
  if (typeof s !== "string") return null;
  const m = QUANTITY.exec(s.trim());
  if (m === null) return null;
  return Number(m[1]) * SUFFIX[m[2] ?? ""]!;
}

/** a claim's requested storage (spec.resources.requests.storage), or null */
export function requestedStorage(pvc: { spec?: any } | undefined): string | null {
  const v = pvc?.spec?.resources?.requests?.storage;
  return v === undefined || v === null ? null : String(v);
}
