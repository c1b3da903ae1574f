import { defineConfig } from "vitest/config";

// Two projects so that only the docker tests pay for (and depend on) a daemon and the image:
// their globalSetup builds the image, and fails in CI when no daemon answers.
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "runtime",
          include: ["src/**/*.test.ts"],
          exclude: ["src/docker/**"],
          // The process-runtime tests launch the real agent-server bundle.
          globalSetup: ["src/process/test/build-agent-server.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "docker",
          include: ["src/docker/**/*.test.ts"],
          globalSetup: ["src/docker/test/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
