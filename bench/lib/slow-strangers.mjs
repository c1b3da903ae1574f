// The slow-strangers figure's load, in a process of its own (so that it does not share the event
// loop of the client being timed): COUNT clients without credentials, each on its own connection,
// send the headers of POST /api/v1/webhooks and then its body one byte a second. A client that is
// cut off waits a second and connects again. Connections are opened over the first second.
//
//   PORT=<control plane port> COUNT=1000 node slow-strangers.mjs
//
// Prints "connected" once every client has connected once; on SIGTERM prints one JSON line
// {"connections": n, "unauthorized": n} and exits.
import { connect } from "node:net";

const port = Number(process.env.PORT);
const count = Number(process.env.COUNT ?? 1000);
const declared = Number(process.env.DECLARED_BYTES ?? 1000);
const head = `POST /api/v1/webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`;

let stopped = false;
let connections = 0;
let unauthorized = 0;
let firstConnects = 0;
const sockets = new Set();

function open(first) {
  if (stopped) return;
  connections++;
  const socket = connect(port, "127.0.0.1", () => {
    socket.write(head);
    if (first && ++firstConnects === count) process.stdout.write("connected\n");
  });
  sockets.add(socket);
  const drip = setInterval(() => socket.write("x"), 1000);
  socket.on("data", (chunk) => {
    if (chunk.toString("latin1").startsWith("HTTP/1.1 401")) unauthorized++;
  });
  socket.on("error", () => undefined);
  socket.once("close", () => {
    clearInterval(drip);
    sockets.delete(socket);
    setTimeout(() => open(false), 1000);
  });
}

for (let i = 0; i < count; i++) setTimeout(() => open(true), (i * 1000) / count);

process.once("SIGTERM", () => {
  stopped = true;
  for (const socket of sockets) socket.destroy();
  process.stdout.write(`${JSON.stringify({ connections, unauthorized })}\n`, () => process.exit(0));
});
