import WebSocket from "ws";

/** How the agent server's event socket treats a key: "open", "close <code>" or "refused <status>". */
export function socketOutcome(
  agentServerUrl: string,
  conversationId: string,
  key: string,
): Promise<string> {
  // Without a key in the URL, the key comes in the first frame.
  const query = key ? `?session_api_key=${encodeURIComponent(key)}` : "";
  const socket = new WebSocket(
    `${agentServerUrl.replace(/^http/, "ws")}/sockets/events/${conversationId}${query}`,
  );
  if (!key) {
    socket.once("open", () =>
      socket.send(JSON.stringify({ type: "auth", session_api_key: "nope" })),
    );
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.terminate();
      resolve("open");
    }, 1500);
    socket.once("unexpected-response", (_req, res) => {
      clearTimeout(timer);
      socket.terminate();
      resolve(`refused ${res.statusCode}`);
    });
    socket.once("close", (code) => {
      clearTimeout(timer);
      resolve(`close ${code}`);
    });
    socket.once("error", () => undefined);
  });
}
