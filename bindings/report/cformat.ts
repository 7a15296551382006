// C number formatting as fio's output uses it: printf("%.Nf") with glibc's
// exact rounding (round half to even on the exact binary value, where
// JavaScript's toFixed rounds half up), and fio's lib/num2str.c.
//
// Worked example: printf("%.1f", 0.25) is "0.2" (0.25 is exactly halfway,
// ties go to even) while (0.25).toFixed(1) is "0.3"; printf("%.2f", 0.015)
// is "0.01" because the double 0.015 is 0.01499999999999999944...
// num2str(20480000, 4, 1, pow2=1, N2S_BYTEPERSEC) divides by 1024 until at
// most 4 digits remain: 20480000 -> 20000 -> 19 (remainder 544), then one
// decimal from 544/1024 = 0.53125 -> "0.5": "19.5MiB/s".

/** A finite double as an exact rational m * 2^e (m >= 0). */
export function doubleParts(x: number): { m: bigint; e: number } {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(x));
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const exp = (hi >>> 20) & 0x7ff;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (exp === 0) return { m: frac, e: -1074 };
  return { m: frac | (1n << 52n), e: exp - 1075 };
}

/** printf("%.<digits>f", x) as glibc prints it. */
export function cFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
  const neg = x < 0 || Object.is(x, -0);
  const { m, e } = doubleParts(x);
  // value * 10^digits = m * 2^e * 10^digits; round to integer, ties to even
  let num = m * 10n ** BigInt(digits);
  let den = 1n;
  if (e >= 0) num <<= BigInt(e);
  else den <<= BigInt(-e);
  let q = num / den;
  const r2 = (num % den) * 2n;
  if (r2 > den || (r2 === den && (q & 1n) === 1n)) q += 1n;
  let s = q.toString();
  if (digits > 0) {
    s = s.padStart(digits + 1, "0");
    s = `${s.slice(0, -digits)}.${s.slice(-digits)}`;
  }
  return (neg ? "-" : "") + s;
}

/** printf("%<width>.<digits>f", x). */
export function cFixedW(x: number, width: number, digits: number): string {
  return cFixed(x, digits).padStart(width, " ");
}

/** fio's enum n2s_unit. */
export const N2S_NONE = 0;
export const N2S_BITPERSEC = 1;
export const N2S_PERSEC = 2;
export const N2S_BIT = 3;
export const N2S_BYTE = 4;
export const N2S_BYTEPERSEC = 8;

const UNIT_STR: Record<number, string> = {
  [N2S_NONE]: "", [N2S_BITPERSEC]: "bit/s", [N2S_PERSEC]: "/s", [N2S_BIT]: "bit", [N2S_BYTE]: "B", [N2S_BYTEPERSEC]: "B/s",
};
const SI = ["", "k", "M", "G", "T", "P", "E"];
const IEC = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/** fio's num2str(num, maxlen, base, pow2, units): at most maxlen significant digits, with prefix. */
export function num2str(value: number, maxlen: number, base: number, pow2: boolean, units: number): string {
  const thousand = pow2 ? 1024 : 1000;
  const prefix = pow2 ? IEC : SI;
  let num = BigInt(Math.floor(value));
  let post = 0;
  for (let b = base; b > 1; post++) b = Math.floor(b / thousand);
  if (units === N2S_BIT || units === N2S_BITPERSEC) num *= 8n;
  let modulo = -1;
  let carry = false;
  while (post < SI.length) {
    if (num.toString().length <= maxlen) break;
    modulo = Number(num % BigInt(thousand));
    num /= BigInt(thousand);
    carry = modulo >= thousand / 2;
    post++;
  }
  if (post >= SI.length) post = 0;
  const unit = UNIT_STR[units] ?? "";
  if (modulo === -1) return `${num}${prefix[post]}${unit}`;
  const room = maxlen - num.toString().length;
  if (room <= 1) {
    if (carry) num += 1n;
    return `${num}${prefix[post]}${unit}`;
  }
  const frac = cFixed(modulo / thousand, room - 1);
  if (frac.startsWith("1")) num += 1n; // the fraction rounded up to 1.0: carry into the integer part
  return `${num}.${frac.slice(2)}${prefix[post]}${unit}`;
}
