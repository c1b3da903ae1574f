import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Dockerode from "dockerode";
import type { TestProject } from "vitest/node";
import { describeDockerConnection } from "../docker-connection";
import { isNotFound } from "../docker-errors";
import { isDockerAvailable } from "../is-docker-available";
import { DEFAULT_SANDBOX_IMAGE } from "../options";
import { testDockerConnection } from "./connection";
import { removeLeftovers } from "./leftovers";

declare module "vitest" {
  export interface ProvidedContext {
    /** Why the docker tests are skipped; empty when a daemon answers and the image exists. */
    dockerSkipReason: string;
    sandboxImage: string;
    /** Marks everything this run creates, so the teardown removes exactly that. */
    testRun: string;
  }
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../..");

/** Bases tooling/image/build-image.sh can use; the tests only ever use one that is already here. */
const LOCAL_BASES = ["node:20-bookworm-slim", "sandbox-server/base:bookworm-node20"];

/**
 * Docker tests need a daemon and the sandbox image. Without a daemon they are skipped on a
 * developer's machine but fail in CI, where skipping would hide that nothing was tested.
 * Nothing here pulls from a registry. The returned teardown removes what the run left behind.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const image = process.env.SANDBOX_TEST_IMAGE ?? DEFAULT_SANDBOX_IMAGE;
  const testRun = randomBytes(4).toString("hex");
  project.provide("sandboxImage", image);
  project.provide("testRun", testRun);
  const connection = testDockerConnection();
  const docker = new Dockerode(connection);
  const teardown = () => removeLeftovers(docker, testRun);
  if (!(await isDockerAvailable({ docker: connection, timeoutMs: 3000 }))) {
    const reason = `no Docker daemon answers on ${describeDockerConnection(connection)} (start one: bash tooling/docker/docker-up.sh)`;
    if (process.env.CI === "true") {
      throw new Error(`CI=true: the docker runtime tests must run, but ${reason}`);
    }
    console.warn(`[docker tests] skipped: ${reason}`);
    project.provide("dockerSkipReason", reason);
    return async () => undefined;
  }
  if (process.env.SANDBOX_TEST_IMAGE === undefined) {
    // Always through the script: it is a no-op when the image matches the current bundle, and
    // otherwise the tests would quietly run an older agent server.
    await runBuildScript(await presentBase(docker));
  }
  await docker.getImage(image).inspect();
  project.provide("dockerSkipReason", "");
  return teardown;
}

/**
 * The script pulls its base when that is missing (and waits up to 20 s for a registry that
 * cannot answer here). Naming a base that is present locally means it never tries.
 */
async function presentBase(docker: Dockerode): Promise<string> {
  const wanted = process.env.BASE_IMAGE;
  const candidates = wanted ? [wanted] : LOCAL_BASES;
  for (const candidate of candidates) {
    try {
      await docker.getImage(candidate).inspect();
      return candidate;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  throw new Error(
    `no base image for the sandbox image is present (${candidates.join(", ")}); the tests never pull: run \`npm run image\` once, then the tests again`,
  );
}

function runBuildScript(baseImage: string): Promise<void> {
  const script = path.join(repoRoot, "tooling/image/build-image.sh");
  return new Promise((resolve, reject) => {
    // stderr carries the build's progress; stdout only the image name.
    const child = spawn("bash", [script], {
      cwd: repoRoot,
      env: { ...process.env, BASE_IMAGE: baseImage },
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${path.relative(repoRoot, script)} failed with exit code ${code}`));
    });
  });
}
