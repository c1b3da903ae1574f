import http from "node:http";
import type { Socket } from "node:net";
import { PORT_TUNNEL_PROTOCOL, portTunnelPath } from "@sandbox-server/agent-contracts/port-tunnel";
import { AppError } from "../../errors";

/** Upper bound of asking an agent server for a tunnel (it connects inside within its own 10 s). */
const TUNNEL_TIMEOUT_MS = 15_000;

/**
 * A raw byte stream to 127.0.0.1:{port} inside the sandbox, through its agent server's tunnel
 * (`GET /api/ports/{port}`, upgraded). Its refusals become our errors: 502 `PORT_NOT_LISTENING`,
 * 422 `PORT_NOT_ALLOWED` (the agent server's own port), 503 `SANDBOX_UNAVAILABLE` otherwise.
 */
export function openPortTunnel(
  agentServerUrl: string,
  sessionApiKey: string,
  port: number,
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(portTunnelPath(port), agentServerUrl), {
      headers: {
        Connection: "Upgrade",
        Upgrade: PORT_TUNNEL_PROTOCOL,
        "X-Session-API-Key": sessionApiKey,
      },
      timeout: TUNNEL_TIMEOUT_MS,
    });
    req.once("upgrade", (_res, socket, head) => {
      socket.setTimeout(0);
      socket.setNoDelay(true);
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    req.once("response", (res) => {
      res.resume();
      reject(refusal(res.statusCode ?? 0, port));
    });
    req.once("timeout", () => req.destroy(new Error("the agent server did not answer in time")));
    req.once("error", (error) =>
      reject(
        new AppError("SANDBOX_UNAVAILABLE", "The sandbox's agent server cannot be reached", {
          cause: error,
        }),
      ),
    );
    req.end();
  });
}

function refusal(status: number, port: number): AppError {
  if (status === 502) {
    return new AppError("PORT_NOT_LISTENING", `Nothing answers on port ${port} in the sandbox`);
  }
  if (status === 403) return new AppError("PORT_NOT_ALLOWED");
  return new AppError(
    "SANDBOX_UNAVAILABLE",
    `The sandbox's agent server refused the tunnel (${status})`,
  );
}
