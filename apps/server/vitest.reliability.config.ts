import { defineConfig } from "vitest/config";

/**
 * The reliability suite (`npm run test:reliability`): bad input, load, faults and security against
 * the built control plane (dist/server.js) with real agent-server processes. Not part of `npm test`.
 */
export default defineConfig({
  test: {
    include: ["reliability/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Each file runs its own control plane and many agent servers; two cores take one at a time.
    fileParallelism: false,
    reporters: ["default", "./reliability/lib/group-summary-reporter.ts"],
  },
});
