import { afterAll, describe, expect, it } from "vitest";
import { containerNameFor } from "./labels";
import {
  cleanUp,
  createRuntime,
  docker,
  dockerMissing,
  execInContainer,
  executeBash,
  startOptions,
  waitFor,
} from "./test/support";

describe.skipIf(dockerMissing)("DockerRuntime when containers fail", () => {
  const runtime = createRuntime();
  const exits: Array<{ sandboxId: string; detail: string }> = [];
  runtime.on("exit", (sandboxId, detail) => exits.push({ sandboxId, detail }));
  const exitOf = (sandboxId: string) =>
    waitFor(
      async () => exits.filter((exit) => exit.sandboxId === sandboxId),
      (found) => found.length > 0,
      10_000,
    );
  afterAll(() => cleanUp(runtime));

  it("reports a container killed from outside as exited, and brings it back on resume", async () => {
    const options = startOptions();
    await runtime.start(options);
    await runtime.waitUntilReady(options.sandboxId, 30_000);

    await docker.getContainer(containerNameFor(options.sandboxId)).kill();
    const exited = await waitFor(
      () => runtime.inspect(options.sandboxId),
      (sandbox) => sandbox.state === "exited",
      10_000,
    );
    expect(exited.state).toBe("exited");
    expect(exited.detail).toMatch(/exited with code 137 \(SIGKILL\)/);
    expect(exited.agentServerUrl).toBeNull();
    // The exit is also told as it happens, with the same words inspect uses.
    const [told] = await exitOf(options.sandboxId);
    expect(told?.detail).toMatch(/exited with code 137 \(SIGKILL\)/);

    const back = await runtime.resume(options.sandboxId);
    expect(back.state).toBe("running");
    // The same container comes back with the same session key.
    const result = await executeBash(back.agentServerUrl!, options.sessionApiKey, "echo back");
    expect(result.stdout.trim()).toBe("back");
  });

  it("reports a container removed from outside as missing", async () => {
    const options = startOptions();
    await runtime.start(options);
    await docker.getContainer(containerNameFor(options.sandboxId)).remove({ force: true });

    const sandbox = await runtime.inspect(options.sandboxId);
    expect(sandbox.state).toBe("missing");
    await expect(runtime.resume(options.sandboxId)).rejects.toThrow(/no such container/);
    await runtime.delete(options.sandboxId);
    const [told] = await exitOf(options.sandboxId);
    expect(told?.detail).toMatch(/removed outside the control plane/);
  });

  it("tells no exit for a sandbox it deletes itself", async () => {
    const deleted = startOptions();
    const killed = startOptions();
    await Promise.all([runtime.start(deleted), runtime.start(killed)]);
    await runtime.waitUntilReady(deleted.sandboxId, 30_000);
    await runtime.delete(deleted.sandboxId);

    // The daemon reports exits in order: once a later exit is told, the deleted one's die event
    // has been seen (and dropped) already.
    await docker.getContainer(containerNameFor(killed.sandboxId)).kill();
    expect(await exitOf(killed.sandboxId)).toHaveLength(1);
    expect(exits.filter((exit) => exit.sandboxId === deleted.sandboxId)).toEqual([]);
  });

  it("rejects waitUntilReady at once when the agent server exits instead of timing out", async () => {
    const options = startOptions({ command: ["bash", "-c", "echo boot failed >&2; exit 3"] });
    await runtime.start(options);

    // A budget longer than the test's own timeout: only an answer at the exit can pass.
    await expect(runtime.waitUntilReady(options.sandboxId, 120_000)).rejects.toThrow(
      /exited with code 3.*boot failed/s,
    );
    // It still exists: resume retries it (and says why it failed again), delete removes it.
    await expect(runtime.resume(options.sandboxId)).rejects.toThrow(/exited with code 3/);
    await runtime.delete(options.sandboxId);
    expect((await runtime.inspect(options.sandboxId)).state).toBe("missing");
  });

  it("keeps the sandbox alive when a command exceeds the memory limit", async () => {
    const options = startOptions({ resources: { memoryMb: 128 } });
    await runtime.start(options);
    const ready = await runtime.waitUntilReady(options.sandboxId, 30_000);

    const result = await executeBash(
      ready.agentServerUrl!,
      options.sessionApiKey,
      'node -e "const a=[];for(;;)a.push(Buffer.alloc(1<<20,1))"',
    );

    // The kernel kills the hog (SIGKILL: 137), not the agent server.
    expect(result.exit_code).not.toBe(0);
    expect((await runtime.inspect(options.sandboxId)).state).toBe("running");
  });

  it("says OOM when the memory limit kills the agent server itself", async () => {
    const options = startOptions({ resources: { memoryMb: 128 } });
    await runtime.start(options);
    await runtime.waitUntilReady(options.sandboxId, 30_000);

    // Make the agent server the OOM killer's first choice (raising one's own score needs no
    // privilege), then allocate past the limit.
    const marked = await execInContainer(
      options.sandboxId,
      "echo 1000 > /proc/$(pgrep -o -f '^node /opt/agent-server/agent-server.js')/oom_score_adj",
    );
    expect(marked.exitCode).toBe(0);
    await execInContainer(
      options.sandboxId,
      'node -e "const a=[];for(;;)a.push(Buffer.alloc(1<<20,1))"',
    ).catch(() => undefined);

    const exited = await waitFor(
      () => runtime.inspect(options.sandboxId),
      (sandbox) => sandbox.state === "exited",
      20_000,
    );
    expect(exited.state).toBe("exited");
    expect(exited.detail).toMatch(/OOM/);
    expect(exited.detail).toMatch(/memory limit of 128 MiB/);
    const [told] = await exitOf(options.sandboxId);
    expect(told?.detail).toMatch(/OOM/);
  });
});
