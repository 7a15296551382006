// fio's latency histogram ("plat" buckets, fio stat.h / stat.c).
//
// A value v (ns) goes to a bucket with at most 2^-BITS relative error: values
// below 2^(BITS+1) are exact; above, each power of two is cut in 2^BITS
// buckets. With BITS = 6 and 29 groups (fio's FIO_IO_U_PLAT_BITS and
// FIO_IO_U_PLAT_GROUP_NR) there are 1856 buckets and percentiles read back as
// fio prints them (bucket midpoints). The time-series bins use BITS = 3 to
// stay small.
//
// Worked example (BITS = 6): v = 1,000,000 ns. msb = 19, error_bits = 13,
// base = 14 << 6 = 896, offset = (v >> 13) & 63 = 122 & 63 = 58 -> idx 954;
// idx 954 reads back as 2^19 + (58 + 0.5) * 2^13 = 1,003,520 ns.

export const FIO_PLAT_BITS: i32 = 6;
export const FIO_PLAT_GROUPS: i32 = 29;
export const FIO_PLAT_NR: i32 = FIO_PLAT_GROUPS << FIO_PLAT_BITS; // 1856

export const SERIES_PLAT_BITS: i32 = 3;
export const SERIES_PLAT_GROUPS: i32 = 34;
export const SERIES_PLAT_NR: i32 = SERIES_PLAT_GROUPS << SERIES_PLAT_BITS; // 272

@inline export function platIndex(v: u64, bits: i32, nr: i32): i32 {
  const msb: i32 = v == 0 ? 0 : 63 - <i32>clz(v);
  if (msb <= bits) return <i32>v;
  const errorBits = msb - bits;
  const base = (errorBits + 1) << bits;
  const offset = <i32>(v >> <u64>errorBits) & ((1 << bits) - 1);
  const idx = base + offset;
  return idx < nr - 1 ? idx : nr - 1;
}
