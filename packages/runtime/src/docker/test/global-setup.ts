import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Dockerode from "dockerode";
import type { TestProject } from "vitest/node";
import { isDockerAvailable } from "../is-docker-available";
import { DEFAULT_SANDBOX_IMAGE } from "../options";

declare module "vitest" {
  export interface ProvidedContext {
    /** Why the docker tests are skipped; empty when a daemon answers and the image exists. */
    dockerSkipReason: string;
    sandboxImage: string;
  }
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../..");

/**
 * Docker tests need a daemon and the sandbox image. Without a daemon they are skipped on a
 * developer's machine but fail in CI, where skipping would hide that nothing was tested.
 */
export default async function setup(project: TestProject): Promise<void> {
  const image = process.env.SANDBOX_TEST_IMAGE ?? DEFAULT_SANDBOX_IMAGE;
  project.provide("sandboxImage", image);
  if (!(await isDockerAvailable({ timeoutMs: 3000 }))) {
    const reason =
      "no Docker daemon answers on /var/run/docker.sock (start one: bash scripts/docker-up.sh)";
    if (process.env.CI === "true") {
      throw new Error(`CI=true: the docker runtime tests must run, but ${reason}`);
    }
    console.warn(`[docker tests] skipped: ${reason}`);
    project.provide("dockerSkipReason", reason);
    return;
  }
  if (process.env.SANDBOX_TEST_IMAGE === undefined) {
    // Always through the script: it is a no-op when the image matches the current bundle, and
    // otherwise the tests would quietly run an older agent server.
    await runScript(path.join(repoRoot, "scripts/build-image.sh"));
  }
  const docker = new Dockerode({ socketPath: "/var/run/docker.sock" });
  await docker.getImage(image).inspect();
  project.provide("dockerSkipReason", "");
}

function runScript(script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // stderr carries the build's progress; stdout only the image name.
    const child = spawn("bash", [script], {
      cwd: repoRoot,
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${path.relative(repoRoot, script)} failed with exit code ${code}`));
    });
  });
}
