// The least a user-space proxy does: each connection piped to TARGET_HOST:TARGET_PORT and back,
// nothing parsed. The bench's floor for the port URL's proxy.
import net from "node:net";

const host = process.env.TARGET_HOST;
const port = Number(process.env.TARGET_PORT);
const server = net.createServer((client) => {
  client.setNoDelay(true);
  const upstream = net.connect({ host, port });
  upstream.setNoDelay(true);
  client.pipe(upstream).on("error", () => client.destroy());
  upstream.pipe(client).on("error", () => upstream.destroy());
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
});
server.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));
process.on("SIGTERM", () => process.exit(0));
