import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import {
  type ConversationRow,
  createDb,
  type SandboxRow,
  type StartTaskRow,
  schema,
} from "@sandbox-server/db";
import { findSandboxProcesses, ProcessRuntime } from "@sandbox-server/runtime";

const sandboxesDir = (dataDir: string) => path.join(dataDir, "sandboxes");

/**
 * Stops and removes every process sandbox under a data directory (test teardown); then, as a
 * safety net, kills any process still marked as belonging to one (what a failed test left).
 */
export async function removeAllSandboxes(dataDir: string): Promise<void> {
  const runtime = new ProcessRuntime({ rootDir: sandboxesDir(dataDir), agentServerEntry: "" });
  for (const sandbox of await runtime.list()) await runtime.delete(sandbox.sandboxId);
  await runtime.close();
  const leftovers = markedProcesses(dataDir);
  if (leftovers.length > 0) {
    process.stderr.write(`teardown: killing ${leftovers.length} leftover sandbox processes\n`);
  }
  for (const pid of leftovers) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** Processes whose SANDBOX_DIR (the process runtime's marker) lies under the data directory. */
export function markedProcesses(dataDir: string): number[] {
  const root = `${sandboxesDir(dataDir)}/`;
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (environ.some((v) => v.startsWith(`SANDBOX_DIR=${root}`))) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/**
 * The agent server's host pid: among the sandbox's processes (bwrap's own included, found by the
 * runtime's marker), the node process running the agent-server bundle. Under bubblewrap the pid
 * recorded in sandbox.json is bwrap's, which listens on nothing and outlives nothing.
 */
export async function agentServerPid(dataDir: string, sandboxId: string): Promise<number> {
  const dir = path.join(sandboxesDir(dataDir), sandboxId);
  for (const { pid } of await findSandboxProcesses(dir)) {
    const argv = cmdlineOf(pid);
    if (argv[1]?.endsWith("agent-server.js")) return pid;
  }
  throw new Error(`no agent-server process in sandbox ${sandboxId}`);
}

/** Every live process of one sandbox (bwrap, its init, the agent server, commands). */
export async function sandboxPids(dataDir: string, sandboxId: string): Promise<number[]> {
  const dir = path.join(sandboxesDir(dataDir), sandboxId);
  return (await findSandboxProcesses(dir)).map((p) => p.pid);
}

/** SIGKILLs every process of a sandbox, as the OOM killer or an operator could; their pids. */
export async function killSandbox(dataDir: string, sandboxId: string): Promise<number[]> {
  const pids = await sandboxPids(dataDir, sandboxId);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
  return pids;
}

/**
 * Live processes of every process sandbox under the data directory, by sandbox id: the sandboxes
 * with a directory, and any process still carrying the marker of one (a directory removed under
 * a live process). Found from /proc with the runtime's marker, so bubblewrapped ones count too.
 */
export async function sandboxProcesses(dataDir: string): Promise<Map<string, number[]>> {
  const root = sandboxesDir(dataDir);
  const ids = new Set(sandboxDirs(dataDir));
  for (const marker of markerValues(dataDir)) ids.add(path.basename(marker));
  const found = new Map<string, number[]>();
  for (const id of ids) {
    const pids = (await findSandboxProcesses(path.join(root, id))).map((p) => p.pid);
    if (pids.length > 0) found.set(id, pids);
  }
  return found;
}

function markerValues(dataDir: string): Set<string> {
  const root = `${sandboxesDir(dataDir)}/`;
  const values = new Set<string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      const marker = environ.find((v) => v.startsWith(`SANDBOX_DIR=${root}`));
      if (marker) values.add(marker.slice("SANDBOX_DIR=".length));
    } catch {
      // gone, or not ours to read
    }
  }
  return values;
}

function cmdlineOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0$/, "").split("\0");
  } catch {
    return [];
  }
}

/** The one-letter state of a process (R, S, T for stopped, Z...), or null when it is gone. */
export function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return null;
  }
}

/** Resident memory of a process in KiB (VmRSS), or null when it is gone. */
export function residentKib(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match?.[1] ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

export interface ListeningSocket {
  address: string;
  port: number;
  family: "tcp" | "tcp6";
}

/** The TCP sockets a process listens on, from its fds and /proc/net/tcp{,6}. */
export function listeningSockets(pid: number): ListeningSocket[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1]) inodes.add(match[1]);
    } catch {
      // closed meanwhile
    }
  }
  const sockets: ListeningSocket[] = [];
  for (const family of ["tcp", "tcp6"] as const) {
    const lines = readFileSync(`/proc/${pid}/net/${family}`, "utf8").trim().split("\n").slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1] ?? "", fields[3], fields[9] ?? ""];
      if (state !== "0A" || !inodes.has(inode)) continue;
      const [hex = "", portHex = "0"] = local.split(":");
      sockets.push({ address: decodeAddress(hex), port: Number.parseInt(portHex, 16), family });
    }
  }
  return sockets;
}

/** /proc/net/tcp addresses are little-endian hex per 32-bit word. */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((w) =>
    (w.match(/../g) ?? []).reverse().map((b) => Number.parseInt(b, 16)),
  );
  if (bytes.length === 4) return bytes.join(".");
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 255 && bytes[11] === 255) {
    return `::ffff:${bytes.slice(12).join(".")}`;
  }
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(":");
}

/** The control plane's records, read straight from its SQLite file (the server may be down). */
export function readRecords(dataDir: string): {
  sandboxes: SandboxRow[];
  conversations: ConversationRow[];
  startTasks: StartTaskRow[];
} {
  const handle = createDb(path.join(dataDir, "sandbox-server.db"));
  try {
    return {
      sandboxes: handle.db.select().from(schema.sandboxes).all(),
      conversations: handle.db.select().from(schema.conversations).all(),
      startTasks: handle.db.select().from(schema.conversationStartTasks).all(),
    };
  } finally {
    handle.close();
  }
}

/**
 * The sandboxes' own directories under the process runtime's root: `.view` is the runtime's,
 * shared by its sandboxes (no sandbox id starts with a dot).
 */
export function sandboxDirs(dataDir: string): string[] {
  // The runtime makes its root with the first sandbox: none yet, none there.
  if (!existsSync(sandboxesDir(dataDir))) return [];
  return readdirSync(sandboxesDir(dataDir), { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith("."))
    .map((d) => d.name);
}
