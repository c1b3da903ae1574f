import { expect } from "vitest";
import type { Sandbox } from "../src/sandboxes/contracts";
import type { Caller } from "./harness";

/** Generous: a sandbox start under bubblewrap on a loaded two-core machine. */
export const SANDBOX_WAIT_MS = 45_000;

/** Polls `sandboxes.get` (bounded) until the sandbox has `status`; returns what it answered then. */
export async function waitForStatus(
  caller: Caller,
  id: string,
  status: Sandbox["status"],
): Promise<Sandbox> {
  let last: Sandbox | undefined;
  await expect
    .poll(
      async () => {
        last = await caller.sandboxes.get({ id });
        return last.status;
      },
      { timeout: SANDBOX_WAIT_MS, interval: 100 },
    )
    .toBe(status);
  if (!last) throw new Error("unreachable: the poll ran at least once");
  return last;
}
