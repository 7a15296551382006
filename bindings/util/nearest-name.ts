// "Did you mean ...?" for a name that names nothing: the known name a user
// most likely meant, shared by the fio job-file reader (options, ioengine=)
// and the k8s scenario loader (pods, nodes, claims, volumes, components).
//
// Steps 1 and 2 are rustc's find_best_match_for_name() (compiler/rustc_span
// edit_distance.rs: bound max(len, 3) / 3, a swap one edit); step 3 is ours:
//   1. a known name equal but for case;
//   2. else the nearest known name by edit distance, counting a swap of two
//      neighbouring characters as one edit (libiao -> libaio), if at most
//      max(1, floor(length / 3)) edits from the bad name: one edit for a name
//      of up to 5 characters, two for 6 to 8, ...;
//   3. else a known name of which the bad one is a whole part, cut at "-",
//      "_", "/" or "." (attacher -> csi-attacher), the shortest such.
// fio's own show_closest_option() (parse.c string_distance_ok()) allows
// (length + 1) / 2 plain Levenshtein edits: with it db-0 got "did you mean
// web-0?" - half a short name changed is not a typo.
// Ties go to the alphabetically first name.

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

/** Edit distance where swapping two neighbouring characters is one edit (optimal string alignment, as rustc's edit_distance_with_substrings' base). */
export function swapDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The most edits a suggestion may be from a bad name of this length: max(1, floor(length / 3)). */
export function maxSuggestDistance(bad: string): number {
  return Math.max(1, Math.floor(bad.length / 3));
}

const PART_SEP = /[-_/.]/;

/** Is `bad` a whole part of `name` at its start or end, cut at a separator (attacher of csi-attacher)? */
function isWholePart(bad: string, name: string): boolean {
  if (bad.length === 0 || name.length <= bad.length) return false;
  return (name.endsWith(bad) && PART_SEP.test(name[name.length - bad.length - 1]!))
    || (name.startsWith(bad) && PART_SEP.test(name[bad.length]!));
}

/** The name of `names` a user most likely meant by `bad` (see the rule above), or undefined when none is close. */
export function nearestName(bad: string, names: Iterable<string>): string | undefined {
  if (bad === "") return undefined;
  const all = [...new Set(names)].sort();
  const lower = bad.toLowerCase();
  const sameCase = all.find((n) => n !== bad && n.toLowerCase() === lower);
  if (sameCase !== undefined) return sameCase;
  let best: string | undefined;
  let bestD = Infinity;
  for (const n of all) {
    const d = swapDistance(bad, n);
    if (d < bestD) {
      best = n;
      bestD = d;
    }
  }
  if (best !== undefined && bestD <= maxSuggestDistance(bad)) return best;
  let part: string | undefined;
  for (const n of all) if (isWholePart(bad, n) && (part === undefined || n.length < part.length)) part = n;
  return part;
}
