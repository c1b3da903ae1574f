import path from "node:path";
import type { RuntimeLogger } from "../types";

export interface ProcessRuntimeOptions {
  /** Parent of every sandbox directory (`rootDir/<sandboxId>/`). */
  rootDir: string;
  /** The bundled agent server (`apps/agent-server/dist/agent-server.js`). */
  agentServerEntry: string;
  /** Node binary that runs the bundle (default: the one running this code). */
  nodePath?: string;
  /** Loopback address agent servers listen on (default 127.0.0.1). */
  host?: string;
  logger?: RuntimeLogger;
  /** PATH inside sandboxes (default: the node binary's directory and the system directories). */
  sandboxPath?: string;
  /** LANG inside sandboxes (default C.UTF-8). */
  lang?: string;
  /** How long a new agent server may take to print its listening line (default 15 s). */
  listenTimeoutMs?: number;
  /** How long resume waits for /health before it rejects (default 30 s). */
  resumeTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL on delete (default 3 s). */
  stopGraceMs?: number;
  /** Budget of one /health probe in inspect (default 1 s). */
  probeTimeoutMs?: number;
  /** How often adopted processes are checked for exits (default 1 s). */
  watchIntervalMs?: number;
}

/** The options with their defaults filled in. */
export interface ProcessRuntimeSettings {
  rootDir: string;
  /** `node <agent-server entry>`, used unless a start names its own command. */
  defaultCommand: string[];
  host: string;
  sandboxPath: string;
  lang: string;
  listenTimeoutMs: number;
  resumeTimeoutMs: number;
  stopGraceMs: number;
  probeTimeoutMs: number;
  watchIntervalMs: number;
}

const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export const silentLogger: RuntimeLogger = { info() {}, warn() {}, error() {}, debug() {} };

export function resolveSettings(options: ProcessRuntimeOptions): ProcessRuntimeSettings {
  const nodePath = options.nodePath ?? process.execPath;
  return {
    rootDir: path.resolve(options.rootDir),
    defaultCommand: [nodePath, path.resolve(options.agentServerEntry)],
    host: options.host ?? "127.0.0.1",
    // The node binary's directory first, so the agent's own commands find `node` too.
    sandboxPath: options.sandboxPath ?? `${path.dirname(nodePath)}:${SYSTEM_PATH}`,
    lang: options.lang ?? "C.UTF-8",
    listenTimeoutMs: options.listenTimeoutMs ?? 15_000,
    resumeTimeoutMs: options.resumeTimeoutMs ?? 30_000,
    stopGraceMs: options.stopGraceMs ?? 3000,
    probeTimeoutMs: options.probeTimeoutMs ?? 1000,
    watchIntervalMs: options.watchIntervalMs ?? 1000,
  };
}
