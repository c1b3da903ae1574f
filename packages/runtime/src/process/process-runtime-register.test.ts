import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { StartSandboxOptions } from "../types";
import { readSandboxSecrets, readSandboxState, resolveSandboxPaths } from "./sandbox-files";
import { findSandboxProcesses } from "./sandbox-processes";
import { RuntimeFixture, sessionHeaders } from "./test/support";

const READY_TIMEOUT_MS = 20_000;
const fixture = new RuntimeFixture();

afterEach(async () => {
  await fixture.cleanUp();
});

function startOptions(): StartSandboxOptions {
  return {
    sandboxId: `sb_${randomUUID().slice(0, 8)}`,
    ownerId: "user_1",
    specId: "default",
    sessionApiKey: `key-${randomUUID()}`,
    env: { GREETING: "hello" },
    labels: { owner: "user_1" },
  };
}

async function health(url: string | null, key: string): Promise<number> {
  const res = await fetch(`${url}/api/conversations/search`, { headers: sessionHeaders(key) });
  return res.status;
}

describe("register: the launch record is durable before anything runs", () => {
  it("writes sandbox.json without a pid and secrets.json, runs nothing, then start launches it", async () => {
    const rootDir = await fixture.createRootDir();
    const runtime = fixture.createRuntime(rootDir);
    const options = startOptions();
    const paths = resolveSandboxPaths(rootDir, options.sandboxId);

    await runtime.register(options);
    const state = await readSandboxState(paths);
    expect(state).toMatchObject({
      sandboxId: options.sandboxId,
      pid: null,
      labels: options.labels,
    });
    expect(await readSandboxSecrets(paths)).toEqual({
      sessionApiKey: options.sessionApiKey,
      env: options.env,
    });
    expect((await stat(paths.secretsFile)).mode & 0o777).toBe(0o600);
    expect(await findSandboxProcesses(paths.dir)).toEqual([]);
    expect((await runtime.inspect(options.sandboxId)).state).toBe("starting");
    expect((await runtime.list()).map((s) => s.sandboxId)).toEqual([options.sandboxId]);
    // Registering twice is refused, as starting twice is.
    await expect(runtime.register(options)).rejects.toThrow(/already exists/);

    await runtime.start(options);
    const ready = await runtime.waitUntilReady(options.sandboxId, READY_TIMEOUT_MS);
    expect(await health(ready.agentServerUrl, options.sessionApiKey)).toBe(200);
    expect((await readSandboxState(paths))?.pid).toEqual(expect.any(Number));
  });

  it("a control plane restarted before the launch finds the sandbox and resume launches it", async () => {
    const rootDir = await fixture.createRootDir();
    const options = startOptions();
    await fixture.createRuntime(rootDir).register(options);

    // The next control plane: a new runtime over the same directory.
    const successor = fixture.createRuntime(rootDir);
    const found = await successor.list();
    expect(found).toMatchObject([
      { sandboxId: options.sandboxId, state: "exited", labels: options.labels },
    ]);
    expect(found[0]?.detail).toMatch(/not been launched/);
    const resumed = await successor.resume(options.sandboxId);
    expect(resumed.state).toBe("running");
    expect(await health(resumed.agentServerUrl, options.sessionApiKey)).toBe(200);
  });
});
