import { setTimeout as sleep } from "node:timers/promises";
import type { Core } from "@sandbox-server/core";
import type { Store } from "@sandbox-server/db";
import { ConfigError } from "./config-error";

/** How often the start looks whether this replica has won the duties lease. */
const POLL_MS = 100;

/**
 * The process runtime's sandboxes are this machine's child processes, supervised by the replica
 * holding the duties: a second control plane on the same database would take another's sandboxes
 * for vanished. So over a shared store a process-runtime control plane starts only as the holder
 * of the duties lease; it waits for a lease left by a replica that died (at most its TTL and one
 * renewal), and refuses with one line when a live one keeps it.
 */
export async function assertSoleProcessReplica(core: Core, store: Store): Promise<void> {
  const { leaseTtlMs, leaseRenewMs } = core.deps.config;
  const deadline = Date.now() + leaseTtlMs + leaseRenewMs;
  while (!core.leading()) {
    if (Date.now() > deadline) {
      const holder = (await store.leases.get("duties").catch(() => undefined))?.holder;
      throw new ConfigError(
        `SANDBOX_RUNTIME=process runs one control plane per database, and another one${holder ? ` (replica ${holder})` : ""} is running on this DATABASE_URL; use SANDBOX_RUNTIME=docker to run several replicas`,
      );
    }
    await sleep(POLL_MS);
  }
}
