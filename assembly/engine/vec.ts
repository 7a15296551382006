// Growable structure-of-arrays columns.
//
// Every per-bio, per-event and per-record table in the core is a set of Vec
// columns indexed by the same integer. A Vec never shrinks and is never
// reallocated except by doubling, so JavaScript can view its contents
// through `ptr()`/`length` after a batch (memory may grow between batches,
// so views are re-created after every call that can allocate).

export class Vec<T> {
  data: StaticArray<T>;
  length: i32 = 0;

  constructor(capacity: i32 = 16) {
    this.data = new StaticArray<T>(capacity < 4 ? 4 : capacity);
  }

  @inline get(i: i32): T {
    return unchecked(this.data[i]);
  }

  @inline set(i: i32, v: T): void {
    unchecked((this.data[i] = v));
  }

  @inline push(v: T): i32 {
    if (this.length == this.data.length) this.grow(this.length * 2);
    unchecked((this.data[this.length] = v));
    return this.length++;
  }

  /**
   * Make room for index `i` and set length to at least i+1; the elements the
   * length newly covers are zero (also those a `length = k` truncation left
   * behind, which a reused core's next run would otherwise read).
   */
  ensure(i: i32): void {
    if (i >= this.data.length) {
      let cap = this.data.length;
      while (cap <= i) cap *= 2;
      this.grow(cap);
    }
    if (i >= this.length) {
      memory.fill(changetype<usize>(this.data) + (<usize>this.length) * sizeof<T>(), 0, (<usize>(i + 1 - this.length)) * sizeof<T>());
      this.length = i + 1;
    }
  }

  grow(capacity: i32): void {
    const n = new StaticArray<T>(capacity);
    memory.copy(changetype<usize>(n), changetype<usize>(this.data), (<usize>this.length) * sizeof<T>());
    this.data = n;
  }

  clear(): void {
    memory.fill(changetype<usize>(this.data), 0, (<usize>this.data.length) * sizeof<T>());
    this.length = 0;
  }

  @inline ptr(): usize {
    return changetype<usize>(this.data);
  }
}
