// The page cache of one file: per-page state, stored sparsely.
//
// The kernel keeps a file's cached pages in an xarray (a radix tree,
// include/linux/xarray.h) indexed by page offset: memory grows with the pages
// that are cached, not with the file's size. An inode here spans a byte range
// of a device, and a buffered job without size= gets one that spans the whole
// device (hundreds of GiB, tens of millions of pages), of which a run touches
// a few. So pages live in fixed chunks of PAGES_PER_CHUNK, allocated on the
// first write into them, with a bitmap of the chunks that hold dirty pages:
// a writeback pass skips 64 clean chunks (4096 pages) per bitmap word instead
// of reading every page, and a page that was never written reads as the
// default (not cached, clean, not under writeback, no blocks allocated).
//
// Per page, as before the table was sparse:
//   memcg      memcg id charged + 1 (0 = not cached)
//   dirtyAt    ns the page became (or becomes, while a write still copies)
//              dirty; -1 = clean
//   wb         under writeback
//   alloc      written back at least once (blocks allocated)
//
// Worked example: a 100 GiB device is 26,214,400 pages: 409,600 chunk slots
// (1.6 MB of pointers) and 6,400 bitmap words. 100 random 4 KiB writes
// allocate at most 100 chunks of 64 pages (~90 KB), where dense arrays took
// 14 bytes for every page (367 MB) and a pass read all 26 M of them.

export const CHUNK_SHIFT: i32 = 6;
export const PAGES_PER_CHUNK: i32 = 1 << CHUNK_SHIFT;
const CHUNK_MASK: i32 = PAGES_PER_CHUNK - 1;

class Chunk {
  memcg: StaticArray<i32> = new StaticArray<i32>(PAGES_PER_CHUNK);
  dirtyAt: StaticArray<i64> = new StaticArray<i64>(PAGES_PER_CHUNK);
  wb: StaticArray<u8> = new StaticArray<u8>(PAGES_PER_CHUNK);
  alloc: StaticArray<u8> = new StaticArray<u8>(PAGES_PER_CHUNK);
  nrDirty: i32 = 0; // pages with dirtyAt >= 0
  constructor() {
    for (let i = 0; i < PAGES_PER_CHUNK; i++) unchecked((this.dirtyAt[i] = -1));
  }
}

export class PageTable {
  readonly pages: i32;
  private chunks: StaticArray<Chunk | null>;
  private dirtyBits: StaticArray<u64>; // bit c: chunk c has dirty pages

  constructor(pages: i32) {
    this.pages = pages;
    const n = (pages + CHUNK_MASK) >> CHUNK_SHIFT;
    this.chunks = new StaticArray<Chunk | null>(n);
    this.dirtyBits = new StaticArray<u64>((n + 63) >> 6);
  }

  @inline private chunk(p: i32): Chunk | null {
    return unchecked(this.chunks[p >> CHUNK_SHIFT]);
  }

  private chunkFor(p: i32): Chunk {
    const c = p >> CHUNK_SHIFT;
    let k = unchecked(this.chunks[c]);
    if (k === null) {
      k = new Chunk();
      unchecked((this.chunks[c] = k));
    }
    return k;
  }

  memcg(p: i32): i32 {
    const k = this.chunk(p);
    return k === null ? 0 : unchecked(k.memcg[p & CHUNK_MASK]);
  }

  setMemcg(p: i32, v: i32): void {
    const k = this.chunk(p);
    if (k === null && v == 0) return;
    unchecked((this.chunkFor(p).memcg[p & CHUNK_MASK] = v));
  }

  dirtyAt(p: i32): i64 {
    const k = this.chunk(p);
    return k === null ? -1 : unchecked(k.dirtyAt[p & CHUNK_MASK]);
  }

  /** Set a page's dirty time (-1 = clean), keeping the chunk's dirty count and bit. */
  setDirtyAt(p: i32, v: i64): void {
    const k = this.chunkFor(p);
    const i = p & CHUNK_MASK;
    const was = unchecked(k.dirtyAt[i]) >= 0;
    unchecked((k.dirtyAt[i] = v));
    const is = v >= 0;
    if (was == is) return;
    const c = p >> CHUNK_SHIFT;
    const bit: u64 = (<u64>1) << <u64>(c & 63);
    if (is) {
      if (k.nrDirty++ == 0) unchecked((this.dirtyBits[c >> 6] |= bit));
    } else if (--k.nrDirty == 0) unchecked((this.dirtyBits[c >> 6] &= ~bit));
  }

  underWriteback(p: i32): bool {
    const k = this.chunk(p);
    return k !== null && unchecked(k.wb[p & CHUNK_MASK]) != 0;
  }

  setWriteback(p: i32, on: bool): void {
    const k = this.chunk(p);
    if (k === null && !on) return;
    unchecked((this.chunkFor(p).wb[p & CHUNK_MASK] = on ? 1 : 0));
  }

  allocated(p: i32): bool {
    const k = this.chunk(p);
    return k !== null && unchecked(k.alloc[p & CHUNK_MASK]) != 0;
  }

  setAllocated(p: i32): void {
    unchecked((this.chunkFor(p).alloc[p & CHUNK_MASK] = 1));
  }

  /** Whether the chunk holding page p has any dirty page. */
  @inline chunkHasDirty(p: i32): bool {
    const c = p >> CHUNK_SHIFT;
    return (unchecked(this.dirtyBits[c >> 6]) & ((<u64>1) << <u64>(c & 63))) != 0;
  }

  /** First page of the first chunk after page p's that holds a dirty page, or `pages`. */
  nextDirtyChunk(p: i32): i32 {
    let c = (p >> CHUNK_SHIFT) + 1;
    const nc = this.chunks.length;
    while (c < nc) {
      const word = unchecked(this.dirtyBits[c >> 6]) >> <u64>(c & 63);
      if (word != 0) {
        c += <i32>ctz(word);
        return c < nc ? c << CHUNK_SHIFT : this.pages;
      }
      c = (c | 63) + 1;
    }
    return this.pages;
  }

  /** drop_caches: clean pages not under writeback leave the cache (uncharged). */
  dropClean(): void {
    const nc = this.chunks.length;
    for (let c = 0; c < nc; c++) {
      const k = unchecked(this.chunks[c]);
      if (k === null) continue;
      for (let i = 0; i < PAGES_PER_CHUNK; i++) {
        if (unchecked(k.dirtyAt[i]) < 0 && !unchecked(k.wb[i])) unchecked((k.memcg[i] = 0));
      }
    }
  }
}
