import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["bindings/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    setupFiles: ["test/setup-fast-check.ts"],
  },
});
