import { defineConfig } from "vitest/config";

/**
 * End-to-end checks, each as a user meets the project: the README's walkthrough and the typed
 * client from a fresh clone of the current commit, the control plane's image started once, and
 * (run last, after every other suite) nothing left behind. Not part of `npm test`: CI runs
 * `npm run test:e2e` and, at its very end, `npm run test:leftovers`.
 */
export default defineConfig({
  test: {
    // Each file starts a control plane and agent servers (or containers); one at a time.
    fileParallelism: false,
    projects: [
      { test: { name: "unit", include: ["src/lib/**/*.test.ts"] } },
      {
        test: {
          name: "fresh-clone",
          include: ["src/readme.test.ts", "src/client-package.test.ts"],
          // One clone, `npm ci` and build for both files: the slow part, done once.
          globalSetup: ["src/fresh-clone.setup.ts"],
          testTimeout: 300_000,
          hookTimeout: 900_000,
        },
      },
      {
        test: {
          name: "server-image",
          include: ["src/server-image.test.ts"],
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "leftovers",
          include: ["src/leftovers.test.ts"],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
