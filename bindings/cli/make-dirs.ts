// `--out DIR`: make the directory and its missing parents, one mkdir at a
// time. Node 20's mkdirSync(dir, {recursive: true}) never returns when mkdir
// answers ENOENT with the parent present (under /proc: `--out /proc/x` hung);
// a plain mkdir reports that errno, which main.ts turns into exit 2 naming
// the path.
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

export function makeDirs(dir: string): void {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) mkdirSync(dir); // EEXIST, naming it
    return;
  }
  const missing: string[] = [];
  for (let p = dir; !existsSync(p); ) {
    missing.push(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  for (const p of missing.reverse()) mkdirSync(p);
}
