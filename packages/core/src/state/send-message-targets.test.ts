import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAppError } from "../../test/expect-error";
import { createTestCore, type TestCore, type TestUser } from "../../test/harness";
import type { AppConversation } from "../conversations/contracts";

// What send-message remembers (the conversation and its RUNNING sandbox) never answers wrong:
// moves made here are seen at once, a remembered agent server that is gone is found out on the
// forward, and with a shared store the sandbox's status is always read fresh.
let t: TestCore;
let alice: TestUser;

beforeAll(async () => {
  t = await createTestCore();
  alice = await t.createUser("alice");
});

afterAll(async () => {
  await t?.close();
});

const note = (text: string) => ({
  role: "user" as const,
  content: [{ type: "text" as const, text }],
  run: false,
});

const send = (conversation: AppConversation, text: string) =>
  alice.caller.conversations.sendMessage({ conversation_id: conversation.id, ...note(text) });

async function userMessages(conversation: AppConversation, text: string): Promise<number> {
  const sandbox = await t.deps.repos.sandboxes.get(conversation.sandbox_id);
  const res = await fetch(
    `${sandbox?.agentServerUrl}/api/conversations/${conversation.id}/events/search?limit=100`,
    { headers: { "x-session-api-key": sandbox?.sessionApiKey ?? "" } },
  );
  const page = (await res.json()) as { items: { kind: string; llm_message?: unknown }[] };
  return page.items.filter((e) => e.kind === "MessageEvent" && JSON.stringify(e).includes(text))
    .length;
}

/** An HTTP proxy to `target` that counts what passes through it. */
async function countingProxy(target: string) {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    const upstream = request(
      new URL(req.url ?? "/", target),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Runs `work` with the core's clock stopped: nothing remembered expires meanwhile. */
async function withFrozenClock(work: () => Promise<void>): Promise<void> {
  const now = t.deps.now;
  const frozen = now();
  t.deps.now = () => frozen;
  try {
    await work();
  } finally {
    t.deps.now = now;
  }
}

describe("send-message's remembered targets", () => {
  it("sees a pause, a resume and a deletion made here at once", async () => {
    const conv = await alice.caller.conversations.create({});
    expect((await send(conv, "before the pause")).success).toBe(true);
    await alice.caller.sandboxes.pause({ id: conv.sandbox_id });
    await expectAppError(send(conv, "while paused"), "SANDBOX_NOT_RUNNING");
    await alice.caller.sandboxes.resume({ id: conv.sandbox_id });
    expect((await send(conv, "after the resume")).success).toBe(true);
    await alice.caller.sandboxes.delete({ id: conv.sandbox_id });
    await expectAppError(send(conv, "after the deletion"), "CONVERSATION_ARCHIVED");
  });

  it("finds out on the forward that a remembered agent server moved, and sends once to the new one", async () => {
    const conv = await alice.caller.conversations.create({});
    const real = await t.deps.repos.sandboxes.get(conv.sandbox_id);
    const realUrl = real?.agentServerUrl ?? "";
    const proxy = await countingProxy(realUrl);
    // Writes that announce nothing (as a supervisor's address update does). Nothing was sent to
    // this sandbox yet, so the first send reads the row and remembers the proxy's address.
    await t.deps.repos.sandboxes.update(conv.sandbox_id, { agentServerUrl: proxy.url });
    await withFrozenClock(async () => {
      expect((await send(conv, "through the proxy")).success).toBe(true);
      expect(proxy.requests()).toBe(1);
      // The remembered address goes away; the store names the real one again, silently.
      await proxy.close();
      await t.deps.repos.sandboxes.update(conv.sandbox_id, { agentServerUrl: realUrl });
      expect((await send(conv, "after the move")).success).toBe(true);
    });
    expect(await userMessages(conv, "after the move")).toBe(1);
    expect(proxy.requests()).toBe(1);
  });

  it("with a shared store reads the sandbox's status on every send", async () => {
    const conv = await alice.caller.conversations.create({});
    const writeStatus = (status: "PAUSED" | "RUNNING") =>
      t.deps.repos.sandboxes.update(conv.sandbox_id, { status });
    const shared = t.deps.sharedStore;
    try {
      await withFrozenClock(async () => {
        expect((await send(conv, "remembered")).success).toBe(true);
        // Positive control: one process alone remembers the RUNNING row, so a status written
        // past it (as another replica would) is not seen while the row is remembered.
        await writeStatus("PAUSED");
        expect((await send(conv, "from memory")).success).toBe(true);
        await writeStatus("RUNNING");
        t.deps.sharedStore = true;
        expect((await send(conv, "shared, running")).success).toBe(true);
        await writeStatus("PAUSED");
        await expectAppError(send(conv, "shared, paused"), "SANDBOX_NOT_RUNNING");
      });
      expect(await userMessages(conv, "shared, paused")).toBe(0);
    } finally {
      t.deps.sharedStore = shared;
      await writeStatus("RUNNING");
    }
  });
});
