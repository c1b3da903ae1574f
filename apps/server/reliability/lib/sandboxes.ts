import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { type ConversationRow, createDb, type SandboxRow, schema } from "@sandbox-server/db";
import { ProcessRuntime } from "@sandbox-server/runtime";

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

/** The agent server's pid, from the process runtime's state file. */
export function agentServerPid(dataDir: string, sandboxId: string): number {
  const file = path.join(sandboxesDir(dataDir), sandboxId, "sandbox.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { pid: number }).pid;
}

/**
 * Live processes whose working directory lies in a sandbox directory, by sandbox id: found from
 * /proc, independently of the runtime's own bookkeeping.
 */
export function sandboxProcesses(dataDir: string): Map<string, number[]> {
  const root = `${sandboxesDir(dataDir)}/`;
  const found = new Map<string, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${entry}/cwd`);
    } catch {
      continue;
    }
    if (!cwd.startsWith(root) || processState(Number(entry)) === "Z") continue;
    const id = cwd.slice(root.length).split("/")[0] ?? "";
    found.set(id, [...(found.get(id) ?? []), Number(entry)]);
  }
  return found;
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
} {
  const handle = createDb(path.join(dataDir, "sandbox-server.db"));
  try {
    return {
      sandboxes: handle.db.select().from(schema.sandboxes).all(),
      conversations: handle.db.select().from(schema.conversations).all(),
    };
  } finally {
    handle.close();
  }
}
