// A cgroup's path as the kernel resolves it under the cgroup mount: no empty
// or "." parts, ".." goes up (never above the root). fio's cgroup=a/../b
// makes the directory b, so its IO is b's (it was a literal cgroup "a/..").

export function normCgroupPath(p: string): string {
  const out: string[] = [];
  for (const s of p.split("/")) {
    if (s === "" || s === ".") continue;
    if (s === "..") out.pop();
    else out.push(s);
  }
  return out.join("/");
}

/** Every path of `paths`, resolved, with all its ancestors; the root "" included. */
export function withAncestors(paths: Iterable<string>): Set<string> {
  const out = new Set<string>([""]);
  for (const p of paths) {
    const parts = normCgroupPath(p).split("/").filter(Boolean);
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join("/"));
  }
  return out;
}
