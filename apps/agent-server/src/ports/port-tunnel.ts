import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";

import { PORT_TUNNEL_PROTOCOL } from "@sandbox-server/agent-contracts/port-tunnel";

const TUNNEL_PATH = /^\/api\/ports\/([0-9]{1,5})$/;
const CONNECT_TIMEOUT_MS = 10_000;

/** The port of a tunnel request, or null when the path is not one. */
export function tunnelPort(url: string | undefined): number | null {
  const match = TUNNEL_PATH.exec((url ?? "").split("?")[0] ?? "");
  return match ? Number(match[1]) : null;
}

/**
 * Connects to 127.0.0.1:{port} inside the sandbox and, once connected, answers 101 and pipes raw
 * bytes both ways until either side ends. Nothing listening: 502 (the control plane's proxy passes
 * it on). Only ports that are neither out of range nor this server's own.
 */
export function openPortTunnel(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  port: number,
  ownPort: number,
): void {
  client.on("error", () => client.destroy());
  if ((req.headers.upgrade ?? "").toLowerCase() !== PORT_TUNNEL_PROTOCOL) {
    refuse(client, 400, `Upgrade: ${PORT_TUNNEL_PROTOCOL} is required`);
    return;
  }
  if (port < 1 || port > 65535 || port === ownPort) {
    refuse(client, 403, `Port ${port} cannot be tunnelled`);
    return;
  }
  const net = process.getBuiltinModule("node:net");
  const target: Socket = net.connect({ host: "127.0.0.1", port, noDelay: true });
  target.setTimeout(CONNECT_TIMEOUT_MS, () => target.destroy(new Error("connect timeout")));
  target.once("error", () => {
    refuse(client, 502, `Nothing answers on port ${port} in the sandbox`);
    target.destroy();
  });
  target.once("connect", () => {
    target.setTimeout(0);
    target.removeAllListeners("error");
    target.on("error", () => client.destroy());
    client.on("close", () => target.destroy());
    target.on("close", () => client.destroy());
    (client as Socket).setNoDelay?.(true);
    client.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${PORT_TUNNEL_PROTOCOL}\r\nConnection: Upgrade\r\n\r\n`,
    );
    if (head.length > 0) target.write(head);
    client.pipe(target);
    target.pipe(client);
  });
}

function refuse(client: Duplex, status: number, detail: string): void {
  if (client.destroyed || client.writableEnded) return;
  const body = JSON.stringify({ detail });
  const reason = { 400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway" }[status] ?? "Error";
  client.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
