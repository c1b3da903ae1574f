import { setTimeout as sleep } from "node:timers/promises";
import { findProcessTrees, type ProcInfo, readProcState } from "./read-proc";

/**
 * The processes of a sandbox are found from /proc, never from a remembered pid list: the launched
 * process (the agent server, or bwrap) carries `SANDBOX_DIR=<its directory>` in its environment,
 * and the sandbox is every process with that marker plus every descendant of one
 * (see findProcessTrees). The agent server runs each command in a process group and session of
 * its own, and under bubblewrap the sandbox's processes sit in sessions of bwrap's init, so a
 * signal to the launched process's group alone would miss most of them. A pid read from a state
 * file could name a stranger's process after a reboot; the marker cannot.
 */
export const SANDBOX_MARKER_ENV = "SANDBOX_DIR";

export function findSandboxProcesses(sandboxDir: string): Promise<ProcInfo[]> {
  return findProcessTrees(SANDBOX_MARKER_ENV, sandboxDir);
}

/** The process groups holding a live process of the sandbox. */
export async function findSandboxGroups(sandboxDir: string): Promise<number[]> {
  return groupsOf(await findSandboxProcesses(sandboxDir));
}

/**
 * Sends `signal` to each group holding a process of the sandbox (the whole group: a child that
 * was forked after the scan is in its parent's group). Returns how many groups there were.
 */
export async function signalSandbox(sandboxDir: string, signal: NodeJS.Signals): Promise<number> {
  const groups = await findSandboxGroups(sandboxDir);
  for (const pgid of groups) signalGroup(pgid, signal);
  return groups.length;
}

/**
 * SIGSTOPs every process of the sandbox, bwrap's own included, and resolves once Linux reports
 * all of them stopped: true then, false when `timeoutMs` passed first (a process in
 * uninterruptible sleep stops only when it leaves it). Rescans after each round, because a
 * process forked while the signals went out is missed by them; once a scan finds only stopped
 * processes, nothing is left that could fork.
 */
export async function freezeSandbox(sandboxDir: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = (await findSandboxProcesses(sandboxDir)).filter((p) => !isStopped(p.state));
    if (running.length === 0) return true;
    if (Date.now() >= deadline) return false;
    for (const pgid of groupsOf(running)) signalGroup(pgid, "SIGSTOP");
    // Delivery is asynchronous; give it a moment before the next scan.
    await sleep(10);
  }
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

/**
 * Waits (at most `timeoutMs`) until each of `pids` has gone: a process that has begun to exit no
 * longer shows its marker (its memory is released first) but may still hold what it had — pasta,
 * a namespace init, takes a moment to tear down.
 */
export async function waitForExit(pids: number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const pid of pids) {
    while ((await readProcState(pid)) !== "gone" && Date.now() < deadline) await sleep(10);
  }
}

export async function killSandboxProcesses(sandboxDir: string): Promise<void> {
  // SIGKILL cannot be ignored, but a process forked between scan and signal survives a round.
  for (let round = 0; round < 5; round++) {
    if ((await signalSandbox(sandboxDir, "SIGKILL")) === 0) return;
    if (await waitForNoProcesses(sandboxDir, 400)) return;
  }
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

function groupsOf(processes: ProcInfo[]): number[] {
  return [...new Set(processes.map((found) => found.pgid))];
}

function isStopped(state: string): boolean {
  return state === "T" || state === "t";
}

async function waitForNoProcesses(sandboxDir: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while ((await findSandboxProcesses(sandboxDir)).length > 0) {
    if (Date.now() >= deadline) return false;
    await sleep(25);
  }
  return true;
}
