import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { testEventWorkerScript } from "./event-worker-bundle";
import { startTestServer, type TestServer } from "./harness";

// The ingest worker (dist/event-worker.js): the control plane follows conversations and stores
// their events on a thread of its own. These tests show that it is used, and that the main thread
// takes over (losing nothing) when it cannot start or dies.

const fixtures = mkdtempSync(path.join(tmpdir(), "sandbox-server-worker-fixtures-"));
afterAll(() => rmSync(fixtures, { recursive: true, force: true }));

/** A worker script of this test's own (ESM), in the fixtures directory. */
function fixture(name: string, source: string): URL {
  const file = path.join(fixtures, name);
  writeFileSync(file, source);
  return pathToFileURL(file);
}

// The worker starts with the first conversation followed, so the first events wait for its start.
const STORED = { timeout: 15_000 };

let realScript: URL;
beforeAll(async () => {
  realScript = await testEventWorkerScript();
});

let t: TestServer | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

const message = (text: string) => ({
  role: "user",
  content: [{ type: "text", text }],
  run: false,
});

async function createConversation(server: TestServer) {
  const res = await server.api("POST", "/api/v1/app-conversations", { body: {} });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

async function send(server: TestServer, id: string, text: string) {
  const res = await server.api("POST", `/api/v1/app-conversations/${id}/send-message`, {
    body: message(text),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** The texts of the user messages the control plane stored for the conversation, in order. */
async function storedTexts(server: TestServer, id: string): Promise<string[]> {
  const res = await server.api(
    "GET",
    `/api/v1/app-conversations/${id}/events?limit=100&kind__eq=MessageEvent`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items.map(
    (event: { llm_message: { content: { text: string }[] } }) => event.llm_message.content[0]?.text,
  );
}

describe("the ingest worker", () => {
  it("follows and stores events on its own thread, and tells the main thread what changed", async () => {
    t = await startTestServer();
    expect(t.server.core.follower.where).toBe("worker");
    const conv = await createConversation(t);
    await send(t, conv.id, "one");
    await send(t, conv.id, "two");
    await expect.poll(() => storedTexts(t as TestServer, conv.id), STORED).toEqual(["one", "two"]);
    // The notice came back: the conversation's record moved (its title is the first message).
    const read = await t.api("GET", `/api/v1/app-conversations/${conv.id}`);
    expect(read.body.title).toBe("one");
    expect(t.logs()).toContain("events are followed and stored on the ingest worker's thread");
  });

  it("is started by the first conversation followed, not with the control plane", async () => {
    t = await startTestServer();
    const started = "events are followed and stored on the ingest worker's thread";
    const sandbox = await t.api("POST", "/api/v1/sandboxes", { body: {} });
    expect(sandbox.status, JSON.stringify(sandbox.body)).toBe(201);
    await t.waitForStatus(sandbox.body.id, "RUNNING");
    expect(t.logs()).not.toContain(started);
    const conv = await t.api("POST", "/api/v1/app-conversations", {
      body: { sandbox_id: sandbox.body.id },
    });
    expect(conv.status, JSON.stringify(conv.body)).toBe(201);
    await expect.poll(() => t?.logs(), STORED).toContain(started);
    await send(t, conv.body.id, "stored by the worker");
    await expect
      .poll(() => storedTexts(t as TestServer, conv.body.id), STORED)
      .toEqual(["stored by the worker"]);
  });

  it("does not start (its script fails): the main thread follows instead", async () => {
    const broken = fixture("broken.mjs", 'throw new Error("this worker cannot start");\n');
    t = await startTestServer({ eventWorkerScript: broken });
    // The first conversation starts the worker; it fails, and this thread follows the conversation.
    const conv = await createConversation(t);
    await expect.poll(() => t?.server.core.follower.where, STORED).toBe("main");
    expect(t.logs()).toContain("following events on the main thread instead");
    await send(t, conv.id, "still stored");
    await expect
      .poll(() => storedTexts(t as TestServer, conv.id), STORED)
      .toEqual(["still stored"]);
  });

  it("dies while following: the main thread takes over and loses no event", async () => {
    // The real worker, which exits once told to follow a conversation whose marker file exists.
    const marker = path.join(fixtures, "crash-now");
    const dying = fixture(
      "dying.mjs",
      [
        'import { existsSync } from "node:fs";',
        'import { parentPort } from "node:worker_threads";',
        `parentPort.on("message", (m) => { if (m.type === "follow" && existsSync(${JSON.stringify(marker)})) setTimeout(() => process.exit(7), 100); });`,
        `await import(${JSON.stringify(realScript.href)});`,
        "",
      ].join("\n"),
    );
    t = await startTestServer({ eventWorkerScript: dying });
    expect(t.server.core.follower.where).toBe("worker");
    const first = await createConversation(t);
    await send(t, first.id, "before");
    await expect.poll(() => storedTexts(t as TestServer, first.id), STORED).toEqual(["before"]);
    writeFileSync(marker, "");
    // Following this one makes the worker exit.
    const second = await createConversation(t);
    await expect.poll(() => t?.server.core.follower.where, STORED).toBe("main");
    expect(t.logs()).toContain("the ingest worker exited (code 7)");
    await send(t, first.id, "after");
    await send(t, second.id, "second");
    await expect
      .poll(() => storedTexts(t as TestServer, first.id), STORED)
      .toEqual(["before", "after"]);
    await expect.poll(() => storedTexts(t as TestServer, second.id), STORED).toEqual(["second"]);
  });
});
