import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCore, type TestCore } from "../../../test/harness";
import { waitForStatus } from "../../../test/wait";
import { WARM_UP_CALLS, warmUp } from "./warm-up";

let t: TestCore;

beforeAll(async () => {
  t = await createTestCore();
});

afterAll(async () => {
  await t?.close();
});

describe("a warm-pool member's warm-up", () => {
  it("is refused by a real agent server and leaves it without a conversation", async () => {
    const { id } = await t.admin.sandboxes.start({});
    await waitForStatus(t.admin, id, "RUNNING");
    const row = await t.deps.repos.sandboxes.get(id);
    const url = row?.agentServerUrl ?? "";
    const headers = { "x-session-api-key": row?.sessionApiKey ?? "" };
    const conversations = async () =>
      (await fetch(`${url}/api/conversations/count`, { headers })).json();

    // Refused, all three: the calls as invalid, the socket's conversation as unknown.
    expect(await warmUp(t.deps, row)).toEqual({ answers: [422, 422], socketClose: 4004 });
    expect(await conversations()).toBe(0);

    // The create's shape with both fields in range is accepted: its refusal is theirs alone.
    const create = WARM_UP_CALLS.find(([path]) => path === "/api/conversations")?.[1] ?? "{}";
    const accepted = await fetch(`${url}/api/conversations`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({
        ...JSON.parse(create),
        conversation_id: randomUUID(),
        max_iterations: 1,
      }),
    });
    expect(accepted.status).toBe(201);
    expect(await conversations()).toBe(1);
  });
});
