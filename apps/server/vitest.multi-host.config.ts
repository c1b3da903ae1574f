import { defineConfig } from "vitest/config";

/**
 * The multi-host suite (`npm run test:multi-host`): sandboxes over the Docker hosts of
 * tooling/docker/docker-hosts-up.sh, one of them cut off and killed mid-run. Needs root and those hosts;
 * not part of `npm test`.
 */
export default defineConfig({
  test: {
    include: ["multi-host/**/*.test.ts"],
    testTimeout: 240_000,
    hookTimeout: 240_000,
    fileParallelism: false,
  },
});
