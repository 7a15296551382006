// A memo of a one-argument function, bounded by clearing.
//
// The replay's hot code asks for the same few derived strings and records
// again and again (an event's object "pod/<name>", a quoted volume name, a
// node's wake-group names): built anew, each would be a fresh string hashed
// and compared character by character wherever it is a Map key or compared
// with an earlier event's (see util/intern.ts). A memo keeps one per key, for
// the life of the process, so runs of a sweep share them. Keys that are new in
// every run (anything with a pod's UID in it) would make it grow without end,
// so at `capacity` entries it is cleared: a memo only saves work, and
// clearing is cheaper than keeping an LRU order on every hit.
//
// Example: `const quoted = boundedMemo(4096, (s: string) => JSON.stringify(s))`;
// `quoted("pvc-1") === quoted("pvc-1")` is the same string object until the
// 4,097th distinct name clears the memo.
//
// `make` must not return undefined (that reads as a miss every time).

export function boundedMemo<K, V>(capacity: number, make: (key: K) => V): (key: K) => V {
  const cache = new Map<K, V>();
  return (key) => {
    let v = cache.get(key);
    if (v === undefined) {
      if (cache.size >= capacity) cache.clear();
      cache.set(key, (v = make(key)));
    }
    return v;
  };
}
