// Write golden.json, the record of every built-in run (see golden.ts), from
// the compiled code of the current commit:
//   npm run build && node bindings/k8s/scenarios/golden.mjs
// Only for an intended behaviour change; golden.test.ts compares against it.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = dirname(fileURLToPath(import.meta.url));
const { goldenRecord } = await import(new URL("../../../dist/bindings/k8s/scenarios/golden.js", import.meta.url).href);
const rec = goldenRecord();
writeFileSync(join(dir, "golden.json"), JSON.stringify(rec, null, 1) + "\n");
console.log(`golden.json: ${Object.keys(rec.full).length} full runs, ${Object.keys(rec.digests).length} digests`);
