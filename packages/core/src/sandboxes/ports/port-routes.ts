import net, { type Socket } from "node:net";
import type { SandboxRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { agentServerPortOf } from "./sign-port";
import { openPortTunnel } from "./tunnel";

/**
 * How a port was reached: `direct`, a TCP connection to the sandbox's own address (an app on all
 * addresses); `tunnel`, through the agent server (an app on the sandbox's loopback only).
 */
export type PortPath = "direct" | "tunnel";

/** How long the way a port was reached is reused before the direct address is tried again. */
const ROUTE_TTL_MS = 10_000;
/** A direct address that neither accepts nor refuses within this is not used (the tunnel is). */
const DIRECT_CONNECT_TIMEOUT_MS = 1_000;

interface Route {
  path: PortPath;
  address: string | null;
  untilMs: number;
}

/**
 * The way each sandbox's port was last reached, remembered briefly so that a request does not
 * ask the runtime for the address or try a refusing one every time. Forgotten for a sandbox
 * whose status changes (a restarted container may have a new address).
 */
export class PortRoutes {
  private readonly routes = new Map<string, Route>();

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = ROUTE_TTL_MS,
  ) {}

  get(sandboxId: string, port: number): Route | null {
    const route = this.routes.get(`${sandboxId}:${port}`);
    if (!route) return null;
    if (route.untilMs > this.now()) return route;
    this.routes.delete(`${sandboxId}:${port}`);
    return null;
  }

  remember(sandboxId: string, port: number, path: PortPath, address: string | null): void {
    this.routes.set(`${sandboxId}:${port}`, { path, address, untilMs: this.now() + this.ttlMs });
  }

  forget(sandboxId: string): void {
    for (const key of this.routes.keys()) {
      if (key.startsWith(`${sandboxId}:`)) this.routes.delete(key);
    }
  }
}

/**
 * A raw byte stream to `port` of a running sandbox: straight to its own address when the runtime
 * has one and something accepts there, else through its agent server's tunnel (an app bound to
 * the sandbox's loopback, a remote Docker host). The agent server's own port is never connected
 * directly (the tunnel refuses it).
 */
export async function connectPort(
  deps: Pick<CoreDeps, "runtime">,
  row: SandboxRow & { agentServerUrl: string },
  port: number,
  routes: PortRoutes,
): Promise<{ socket: Socket; path: PortPath }> {
  const known = routes.get(row.id, port);
  if (known?.path !== "tunnel" && port !== agentServerPortOf(deps, row)) {
    const address =
      known?.address ?? (await deps.runtime.addressOf?.(row.id).catch(() => null)) ?? null;
    const socket = address ? await connectDirect(address, port) : null;
    if (socket) {
      routes.remember(row.id, port, "direct", address);
      return { socket, path: "direct" };
    }
  }
  const socket = await openPortTunnel(row.agentServerUrl, row.sessionApiKey, port);
  routes.remember(row.id, port, "tunnel", null);
  return { socket, path: "tunnel" };
}

/** A connected socket, or null when the address refuses (or does not answer in time). */
function connectDirect(address: string, port: number): Promise<Socket | null> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port, noDelay: true });
    const fail = () => {
      socket.destroy();
      resolve(null);
    };
    socket.setTimeout(DIRECT_CONNECT_TIMEOUT_MS, fail);
    socket.once("error", fail);
    socket.once("connect", () => {
      socket.setTimeout(0);
      socket.off("error", fail);
      resolve(socket);
    });
  });
}
