// The same event loop as the WASM core's unthrottled path, written the way one
// would write it in plain TypeScript without WASM: a Bio object per bio, an
// event object per event, a binary heap of events ordered by (time, seq), the
// a seeded xoshiro128** (32-bit, Math.imul) for random offsets, and fio's
// latency histogram. It exists only to be measured beside the core.

interface Bio {
  job: number;
  seq: number;
  worker: number;
  dir: number;
  off: number;
  size: number;
  submit: number;
  issue: number;
}

interface Ev {
  time: number;
  seq: number;
  kind: number;
  bio: Bio | null;
}

class Heap {
  a: Ev[] = [];
  push(e: Ev): void {
    const a = this.a;
    let i = a.length;
    a.push(e);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(e, a[p]!)) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = e;
  }
  pop(): Ev | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      let i = 0;
      const n = a.length;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && less(a[c + 1]!, a[c]!)) c++;
        if (!less(a[c]!, last)) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
  get size(): number {
    return this.a.length;
  }
}

function less(x: Ev, y: Ev): boolean {
  return x.time < y.time || (x.time === y.time && x.seq < y.seq);
}

/** xoshiro128** with Math.imul: the seeded PRNG a JavaScript programmer would pick. */
class Xoshiro {
  a: number;
  b: number;
  c: number;
  d: number;
  constructor(seed: number) {
    // splitmix32 seeding
    let x = seed >>> 0;
    const next = () => {
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
  }
  next(): number {
    const r = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return r;
  }
  below(n: number): number {
    return Math.floor((this.next() / 4294967296) * n);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

const PLAT_BITS = 6;
const PLAT_NR = 1856;
function platIndex(v: number): number {
  const msb = v === 0 ? 0 : 31 - Math.clz32(v) + (v >= 2 ** 32 ? 32 : 0);
  if (msb <= PLAT_BITS) return v;
  const errorBits = msb - PLAT_BITS;
  const base = (errorBits + 1) << PLAT_BITS;
  const offset = Math.floor(v / 2 ** errorBits) & ((1 << PLAT_BITS) - 1);
  return Math.min(base + offset, PLAT_NR - 1);
}

export interface PlainResult {
  ios: number;
  bytes: number;
  simulatedNs: number;
  latSum: number;
  hist: Uint32Array;
}

/** One job, random 4 KiB reads at `qd` in flight, on a device with a fixed service time. */
export function runPlain(count: number, qd: number, serviceNs: number, regionLen: number, seed: number): PlainResult {
  const heap = new Heap();
  const rng = new Xoshiro(seed);
  const hist = new Uint32Array(PLAT_NR);
  let seqNo = 0;
  let issued = 0;
  let ios = 0;
  let bytes = 0;
  let latSum = 0;
  let now = 0;
  const size = 4096;
  const slots = Math.floor((regionLen - size) / 4096) + 1;
  const issue = (worker: number) => {
    if (issued >= count) return;
    const bio: Bio = { job: 0, seq: issued++, worker, dir: 0, off: rng.below(slots) * 4096, size, submit: now, issue: now };
    heap.push({ time: now + serviceNs, seq: seqNo++, kind: 2, bio });
  };
  for (let w = 0; w < qd; w++) issue(w);
  while (heap.size > 0) {
    const e = heap.pop()!;
    now = e.time;
    const b = e.bio!;
    const lat = now - b.submit;
    ios++;
    bytes += b.size;
    latSum += lat;
    hist[platIndex(lat)]!++;
    issue(b.worker);
  }
  return { ios, bytes, simulatedNs: now, latSum, hist };
}
