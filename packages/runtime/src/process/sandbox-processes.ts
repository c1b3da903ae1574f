import { findProcessesWithEnv } from "./read-proc";

/**
 * Every process of a sandbox carries `SANDBOX_DIR=<its directory>` in its environment: the runtime
 * sets it for the agent server, and everything that starts inherits it. The agent server runs
 * each command in a process group (and session) of its own, so a signal to the agent server's
 * group alone would miss them; this marker finds them all, and, unlike a pid read from a state
 * file, it can never name a stranger's process.
 */
export const SANDBOX_MARKER_ENV = "SANDBOX_DIR";

/** The process groups holding a live process of the sandbox. */
export async function findSandboxGroups(sandboxDir: string): Promise<number[]> {
  const processes = await findProcessesWithEnv(SANDBOX_MARKER_ENV, sandboxDir);
  return [...new Set(processes.map((found) => found.pgid))];
}

/**
 * Sends `signal` to each such group (the whole group: a command's children that dropped the
 * marker from their environment are still in it). Returns how many groups there were.
 */
export async function signalSandbox(sandboxDir: string, signal: NodeJS.Signals): Promise<number> {
  const groups = await findSandboxGroups(sandboxDir);
  for (const pgid of groups) signalGroup(pgid, signal);
  return groups.length;
}

/**
 * SIGTERM, then SIGKILL for whatever is still there after `graceMs`. A stopped process does not
 * act on SIGTERM until continued, so everything gets SIGCONT first.
 */
export async function stopSandboxProcesses(sandboxDir: string, graceMs: number): Promise<void> {
  if ((await signalSandbox(sandboxDir, "SIGCONT")) === 0) return;
  await signalSandbox(sandboxDir, "SIGTERM");
  if (await waitForNoProcesses(sandboxDir, graceMs)) return;
  await killSandboxProcesses(sandboxDir);
}

export async function killSandboxProcesses(sandboxDir: string): Promise<void> {
  if ((await signalSandbox(sandboxDir, "SIGKILL")) === 0) return;
  // SIGKILL cannot be ignored; the wait only lets the kernel finish.
  await waitForNoProcesses(sandboxDir, 2000);
}

/** Sends `signal` to group `pgid`; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ESRCH") return false;
    throw error;
  }
}

async function waitForNoProcesses(sandboxDir: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while ((await findSandboxGroups(sandboxDir)).length > 0) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}
