import net from "node:net";

export interface RawConnection {
  socket: net.Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves with everything received once the server has closed the connection. */
  closed: Promise<string>;
  write(text: string): void;
}

/** A plain TCP connection to the server, for bytes no HTTP client would send. */
export async function connectRaw(port: number): Promise<RawConnection> {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let data = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    data += chunk;
  });
  const closed = new Promise<string>((resolve) => {
    socket.on("error", () => {});
    socket.once("close", () => resolve(data));
  });
  return { socket, received: () => data, closed, write: (text) => socket.write(text) };
}

/** Status and parsed JSON body of the first response in `raw`. */
export function parseResponse(raw: string): { status: number; body: unknown; head: string } {
  const end = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, end);
  const status = Number(head.split(" ")[1]);
  const lengthHeader = /\r\ncontent-length: (\d+)/i.exec(head);
  const bodyText = raw.slice(end + 4, end + 4 + Number(lengthHeader?.[1] ?? 0));
  return { status, head, body: bodyText ? JSON.parse(bodyText) : undefined };
}
