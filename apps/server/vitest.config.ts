import { spawnSync } from "node:child_process";
import { defineConfig } from "vitest/config";

// The control-plane suite runs once per runtime. The docker project joins when a daemon answers,
// and always in CI, where its globalSetup fails (never skips) without a daemon.
const dockerAnswers =
  spawnSync("docker", ["info"], { stdio: "ignore", timeout: 5000 }).status === 0;
const withDocker = dockerAnswers || process.env.CI === "true";

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
    ],
  },
});
