// Where a file named inside another file is: relative paths are relative to
// the naming file's directory (fio's include, a scenario's fio_file and
// device files). Plain string work, so the browser build can use it.

/** `path` as named from the file `from`: absolute paths as they are, relative ones beside `from`. */
export function besideFile(from: string, path: string): string {
  if (path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path)) return path;
  const i = Math.max(from.lastIndexOf("/"), from.lastIndexOf("\\"));
  return i < 0 ? path : from.slice(0, i + 1) + path;
}
