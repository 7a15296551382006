// Vite config for the playground: a static site (index.html + one main
// bundle + one Web Worker bundle that embeds the WASM core). `base: "./"`
// so the built folder works from any path; no external URLs anywhere.
import { defineConfig } from "vite";
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: "./",
  build: {
    outDir: resolve(here, "dist"),
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
  },
  worker: { format: "es" },
  server: { fs: { allow: [resolve(here, "..")] } },
  preview: { host: "127.0.0.1" },
});
