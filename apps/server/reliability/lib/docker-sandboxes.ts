import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { readRecords } from "./sandboxes";

export interface SandboxContainer {
  sandboxId: string;
  /** Docker's state: running, paused, exited, created, ... */
  state: string;
}

function instanceOf(dataDir: string): string | null {
  try {
    return readFileSync(path.join(dataDir, "instance-id"), "utf8").trim();
  } catch {
    return null;
  }
}

/** The sandbox containers of the control plane that owns this data directory, from the docker CLI. */
export function sandboxContainers(dataDir: string): SandboxContainer[] {
  const instance = instanceOf(dataDir);
  if (instance === null) return [];
  const out = execFileSync(
    "docker",
    [
      "ps",
      "-a",
      "--filter",
      `label=sandbox-server.managed=${instance}`,
      "--format",
      '{{.Label "sandbox-server.sandbox-id"}} {{.State}}',
    ],
    { encoding: "utf8" },
  );
  return out
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [sandboxId = "", state = ""] = line.trim().split(" ");
      return { sandboxId, state };
    });
}

/**
 * Test teardown: removes every container of that control plane, then its network (which the
 * control plane removes itself on a clean shutdown, but not when a failed test left sandboxes
 * behind), and nothing else.
 */
export function removeSandboxContainers(dataDir: string): void {
  const instance = instanceOf(dataDir);
  if (instance === null) return;
  const labelled = (...command: string[]) =>
    execFileSync("docker", [...command, "--filter", `label=sandbox-server.managed=${instance}`], {
      encoding: "utf8",
    })
      .split("\n")
      .filter((id) => id.trim() !== "");
  const ids = labelled("ps", "-aq");
  if (ids.length > 0) execFileSync("docker", ["rm", "-f", ...ids], { stdio: "ignore" });
  const networks = labelled("network", "ls", "-q");
  if (networks.length > 0)
    execFileSync("docker", ["network", "rm", ...networks], { stdio: "ignore" });
}

/**
 * Where the store and Docker disagree: containers without a record, RUNNING records without a
 * running container, PAUSED ones whose container is not paused, ERROR ones still running,
 * transient states left over.
 */
export function findDockerMismatches(dataDir: string): string[] {
  const problems: string[] = [];
  const { sandboxes } = readRecords(dataDir);
  const containers = new Map(sandboxContainers(dataDir).map((c) => [c.sandboxId, c.state]));
  const byId = new Map(sandboxes.map((s) => [s.id, s]));
  for (const id of containers.keys()) {
    if (!byId.has(id)) problems.push(`orphan container of sandbox ${id}`);
  }
  for (const sandbox of sandboxes) {
    const state = containers.get(sandbox.id) ?? "none";
    if (sandbox.status === "RUNNING" && state !== "running") {
      problems.push(`${sandbox.id} RUNNING but its container is ${state}`);
    } else if (sandbox.status === "PAUSED" && state !== "paused") {
      const relaunchable = /resume relaunches it/.test(sandbox.statusDetail ?? "");
      if (!relaunchable) problems.push(`${sandbox.id} PAUSED but its container is ${state}`);
    } else if (sandbox.status === "ERROR" && (state === "running" || state === "paused")) {
      problems.push(`${sandbox.id} ERROR (${sandbox.statusDetail}) but its container is ${state}`);
    } else if (sandbox.status === "STARTING" || sandbox.status === "STOPPING") {
      problems.push(`${sandbox.id} still ${sandbox.status}`);
    }
  }
  return problems;
}
