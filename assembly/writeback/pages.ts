// The page cache of one file: per-page state, stored sparsely.
//
// The kernel keeps a file's cached pages in an xarray (a radix tree,
// include/linux/xarray.h) indexed by page offset: memory grows with the pages
// that are cached, not with the file's size. An inode here spans a byte range
// of a device, and a buffered job without size= gets one that spans the whole
// device (hundreds of GiB, tens of millions of pages), of which a run touches
// a few. So the table is a two-level tree like the xarray's: groups of
// PAGES_PER_GROUP pages hold chunks of PAGES_PER_CHUNK pages, and both are
// allocated on the first write into them. Bitmaps mark the chunks that hold
// dirty pages (one per group) and the groups that hold such chunks (one per
// file), so a writeback pass jumps over clean stretches by bitmap word
// instead of reading every page. A page never written reads as the default:
// not cached, clean, not under writeback, no blocks allocated.
//
// Per page, as before the table was sparse:
//   memcg      memcg id charged + 1 (0 = not cached)
//   dirtyAt    ns the page became (or becomes, while a write still copies)
//              dirty; -1 = clean
//   wb         under writeback
//   alloc      written back at least once (blocks allocated)
// 14 bytes a page, in one allocation per chunk (232 bytes for 16 pages).
//
// Worked example: the ssd preset's 480 GB is 117,187,500 pages: 28,611 group
// slots (112 KB of pointers, 448 bytes of group bits). 100 random 4 KiB
// writes make at most 100 groups (1 KB of chunk pointers each) and 100
// chunks: ~125 KB, where dense arrays took 14 bytes for every page (1.6 GB)
// and a pass read all 117 M of them. 30 s of random 4 KiB writes (900 k
// pages) touch every group and ~880 k chunks: ~240 MB.

export const CHUNK_SHIFT: i32 = 4;
export const PAGES_PER_CHUNK: i32 = 1 << CHUNK_SHIFT;
const CHUNK_MASK: i32 = PAGES_PER_CHUNK - 1;
const GROUP_SHIFT: i32 = 12;
export const PAGES_PER_GROUP: i32 = 1 << GROUP_SHIFT;
const CHUNKS_PER_GROUP: i32 = 1 << (GROUP_SHIFT - CHUNK_SHIFT); // 256
const CHUNK_IN_GROUP_MASK: i32 = CHUNKS_PER_GROUP - 1;

// A chunk's bytes: its pages' dirtyAt (i64), memcg (i32), the wb and alloc
// flags (u8), then the count of its dirty pages (i32).
const DIRTY_AT_OFF: usize = 0;
const MEMCG_OFF: usize = DIRTY_AT_OFF + (<usize>PAGES_PER_CHUNK << 3);
const WB_OFF: usize = MEMCG_OFF + (<usize>PAGES_PER_CHUNK << 2);
const ALLOC_OFF: usize = WB_OFF + <usize>PAGES_PER_CHUNK;
const NR_DIRTY_OFF: usize = ALLOC_OFF + <usize>PAGES_PER_CHUNK;
const CHUNK_BYTES: i32 = <i32>NR_DIRTY_OFF + 4;

type Chunk = StaticArray<u8>;

function newChunk(): Chunk {
  const k = new StaticArray<u8>(CHUNK_BYTES);
  const p = changetype<usize>(k);
  for (let i = 0; i < PAGES_PER_CHUNK; i++) store<i64>(p + DIRTY_AT_OFF + (<usize>i << 3), -1);
  return k;
}

class Group {
  chunks: StaticArray<Chunk | null> = new StaticArray<Chunk | null>(CHUNKS_PER_GROUP);
  dirty: StaticArray<u64> = new StaticArray<u64>(CHUNKS_PER_GROUP >> 6); // bit i: chunk i has dirty pages
  nrDirtyChunks: i32 = 0;
}

/** Index of the first set bit of `bits` (a bitmap of `n` bits) at or after `from`, or -1. */
function nextSetBit(bits: StaticArray<u64>, from: i32, n: i32): i32 {
  let i = from;
  while (i < n) {
    const word = unchecked(bits[i >> 6]) >> <u64>(i & 63);
    if (word != 0) {
      i += <i32>ctz(word);
      return i < n ? i : -1;
    }
    i = (i | 63) + 1;
  }
  return -1;
}

export class PageTable {
  readonly pages: i32;
  private groups: StaticArray<Group | null>;
  private groupBits: StaticArray<u64>; // bit g: group g has chunks with dirty pages

  constructor(pages: i32) {
    this.pages = pages;
    const n = (pages + PAGES_PER_GROUP - 1) >> GROUP_SHIFT;
    this.groups = new StaticArray<Group | null>(n);
    this.groupBits = new StaticArray<u64>((n + 63) >> 6);
  }

  @inline private chunk(p: i32): Chunk | null {
    const g = unchecked(this.groups[p >> GROUP_SHIFT]);
    return g === null ? null : unchecked(g.chunks[(p >> CHUNK_SHIFT) & CHUNK_IN_GROUP_MASK]);
  }

  private chunkFor(p: i32): Chunk {
    const gi = p >> GROUP_SHIFT;
    let g = unchecked(this.groups[gi]);
    if (g === null) {
      g = new Group();
      unchecked((this.groups[gi] = g));
    }
    const ci = (p >> CHUNK_SHIFT) & CHUNK_IN_GROUP_MASK;
    let k = unchecked(g.chunks[ci]);
    if (k === null) {
      k = newChunk();
      unchecked((g.chunks[ci] = k));
    }
    return k;
  }

  memcg(p: i32): i32 {
    const k = this.chunk(p);
    return k === null ? 0 : load<i32>(changetype<usize>(k) + MEMCG_OFF + (<usize>(p & CHUNK_MASK) << 2));
  }

  setMemcg(p: i32, v: i32): void {
    if (v == 0 && this.chunk(p) === null) return;
    store<i32>(changetype<usize>(this.chunkFor(p)) + MEMCG_OFF + (<usize>(p & CHUNK_MASK) << 2), v);
  }

  dirtyAt(p: i32): i64 {
    const k = this.chunk(p);
    return k === null ? -1 : load<i64>(changetype<usize>(k) + DIRTY_AT_OFF + (<usize>(p & CHUNK_MASK) << 3));
  }

  /** Set a page's dirty time (-1 = clean), keeping the counts and bits of its chunk and group. */
  setDirtyAt(p: i32, v: i64): void {
    const k = changetype<usize>(this.chunkFor(p));
    const a = k + DIRTY_AT_OFF + (<usize>(p & CHUNK_MASK) << 3);
    const was = load<i64>(a) >= 0;
    store<i64>(a, v);
    const is = v >= 0;
    if (was == is) return;
    const n = load<i32>(k + NR_DIRTY_OFF);
    store<i32>(k + NR_DIRTY_OFF, is ? n + 1 : n - 1);
    if (n != (is ? 0 : 1)) return; // the chunk's dirty bit stays as it is
    const gi = p >> GROUP_SHIFT;
    const g = unchecked(this.groups[gi])!;
    const ci = (p >> CHUNK_SHIFT) & CHUNK_IN_GROUP_MASK;
    const bit: u64 = (<u64>1) << <u64>(ci & 63);
    const gbit: u64 = (<u64>1) << <u64>(gi & 63);
    if (is) {
      unchecked((g.dirty[ci >> 6] |= bit));
      if (g.nrDirtyChunks++ == 0) unchecked((this.groupBits[gi >> 6] |= gbit));
    } else {
      unchecked((g.dirty[ci >> 6] &= ~bit));
      if (--g.nrDirtyChunks == 0) unchecked((this.groupBits[gi >> 6] &= ~gbit));
    }
  }

  underWriteback(p: i32): bool {
    const k = this.chunk(p);
    return k !== null && load<u8>(changetype<usize>(k) + WB_OFF + <usize>(p & CHUNK_MASK)) != 0;
  }

  setWriteback(p: i32, on: bool): void {
    if (!on && this.chunk(p) === null) return;
    store<u8>(changetype<usize>(this.chunkFor(p)) + WB_OFF + <usize>(p & CHUNK_MASK), on ? 1 : 0);
  }

  allocated(p: i32): bool {
    const k = this.chunk(p);
    return k !== null && load<u8>(changetype<usize>(k) + ALLOC_OFF + <usize>(p & CHUNK_MASK)) != 0;
  }

  setAllocated(p: i32): void {
    store<u8>(changetype<usize>(this.chunkFor(p)) + ALLOC_OFF + <usize>(p & CHUNK_MASK), 1);
  }

  /** Whether the chunk holding page p has any dirty page. */
  chunkHasDirty(p: i32): bool {
    const g = unchecked(this.groups[p >> GROUP_SHIFT]);
    if (g === null) return false;
    const ci = (p >> CHUNK_SHIFT) & CHUNK_IN_GROUP_MASK;
    return (unchecked(g.dirty[ci >> 6]) & ((<u64>1) << <u64>(ci & 63))) != 0;
  }

  /** First page of the first chunk after page p's that holds a dirty page, or `pages`. */
  nextDirtyChunk(p: i32): i32 {
    let gi = p >> GROUP_SHIFT;
    let from = ((p >> CHUNK_SHIFT) & CHUNK_IN_GROUP_MASK) + 1; // in group gi
    const ng = this.groups.length;
    for (;;) {
      const g = unchecked(this.groups[gi]);
      if (g !== null && g.nrDirtyChunks > 0) {
        const ci = nextSetBit(g.dirty, from, CHUNKS_PER_GROUP);
        if (ci >= 0) {
          const q = (gi << GROUP_SHIFT) + (ci << CHUNK_SHIFT);
          return q < this.pages ? q : this.pages;
        }
      }
      gi = nextSetBit(this.groupBits, gi + 1, ng);
      if (gi < 0) break;
      from = 0;
    }
    return this.pages;
  }

  /** drop_caches: clean pages not under writeback leave the cache (uncharged). */
  dropClean(): void {
    const ng = this.groups.length;
    for (let gi = 0; gi < ng; gi++) {
      const g = unchecked(this.groups[gi]);
      if (g === null) continue;
      for (let ci = 0; ci < CHUNKS_PER_GROUP; ci++) {
        const k = unchecked(g.chunks[ci]);
        if (k === null) continue;
        const b = changetype<usize>(k);
        for (let i = 0; i < PAGES_PER_CHUNK; i++) {
          const u = <usize>i;
          if (load<i64>(b + DIRTY_AT_OFF + (u << 3)) < 0 && !load<u8>(b + WB_OFF + u)) store<i32>(b + MEMCG_OFF + (u << 2), 0);
        }
      }
    }
  }
}
