import { WebSocket } from "ws";

export interface TestSocket {
  ws: WebSocket;
  /** Every frame received so far, parsed. */
  frames: Record<string, unknown>[];
  /** Resolves with the first frame (from the start) that matches. */
  waitForFrame(
    match: (frame: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
  send(frame: unknown): void;
}

/** Opens a WebSocket and records its frames; resolves once open. */
export async function openSocket(
  url: string,
  headers: Record<string, string> = {},
): Promise<TestSocket> {
  const ws = new WebSocket(url, { headers });
  const frames: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on("message", (data) => {
    frames.push(JSON.parse(String(data)));
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on("close", (code, reason) => {
      resolve({ code, reason: String(reason) });
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return {
    ws,
    frames,
    closed,
    send: (frame) => ws.send(typeof frame === "string" ? frame : JSON.stringify(frame)),
    async waitForFrame(match) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = frames.find(match);
        if (found) return found;
        if (ws.readyState === WebSocket.CLOSED || Date.now() > deadline) {
          throw new Error(`no matching frame; got ${JSON.stringify(frames.map((f) => f.kind))}`);
        }
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
  };
}
