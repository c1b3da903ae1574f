import type { SandboxRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import { hasPortUrls } from "../../state/port-urls";
import { findOwnedSandbox } from "../service/status";
import type { SandboxPortUrl } from "./contracts";
import { portUrl } from "./declared-urls";

/** A signed URL to `port` of the caller's sandbox, working for `ttlS` seconds from now. */
export async function signSandboxPort(
  deps: Pick<CoreDeps, "now" | "portUrls" | "repos" | "runtime">,
  ownerId: string,
  id: string,
  port: number,
  ttlS: number,
): Promise<SandboxPortUrl> {
  const row = await findOwnedSandbox(deps, ownerId, id);
  if (port === agentServerPortOf(deps, row)) {
    throw new AppError(
      "PORT_NOT_ALLOWED",
      `Port ${port} is the agent server's: reach it through agent_server_url`,
    );
  }
  if (!hasPortUrls(row.id)) {
    throw new AppError("PORT_NOT_ALLOWED", "This sandbox's ports cannot be given URLs");
  }
  return portUrl(deps, row.id, port, ttlS);
}

/** The agent server's port inside the sandbox: the runtime's fixed one, else its URL's. */
export function agentServerPortOf(deps: Pick<CoreDeps, "runtime">, row: SandboxRow): number | null {
  if (deps.runtime.agentServerPort !== undefined) return deps.runtime.agentServerPort;
  return row.agentServerUrl ? Number(new URL(row.agentServerUrl).port) || null : null;
}
