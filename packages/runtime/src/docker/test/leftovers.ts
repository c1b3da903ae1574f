import type Dockerode from "dockerode";
import { isNotFound } from "../docker-errors";
import { unprotectHostFrom } from "../host-firewall";
import { MANAGED_LABEL, USER_LABEL_PREFIX } from "../labels";
import { removeSandboxNetworkIfUnused } from "../sandbox-network";

/** The user label every test container carries with the run's id (as a container label). */
export const TEST_RUN_KEY = "test-run";
export const TEST_RUN_LABEL = `${USER_LABEL_PREFIX}${TEST_RUN_KEY}`;

/** Instance names of runtimes the runtime tests create (`support.ts`). */
export function runtimeTestInstance(testRun: string, file: string): string {
  return `runtime-test-${testRun}-${file}`;
}

/** Instances of control planes under test: these tests' and apps/server's harness (`test-*`). */
const TEST_INSTANCE = /^(runtime-)?test-/;

/**
 * Straight through the daemon, independent of the code under test: every container of this run,
 * then every idle sandbox network of a test instance (with its firewall rules). A network with
 * any container on it stays, so a concurrent run on the same daemon keeps what it uses (and a
 * runtime whose idle network went away creates it again).
 */
export async function removeLeftovers(docker: Dockerode, testRun: string): Promise<void> {
  const ofThisRun = await docker.listContainers({
    all: true,
    filters: { label: [`${TEST_RUN_LABEL}=${testRun}`] },
  });
  // Also sandboxes of test control planes (their instance label, not the run's): a create still
  // in flight when a test server closed can leave one that no sweep of that server saw.
  const ofTestServers = (
    await docker.listContainers({ all: true, filters: { label: [MANAGED_LABEL] } })
  ).filter((summary) => TEST_INSTANCE.test(summary.Labels?.[MANAGED_LABEL] ?? ""));
  const containers = [...ofThisRun, ...ofTestServers];
  await Promise.all(
    containers.map((summary) =>
      docker
        .getContainer(summary.Id)
        .remove({ force: true })
        .catch((error: unknown) => {
          if (!isNotFound(error)) throw error;
        }),
    ),
  );
  const networks = await docker.listNetworks({ filters: { label: [MANAGED_LABEL] } });
  for (const network of networks) {
    const instance = network.Labels?.[MANAGED_LABEL] ?? "";
    if (!TEST_INSTANCE.test(instance)) continue;
    const removed = await removeSandboxNetworkIfUnused(docker, network.Name, instance);
    if (removed !== null) await unprotectHostFrom(removed.bridge);
  }
}
