// "Did you mean ...?" for a name that names nothing: the known name nearest
// to it by edit distance (fio's string_distance() and show_closest_option(),
// parse.c), shared by the fio job-file reader and the k8s scenario loader.

/** Levenshtein distance, as fio's string_distance() (parse.c). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The name of `names` nearest to `bad` by edit distance, if at most `maxD` away; ties to the alphabetically first. */
export function nearestName(bad: string, names: Iterable<string>, maxD: number): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const n of [...names].sort()) {
    const d = editDistance(bad, n);
    if (d < bestD) {
      best = n;
      bestD = d;
    }
  }
  return bestD <= maxD ? best : undefined;
}
