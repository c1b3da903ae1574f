import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RuntimeLogger, StartSandboxOptions } from "../../types";
import { ProcessRuntime, type ProcessRuntimeOptions } from "../process-runtime";
import { readCmdline } from "../read-proc";
import { resolveSandboxPaths } from "../sandbox-files";
import { findSandboxProcesses, killSandboxProcesses } from "../sandbox-processes";
import { AGENT_SERVER_BUNDLE } from "./build-agent-server";

export { AGENT_SERVER_BUNDLE };

export interface LogEntry {
  level: string;
  fields: object;
  message?: string;
}

/** Creates runtimes over temporary root directories and cleans up after them. */
export class RuntimeFixture {
  readonly logs: LogEntry[] = [];
  private readonly runtimes: ProcessRuntime[] = [];
  private readonly rootDirs = new Set<string>();

  async createRootDir(): Promise<string> {
    const rootDir = await mkdtemp(path.join(tmpdir(), "process-runtime-"));
    this.rootDirs.add(rootDir);
    return rootDir;
  }

  createRuntime(rootDir: string, options: Partial<ProcessRuntimeOptions> = {}): ProcessRuntime {
    this.rootDirs.add(rootDir);
    const runtime = new ProcessRuntime({
      rootDir,
      agentServerEntry: AGENT_SERVER_BUNDLE,
      logger: this.recordingLogger(),
      ...options,
    });
    this.runtimes.push(runtime);
    return runtime;
  }

  /**
   * Deletes every sandbox under the fixture's root directories; then, should delete have missed
   * something, kills what still carries one of those sandbox directories as its marker (so only
   * processes these tests started).
   */
  async cleanUp(): Promise<void> {
    for (const rootDir of this.rootDirs) {
      const entries = await readdir(rootDir).catch(() => []);
      const sweeper = new ProcessRuntime({
        rootDir,
        agentServerEntry: AGENT_SERVER_BUNDLE,
        sandboxing: "none",
      });
      await Promise.all(entries.map((id) => sweeper.delete(id)));
      await sweeper.close();
      await Promise.all(entries.map((id) => killSandboxProcesses(path.join(rootDir, id))));
      await rm(rootDir, { recursive: true, force: true });
    }
    await Promise.all(this.runtimes.map((runtime) => runtime.close()));
    this.rootDirs.clear();
    this.runtimes.length = 0;
    this.logs.length = 0;
  }

  private recordingLogger(): RuntimeLogger {
    const record = (level: string) => (fields: object, message?: string) => {
      this.logs.push({ level, fields, message });
    };
    return {
      info: record("info"),
      warn: record("warn"),
      error: record("error"),
      debug: record("debug"),
    };
  }
}

/** Headers for the agent server's /api routes. */
export function sessionHeaders(sessionApiKey: string): Record<string, string> {
  return { "content-type": "application/json", "x-session-api-key": sessionApiKey };
}

/** Creates a shell-agent conversation on the agent server and returns its id. */
export async function createConversation(
  agentServerUrl: string,
  sessionApiKey: string,
  workingDir: string,
): Promise<string> {
  const response = await fetch(`${agentServerUrl}/api/conversations`, {
    method: "POST",
    headers: sessionHeaders(sessionApiKey),
    body: JSON.stringify({ agent: { kind: "shell" }, workspace: { working_dir: workingDir } }),
  });
  if (response.status !== 201) throw new Error(`create conversation: ${response.status}`);
  const body = (await response.json()) as { id: string };
  return body.id;
}

/** Runs a shell command through the agent server and returns its stdout. */
export async function runCommand(
  agentServerUrl: string,
  sessionApiKey: string,
  command: string,
): Promise<string> {
  const response = await fetch(`${agentServerUrl}/api/bash/execute_bash_command`, {
    method: "POST",
    headers: sessionHeaders(sessionApiKey),
    body: JSON.stringify({ command, timeout: 30 }),
  });
  if (response.status !== 200) throw new Error(`execute_bash_command: ${response.status}`);
  const body = (await response.json()) as { stdout: string };
  return body.stdout;
}

/**
 * The host pid of the sandbox's process that is `pidInside` in its own pid namespace (what
 * `echo $!` printed inside); the same number for an unisolated sandbox.
 */
export async function hostPidOf(sandboxDir: string, pidInside: number): Promise<number> {
  for (const { pid } of await findSandboxProcesses(sandboxDir)) {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    const nsPids = /^NSpid:\s*(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/) ?? [];
    if (Number(nsPids.at(-1)) === pidInside) return pid;
  }
  throw new Error(`no process ${pidInside} in sandbox ${sandboxDir}`);
}

/** The host pid of the sandbox's agent server (under bubblewrap, not bwrap's own pid). */
export async function agentServerHostPid(sandboxDir: string): Promise<number> {
  for (const { pid } of await findSandboxProcesses(sandboxDir)) {
    const argv = (await readCmdline(pid)) ?? [];
    if (argv[1]?.endsWith("agent-server.js")) return pid;
  }
  throw new Error(`no agent server runs in sandbox ${sandboxDir}`);
}

/** A process's initial environment. */
export async function readEnviron(pid: number): Promise<Record<string, string>> {
  const environ = await readFile(`/proc/${pid}/environ`, "utf8");
  return Object.fromEntries(
    environ
      .split("\0")
      .filter(Boolean)
      .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
  );
}

export interface BashResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a shell command through the agent server: exit code and output. */
export async function runBash(
  agentServerUrl: string,
  sessionApiKey: string,
  command: string,
): Promise<BashResult> {
  const response = await fetch(`${agentServerUrl}/api/bash/execute_bash_command`, {
    method: "POST",
    headers: sessionHeaders(sessionApiKey),
    body: JSON.stringify({ command, timeout: 30 }),
  });
  if (response.status !== 200) throw new Error(`execute_bash_command: ${response.status}`);
  const body = (await response.json()) as {
    exit_code: number | null;
    stdout: string | null;
    stderr: string | null;
  };
  return { exitCode: body.exit_code ?? -1, stdout: body.stdout ?? "", stderr: body.stderr ?? "" };
}

/** Downloads a file through the agent server's file route: status and text. */
export async function downloadFile(
  agentServerUrl: string,
  sessionApiKey: string,
  file: string,
): Promise<{ status: number; text: string }> {
  const response = await fetch(
    `${agentServerUrl}/api/file/download?path=${encodeURIComponent(file)}`,
    { headers: sessionHeaders(sessionApiKey) },
  );
  return { status: response.status, text: await response.text() };
}

export interface StartedSandbox {
  id: string;
  key: string;
  url: string;
  /** Its directory on the host. */
  dir: string;
}

/** Starts a sandbox with a fresh id and key, and waits until its agent server answers. */
export async function startReadySandbox(
  runtime: ProcessRuntime,
  rootDir: string,
  options: Partial<StartSandboxOptions> = {},
): Promise<StartedSandbox> {
  const id = `sb_${randomUUID().slice(0, 8)}`;
  const key = `key-${randomUUID()}`;
  const started = await runtime.start({
    sandboxId: id,
    ownerId: "user_1",
    specId: "default",
    sessionApiKey: key,
    env: {},
    ...options,
  });
  await runtime.waitUntilReady(id, 20_000);
  const url = started.agentServerUrl as string;
  return { id, key, url, dir: resolveSandboxPaths(rootDir, id).dir };
}
