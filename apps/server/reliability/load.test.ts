import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isErrorBody } from "./lib/api";
import { listAgentServer, listAll, userMessageTexts } from "./lib/pages";
import { sandboxProcesses } from "./lib/sandboxes";
import { type ServerProcess, startServerProcess } from "./lib/server-process";

const LIMIT = 8;
const CREATES = 50;
const MESSAGES = 500;

let server: ServerProcess;
let key: string;
// biome-ignore lint/suspicious/noExplicitAny: API bodies are inspected structurally
const created: any[] = [];

beforeAll(async () => {
  server = await startServerProcess({ env: { MAX_RUNNING_SANDBOXES: String(LIMIT) } });
  const user = await server.api("POST", "/api/v1/users", { body: { name: "loader" } });
  key = user.body.api_key;
  for (let i = 0; i < 2; i++) {
    const res = await server.api("POST", "/api/v1/app-conversations", { key, body: {} });
    expect(res.status, res.text).toBe(201);
    created.push(res.body);
  }
});

afterAll(async () => {
  await server?.dispose();
});

describe(`${CREATES} concurrent conversation creates`, () => {
  const intoExisting: string[] = [];
  const newSandbox: number[] = [];

  it("answer each one 201 or 429, and 429 only when the sandbox limit is reached", async () => {
    const existing = created.map((c) => c.sandbox_id as string);
    const requests = Array.from({ length: CREATES }, (_, i) => {
      const body =
        i % 2 === 0
          ? { title: `new ${i}` }
          : { sandbox_id: existing[i % 4 === 1 ? 0 : 1], title: `in ${i}` };
      return server
        .api("POST", "/api/v1/app-conversations", { key, body })
        .then((res) => ({ i, body, res }));
    });
    const answers = await Promise.all(requests);
    for (const { i, body, res } of answers) {
      if ("sandbox_id" in body) {
        expect(res.status, `#${i}: ${res.text}`).toBe(201);
        intoExisting.push(res.body.id);
        created.push(res.body);
      } else if (res.status === 201) {
        newSandbox.push(i);
        created.push(res.body);
      } else {
        expect(res.status, `#${i}: ${res.text}`).toBe(429);
        expect(isErrorBody(res)).toBe(true);
        expect(res.body.code).toBe("SANDBOX_LIMIT_REACHED");
      }
    }
    // Two sandboxes ran before; the limit leaves room for exactly this many more.
    expect(newSandbox).toHaveLength(LIMIT - 2);
    expect(intoExisting).toHaveLength(CREATES / 2);
  });

  it("leave no duplicate or half-made records: the control plane and agent servers agree", async () => {
    const listed = await listAll(server.api, "/api/v1/app-conversations", key);
    const ids = listed.map((c) => c.id as string);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(created.map((c) => c.id as string).sort());

    const sandboxes = await listAll(server.api, "/api/v1/sandboxes/search", key);
    expect(sandboxes).toHaveLength(LIMIT);
    for (const sandbox of sandboxes) {
      expect(sandbox.status).toBe("RUNNING");
      const mine = listed.filter((c) => c.sandbox_id === sandbox.id).map((c) => c.id as string);
      expect(mine.length, `sandbox ${sandbox.id} has no conversation`).toBeGreaterThan(0);
      const onAgent = await listAgentServer(
        `${sandbox.agent_server_url}/api/conversations/search`,
        sandbox.session_api_key,
      );
      expect(onAgent.map((c) => c.id as string).sort()).toEqual(mine.sort());
    }
    // The refused creates left no process behind: one process tree per sandbox record.
    const processes = await sandboxProcesses(server.dataDir);
    expect([...processes.keys()].sort()).toEqual(sandboxes.map((s) => s.id as string).sort());
  });
});

describe(`${MESSAGES} concurrent send-messages`, () => {
  it("are each answered 200 (or 429), and every accepted message is stored exactly once", async () => {
    const run = randomBytes(4).toString("hex");
    const sends = Array.from({ length: MESSAGES }, (_, i) => {
      const conversation = created[i % created.length];
      const text = `load-${run}-${i}`;
      const body = { role: "user", content: [{ type: "text", text }], run: false };
      return server
        .api("POST", `/api/v1/app-conversations/${conversation.id}/send-message`, {
          key,
          body,
        })
        .then((res) => ({ conversation: conversation.id as string, text, res }));
    });
    const answers = await Promise.all(sends);
    const accepted = new Map<string, string[]>();
    for (const { conversation, text, res } of answers) {
      expect([200, 429], `${text}: ${res.status} ${res.text}`).toContain(res.status);
      if (res.status === 200) {
        expect(res.body).toEqual({ success: true, sandbox_status: "RUNNING", message: null });
        accepted.set(conversation, [...(accepted.get(conversation) ?? []), text]);
      }
    }
    const refused = answers.filter((a) => a.res.status !== 200).map((a) => a.text);
    for (const conversation of created) {
      const events = await listAgentServer(
        `${conversation.conversation_url}/events/search?sort_order=TIMESTAMP`,
        conversation.session_api_key,
      );
      const texts = userMessageTexts(events).filter((t) => t.startsWith(`load-${run}-`));
      const expected = accepted.get(conversation.id) ?? [];
      expect(texts.sort(), `conversation ${conversation.id}`).toEqual([...expected].sort());
      expect(texts.filter((t) => refused.includes(t))).toEqual([]);
    }
    const total = [...accepted.values()].reduce((n, list) => n + list.length, 0);
    expect(total).toBeGreaterThan(0);
  });

  it("leave the control plane healthy, with no internal error logged", async () => {
    expect((await server.api("GET", "/health", { key: null })).status).toBe(200);
    const internal = server
      .output()
      .split("\n")
      .filter((line) => /"level":(50|60)/.test(line));
    expect(internal.slice(0, 5)).toEqual([]);
  });
});
