// The proxy benchmark's baseline: the least a Node forwarder does for send-message. It reads the
// body, POSTs it unchanged to the agent server's /events over an undici keep-alive pool (as the
// control plane's agent client does: 32 connections, no pipelining), reads the answer and replies
// 200 with a small JSON body. No authentication, validation, lookup or logging: what the control
// plane adds on top of this is its overhead.
//
//   TARGET_URL=http://127.0.0.1:<agent port> SESSION_API_KEY=<key> node bare-forwarder.mjs
//   POST /forward/<conversation id>  ->  POST <TARGET_URL>/api/conversations/<id>/events
//
// Prints "listening <port>" once it accepts connections. Runs until SIGTERM.
import http from "node:http";
import { Pool } from "undici";

const target = process.env.TARGET_URL;
const sessionKey = process.env.SESSION_API_KEY ?? "";
if (!target) {
  process.stderr.write("TARGET_URL is required\n");
  process.exit(2);
}
const pool = new Pool(target, { connections: 32, pipelining: 1, keepAliveTimeout: 30_000 });
const PREFIX = "/forward/";

function reply(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

const server = http.createServer((req, res) => {
  if (req.method !== "POST" || !req.url?.startsWith(PREFIX)) {
    reply(res, 404, { detail: "not found" });
    return;
  }
  const id = req.url.slice(PREFIX.length);
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    try {
      const answer = await pool.request({
        method: "POST",
        path: `/api/conversations/${id}/events`,
        headers: { "x-session-api-key": sessionKey, "content-type": "application/json" },
        body: Buffer.concat(chunks),
      });
      const text = await answer.body.text();
      if (answer.statusCode >= 300) reply(res, answer.statusCode, { detail: text });
      else reply(res, 200, { success: true, message: "forwarded" });
    } catch {
      reply(res, 503, { detail: "agent server unreachable" });
    }
  });
});

server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.once("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void pool.destroy().finally(() => process.exit(0));
});
