import { setTimeout as sleep } from "node:timers/promises";
import { processState, readRecords, sandboxDirs, sandboxProcesses } from "./sandboxes";

const TRANSIENT = new Set(["STARTING", "STOPPING"]);

/** Polls the store until no sandbox is STARTING or STOPPING (reconciliation finished). */
export async function waitForSettled(dataDir: string, timeoutMs = 30_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let stuck: string[] = [];
  while (Date.now() < deadline) {
    stuck = readRecords(dataDir)
      .sandboxes.filter((s) => TRANSIENT.has(s.status))
      .map((s) => `${s.id} ${s.status}`);
    if (stuck.length === 0) return [];
    await sleep(200);
  }
  return stuck;
}

/**
 * Every way the store and the runtime disagree: processes or sandbox directories with no record,
 * RUNNING records without a healthy agent server, PAUSED records whose processes are not stopped,
 * live conversations whose sandbox record is gone.
 */
export async function findMismatches(dataDir: string): Promise<string[]> {
  const problems: string[] = [];
  const { sandboxes, conversations } = readRecords(dataDir);
  const byId = new Map(sandboxes.map((s) => [s.id, s]));
  const processes = await sandboxProcesses(dataDir);
  for (const [id, pids] of processes) {
    if (!byId.has(id)) problems.push(`orphan processes ${pids.join(",")} of sandbox ${id}`);
  }
  for (const dir of sandboxDirs(dataDir)) {
    if (!byId.has(dir)) problems.push(`orphan directory of sandbox ${dir}`);
  }
  for (const sandbox of sandboxes) {
    const pids = processes.get(sandbox.id) ?? [];
    if (sandbox.status === "RUNNING") {
      if (pids.length === 0) problems.push(`${sandbox.id} RUNNING without a process`);
      const healthy = await fetch(`${sandbox.agentServerUrl}/health`, {
        signal: AbortSignal.timeout(2000),
      }).then(
        (res) => res.status === 200,
        () => false,
      );
      if (!healthy) problems.push(`${sandbox.id} RUNNING but its agent server does not answer`);
    } else if (sandbox.status === "PAUSED") {
      // Allowed when its processes ended while it was paused: resume relaunches it (the detail says so).
      const relaunchable = /resume relaunches it/.test(sandbox.statusDetail ?? "");
      if (pids.length === 0 && !relaunchable)
        problems.push(`${sandbox.id} PAUSED without a process`);
      const awake = pids.filter((pid) => processState(pid) !== "T");
      if (awake.length > 0) problems.push(`${sandbox.id} PAUSED but ${awake} are not stopped`);
    } else if (sandbox.status === "ERROR") {
      // An ERROR sandbox may keep its directory (resume retries it) but no live process.
      if (pids.length > 0) {
        problems.push(`${sandbox.id} ERROR (${sandbox.statusDetail}) but processes ${pids} live`);
      }
    } else if (TRANSIENT.has(sandbox.status)) {
      problems.push(`${sandbox.id} still ${sandbox.status}`);
    }
  }
  for (const conversation of conversations) {
    if (!conversation.archived && !byId.has(conversation.sandboxId)) {
      problems.push(
        `conversation ${conversation.id} is live but sandbox ${conversation.sandboxId} is gone`,
      );
    }
  }
  return problems;
}
