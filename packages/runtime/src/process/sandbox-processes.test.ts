import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { readProcState } from "./read-proc";
import {
  findSandboxGroups,
  findSandboxProcesses,
  freezeSandbox,
  SANDBOX_MARKER_ENV,
  signalGroup,
  signalSandbox,
  stopSandboxProcesses,
} from "./sandbox-processes";

const startedGroups: number[] = [];

afterEach(() => {
  for (const pgid of startedGroups.splice(0)) signalGroup(pgid, "SIGKILL");
});

/**
 * A process group carrying the marker, whose child moved to a session (and group) of its own and
 * ignores SIGTERM: the shape of an agent server running a stubborn command.
 */
async function startMarkedTree(marker: string) {
  const leader = spawn(
    "sh",
    ["-c", "setsid sh -c 'trap \"\" TERM; echo $$; exec sleep 60' & wait"],
    {
      detached: true,
      env: { PATH: "/usr/bin:/bin", [SANDBOX_MARKER_ENV]: marker },
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  const leaderPid = leader.pid as number;
  startedGroups.push(leaderPid);
  const escapedPid = await new Promise<number>((resolve) => {
    leader.stdout?.once("data", (data: Buffer) => resolve(Number(data.toString().trim())));
  });
  startedGroups.push(escapedPid);
  return { leaderPid, escapedPid };
}

describe("sandbox processes", () => {
  it("finds the groups of every marked process, also one in a session of its own", async () => {
    const marker = `/tmp/sandbox-${randomUUID()}`;
    const { leaderPid, escapedPid } = await startMarkedTree(marker);
    await startMarkedTree(`${marker}-other`);
    expect((await findSandboxGroups(marker)).sort()).toEqual([leaderPid, escapedPid].sort());
  });

  it("finds a descendant that dropped the marker and left for a session of its own", async () => {
    const marker = `/tmp/sandbox-${randomUUID()}`;
    const leader = spawn(
      "sh",
      ["-c", `env -u ${SANDBOX_MARKER_ENV} setsid sh -c 'echo $$; exec sleep 60' & wait`],
      {
        detached: true,
        env: { PATH: "/usr/bin:/bin", [SANDBOX_MARKER_ENV]: marker },
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    startedGroups.push(leader.pid as number);
    const unmarkedPid = await new Promise<number>((resolve) => {
      leader.stdout?.once("data", (data: Buffer) => resolve(Number(data.toString().trim())));
    });
    startedGroups.push(unmarkedPid);
    const found = (await findSandboxProcesses(marker)).map((p) => p.pid);
    expect(found).toContain(leader.pid);
    expect(found).toContain(unmarkedPid);
  });

  it("freezes every process, and reports it only once Linux shows them all stopped", async () => {
    const marker = `/tmp/sandbox-${randomUUID()}`;
    const { leaderPid, escapedPid } = await startMarkedTree(marker);
    expect(await freezeSandbox(marker, 2000)).toBe(true);
    expect(await readProcState(leaderPid)).toBe("stopped");
    expect(await readProcState(escapedPid)).toBe("stopped");
    await signalSandbox(marker, "SIGCONT");
    await expect.poll(() => readProcState(leaderPid)).toBe("alive");
  });

  it("stops and continues them all", async () => {
    const marker = `/tmp/sandbox-${randomUUID()}`;
    const { leaderPid, escapedPid } = await startMarkedTree(marker);
    expect(await signalSandbox(marker, "SIGSTOP")).toBe(2);
    await expect.poll(() => readProcState(leaderPid)).toBe("stopped");
    await expect.poll(() => readProcState(escapedPid)).toBe("stopped");
    await signalSandbox(marker, "SIGCONT");
    await expect.poll(() => readProcState(escapedPid)).toBe("alive");
  });

  it("ends a paused tree, SIGKILLing what ignores SIGTERM, and leaves other trees alone", async () => {
    const marker = `/tmp/sandbox-${randomUUID()}`;
    const { leaderPid, escapedPid } = await startMarkedTree(marker);
    const other = await startMarkedTree(`${marker}-other`);
    await signalSandbox(marker, "SIGSTOP");

    await stopSandboxProcesses(marker, 200);
    expect(await readProcState(leaderPid)).toBe("gone");
    expect(await readProcState(escapedPid)).toBe("gone");
    expect(await findSandboxGroups(marker)).toEqual([]);
    expect(await readProcState(other.escapedPid)).toBe("alive");
  });

  it("is a no-op when nothing of the sandbox runs", async () => {
    const marker = `/tmp/sandbox-${randomUUID()}`;
    expect(await signalSandbox(marker, "SIGTERM")).toBe(0);
    await expect(stopSandboxProcesses(marker, 100)).resolves.toBeUndefined();
  });

  it("signalGroup says false for a group that does not exist", () => {
    // Above the largest pid_max Linux allows, so no process can have it.
    expect(signalGroup(2 ** 22 + 1, "SIGTERM")).toBe(false);
  });
});
