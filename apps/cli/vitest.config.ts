import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["@sandbox-server/source"] },
  test: {
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // Each file runs real agent servers; two cores are better used one file at a time.
    fileParallelism: false,
  },
});
