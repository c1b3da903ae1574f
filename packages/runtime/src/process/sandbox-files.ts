import { mkdir, open, readFile, rename } from "node:fs/promises";
import path from "node:path";
import type { SandboxEgressPolicy } from "@sandbox-server/egress";
import type { SandboxLimits } from "./isolation/sandbox-cgroup";

/**
 * The on-disk layout of one process sandbox, `rootDir/<sandboxId>/`:
 * - `workspace/`       WORKSPACE_DIR, where the agent's commands run
 * - `agent-data/`      DATA_DIR, the agent server's conversations and events
 * - `home/`            HOME under bubblewrap (unisolated, HOME is this directory itself)
 * (`rootDir/.view/` holds what every bubblewrapped sandbox is shown read-only: isolation/shared-view.ts)
 * - `sandbox.json`     what a restarted control plane needs to adopt the process (no secrets)
 * - `secrets.json`     session key and extra env (mode 0600), so an adopted sandbox can be
 *                      restarted with the same key; the agent server itself can read this file,
 *                      but it holds nothing the agent server was not already given in its env
 * - `agent-server.log` the agent server's stdout and stderr
 */
export interface SandboxPaths {
  dir: string;
  workspaceDir: string;
  dataDir: string;
  homeDir: string;
  stateFile: string;
  secretsFile: string;
  logFile: string;
}

export function resolveSandboxPaths(rootDir: string, sandboxId: string): SandboxPaths {
  const dir = path.join(rootDir, sandboxId);
  return {
    dir,
    workspaceDir: path.join(dir, "workspace"),
    dataDir: path.join(dir, "agent-data"),
    homeDir: path.join(dir, "home"),
    stateFile: path.join(dir, "sandbox.json"),
    secretsFile: path.join(dir, "secrets.json"),
    logFile: path.join(dir, "agent-server.log"),
  };
}

/** Sandbox ids become directory names, so anything that could leave `rootDir` is refused. */
export function isSafeSandboxId(sandboxId: string): boolean {
  return /^[A-Za-z0-9_-]{1,128}$/.test(sandboxId);
}

export function assertSafeSandboxId(sandboxId: string): void {
  if (!isSafeSandboxId(sandboxId)) {
    throw new Error(`invalid sandbox id ${JSON.stringify(sandboxId)}: use [A-Za-z0-9_-]`);
  }
}

/** Idempotent, so a relaunch also completes the directories of a sandbox made by an older runtime. */
export async function createSandboxDirs(paths: SandboxPaths): Promise<void> {
  await mkdir(paths.workspaceDir, { recursive: true, mode: 0o700 });
  await mkdir(paths.dataDir, { recursive: true, mode: 0o700 });
  // Where agent-data is mounted inside the bubblewrap view (HOME/.agent-server, as in the image).
  await mkdir(path.join(paths.homeDir, ".agent-server"), { recursive: true, mode: 0o700 });
}

export interface SandboxState {
  sandboxId: string;
  /** Process id of the agent server, also its process-group id; null if it never listened. */
  pid: number | null;
  port: number | null;
  /** The exact argv launched, compared with /proc/<pid>/cmdline so a reused pid is not adopted. */
  argv: string[];
  /** The start option `command`, null for the runtime's own `node <agent-server entry>`. */
  command: string[] | null;
  labels: Record<string, string>;
  /** Limits from the start options, applied again on every relaunch. */
  limits?: SandboxLimits;
  /** How this run was launched: under bubblewrap (`namespaces`) or as a plain process. */
  isolation?: "namespaces" | "none";
  /** Name of the run's cgroup, when it has one (its CPU share, its limits). */
  cgroup?: string | null;
  /** Where this run's output starts in agent-server.log (for the tail in exit details). */
  logOffset: number;
  startedAt: string;
  /** The sandbox's egress policy (absent: the default), enforced where its network is its own. */
  egress?: SandboxEgressPolicy;
  /**
   * The sandbox's own network namespace (by `ip netns` name), the host port of its resolver, its
   * address on its veth pair, and the port of its egress proxy (on the host's 127.0.0.1 with
   * pasta, on the host's end of the pair with veth); absent or null when it shares the host's
   * network. With an address the host reaches the agent server at `address:port`, without one
   * (pasta) `port` is the host's end of pasta's forward.
   */
  network?: {
    namespace: string;
    resolverPort: number | null;
    address?: string | null;
    proxyPort?: number | null;
  } | null;
}

export interface SandboxSecrets {
  sessionApiKey: string;
  env: Record<string, string>;
}

export async function writeSandboxState(paths: SandboxPaths, state: SandboxState): Promise<void> {
  await writeFileAtomically(paths.stateFile, JSON.stringify(state, null, 2), 0o644);
}

/** Rewrites `sandbox.json` with `change` applied (nothing when there is none to change). */
export async function updateSandboxState(
  paths: SandboxPaths,
  change: (state: SandboxState) => SandboxState,
): Promise<void> {
  const state = await readSandboxState(paths);
  if (state !== null) await writeSandboxState(paths, change(state));
}

export async function writeSandboxSecrets(
  paths: SandboxPaths,
  secrets: SandboxSecrets,
): Promise<void> {
  await writeFileAtomically(paths.secretsFile, JSON.stringify(secrets), 0o600);
}

/** The state file, or null when it is missing or unreadable (a half-created sandbox). */
export async function readSandboxState(paths: SandboxPaths): Promise<SandboxState | null> {
  const value = await readJson(paths.stateFile);
  return isSandboxState(value) ? value : null;
}

export async function readSandboxSecrets(paths: SandboxPaths): Promise<SandboxSecrets | null> {
  const value = await readJson(paths.secretsFile);
  if (!isRecord(value) || typeof value.sessionApiKey !== "string") return null;
  if (!isStringRecord(value.env)) return null;
  return { sessionApiKey: value.sessionApiKey, env: value.env };
}

/**
 * A new sandbox's launch record: `secrets.json`, then `sandbox.json`, each durable as
 * writeFileAtomically makes it. Both files' data are written and flushed at once, not one flush
 * after another (this is on the path of every create); the renames stay in order, each
 * flushed before the next, so a `sandbox.json` that survives a crash always has its
 * `secrets.json` (a record that can be found can be relaunched).
 */
export async function writeLaunchRecord(
  paths: SandboxPaths,
  secrets: SandboxSecrets,
  state: SandboxState,
): Promise<void> {
  const [secretsTemporary, stateTemporary] = await Promise.all([
    writeFlushed(paths.secretsFile, JSON.stringify(secrets), 0o600),
    writeFlushed(paths.stateFile, JSON.stringify(state, null, 2), 0o644),
  ]);
  await rename(secretsTemporary, paths.secretsFile);
  await syncDirectory(paths.dir);
  await rename(stateTemporary, paths.stateFile);
  await syncDirectory(paths.dir);
}

/**
 * Written beside, flushed and renamed over, then the directory flushed: a crash (of the control
 * plane or of the machine) leaves either the old file or the new one, never a truncated one, and a
 * file written before a create was acknowledged is still there after the machine restarts.
 */
async function writeFileAtomically(file: string, text: string, mode: number): Promise<void> {
  const temporary = await writeFlushed(file, text, mode);
  await rename(temporary, file);
  await syncDirectory(path.dirname(file));
}

/** `text` in a file beside `file`, flushed to disk; returns that file's name. */
async function writeFlushed(file: string, text: string, mode: number): Promise<string> {
  const temporary = `${file}.${process.pid}.tmp`;
  const handle = await open(temporary, "w", mode);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return temporary;
}

/** Makes a directory's entries (a file created or renamed in it) durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, "utf8"));
  } catch {
    return null;
  }
}

function isSandboxState(value: unknown): value is SandboxState {
  return (
    isRecord(value) &&
    typeof value.sandboxId === "string" &&
    (value.pid === null || Number.isInteger(value.pid)) &&
    (value.port === null || Number.isInteger(value.port)) &&
    isStringArray(value.argv) &&
    (value.command === null || isStringArray(value.command)) &&
    isStringRecord(value.labels) &&
    (value.limits === undefined || isLimits(value.limits)) &&
    (value.isolation === undefined ||
      value.isolation === "namespaces" ||
      value.isolation === "none") &&
    (value.cgroup === undefined || value.cgroup === null || typeof value.cgroup === "string") &&
    (value.network === undefined || value.network === null || isRecord(value.network)) &&
    (value.egress === undefined || isRecord(value.egress)) &&
    Number.isInteger(value.logOffset) &&
    typeof value.startedAt === "string"
  );
}

function isLimits(value: unknown): value is SandboxLimits {
  return (
    isRecord(value) &&
    (value.pids === undefined || Number.isInteger(value.pids)) &&
    (value.memoryMb === undefined || typeof value.memoryMb === "number")
  );
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((item) => typeof item === "string");
}
