// Write docs/k8s-fixes.md from the fix catalogue (bindings/k8s/versions/fixes.ts):
//   npm run build:ts && node scripts/k8s-fixes-doc.mjs
import { writeFileSync } from "node:fs";
const { fixCatalogueMarkdown } = await import(new URL("../dist/bindings/k8s/versions/doc.js", import.meta.url).href);
writeFileSync(new URL("../docs/k8s-fixes.md", import.meta.url), fixCatalogueMarkdown());
console.log("docs/k8s-fixes.md written");
