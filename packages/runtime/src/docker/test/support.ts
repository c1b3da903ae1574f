import { randomBytes } from "node:crypto";
import Dockerode from "dockerode";
import { inject, vi } from "vitest";
import type { StartSandboxOptions } from "../../types";
import { DockerRuntime } from "../docker-runtime";
import { containerNameFor, USER_LABEL_PREFIX } from "../labels";
import type { DockerRuntimeOptions } from "../options";
import { testDockerConnection } from "./connection";
import { runtimeTestInstance, TEST_RUN_KEY } from "./leftovers";

export const skipReason = inject("dockerSkipReason");
export const sandboxImage = inject("sandboxImage");
/** The whole run's id (the global teardown removes its containers); see global-setup.ts. */
export const testRun = inject("testRun");
export const dockerMissing = skipReason !== "";
if (dockerMissing) console.warn(`[docker tests] skipping: ${skipReason}`);

/** Marks this file's containers, so `removeTestContainers` takes them and no other file's. */
const testFile = randomBytes(4).toString("hex");
const FILE_LABEL = "test-file";

/** Raw daemon access, for the things tests do "from outside" (kill, remove, read settings). */
export const docker = new Dockerode(testDockerConnection());

export function newSandboxId(): string {
  return `test-${randomBytes(6).toString("hex")}`;
}

export function startOptions(overrides: Partial<StartSandboxOptions> = {}): StartSandboxOptions {
  return {
    sandboxId: newSandboxId(),
    ownerId: "user-1",
    specId: "default",
    sessionApiKey: randomBytes(16).toString("hex"),
    env: {},
    ...overrides,
    labels: {
      ...overrides.labels,
      [TEST_RUN_KEY]: testRun,
      [FILE_LABEL]: testFile,
    },
  };
}

/** Runs a command through the agent server's bash endpoint, as a client of the sandbox would. */
export async function executeBash(
  agentServerUrl: string,
  sessionApiKey: string,
  command: string,
): Promise<{ exit_code: number; stdout: string; stderr: string }> {
  const response = await fetch(`${agentServerUrl}/api/bash/execute_bash_command`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-session-api-key": sessionApiKey },
    body: JSON.stringify({ command }),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`execute_bash_command answered ${response.status}`);
  return (await response.json()) as { exit_code: number; stdout: string; stderr: string };
}

/** `docker exec` as the image's user; resolves with the exit code and output. */
export async function execInContainer(
  sandboxId: string,
  command: string,
): Promise<{ exitCode: number | null; output: string }> {
  const container = docker.getContainer(containerNameFor(sandboxId));
  const exec = await container.exec({
    Cmd: ["bash", "-c", command],
    AttachStdout: true,
    AttachStderr: true,
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", resolve);
    stream.on("close", resolve);
    stream.on("error", reject);
  });
  const { ExitCode } = await exec.inspect();
  return { exitCode: ExitCode, output: Buffer.concat(chunks).toString("utf8") };
}

/** Labels for containers a test creates without the runtime, so the cleanup takes them too. */
export function testContainerLabels(): Record<string, string> {
  return {
    [`${USER_LABEL_PREFIX}${TEST_RUN_KEY}`]: testRun,
    [`${USER_LABEL_PREFIX}${FILE_LABEL}`]: testFile,
  };
}

/** This file's instance: its own network, invisible to other files' runtimes. */
export const testInstance = runtimeTestInstance(testRun, testFile);

export function createRuntime(options: DockerRuntimeOptions = {}): DockerRuntime {
  return new DockerRuntime({
    docker: testDockerConnection(),
    image: sandboxImage,
    instance: testInstance,
    ...options,
  });
}

/** Straight through the daemon, independent of the code under test. */
export async function removeTestContainers(): Promise<void> {
  const containers = await docker.listContainers({
    all: true,
    filters: { label: [`${USER_LABEL_PREFIX}${FILE_LABEL}=${testFile}`] },
  });
  await Promise.all(
    containers.map((summary) => docker.getContainer(summary.Id).remove({ force: true })),
  );
}

/** The file's afterAll: containers first, so that close() finds the network idle and removes it. */
export async function cleanUp(runtime: DockerRuntime): Promise<void> {
  await removeTestContainers();
  await runtime.close();
}

/**
 * Reads until `accept` takes the value (vitest's `vi.waitFor`, every 200 ms), and returns the last
 * value read either way: the caller's assertion on it says what was wrong.
 */
export async function waitFor<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  let last: { value: T } | null = null;
  try {
    return await vi.waitFor(
      async () => {
        const value = await read();
        last = { value };
        if (!accept(value)) throw new Error("not yet");
        return value;
      },
      { timeout: timeoutMs, interval: 200 },
    );
  } catch (error) {
    if (last === null) throw error;
    return (last as { value: T }).value;
  }
}
