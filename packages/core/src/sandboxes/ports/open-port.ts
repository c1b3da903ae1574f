import type { Socket } from "node:net";
import type { CoreConfig } from "../../deps";
import { AppError } from "../../errors";
import { parsePortHost, tokenMatches } from "../../state/port-urls";
import { resumeSandbox } from "../service/resume-sandbox";
import type { SandboxLaunchDeps } from "../service/start-sandbox";
import { connectPort, type PortPath, type PortRoutes } from "./port-routes";

export interface OpenedPort {
  sandboxId: string;
  port: number;
  /** When the URL's token expires: the connection ends then. */
  expiresAtMs: number;
  /** Raw bytes to and from the port inside the sandbox. */
  socket: Socket;
  /** Which way the port was reached. */
  path: PortPath;
}

/**
 * The port a request's Host names, opened: null when the host is not a port URL's (an API
 * request). The token is checked before anything is read: missing 401, not ours (another
 * sandbox, port or key) or expired 403; then the sandbox: unknown 404, not RUNNING 409 (a
 * PAUSED one with `auto_resume` is resumed first); nothing listening 502. `routes` remembers
 * which way each port was reached (see `connectPort`).
 */
export async function openPortForHost(
  deps: SandboxLaunchDeps & { config: Pick<CoreConfig, "maxRunningSandboxes" | "warmPoolSize"> },
  host: string | undefined,
  routes: PortRoutes,
): Promise<OpenedPort | null> {
  const target = parsePortHost(deps.portUrls, host);
  if (!target) return null;
  if (!target.token) throw new AppError("PORT_URL_TOKEN_MISSING");
  if (!tokenMatches(deps.portUrls, target)) throw new AppError("PORT_URL_TOKEN_INVALID");
  if (target.token.expiresAtS * 1000 <= deps.now()) throw new AppError("PORT_URL_EXPIRED");
  let row = await deps.repos.sandboxes.get(target.sandboxId);
  if (!row) throw new AppError("SANDBOX_NOT_FOUND");
  if (row.status === "PAUSED" && row.portAccess.autoResume) {
    row = await resumeSandbox(deps, row.ownerId, row.id);
  }
  if (row.status !== "RUNNING" || !row.agentServerUrl) {
    throw new AppError("SANDBOX_NOT_RUNNING", `The sandbox is ${row.status}, not RUNNING`);
  }
  deps.activity.set(row.id, deps.now());
  const agentServerUrl = row.agentServerUrl;
  const { socket, path } = await connectPort(deps, { ...row, agentServerUrl }, target.port, routes);
  return {
    sandboxId: row.id,
    port: target.port,
    expiresAtMs: target.token.expiresAtS * 1000,
    socket,
    path,
  };
}
