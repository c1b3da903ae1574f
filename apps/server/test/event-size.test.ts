import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness";

// The shell agent keeps 30 000 characters of a command's output: over this cap, under its own.
const CAP = 16 * 1024;
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({
    config: { storedEventMaxBytes: CAP, followerReconnectBaseMs: 50, followerReconnectMaxMs: 500 },
  });
});
afterAll(async () => {
  await t.close();
});

interface StoredEvent {
  id: string;
  kind: string;
  source: string;
  truncated?: boolean;
  original_size_bytes?: number;
  detail?: string;
  observation?: unknown;
  llm_message?: { content: { text?: string }[] };
}

async function storedEvents(id: string): Promise<StoredEvent[]> {
  const res = await t.api("GET", `/api/v1/app-conversations/${id}/events?limit=100`);
  expect(res.status).toBe(200);
  return res.body.items;
}

const run = (text: string) => ({ role: "user", content: [{ type: "text", text }], run: true });

describe("an event over the stored-size cap", () => {
  it("is stored as a placeholder that says so, and the events after it are stored whole", async () => {
    const conv = await t.api("POST", "/api/v1/app-conversations", { body: {} });
    expect(conv.status).toBe(201);
    const id = conv.body.id as string;
    // First the control: output under the cap is stored whole.
    await t.api("POST", `/api/v1/app-conversations/${id}/send-message`, {
      body: run("echo small"),
    });
    await expect
      .poll(async () => (await storedEvents(id)).some((e) => e.kind === "ObservationEvent"), {
        timeout: 30_000,
      })
      .toBe(true);
    const small = (await storedEvents(id)).find((e) => e.kind === "ObservationEvent");
    expect(small?.truncated).toBeUndefined();
    expect(JSON.stringify(small?.observation)).toContain("small");

    // About 200 KB of output (30 000 characters kept by the agent): its observation and the agent's reply are over the cap.
    const big = "head -c 200000 /dev/zero | tr '\\0' x";
    await t.api("POST", `/api/v1/app-conversations/${id}/send-message`, { body: run(big) });
    await t.api("POST", `/api/v1/app-conversations/${id}/send-message`, {
      body: run("echo after-the-big-one"),
    });
    await expect
      .poll(
        async () => {
          // The command's observation, not the user's message (stored before the big one ends).
          const events = await storedEvents(id);
          return (
            events.some((e) => e.truncated) &&
            events.some(
              (e) =>
                e.kind === "ObservationEvent" &&
                JSON.stringify(e.observation ?? "").includes("after-the-big-one"),
            )
          );
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    const truncated = (await storedEvents(id)).filter((e) => e.truncated);
    expect(truncated.length).toBeGreaterThan(0);
    for (const event of truncated) {
      expect(event.original_size_bytes).toBeGreaterThan(CAP);
      expect(event.detail).toContain(`larger than ${CAP} bytes`);
      expect(event).not.toHaveProperty("observation");
      expect(event.id).toEqual(expect.any(String));
    }
  });
});
