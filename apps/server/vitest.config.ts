import { spawnSync } from "node:child_process";
import { defineConfig } from "vitest/config";

// The control-plane suite runs once per runtime. The docker project joins when a daemon answers,
// and always in CI, where its globalSetup fails (never skips) without a daemon.
const dockerAnswers =
  spawnSync("docker", ["info"], { stdio: "ignore", timeout: 5000 }).status === 0;
const withDocker = dockerAnswers || process.env.CI === "true";
// The store-facing suites run on PostgreSQL too: given TEST_DATABASE_URL, or always in CI, where the
// db package's globalSetup starts a throwaway cluster (and fails without one).
const withPostgres = Boolean(process.env.TEST_DATABASE_URL) || process.env.CI === "true";

const shared = {
  testTimeout: 90_000,
  hookTimeout: 180_000,
};

export default defineConfig({
  test: {
    // Each file runs real agent servers (or containers); two cores are better used one file at a
    // time. A global option: inside a project it would be ignored.
    fileParallelism: false,
    projects: [
      {
        test: {
          ...shared,
          name: "process",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["test/docker.test.ts"],
          env: { TEST_RUNTIME: "process" },
        },
      },
      ...(withDocker
        ? [
            {
              test: {
                ...shared,
                name: "docker",
                include: ["test/**/*.test.ts"],
                // The HTTP layer does not depend on the runtime: once, in the process project.
                exclude: [
                  "test/http.test.ts",
                  "test/rest-surface.test.ts",
                  "test/http-hardening.test.ts",
                  // OpenHands' clients are driven on the process runtime whatever the project.
                  "test/openhands-clients.test.ts",
                  // The size cap is the control plane's, whatever the runtime.
                  "test/event-size.test.ts",
                ],
                env: { TEST_RUNTIME: "docker" },
                globalSetup: ["../../packages/runtime/src/docker/test/global-setup.ts"],
              },
            },
          ]
        : []),
      ...(withPostgres
        ? [
            {
              test: {
                ...shared,
                name: "postgres",
                // Every suite whose subject is what the control plane stores (not the HTTP layer,
                // not the runtime, not the SQLite file's bytes), on the process runtime.
                include: [
                  "test/sandboxes.test.ts",
                  "test/conversations.test.ts",
                  "test/events.test.ts",
                  "test/webhooks.test.ts",
                  "test/webhook-destinations.test.ts",
                  "test/users.test.ts",
                  "test/idempotency.test.ts",
                  "test/restart.test.ts",
                  "test/lifetime.test.ts",
                  "test/wait-for.test.ts",
                  "test/warm-pool.test.ts",
                  "test/openhands-sandboxes.test.ts",
                  "test/egress-policy.test.ts",
                  "test/ports.test.ts",
                ],
                env: { TEST_RUNTIME: "process", TEST_STORE: "postgres" },
                globalSetup: ["../../packages/db/test/postgres-setup.ts"],
              },
            },
          ]
        : []),
    ],
  },
});
