import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { command } from "../../../test/conversation";
import { expectAppError, expectValidationError } from "../../../test/expect-error";
import { createTestCore, type TestCore } from "../../../test/harness";
import { pollUntil, waitForStatus } from "../../../test/wait";
import type { SandboxStatusChange } from "../../core-events";

/*
 * The lifetime rules end to end: real agent servers under the process runtime, real SQLite, and
 * the core's clock held by the test (it moves only by `advance`), so each rule fires on the sweep
 * the test runs and no outcome depends on the wall clock. The timed sweep is off (an hour apart).
 */
let t: TestCore;
let clock = Date.now();
const now = () => clock;
const advance = (seconds: number) => {
  clock += seconds * 1000;
};
const moves: SandboxStatusChange[] = [];

beforeAll(async () => {
  t = await createTestCore({
    now,
    config: {
      lifetimeSweepIntervalMs: 3_600_000,
      maxTimeoutMs: 7 * 24 * 3_600_000,
    },
  });
  t.deps.events.on("sandbox.status_changed", (move) => moves.push(move));
});
afterAll(() => t?.close());

async function running(input: Parameters<TestCore["admin"]["sandboxes"]["start"]>[0]) {
  const started = await t.admin.sandboxes.start(input);
  return waitForStatus(t.admin, started.id, "RUNNING");
}

const sweep = () => t.core.lifetime.sweep();
const get = (id: string) => t.admin.sandboxes.get({ id });
const detailsOf = (id: string) =>
  moves.filter((m) => m.sandbox.id === id).map((m) => [m.sandbox.status, m.sandbox.statusDetail]);

describe("sandbox lifetime", () => {
  it("pauses a sandbox when its timeout_s of active time is reached", async () => {
    const sandbox = await running({ timeout_s: 60 });
    expect(sandbox.lifetime).toMatchObject({ timeout_s: 60, on_timeout: "pause" });
    expect(Date.parse(sandbox.expires_at ?? "")).toBe(now() + 60_000);
    advance(30);
    await sweep();
    expect((await get(sandbox.id)).status).toBe("RUNNING");
    advance(31);
    await sweep();
    const paused = await get(sandbox.id);
    expect(paused).toMatchObject({
      status: "PAUSED",
      status_detail: "paused: timeout_s reached (on_timeout pause)",
      expires_at: null,
    });
    expect(paused.active_time_s).toBe(61);
    expect((await t.runtime.inspect(sandbox.id)).state).toBe("paused");
    expect(detailsOf(sandbox.id)).toContainEqual([
      "PAUSED",
      "paused: timeout_s reached (on_timeout pause)",
    ]);
    await t.admin.sandboxes.delete({ id: sandbox.id });
  });

  it("waits for a message in flight before it pauses, as a pause request does", async () => {
    const sandbox = await running({ timeout_s: 60 });
    expect(t.deps.forwards.enter(sandbox.id)).toBeNull();
    advance(61);
    const sweeping = sweep();
    // The gate closes for the pause: new messages are refused, the one in flight goes on.
    await pollUntil(
      async () => {
        const refused = t.deps.forwards.enter(sandbox.id);
        if (refused === null) t.deps.forwards.leave(sandbox.id);
        return refused;
      },
      (refused) => refused === "pausing",
      "the pause did not close the gate",
    );
    expect((await get(sandbox.id)).status).toBe("RUNNING");
    expect((await t.runtime.inspect(sandbox.id)).state).toBe("running");
    t.deps.forwards.leave(sandbox.id);
    await sweeping;
    expect((await get(sandbox.id)).status).toBe("PAUSED");
    await t.admin.sandboxes.delete({ id: sandbox.id });
  });

  it("deletes a sandbox at its timeout when on_timeout is delete", async () => {
    const sandbox = await running({ timeout_s: 60, on_timeout: "delete" });
    const conversation = await t.admin.conversations.create({ sandbox_id: sandbox.id });
    advance(61);
    await sweep();
    await expectAppError(get(sandbox.id), "SANDBOX_NOT_FOUND");
    expect((await t.runtime.inspect(sandbox.id)).state).toBe("missing");
    expect((await t.admin.conversations.get({ id: conversation.id })).archived).toBe(true);
    expect(detailsOf(sandbox.id)).toContainEqual([
      "STOPPING",
      "deleted: timeout_s reached (on_timeout delete)",
    ]);
  });

  it("does not count paused time, and POST /timeout sets the time left from now", async () => {
    const sandbox = await running({ timeout_s: 100, delete_paused_after_s: 30 * 86_400 });
    advance(40);
    const paused = await t.admin.sandboxes.pause({ id: sandbox.id });
    expect(paused.active_time_s).toBe(40);
    // Five days paused: far past the timeout in wall time, but no active time passes.
    advance(5 * 86_400);
    await sweep();
    const stillPaused = await get(sandbox.id);
    expect(stillPaused).toMatchObject({ status: "PAUSED", expires_at: null, active_time_s: 40 });
    const resumed = await t.admin.sandboxes.resume({ id: sandbox.id });
    expect(resumed.status).toBe("RUNNING");
    expect(Date.parse(resumed.expires_at ?? "")).toBe(now() + 60_000);
    advance(55);
    await sweep();
    expect((await get(sandbox.id)).status).toBe("RUNNING");
    // 5 s were left; extended to 120 s from now.
    const extended = await t.admin.sandboxes.setTimeout({ id: sandbox.id, timeout_s: 120 });
    expect(Date.parse(extended.expires_at ?? "")).toBe(now() + 120_000);
    expect(extended.lifetime.timeout_s).toBe(95 + 120);
    advance(119);
    await sweep();
    expect((await get(sandbox.id)).status).toBe("RUNNING");
    // And shortened: 5 s from now.
    await t.admin.sandboxes.setTimeout({ id: sandbox.id, timeout_s: 5 });
    advance(6);
    await sweep();
    expect((await get(sandbox.id)).status_detail).toBe(
      "paused: timeout_s reached (on_timeout pause)",
    );
    await t.admin.sandboxes.delete({ id: sandbox.id });
  });

  it("deletes a PAUSED sandbox once it has been paused for delete_paused_after_s", async () => {
    const sandbox = await running({ delete_paused_after_s: 3_600 });
    advance(10_000);
    await sweep();
    expect((await get(sandbox.id)).status).toBe("RUNNING");
    const paused = await t.admin.sandboxes.pause({ id: sandbox.id });
    expect(Date.parse(paused.lifetime.delete_at ?? "")).toBe(now() + 3_600_000);
    advance(3_590);
    await sweep();
    expect((await get(sandbox.id)).status).toBe("PAUSED");
    advance(11);
    await sweep();
    await expectAppError(get(sandbox.id), "SANDBOX_NOT_FOUND");
    expect((await t.runtime.inspect(sandbox.id)).state).toBe("missing");
    expect(detailsOf(sandbox.id)).toContainEqual([
      "STOPPING",
      "deleted: paused for 3600 s (delete_paused_after_s)",
    ]);
  });

  it("never pauses for idleness while an agent runs, and does once it is idle", async () => {
    const sandbox = await running({ idle_pause_after_s: 300 });
    // The agent runs until the test lets it finish (a file in its workspace).
    const conversation = await t.admin.conversations.create({
      sandbox_id: sandbox.id,
      initial_message: command("while [ ! -e release ]; do sleep 0.1; done; echo released"),
    });
    await pollUntil(
      () => t.admin.conversations.get({ id: conversation.id }),
      (c) => c.execution_status === "running",
      "the agent did not start running",
    );
    advance(3_600);
    await sweep();
    expect((await get(sandbox.id)).status).toBe("RUNNING");
    // It was running throughout the sweep: a status only moves on from running.
    expect((await t.admin.conversations.get({ id: conversation.id })).execution_status).toBe(
      "running",
    );
    await writeFile(path.join(t.sandboxesDir, sandbox.id, "workspace", "release"), "");
    await pollUntil(
      () => t.admin.conversations.get({ id: conversation.id }),
      (c) => c.execution_status === "finished" || c.execution_status === "idle",
      "the agent did not finish",
    );
    advance(299);
    await sweep();
    expect((await get(sandbox.id)).status).toBe("RUNNING");
    advance(2);
    await sweep();
    const paused = await get(sandbox.id);
    expect(paused).toMatchObject({
      status: "PAUSED",
      status_detail: "paused: idle for 300 s (idle_pause_after_s)",
    });
    await t.admin.sandboxes.delete({ id: sandbox.id });
  });

  it("refuses durations out of bounds and unknown on_timeout values with 422", async () => {
    await expectValidationError(t.admin.sandboxes.start({ timeout_s: 0 }), ["timeout_s"]);
    const tooLong = await expectValidationError(
      t.admin.sandboxes.start({ timeout_s: 7 * 86_400 + 1 }),
      ["timeout_s"],
    );
    expect(tooLong.issues?.[0]?.message).toContain("604800");
    await expectValidationError(
      // @ts-expect-error: not one of the actions
      t.admin.sandboxes.start({ on_timeout: "stop" }),
      ["on_timeout"],
    );
    await expectValidationError(t.admin.sandboxes.start({ idle_pause_after_s: 1.5 }), [
      "idle_pause_after_s",
    ]);
    await expectValidationError(t.admin.sandboxes.setTimeout({ id: "sb_x", timeout_s: -1 }), [
      "timeout_s",
    ]);
    await expectAppError(
      t.admin.sandboxes.setTimeout({ id: "sb_missing", timeout_s: 10 }),
      "SANDBOX_NOT_FOUND",
    );
    // Nothing was created by the refused starts.
    expect((await t.admin.sandboxes.search({})).items).toEqual([]);
  });
});
