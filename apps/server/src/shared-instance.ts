import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Store } from "@sandbox-server/db";
import type { Logger } from "pino";
import { instanceId } from "./runtime";

/** The lease whose holder is the Docker instance id every replica of one database uses. */
const INSTANCE_LEASE = "docker-instance";
/** It never expires: about a century. */
const FOREVER_MS = 100 * 365 * 24 * 3600_000;

/**
 * Replicas on one database (DATABASE_URL) must label and find containers as one instance, or one
 * would see another's sandboxes as vanished. The first replica's id (from its DATA_DIR) is
 * recorded in the database as the holder of a lease that never expires; every replica then uses
 * that id, written to its DATA_DIR/instance-id before the runtime reads it.
 */
export async function adoptSharedInstanceId(
  store: Store,
  dataDir: string,
  log: Logger,
): Promise<string> {
  const file = path.resolve(dataDir, "instance-id");
  const existed = existsSync(file);
  const own = instanceId(dataDir);
  await store.leases.acquire(INSTANCE_LEASE, own, FOREVER_MS);
  const shared = (await store.leases.get(INSTANCE_LEASE))?.holder ?? own;
  if (shared === own) return own;
  writeFileSync(file, `${shared}\n`);
  if (existed) {
    log.warn(
      { instance: shared, replaced: own },
      "DATA_DIR/instance-id replaced by the instance id recorded in the database (replicas share it); containers labelled with the old id are no longer this control plane's",
    );
  } else {
    log.info({ instance: shared }, "joined the replicas of this database as their instance");
  }
  return shared;
}
