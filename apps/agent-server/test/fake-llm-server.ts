import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  headers: http.IncomingHttpHeaders;
  body: {
    model: string;
    messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
    tools: { function: { name: string } }[];
  };
}

export type ScriptedReply = { status: number; body: unknown };

/**
 * The one fake of the suite: an OpenAI-compatible `/chat/completions` that answers from a
 * script (one reply per call; the last one repeats) and records what it was sent.
 */
export async function startFakeLlm(script: ScriptedReply[]) {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => {
      raw += chunk;
    });
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404).end();
        return;
      }
      requests.push({ headers: req.headers, body: JSON.parse(raw) });
      const reply = script[Math.min(requests.length, script.length) - 1] ?? {
        status: 500,
        body: {},
      };
      res.writeHead(reply.status, { "content-type": "application/json" });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let callCounter = 0;

/** A chat completion that calls one tool. */
export function toolCallReply(
  name: string,
  args: unknown,
  content: string | null = null,
): ScriptedReply {
  callCounter++;
  return {
    status: 200,
    body: {
      id: `resp-${callCounter}`,
      choices: [
        {
          message: {
            role: "assistant",
            content,
            tool_calls: [
              {
                id: `call-${callCounter}`,
                type: "function",
                function: { name, arguments: JSON.stringify(args) },
              },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    },
  };
}

export function textReply(content: string): ScriptedReply {
  return {
    status: 200,
    body: {
      id: "resp-text",
      choices: [{ message: { role: "assistant", content }, finish_reason: "stop" }],
    },
  };
}
