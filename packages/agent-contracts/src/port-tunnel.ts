/*
 * The agent server's port tunnel (no zod here: the agent server reads it before its API loads).
 * `GET /api/ports/{port}` with `Connection: Upgrade`, `Upgrade: PORT_TUNNEL_PROTOCOL` and the
 * session key answers 101 once it is connected to 127.0.0.1:{port} inside the sandbox, then
 * carries raw bytes both ways.
 */
export const PORT_TUNNEL_PROTOCOL = "sandbox-port-tunnel";

export function portTunnelPath(port: number): string {
  return `/api/ports/${port}`;
}
