import type { SandboxRow } from "@sandbox-server/db";
import type { SandboxStatusChange } from "../../core-events";
import type { CoreDeps } from "../../deps";
import { sharedStorePollMs, waitUntil } from "../../shared/wait-until";
import { findOwnedSandbox } from "./status";

/**
 * The caller's sandbox once its status is `status` — or ERROR, which it does not leave by itself —
 * or after `timeoutMs` (then as it is). Woken by the core's status events (over a shared store
 * also every second: another replica's moves raise no event here); a sandbox deleted meanwhile
 * is 404 like any read.
 */
export function waitForSandbox(
  deps: Pick<CoreDeps, "events" | "repos" | "sharedStore">,
  ownerId: string,
  id: string,
  status: string,
  timeoutMs: number,
): Promise<SandboxRow> {
  return waitUntil({
    ...sharedStorePollMs(deps),
    read: () => findOwnedSandbox(deps, ownerId, id),
    done: (row) => row.status === status || row.status === "ERROR",
    subscribe: (wake) => {
      const onChange = (change: SandboxStatusChange) => {
        if (change.sandbox.id === id) wake();
      };
      const onDeleted = (row: SandboxRow) => {
        if (row.id === id) wake();
      };
      deps.events.on("sandbox.status_changed", onChange);
      deps.events.on("sandbox.deleted", onDeleted);
      return () => {
        deps.events.off("sandbox.status_changed", onChange);
        deps.events.off("sandbox.deleted", onDeleted);
      };
    },
    timeoutMs,
  });
}
