import type { SandboxRow } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { CoreConfig, CoreDeps } from "../../deps";
import { resolveSpec } from "./resolve-spec";
import { launchOptions, markRunning } from "./start-sandbox";
import { updateSandbox } from "./status";

/**
 * Brings back a sandbox whose create (or resume) was acknowledged but which does not run after a
 * control-plane restart: STARTING → RUNNING with `status_detail` saying so, or ERROR with the
 * reason. A sandbox the runtime still knows is resumed — unfrozen, or relaunched from its
 * workspace with the same key and data; one it never created (the restart came before the launch,
 * on a runtime without `register`) is started from its record. Call it under the sandbox's lock.
 */
export async function relaunchSandbox(
  deps: Pick<
    CoreDeps,
    "agents" | "events" | "log" | "now" | "repos" | "runtime" | "transaction"
  > & { config: Pick<CoreConfig, "defaultSpecId" | "sandboxStartTimeoutMs"> },
  row: SandboxRow,
  reason: string,
): Promise<SandboxRow | undefined> {
  const { id } = row;
  deps.log.warn({ sandboxId: id, reason }, "relaunching sandbox after a control-plane restart");
  await updateSandbox(deps, id, {
    status: "STARTING",
    statusDetail: `Relaunching after a control-plane restart (${reason})`,
  });
  try {
    const url = await bringBack(deps, row);
    if (row.agentServerUrl && url !== row.agentServerUrl) {
      await deps.agents.forget(row.agentServerUrl);
    }
    return await markRunning(deps, id, url, `Restarted after a control-plane restart (${reason})`);
  } catch (error) {
    deps.log.warn({ sandboxId: id, reason: errorMessage(error) }, "sandbox relaunch failed");
    return updateSandbox(deps, id, {
      status: "ERROR",
      statusDetail: `Could not be relaunched after a control-plane restart: ${errorMessage(error)}`,
    });
  }
}

async function bringBack(
  deps: Pick<CoreDeps, "repos" | "runtime"> & {
    config: Pick<CoreConfig, "defaultSpecId" | "sandboxStartTimeoutMs">;
  },
  row: SandboxRow,
): Promise<string | null> {
  const { runtime } = deps;
  const seen = await runtime.inspect(row.id);
  if (seen.state !== "missing") return resume(deps, row.id);
  const spec = await resolveSpec(deps, row.specId);
  try {
    await runtime.start(launchOptions(row, spec));
  } catch (error) {
    // Created meanwhile after all (a daemon finishing a create the killed control plane sent).
    if ((await runtime.inspect(row.id)).state === "missing") throw error;
    return resume(deps, row.id);
  }
  return (await runtime.waitUntilReady(row.id, deps.config.sandboxStartTimeoutMs)).agentServerUrl;
}

/**
 * Unfreezes, relaunches (an exited process, a container created but never started) or, for one
 * already coming up, just waits: resume is a no-op then, the wait for health is not.
 */
async function resume(
  deps: Pick<CoreDeps, "runtime"> & { config: Pick<CoreConfig, "sandboxStartTimeoutMs"> },
  id: string,
): Promise<string | null> {
  await deps.runtime.resume(id);
  return (await deps.runtime.waitUntilReady(id, deps.config.sandboxStartTimeoutMs)).agentServerUrl;
}
