// `npm start`: runs the built control plane. With Docker answering (and SANDBOX_RUNTIME not
// "process"), the sandbox image is built first when missing, so the docker runtime can use it.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SERVER_ENV, SERVER_NODE_FLAGS } from "../../apps/server/node-flags.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const runtime = process.env.SANDBOX_RUNTIME ?? "auto";
// The file DEFAULT_SANDBOX_IMAGE is made from (plain Node cannot import the TypeScript constant).
const sandboxImage = JSON.parse(
  readFileSync(
    new URL("../../packages/runtime/src/docker/sandbox-image.json", import.meta.url),
    "utf8",
  ),
);
const image = process.env.SANDBOX_IMAGE ?? `${sandboxImage.repository}:${sandboxImage.tag}`;

function dockerAnswers() {
  const info = spawnSync("docker", ["info", "--format", "{{.ServerVersion}}"], {
    stdio: "ignore",
    timeout: 5000,
  });
  return info.status === 0;
}

if (runtime !== "process" && dockerAnswers()) {
  const inspect = spawnSync("docker", ["image", "inspect", image], { stdio: "ignore" });
  if (inspect.status !== 0) {
    console.log(`Building the sandbox image ${image} (first start only)...`);
    const built = spawnSync("bash", ["tooling/image/build-image.sh"], {
      cwd: root,
      stdio: "inherit",
    });
    if (built.status !== 0) {
      console.error(
        "Building the sandbox image failed; starting anyway (set SANDBOX_RUNTIME=process to skip Docker).",
      );
    }
  }
}

const server = spawn(process.execPath, [...SERVER_NODE_FLAGS, "apps/server/dist/server.js"], {
  cwd: root,
  env: { ...SERVER_ENV, ...process.env },
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
