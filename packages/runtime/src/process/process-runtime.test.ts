import { randomUUID } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { StartSandboxOptions } from "../types";
import { detectBwrap } from "./isolation/detect-bwrap";
import { INSIDE } from "./isolation/sandbox-layout";
import type { ProcessRuntime, ProcessRuntimeOptions } from "./process-runtime";
import { readCmdline, readProcState } from "./read-proc";
import { readSandboxState, resolveSandboxPaths, type SandboxPaths } from "./sandbox-files";
import { findSandboxGroups, findSandboxProcesses } from "./sandbox-processes";
import {
  agentServerHostPid,
  createConversation,
  hostPidOf,
  RuntimeFixture,
  readEnviron,
  runCommand,
  sessionHeaders,
} from "./test/support";

const READY_TIMEOUT_MS = 20_000;

/** Under bubblewrap wherever it works (it does in CI: process-runtime-isolation.test.ts). */
const DEFAULT_ISOLATION = detectBwrap().usable ? "namespaces" : "none";

const fixture = new RuntimeFixture();

afterEach(async () => {
  await fixture.cleanUp();
});

function startOptions(overrides: Partial<StartSandboxOptions> = {}): StartSandboxOptions {
  return {
    sandboxId: `sb_${randomUUID().slice(0, 8)}`,
    ownerId: "user_1",
    specId: "default",
    sessionApiKey: `key-${randomUUID()}`,
    env: { GREETING: "hello" },
    labels: { owner: "user_1" },
    ...overrides,
  };
}

/** Starts a sandbox and waits until its agent server answers. */
async function startReady(runtime: ProcessRuntime, overrides: Partial<StartSandboxOptions> = {}) {
  const options = startOptions(overrides);
  const { agentServerUrl } = await runtime.start(options);
  await runtime.waitUntilReady(options.sandboxId, READY_TIMEOUT_MS);
  return { options, url: agentServerUrl as string };
}

async function agentServerPid(rootDir: string, sandboxId: string): Promise<number> {
  const state = await readSandboxState(resolveSandboxPaths(rootDir, sandboxId));
  if (state?.pid == null) throw new Error(`no pid recorded for ${sandboxId}`);
  return state.pid;
}

/** The directories the agent server is given: inside paths under bubblewrap, host paths without. */
function expectedDirs(runtime: ProcessRuntime, paths: SandboxPaths) {
  return runtime.isolation === "namespaces"
    ? { home: INSIDE.home, dataDir: INSIDE.agentData, workspaceDir: INSIDE.workspace }
    : { home: paths.dir, dataDir: paths.dataDir, workspaceDir: paths.workspaceDir };
}

/** Starts `sleep 300` in the background through the agent server; its host pid. */
async function startSleeper(sandboxDir: string, url: string, sessionApiKey: string) {
  const pidInside = Number(
    await runCommand(url, sessionApiKey, "sleep 300 >/dev/null 2>&1 & echo $!"),
  );
  return hostPidOf(sandboxDir, pidInside);
}

/** True when a request to `url` got no answer within a short window (the server is frozen). */
async function staysSilent(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(500) });
    return false;
  } catch (error) {
    return error instanceof Error && error.name === "TimeoutError";
  }
}

describe.each([
  { name: "by default", sandboxing: undefined, isolation: DEFAULT_ISOLATION },
  { name: "unisolated", sandboxing: "none", isolation: "none" },
] as const)("ProcessRuntime $name", { timeout: 60_000 }, ({ sandboxing, isolation }) => {
  /** A runtime in this block's mode. */
  const create = (rootDir: string, options: Partial<ProcessRuntimeOptions> = {}) => {
    const runtime = fixture.createRuntime(rootDir, {
      ...options,
      ...(sandboxing ? { sandboxing } : {}),
    });
    expect(runtime.isolation).toBe(isolation);
    return runtime;
  };

  it("gives the agent server its own directory and a minimal environment", async () => {
    const rootDir = await fixture.createRootDir();
    const runtime = create(rootDir);
    // A second accepted key through the back door of the extra env is dropped.
    const { options } = await startReady(runtime, {
      env: { GREETING: "hello", OH_SESSION_API_KEYS_0: "another-key" },
    });
    const paths = resolveSandboxPaths(rootDir, options.sandboxId);

    // The agent server's own environment (under bubblewrap, bwrap's carries only the marker).
    const env = await readEnviron(await agentServerHostPid(paths.dir));
    // Unisolated: the marker that finds its processes; under bubblewrap: PWD, set by --chdir.
    const byMode = runtime.isolation === "none" ? ["SANDBOX_DIR"] : ["PWD"];
    // In a network of its own: the proxy variables naming the control plane's egress proxy.
    const proxy =
      runtime.network === "own"
        ? ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "NO_PROXY", "no_proxy"]
        : [];
    expect(Object.keys(env).sort()).toEqual(
      [
        "DATA_DIR",
        "GREETING",
        "HOME",
        "LANG",
        "PATH",
        ...byMode,
        ...proxy,
        "SESSION_API_KEY",
        "WORKSPACE_DIR",
      ].sort(),
    );
    const dirs = expectedDirs(runtime, paths);
    expect(env).toMatchObject({
      HOME: dirs.home,
      DATA_DIR: dirs.dataDir,
      WORKSPACE_DIR: dirs.workspaceDir,
      SESSION_API_KEY: options.sessionApiKey,
      GREETING: "hello",
    });

    // The key is kept only in the owner-only secrets file, and never logged; no command line
    // (readable by every user of the host) holds it, bwrap's neither.
    for (const { pid } of await findSandboxProcesses(paths.dir)) {
      expect((await readCmdline(pid))?.join(" ")).not.toContain(options.sessionApiKey);
    }
    expect(await readFile(paths.stateFile, "utf8")).not.toContain(options.sessionApiKey);
    expect((await stat(paths.secretsFile)).mode & 0o777).toBe(0o600);
    expect(JSON.stringify(fixture.logs)).not.toContain(options.sessionApiKey);
    expect(await readFile(paths.logFile, "utf8")).toContain('"event":"listening"');
  });

  it("pauses and resumes every process of the sandbox, both idempotently", async () => {
    const rootDir = await fixture.createRootDir();
    const runtime = create(rootDir);
    const { options, url } = await startReady(runtime);
    const dir = resolveSandboxPaths(rootDir, options.sandboxId).dir;
    // The agent server runs commands in process groups of their own; pause must reach them too.
    const sleeperPid = await startSleeper(dir, url, options.sessionApiKey);

    expect(await runtime.pause(options.sandboxId)).toMatchObject({ state: "paused" });
    expect(await runtime.inspect(options.sandboxId)).toMatchObject({ state: "paused" });
    expect(await readProcState(sleeperPid)).toBe("stopped");
    // Every process of the sandbox, bwrap's own included, is stopped when pause returns.
    const processes = await findSandboxProcesses(dir);
    expect(processes.length).toBeGreaterThanOrEqual(runtime.isolation === "none" ? 2 : 4);
    expect(processes.map((found) => found.state)).toEqual(processes.map(() => "T"));
    expect(await staysSilent(`${url}/health`)).toBe(true);
    expect(await runtime.pause(options.sandboxId)).toMatchObject({ state: "paused" });

    expect(await runtime.resume(options.sandboxId)).toMatchObject({ state: "running" });
    expect(await readProcState(sleeperPid)).toBe("alive");
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect(await runtime.resume(options.sandboxId)).toMatchObject({ state: "running" });
  });

  it("reports an agent server killed from outside as exited, and resume restarts it with its data", async () => {
    const rootDir = await fixture.createRootDir();
    const runtime = create(rootDir);
    const exits: [string, string][] = [];
    runtime.on("exit", (sandboxId, detail) => exits.push([sandboxId, detail]));
    const { options, url } = await startReady(runtime);
    const workspace = resolveSandboxPaths(rootDir, options.sandboxId).workspaceDir;
    const conversationId = await createConversation(
      url,
      options.sessionApiKey,
      expectedDirs(runtime, resolveSandboxPaths(rootDir, options.sandboxId)).workspaceDir,
    );

    // The agent server itself: under bubblewrap, bwrap reports its death as exit code 137.
    process.kill(await agentServerHostPid(path.dirname(workspace)), "SIGKILL");
    await expect
      .poll(() => runtime.inspect(options.sandboxId), { timeout: 5000 })
      .toMatchObject({
        state: "exited",
        agentServerUrl: null,
        detail: "agent server exited (signal SIGKILL)",
      });
    expect(exits).toEqual([[options.sandboxId, "agent server exited (signal SIGKILL)"]]);
    await expect(runtime.pause(options.sandboxId)).rejects.toThrow(/cannot pause/);

    const resumed = await runtime.resume(options.sandboxId);
    expect(resumed).toMatchObject({ state: "running", detail: null });
    const conversation = await fetch(
      `${resumed.agentServerUrl}/api/conversations/${conversationId}`,
      {
        headers: sessionHeaders(options.sessionApiKey),
      },
    );
    expect(conversation.status).toBe(200);
  });

  it("delete stops every process of the sandbox and removes its directory; twice is fine", async () => {
    const rootDir = await fixture.createRootDir();
    const runtime = create(rootDir);
    const exits: string[] = [];
    runtime.on("exit", (sandboxId) => exits.push(sandboxId));
    const { options, url } = await startReady(runtime);
    const dir = resolveSandboxPaths(rootDir, options.sandboxId).dir;
    const pids = (await findSandboxProcesses(dir)).map((found) => found.pid);
    const sleeperPid = await startSleeper(dir, url, options.sessionApiKey);
    await runtime.pause(options.sandboxId);

    await runtime.delete(options.sandboxId);
    for (const pid of [...pids, sleeperPid]) expect(await readProcState(pid)).toBe("gone");
    expect(await findSandboxProcesses(dir)).toEqual([]);
    await expect(stat(path.join(rootDir, options.sandboxId))).rejects.toThrow(/ENOENT/);
    expect(await runtime.inspect(options.sandboxId)).toMatchObject({ state: "missing" });
    await expect(runtime.delete(options.sandboxId)).resolves.toBeUndefined();
    expect(await runtime.list()).toEqual([]);
    expect(exits).toEqual([]);
  });

  it("a new runtime over the same root adopts running and paused sandboxes, and marks dead ones", async () => {
    const rootDir = await fixture.createRootDir();
    const first = create(rootDir);
    const { options: running } = await startReady(first, { labels: { name: "running" } });
    const { options: paused } = await startReady(first, { labels: { name: "paused" } });
    const { options: dead } = await startReady(first, { labels: { name: "dead" } });
    await first.pause(paused.sandboxId);
    // The launched process (bwrap under bubblewrap): what it leaves behind is killed too.
    process.kill(await agentServerPid(rootDir, dead.sandboxId), "SIGKILL");
    await expect.poll(async () => (await first.inspect(dead.sandboxId)).state).toBe("exited");
    const deadDir = resolveSandboxPaths(rootDir, dead.sandboxId).dir;
    await expect.poll(() => findSandboxProcesses(deadDir)).toEqual([]);
    await first.close();

    const second = create(rootDir);
    const listed = await second.list();
    const byId = new Map(listed.map((sandbox) => [sandbox.sandboxId, sandbox]));
    expect(listed).toHaveLength(3);
    expect(byId.get(running.sandboxId)).toMatchObject({
      state: "running",
      labels: { name: "running" },
    });
    expect(byId.get(paused.sandboxId)).toMatchObject({
      state: "paused",
      labels: { name: "paused" },
    });
    expect(byId.get(dead.sandboxId)).toMatchObject({
      state: "exited",
      detail: expect.stringContaining("not running"),
    });

    // Adopted sandboxes are fully managed: resumed, and restarted with the key from disk.
    expect(await second.resume(paused.sandboxId)).toMatchObject({ state: "running" });
    const restarted = await second.resume(dead.sandboxId);
    expect(restarted).toMatchObject({ state: "running" });
    const search = await fetch(`${restarted.agentServerUrl}/api/conversations/search`, {
      headers: sessionHeaders(dead.sessionApiKey),
    });
    expect(search.status).toBe(200);
  });
});

describe("ProcessRuntime", { timeout: 60_000 }, () => {
  it("starts an agent server that becomes running and guards /api with the session key", async () => {
    const rootDir = await fixture.createRootDir();
    const runtime = fixture.createRuntime(rootDir);
    const options = startOptions();

    const started = await runtime.start(options);
    expect(started).toMatchObject({ state: "starting", labels: { owner: "user_1" } });
    // The host's loopback, or the namespace's end of its veth pair.
    expect(started.agentServerUrl).toMatch(
      runtime.networkLink === "veth"
        ? /^http:\/\/198\.19\.\d+\.\d+:8000$/
        : /^http:\/\/127\.0\.0\.1:\d+$/,
    );

    const ready = await runtime.waitUntilReady(options.sandboxId, READY_TIMEOUT_MS);
    expect(ready).toMatchObject({ state: "running", agentServerUrl: started.agentServerUrl });
    expect(await runtime.inspect(options.sandboxId)).toMatchObject({ state: "running" });

    const url = started.agentServerUrl as string;
    const health = await fetch(`${url}/health`);
    expect(await health.json()).toEqual({ status: "ok" });
    const withKey = await fetch(`${url}/api/conversations/search`, {
      headers: sessionHeaders(options.sessionApiKey),
    });
    expect(withKey.status).toBe(200);
    const withoutKey = await fetch(`${url}/api/conversations/search`);
    expect(withoutKey.status).toBe(401);
  });

  it("notices when an adopted agent server dies", async () => {
    const rootDir = await fixture.createRootDir();
    const first = fixture.createRuntime(rootDir);
    const { options } = await startReady(first);
    await first.close();
    const second = fixture.createRuntime(rootDir, { watchIntervalMs: 100 });
    const exits: string[] = [];
    second.on("exit", (_sandboxId, detail) => exits.push(detail));
    expect(await second.inspect(options.sandboxId)).toMatchObject({ state: "running" });

    const dir = resolveSandboxPaths(rootDir, options.sandboxId).dir;
    process.kill(await agentServerHostPid(dir), "SIGKILL");
    await expect.poll(() => exits, { timeout: 5000 }).toHaveLength(1);
    expect(exits[0]).toMatch(/^agent server exited/);
    expect(await second.inspect(options.sandboxId)).toMatchObject({ state: "exited" });
  });

  it("reports an agent server that cannot start, and waitUntilReady rejects with the reason", async () => {
    const rootDir = await fixture.createRootDir();
    const runtime = fixture.createRuntime(rootDir, {
      agentServerEntry: path.join(rootDir, "no-such-agent-server.js"),
    });
    const options = startOptions();

    const started = await runtime.start(options);
    expect(started).toMatchObject({ state: "exited", agentServerUrl: null });
    expect(started.detail).toMatch(/^agent server exited \(code 1\); last output:\n/);
    expect(started.detail).toContain("no-such-agent-server.js");
    await expect(runtime.waitUntilReady(options.sandboxId, READY_TIMEOUT_MS)).rejects.toThrow(
      /is not ready: agent server exited \(code 1\)/,
    );
    await expect(runtime.resume(options.sandboxId)).rejects.toThrow(/could not be restarted/);
    expect(await runtime.list()).toMatchObject([{ sandboxId: options.sandboxId, state: "exited" }]);
  });

  it("takes down a command that never prints its listening line", async () => {
    const rootDir = await fixture.createRootDir();
    const runtime = fixture.createRuntime(rootDir, { listenTimeoutMs: 300 });
    // The runtime appends `--port 0 --host ...`, which become the shell's positional parameters.
    const options = startOptions({ command: ["sh", "-c", "echo not an agent server; sleep 60"] });

    const started = await runtime.start(options);
    expect(started).toMatchObject({ state: "exited", agentServerUrl: null });
    expect(started.detail).toBe(
      "agent server printed no listening line within 300 ms; last output:\nnot an agent server",
    );
    expect(await findSandboxGroups(path.join(rootDir, options.sandboxId))).toEqual([]);
  });

  it("reports a command that exits at once as exited, and delete still works (no lost exit)", async () => {
    const rootDir = await fixture.createRootDir();
    const runtime = fixture.createRuntime(rootDir);
    // /bin/true can exit before the runtime has finished setting up its launch; repeated so a
    // lost 'exit' (which used to hang start and every later call for the sandbox) shows up.
    for (let i = 0; i < 10; i++) {
      const options = startOptions({ sandboxId: `sb_instant_${i}`, command: ["/bin/true"] });
      const started = await runtime.start(options);
      expect(started.state).toBe("exited");
      expect(started.detail).toMatch(/exited \(code 0\)/);
      await runtime.delete(options.sandboxId);
      expect((await runtime.inspect(options.sandboxId)).state).toBe("missing");
    }
  });

  it("refuses a second sandbox with the same id and ids that are not plain names", async () => {
    const rootDir = await fixture.createRootDir();
    const runtime = fixture.createRuntime(rootDir);
    const options = startOptions();
    await runtime.start(options);
    await expect(runtime.start(options)).rejects.toThrow(/already exists/);
    await expect(runtime.start(startOptions({ sandboxId: "../escape" }))).rejects.toThrow(
      /invalid sandbox id/,
    );
    expect(await runtime.inspect("../escape")).toMatchObject({ state: "missing" });
  });
});
