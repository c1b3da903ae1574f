import { defineConfig } from "vitest/config";

/**
 * The replica suite (`npm run test:replicas`): two control-plane processes on one PostgreSQL
 * (TEST_DATABASE_URL, or with CI=true a throwaway cluster of tooling/postgres/postgres-up.sh) and the
 * default Docker daemon. Not part of `npm test`.
 */
export default defineConfig({
  test: {
    include: ["replicas/**/*.test.ts"],
    testTimeout: 240_000,
    hookTimeout: 240_000,
    fileParallelism: false,
    globalSetup: [
      "../../packages/db/test/postgres-setup.ts",
      "../../packages/runtime/src/docker/test/global-setup.ts",
    ],
  },
});
