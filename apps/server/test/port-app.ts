/*
 * A small app run inside a sandbox on a port: JSON about each request, `/bytes?kib=N` (N KiB),
 * POST bodies counted as they stream, and a WebSocket (hand-made: no package inside the sandbox)
 * that echoes each short text frame as `echo:<text>`. Node only, bound to the address given
 * (127.0.0.1 unless said).
 */
const APP = String.raw`
const http = require("node:http");
const crypto = require("node:crypto");
const port = Number(process.argv[2]);
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://app");
  if (url.pathname === "/bytes") {
    const body = Buffer.alloc(Number(url.searchParams.get("kib")) * 1024, 97);
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": body.length });
    res.end(body);
    return;
  }
  let received = 0;
  req.on("data", (chunk) => { received += chunk.length; });
  req.on("end", () => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ method: req.method, path: req.url, host: req.headers.host, received }));
  });
});
server.on("upgrade", (req, socket) => {
  const accept = crypto.createHash("sha1")
    .update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
  socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n");
  socket.on("data", (frame) => {
    if ((frame[0] & 15) === 8) return socket.end();
    const length = frame[1] & 127;
    const mask = frame.subarray(2, 6);
    const text = Buffer.from(frame.subarray(6, 6 + length).map((b, i) => b ^ mask[i % 4])).toString();
    const out = Buffer.from("echo:" + text);
    socket.write(Buffer.concat([Buffer.from([0x81, out.length]), out]));
  });
  socket.on("error", () => socket.destroy());
});
server.listen(port, process.argv[3]);
`;

/**
 * A bash command that writes the app into the working directory, starts it detached on `port`
 * of `address` and returns once it accepts connections.
 */
export function startPortAppCommand(port: number, address = "127.0.0.1"): string {
  return [
    `cat > port-app-${port}.js <<'APP_EOF'\n${APP}\nAPP_EOF`,
    `setsid node port-app-${port}.js ${port} ${address} </dev/null >/dev/null 2>&1 &`,
    `for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/${port}) 2>/dev/null && exit 0; sleep 0.1; done; exit 1`,
  ].join("\n");
}
