import path from "node:path";
import { createDb } from "@sandbox-server/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isErrorBody } from "./lib/api";
import { findMismatches, waitForSettled } from "./lib/invariants";
import { listAgentServer, listAll, userMessageTexts } from "./lib/pages";
import { startReceiver } from "./lib/receiver";
import { agentServerPid, killSandbox, processState, sandboxPids } from "./lib/sandboxes";
import { type ServerProcess, startServerProcess } from "./lib/server-process";

let server: ServerProcess;
let key: string;

beforeAll(async () => {
  server = await startServerProcess({
    env: {
      MAX_RUNNING_SANDBOXES: "40",
      SANDBOX_START_TIMEOUT_MS: "20000",
      WEBHOOK_BACKOFF_BASE_MS: "200",
      WEBHOOK_BACKOFF_MAX_MS: "500",
      WEBHOOK_MAX_ATTEMPTS: "100",
      // The test's receiver listens on 127.0.0.1.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    },
  });
  key = (await server.api("POST", "/api/v1/users", { body: { name: "faults" } })).body.api_key;
});

afterAll(async () => {
  await server?.dispose();
});

const message = (text: string) => ({ role: "user", content: [{ type: "text", text }], run: false });

async function waitUntil(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  await expect.poll(check, { timeout: timeoutMs, interval: 50 }).toBe(true);
}

async function waitForStatus(id: string, status: string, timeoutMs = 15_000) {
  const read = async () =>
    (await server.api("GET", `/api/v1/sandboxes/${id}`, { key })).body.status;
  await expect.poll(read, { timeout: timeoutMs, interval: 100 }).toBe(status);
}

describe("agent server killed during sends", () => {
  it("answers 503 while it is down, then resume brings it back with its events", async () => {
    const conv = (await server.api("POST", "/api/v1/app-conversations", { key, body: {} })).body;
    const pid = await agentServerPid(server.dataDir, conv.sandbox_id);
    const accepted: string[] = [];
    const refusedWhileDead: string[] = [];
    // Ordered by events, not by the clock: "dead" starts once no process of the sandbox is left.
    type Phase = "alive" | "killing" | "dead";
    const now: { phase: Phase } = { phase: "alive" };
    const answers: { phase: Phase; status: number }[] = [];
    const SENDS_WHILE_DEAD = 5;
    // Four senders keep messages in flight; every process of the sandbox dies under them.
    const sender = async (n: number) => {
      let whileDead = 0;
      for (let i = 0; whileDead < SENDS_WHILE_DEAD; i++) {
        const text = `kill-${n}-${i}`;
        const startedIn = now.phase;
        const res = await server.api("POST", `/api/v1/app-conversations/${conv.id}/send-message`, {
          key,
          body: message(text),
        });
        answers.push({ phase: startedIn, status: res.status });
        if (startedIn === "dead") {
          whileDead++;
          refusedWhileDead.push(text);
        }
        if (res.status === 200) accepted.push(text);
        else {
          expect(res.status, res.text).toBe(503);
          expect(isErrorBody(res)).toBe(true);
          expect(res.body.code).toBe("SANDBOX_UNAVAILABLE");
        }
      }
    };
    const killer = async () => {
      await expect
        .poll(() => accepted.length, { timeout: 30_000, interval: 5 })
        .toBeGreaterThan(20);
      now.phase = "killing";
      // Every process of the sandbox (under bubblewrap: bwrap, its init, the agent server).
      await killSandbox(server.dataDir, conv.sandbox_id);
      await expect.poll(() => sandboxPids(server.dataDir, conv.sandbox_id)).toEqual([]);
      now.phase = "dead";
    };
    await Promise.all([killer(), ...[0, 1, 2, 3].map(sender)]);
    expect(answers.filter((a) => a.phase === "alive" && a.status === 200).length).toBeGreaterThan(
      0,
    );
    const whileDead = answers.filter((a) => a.phase === "dead");
    expect(whileDead.length).toBe(4 * SENDS_WHILE_DEAD);
    expect(whileDead.filter((a) => a.status !== 503)).toEqual([]);
    expect([null, "Z"]).toContain(processState(pid));

    await waitForStatus(conv.sandbox_id, "ERROR");
    const resumed = await server.api("POST", `/api/v1/sandboxes/${conv.sandbox_id}/resume`, {
      key,
    });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body.status).toBe("RUNNING");
    const after = await server.api("POST", `/api/v1/app-conversations/${conv.id}/send-message`, {
      key,
      body: message("after-resume"),
    });
    expect(after.status, after.text).toBe(200);
    const read = (await server.api("GET", `/api/v1/app-conversations/${conv.id}`, { key })).body;
    const events = await listAgentServer(
      `${read.conversation_url}/events/search`,
      read.session_api_key,
    );
    const texts = userMessageTexts(events);
    for (const text of [...accepted, "after-resume"]) {
      expect(
        texts.filter((t) => t === text),
        text,
      ).toHaveLength(1);
    }
    // What was refused while nothing ran was never delivered (nor later, by the relaunch).
    expect(texts.filter((t) => refusedWhileDead.includes(t))).toEqual([]);
  });
});

describe("a client that disconnects in the middle of POST /app-conversations", () => {
  it("leaves a readable conversation or nothing: never a sandbox without its conversation", async () => {
    const listSandboxes = () => listAll(server.api, "/api/v1/sandboxes/search", key);
    const before = new Set((await listSandboxes()).map((s) => s.id));
    const fresh = async () => (await listSandboxes()).filter((s) => !before.has(s.id));
    const clients = Array.from({ length: 6 }, () => new AbortController());
    const requests = clients.map((client) =>
      fetch(`${server.url}/api/v1/app-conversations`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: "{}",
        signal: client.signal,
      }).catch(() => null),
    );
    // Gone once every create has its sandbox: each is between its sandbox and its conversation.
    await expect.poll(async () => (await fresh()).length, { timeout: 30_000 }).toBe(6);
    for (const client of clients) client.abort();
    await Promise.all(requests);

    // Each sandbox ends with its conversation, or is removed: wait until no create is half-way.
    const conversationsOf = async (sandboxId: string) =>
      listAll(server.api, `/api/v1/app-conversations?sandbox_id=${sandboxId}`, key);
    const halfMade = async () => {
      const left: string[] = [];
      for (const sandbox of await fresh()) {
        if ((await conversationsOf(sandbox.id)).length !== 1)
          left.push(`${sandbox.id} ${sandbox.status}`);
      }
      return left;
    };
    await expect.poll(halfMade, { timeout: 60_000, interval: 200 }).toEqual([]);
    for (const sandbox of await fresh()) {
      const [conversation] = await conversationsOf(sandbox.id);
      const read = await server.api("GET", `/api/v1/app-conversations/${conversation?.id}`, {
        key,
      });
      expect(read.status, read.text).toBe(200);
      expect(read.body.archived).toBe(false);
      const onAgent = await fetch(read.body.conversation_url, {
        headers: { "x-session-api-key": read.body.session_api_key },
      });
      expect(onAgent.status).toBe(200);
    }
  });
});

describe("SQLite file locked by another process", () => {
  it("fails writes cleanly with 503 STORE_BUSY, keeps serving, and recovers once the lock is released", async () => {
    const handle = createDb(path.join(server.dataDir, "sandbox-server.db"));
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      handle.sqlite.exec("ROLLBACK");
      handle.close();
    };
    try {
      handle.sqlite.exec("BEGIN EXCLUSIVE");
      // Held until the server's write has given up (the store retries for 2 s, on timers).
      const [write, read, health] = await Promise.all([
        server.api("POST", "/api/v1/users", { body: { name: "during-lock" } }),
        server.api("GET", "/api/v1/users/me", { key }),
        server.api("GET", "/health", { key: null }),
      ]);
      expect(write.status, write.text).toBe(503);
      expect(isErrorBody(write)).toBe(true);
      expect(write.body.code).toBe("STORE_BUSY");
      // WAL: readers are not blocked by a writer; the waiting write blocks nothing else.
      expect(read.status).toBe(200);
      expect(health.status).toBe(200);
    } finally {
      release();
    }
    expect((await server.api("GET", "/health", { key: null })).status).toBe(200);
    const after = await server.api("POST", "/api/v1/users", { body: { name: "after-lock" } });
    expect(after.status, after.text).toBe(201);
    const start = await server.api("POST", "/api/v1/sandboxes", { key, body: {} });
    expect(start.status, start.text).toBe(201);
    await waitForStatus(start.body.id, "RUNNING");
  });
});

describe("webhook deliveries pending at a SIGKILL", () => {
  it("are still delivered after the restart, each one", async () => {
    let answer = 503;
    const receiver = await startReceiver(() => answer);
    try {
      const conv = (await server.api("POST", "/api/v1/app-conversations", { key, body: {} })).body;
      const hook = await server.api("POST", "/api/v1/webhooks", {
        key,
        body: { url: receiver.url, conversation_id: conv.id, events: ["MessageEvent"] },
      });
      expect(hook.status, hook.text).toBe(201);
      const texts = Array.from({ length: 5 }, (_, i) => `pending-${i}-${Date.now()}`);
      for (const text of texts) {
        const sent = await server.api("POST", `/api/v1/app-conversations/${conv.id}/send-message`, {
          key,
          body: message(text),
        });
        expect(sent.status).toBe(200);
      }
      const seen = (text: string, status?: number) =>
        receiver.received.some(
          (d) =>
            JSON.stringify(d.payload).includes(text) &&
            (status === undefined || d.answered === status),
        );
      // Events go out one at a time per conversation: the first is retried while the rest wait
      // in the outbox. Each was refused at least once or is queued behind one that was.
      await waitUntil(() => seen(texts[0]!, 503));
      await server.kill("SIGKILL");
      answer = 200;
      await server.restart();
      await waitUntil(() => texts.every((text) => seen(text, 200)), 30_000);
      const deliveries = await server.api(
        "GET",
        `/api/v1/webhooks/${hook.body.id}/deliveries?status=pending`,
        { key },
      );
      expect(deliveries.body.items).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

describe("afterwards", () => {
  it("the store and the runtime agree, and nothing is stuck", async () => {
    expect(await waitForSettled(server.dataDir)).toEqual([]);
    expect(await findMismatches(server.dataDir)).toEqual([]);
  });
});
