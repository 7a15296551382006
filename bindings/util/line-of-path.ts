// The line of a field of a parsed document, from a map of field paths
// ("jobs[0].bs", "cgroups.capped.io.max") to 1-based lines such as the walks
// over a YAML document record (bindings/mc/distributions.ts yamlLines, the
// k8s loader): the line of `path`, else of its nearest enclosing field that
// has one, else of the document. For loaders that read plain values (a
// Monte Carlo sample, a k8s scenario) and still name lines in their errors.

/** The line of `path` in `lines`, or of its nearest enclosing field there, or of the document (""). */
export function lineOfPath(lines: ReadonlyMap<string, number>, path: string): number | undefined {
  for (let p = path; ; ) {
    const l = lines.get(p);
    if (l !== undefined) return l;
    const i = Math.max(p.lastIndexOf("."), p.lastIndexOf("["));
    if (i <= 0) return lines.get("");
    p = p.slice(0, i);
  }
}
