import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each file runs real agent-server processes; two cores are better used one file at a time.
    fileParallelism: false,
  },
});
