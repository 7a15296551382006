import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fixCatalogueMarkdown } from "./doc.js";

describe("docs/k8s-fixes.md", () => {
  it("is the catalogue as scripts/k8s-fixes-doc.mjs writes it (regenerate after editing versions/fixes.ts)", () => {
    expect(readFileSync(new URL("../../../docs/k8s-fixes.md", import.meta.url), "utf8")).toBe(fixCatalogueMarkdown());
  });
});
