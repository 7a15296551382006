// blk-throttle's per-bio decision (Linux 6.12.117 tg_may_dispatch(), then
// throtl_charge_bio() and throtl_trim_slice() on a pass) written as one would
// port the C to TypeScript: BigInt for every u64, no shortcuts. It is the
// baseline of bench/throttle.ts and the reference of bench/throttle.test.ts
// (the WASM core's batch must agree with it decision by decision).
//
// Simplifications (the bench's setting): one group, reads, HZ=250, a 25-jiffy
// slice, jiffies that never wrap in a run, nothing ever queued.

const HZ = 250n;
const SLICE = 25n;
const U64_MAX = 0xffffffffffffffffn;
const UINT_MAX = 0xffffffffn;
const M64 = (1n << 64n) - 1n;

/** The 6.12 decision path (tg_may_dispatch + charge + trim), ported with BigInt. */
export class BigIntThrottle {
  /** the wait (jiffies) of the last decision that failed */
  lastWait = 0n;
  bytesDisp = 0n;
  ioDisp = 0n;
  carryBytes = 0n;
  carryIos = 0n;
  sliceStart = 0n;
  sliceEnd = 0n;
  constructor(readonly bps: bigint, readonly iops: bigint, readonly j0: bigint) {
    this.sliceStart = j0;
    this.sliceEnd = j0 + SLICE;
  }
  static ilog2(x: bigint): number {
    return x === 0n ? -1 : x.toString(2).length - 1;
  }
  bytesAllowed(bps: bigint, j: bigint): bigint {
    if (BigIntThrottle.ilog2(bps) + BigIntThrottle.ilog2(j) - BigIntThrottle.ilog2(HZ) > 62) return U64_MAX;
    return (bps * j) / HZ;
  }
  ioAllowed(iops: bigint, j: bigint): bigint {
    const t = (iops * j) / HZ;
    return t > UINT_MAX ? UINT_MAX : t;
  }
  roundup(x: bigint, y: bigint): bigint {
    return ((x + y - 1n) / y) * y;
  }
  used(j: bigint): boolean {
    return !(j >= this.sliceStart && j <= this.sliceEnd);
  }
  decide(j: bigint, size: bigint): boolean {
    if (this.used(j)) {
      this.bytesDisp = 0n; this.ioDisp = 0n; this.carryBytes = 0n; this.carryIos = 0n;
      this.sliceStart = j; this.sliceEnd = j + SLICE;
    } else if (this.sliceEnd < j + SLICE) this.sliceEnd = this.roundup(j + SLICE, SLICE);
    const elapsed = j - this.sliceStart;
    let rnd = elapsed === 0n ? SLICE : elapsed;
    rnd = this.roundup(rnd, SLICE);
    const allowedB = BigInt.asIntN(64, this.bytesAllowed(this.bps, rnd)) + this.carryBytes;
    let bw = 0n;
    if (!(allowedB > 0n && this.bytesDisp + size <= allowedB)) {
      const extra = (this.bytesDisp + size - allowedB) & M64;
      bw = ((extra * HZ) & M64) / this.bps;
      if (bw === 0n) bw = 1n;
      bw += rnd - elapsed;
    }
    const rndI = this.roundup(elapsed + 1n, SLICE);
    const allowedI = BigInt.asIntN(32, this.ioAllowed(this.iops, rndI) + this.carryIos);
    let iw = 0n;
    if (!(allowedI > 0n && this.ioDisp + 1n <= allowedI)) {
      iw = rndI - elapsed;
      const floor = HZ / this.iops + 1n;
      if (iw < floor) iw = floor;
    }
    if (bw + iw !== 0n) {
      const w = bw > iw ? bw : iw;
      if (this.sliceEnd < j + w) this.sliceEnd = this.roundup(j + w, SLICE);
      this.lastWait = w;
      return false;
    }
    // charge + trim
    this.bytesDisp += size;
    this.ioDisp = (this.ioDisp + 1n) & UINT_MAX;
    if (this.used(j)) return true;
    this.sliceEnd = this.roundup(j + SLICE, SLICE);
    const t = ((j - this.sliceStart) / SLICE) * SLICE;
    if (t === 0n) return true;
    const bt = BigInt.asIntN(64, (this.bytesAllowed(this.bps, t) + this.carryBytes) & M64);
    const it = BigInt.asIntN(32, this.ioAllowed(this.iops, t) + this.carryIos);
    if (bt <= 0n && it <= 0n) return true;
    this.carryBytes = 0n;
    this.bytesDisp = this.bytesDisp >= bt ? this.bytesDisp - bt : 0n;
    this.carryIos = 0n;
    this.ioDisp = this.ioDisp >= it ? this.ioDisp - it : 0n;
    this.sliceStart += t;
    return true;
  }
}
