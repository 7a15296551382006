// A LoadOptions/FioParseOptions readFile over files held in memory: a relative
// path is looked up beside the naming file (as the CLI's readRelative does),
// a missing one throws like the file system would.
export function readFromMemory(files: Record<string, string>): (path: string, from: string) => string {
  return (path, from) => {
    const p = path.startsWith("/") ? path : from.slice(0, from.lastIndexOf("/") + 1) + path;
    if (!(p in files)) throw new Error(`ENOENT ${p}`);
    return files[p]!;
  };
}
