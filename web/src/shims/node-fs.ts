// Stand-in for node:fs in the browser bundle. The iosim entry point must not
// need the file system; if a module it imports does (a helper that reads a
// trace by path), the bundle still builds and only that helper fails, with
// this message, when called.
function unavailable(name: string): never {
  throw new Error(`${name}: there is no file system in the browser (pass the text instead of a path)`);
}
export function readFileSync(path: unknown): never {
  return unavailable(`readFileSync(${JSON.stringify(path)})`);
}
export function writeFileSync(path: unknown): never {
  return unavailable(`writeFileSync(${JSON.stringify(path)})`);
}
export function existsSync(): boolean {
  return false;
}
export default { readFileSync, writeFileSync, existsSync };
