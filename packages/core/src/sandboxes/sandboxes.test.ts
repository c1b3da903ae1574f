import path from "node:path";
import { findSandboxProcesses } from "@sandbox-server/runtime";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { agentRequest, runInSandbox } from "../../test/agent";
import { expectAppError, expectValidationError } from "../../test/expect-error";
import { createTestCore, type TestCore, type TestUser } from "../../test/harness";
import { waitForStatus } from "../../test/wait";
import type { Sandbox } from "./contracts";

// Every test stands alone: two users of its own, and the sandboxes it starts itself — real agent
// servers (`startRunning`) or sandboxes whose command exits at once (`startFailing`: they end in
// ERROR without an agent server) — all deleted after it, so the running-sandbox count starts at 0.
let t: TestCore;
let alice: TestUser;
let bob: TestUser;
let users = 0;
const started: { user: TestUser; id: string }[] = [];

/** The same sandbox read again later: only its active time has grown. */
const later = (sandbox: Sandbox) => ({
  ...sandbox,
  active_time_s: expect.toSatisfy((s: number) => s >= sandbox.active_time_s),
});

beforeAll(async () => {
  t = await createTestCore();
  await t.addSpec({ id: "exits", command: ["/bin/sh", "-c", "exit 3"] });
  await t.addSpec({ id: "docker-only", runtime: "docker", image: "example/agent:1" });
});

afterAll(async () => {
  await t?.close();
});

beforeEach(async () => {
  users += 1;
  alice = await t.createUser(`alice-${users}`);
  bob = await t.createUser(`bob-${users}`);
});

afterEach(async () => {
  for (const { user, id } of started.splice(0)) {
    await user.caller.sandboxes.delete({ id }).catch(() => undefined);
  }
});

/** Starts a sandbox of `user` (deleted after the test) and answers what start answered. */
async function start(
  user: TestUser,
  input: Parameters<typeof user.caller.sandboxes.start>[0] = {},
) {
  const sandbox = await user.caller.sandboxes.start(input);
  started.push({ user, id: sandbox.id });
  return sandbox;
}

/** A RUNNING sandbox of `user`, with its own agent server. */
async function startRunning(user: TestUser, labels: Record<string, string> = {}): Promise<Sandbox> {
  return waitForStatus(user.caller, (await start(user, { labels })).id, "RUNNING");
}

/** A PAUSED sandbox of `user`: started, then paused. */
async function startPaused(user: TestUser): Promise<Sandbox> {
  const running = await startRunning(user);
  await user.caller.sandboxes.pause({ id: running.id });
  return running;
}

/** `count` sandboxes of `user` in ERROR (their command exits at once), labelled n=0, n=1, ... */
async function startFailing(user: TestUser, count: number): Promise<Sandbox[]> {
  const failing: Sandbox[] = [];
  for (let i = 0; i < count; i++) {
    const sandbox = await start(user, { sandbox_spec_id: "exits", labels: { n: String(i) } });
    failing.push(await waitForStatus(user.caller, sandbox.id, "ERROR"));
  }
  return failing;
}

/** Runs `work` with the server's running-sandbox limit set to `limit`. */
async function withLimit<T>(limit: number, work: () => Promise<T>): Promise<T> {
  const before = t.deps.config.maxRunningSandboxes;
  t.deps.config.maxRunningSandboxes = limit;
  try {
    return await work();
  } finally {
    t.deps.config.maxRunningSandboxes = before;
  }
}

describe("sandboxes.start", () => {
  it("answers STARTING at once; the sandbox becomes RUNNING with its own agent server", async () => {
    const first = await start(alice, {
      labels: { team: "a", tier: "gold" },
      env: { GREETING: "hello from the env" },
    });
    expect(first).toMatchObject({
      status: "STARTING",
      sandbox_spec_id: "default",
      created_by_user_id: alice.id,
      labels: { team: "a", tier: "gold" },
      agent_server_url: null,
      session_api_key: null,
      exposed_urls: [],
    });
    expect(first.id).toMatch(/^sb_/);

    const running = await waitForStatus(alice.caller, first.id, "RUNNING");
    const url = running.agent_server_url ?? "";
    const key = running.session_api_key ?? "";
    expect(url).toMatch(/^http:\/\/(127\.0\.0\.1:\d+|198\.19\.\d+\.\d+:8000)$/);
    expect(key).not.toBe("");
    expect(running.exposed_urls).toEqual([
      { name: "AGENT_SERVER", url, port: Number(new URL(url).port) },
    ]);
    expect(running.status_detail).toBeNull();
    // The agent server is real, checks the session key, and got the requested environment.
    expect((await agentRequest(url, key, "GET", "/api/conversations/count")).status).toBe(200);
    expect((await agentRequest(url, "wrong-key", "GET", "/api/conversations/count")).status).toBe(
      401,
    );
    expect(await runInSandbox(url, key, 'printf %s "$GREETING"')).toBe("hello from the env");
  });

  it("refuses an unknown spec (404) and a spec of another runtime (422), recording nothing", async () => {
    await expectAppError(
      bob.caller.sandboxes.start({ sandbox_spec_id: "no-such-spec" }),
      "SANDBOX_SPEC_NOT_FOUND",
    );
    await expectAppError(
      bob.caller.sandboxes.start({ sandbox_spec_id: "docker-only" }),
      "SPEC_NOT_SUPPORTED",
    );
    expect((await bob.caller.sandboxes.search({})).items).toEqual([]);
  });

  it("validates labels, env and the spec id", async () => {
    await expectValidationError(alice.caller.sandboxes.start({ labels: { "": "empty key" } }), [
      "labels",
    ]);
    await expectValidationError(
      alice.caller.sandboxes.start({ labels: { long: "x".repeat(257) } }),
      ["labels", "long"],
    );
    // As JSON.parse makes it: `__proto__` as an own key, which a record would silently drop.
    await expectValidationError(
      alice.caller.sandboxes.start({ labels: JSON.parse('{"__proto__": "x"}') }),
      ["labels", "__proto__"],
    );
    await expectValidationError(
      alice.caller.sandboxes.start({ env: { "1_NOT_AN_IDENTIFIER": "x" } }),
      ["env"],
    );
    // Size limits: at most 32 labels and 128 variables.
    const many = (n: number, prefix: string) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, "x"]));
    await expectValidationError(alice.caller.sandboxes.start({ labels: many(33, "l") }), [
      "labels",
    ]);
    await expectValidationError(alice.caller.sandboxes.start({ env: many(129, "V") }), ["env"]);
    await expectValidationError(
      alice.caller.sandboxes.start({ env: { BIG: "x".repeat(32_769) } }),
      ["env", "BIG"],
    );
    await expectValidationError(alice.caller.sandboxes.start({ sandbox_spec_id: "" }), [
      "sandbox_spec_id",
    ]);
    // Nothing was started by any of these.
    expect((await alice.caller.sandboxes.search({})).items).toEqual([]);
  });

  it("beyond the running-sandbox limit answers 429 and starts nothing, pausing nobody", async () => {
    const running = await startRunning(alice);
    const refusal = await withLimit(1, () =>
      expectAppError(bob.caller.sandboxes.start({}), "SANDBOX_LIMIT_REACHED"),
    );
    expect(refusal.details).toEqual({ limit: 1 });
    expect((await bob.caller.sandboxes.search({})).items).toEqual([]);
    expect((await alice.caller.sandboxes.get({ id: running.id })).status).toBe("RUNNING");
  });

  it("records a sandbox whose agent server cannot start as ERROR, with the reason", async () => {
    for (const sandbox of await startFailing(bob, 2)) {
      expect(sandbox.status_detail).toMatch(/^Failed to start/);
      expect(sandbox.agent_server_url).toBeNull();
      expect(sandbox.session_api_key).toBeNull();
    }
  });
});

describe("sandboxes.get", () => {
  it("answers the owner", async () => {
    const running = await startRunning(alice);
    expect(await alice.caller.sandboxes.get({ id: running.id })).toEqual(later(running));
  });

  it("answers another user's sandbox exactly like a missing one (404)", async () => {
    const [sandbox] = await startFailing(alice, 1);
    if (!sandbox) throw new Error("no sandbox");
    const foreign = await expectAppError(
      bob.caller.sandboxes.get({ id: sandbox.id }),
      "SANDBOX_NOT_FOUND",
    );
    const missing = await expectAppError(
      bob.caller.sandboxes.get({ id: "sb_doesnotexist" }),
      "SANDBOX_NOT_FOUND",
    );
    expect(foreign.message.replace(sandbox.id, "<id>")).toBe(
      missing.message.replace("sb_doesnotexist", "<id>"),
    );
    expect(foreign.details).toEqual(missing.details);
  });

  it("validates the id", async () => {
    await expectValidationError(alice.caller.sandboxes.get({ id: "" }), ["id"]);
    await expectValidationError(alice.caller.sandboxes.get({ id: "x".repeat(65) }), ["id"]);
  });

  it("refuses a caller without a valid key", async () => {
    const [sandbox] = await startFailing(alice, 1);
    if (!sandbox) throw new Error("no sandbox");
    // Positive control: its owner reads it.
    expect((await alice.caller.sandboxes.get({ id: sandbox.id })).id).toBe(sandbox.id);
    const anonymous = await t.callerFor(null);
    await expectAppError(anonymous.sandboxes.get({ id: sandbox.id }), "UNAUTHORIZED");
    const wrongKey = await t.callerFor("ssk_not_a_key_of_anyone");
    await expectAppError(wrongKey.sandboxes.get({ id: sandbox.id }), "UNAUTHORIZED");
  });
});

describe("sandboxes.search", () => {
  it("lists only the caller's sandboxes", async () => {
    const running = await startRunning(alice);
    const failing = await startFailing(bob, 3);
    expect((await alice.caller.sandboxes.search({})).items).toEqual([later(running)]);
    const bobs = (await bob.caller.sandboxes.search({})).items.map((s) => s.id).sort();
    expect(bobs).toEqual(failing.map((s) => s.id).sort());
    expect(bobs).not.toContain(running.id);
  });

  it("filters by status, spec and label", async () => {
    const running = await startRunning(alice, { team: "a", tier: "gold" });
    const failing = await startFailing(bob, 3);
    const ids = async (input: Parameters<typeof alice.caller.sandboxes.search>[0]) =>
      (await alice.caller.sandboxes.search(input)).items.map((s) => s.id);
    expect(await ids({ status: "RUNNING" })).toEqual([running.id]);
    expect(await ids({ status: "PAUSED" })).toEqual([]);
    expect(await ids({ sandbox_spec_id: "default" })).toEqual([running.id]);
    expect(await ids({ sandbox_spec_id: "exits" })).toEqual([]);
    expect(await ids({ label: "team" })).toEqual([running.id]);
    expect(await ids({ label: "team=a" })).toEqual([running.id]);
    expect(await ids({ label: "team=b" })).toEqual([]);
    expect(await ids({ label: "nope" })).toEqual([]);
    const bobErrors = await bob.caller.sandboxes.search({ status: "ERROR", label: "n=1" });
    expect(bobErrors.items.map((s) => s.id)).toEqual([failing[1]?.id]);
  });

  it("pages with an opaque cursor, every sandbox exactly once", async () => {
    const failing = await startFailing(bob, 3);
    const first = await bob.caller.sandboxes.search({ limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.next_page_id).toEqual(expect.any(String));
    const second = await bob.caller.sandboxes.search({
      limit: 2,
      page_id: first.next_page_id ?? undefined,
    });
    expect(second.items).toHaveLength(1);
    expect(second.next_page_id).toBeNull();
    const seen = [...first.items, ...second.items].map((s) => s.id).sort();
    expect(seen).toEqual(failing.map((s) => s.id).sort());
  });

  it("validates paging and filters", async () => {
    await expectValidationError(alice.caller.sandboxes.search({ limit: 0 }), ["limit"]);
    await expectValidationError(alice.caller.sandboxes.search({ limit: 101 }), ["limit"]);
    await expectValidationError(alice.caller.sandboxes.search({ page_id: "not-a-cursor" }), [
      "page_id",
    ]);
    await expectValidationError(
      // @ts-expect-error: not a status
      alice.caller.sandboxes.search({ status: "SLEEPING" }),
      ["status"],
    );
    await expectValidationError(alice.caller.sandboxes.search({ label: "" }), ["label"]);
  });
});

describe("sandboxes.pause and sandboxes.resume", () => {
  it("pause freezes a RUNNING sandbox; pausing it again answers the same", async () => {
    const running = await startRunning(alice);
    const paused = await alice.caller.sandboxes.pause({ id: running.id });
    expect(paused).toMatchObject({
      id: running.id,
      status: "PAUSED",
      agent_server_url: null,
      session_api_key: null,
      exposed_urls: [],
    });
    expect((await t.runtime.inspect(running.id)).state).toBe("paused");
    const again = await alice.caller.sandboxes.pause({ id: running.id });
    expect(again.status).toBe("PAUSED");
    expect((await alice.caller.sandboxes.search({ status: "PAUSED" })).items).toHaveLength(1);
  });

  it("another user can neither pause, resume nor delete it (404), and nothing changes", async () => {
    const running = await startPaused(alice);
    await expectAppError(bob.caller.sandboxes.resume({ id: running.id }), "SANDBOX_NOT_FOUND");
    await expectAppError(bob.caller.sandboxes.pause({ id: running.id }), "SANDBOX_NOT_FOUND");
    await expectAppError(bob.caller.sandboxes.delete({ id: running.id }), "SANDBOX_NOT_FOUND");
    expect((await alice.caller.sandboxes.get({ id: running.id })).status).toBe("PAUSED");
    expect((await t.runtime.inspect(running.id)).state).toBe("paused");
  });

  it("resume beyond the running-sandbox limit answers 429 and leaves the sandbox PAUSED", async () => {
    // No other sandbox is STARTING or RUNNING now, so a limit of 0 is what blocks the resume.
    const running = await startPaused(alice);
    const refusal = await withLimit(0, () =>
      expectAppError(alice.caller.sandboxes.resume({ id: running.id }), "SANDBOX_LIMIT_REACHED"),
    );
    expect(refusal.details).toEqual({ limit: 0 });
    expect((await alice.caller.sandboxes.get({ id: running.id })).status).toBe("PAUSED");
    expect((await t.runtime.inspect(running.id)).state).toBe("paused");
  });

  it("resume waits until the agent server answers again; resuming it again answers the same", async () => {
    const running = await startPaused(alice);
    const resumed = await alice.caller.sandboxes.resume({ id: running.id });
    expect(resumed.status).toBe("RUNNING");
    expect(resumed.agent_server_url).toBe(running.agent_server_url);
    expect(resumed.session_api_key).toBe(running.session_api_key);
    const url = resumed.agent_server_url ?? "";
    const key = resumed.session_api_key ?? "";
    expect(await runInSandbox(url, key, "echo awake")).toBe("awake\n");
    const again = await alice.caller.sandboxes.resume({ id: running.id });
    expect(again.status).toBe("RUNNING");
  });

  it("refuses to pause a sandbox in ERROR (409 with its status)", async () => {
    const [target] = await startFailing(bob, 1);
    if (!target) throw new Error("no failing sandbox");
    const refusal = await expectAppError(
      bob.caller.sandboxes.pause({ id: target.id }),
      "INVALID_SANDBOX_STATE",
    );
    expect(refusal.details).toEqual({ status: "ERROR" });
  });

  it("resume of a sandbox in ERROR tries again and reports why it failed again", async () => {
    const [target] = await startFailing(bob, 1);
    if (!target) throw new Error("no failing sandbox");
    const resumed = await bob.caller.sandboxes.resume({ id: target.id });
    expect(resumed.status).toBe("ERROR");
    expect(resumed.status_detail).toMatch(/^Failed to resume/);
  });

  it("validates the id", async () => {
    await expectValidationError(alice.caller.sandboxes.pause({ id: "" }), ["id"]);
    await expectValidationError(alice.caller.sandboxes.resume({ id: "" }), ["id"]);
    await expectAppError(alice.caller.sandboxes.pause({ id: "sb_missing" }), "SANDBOX_NOT_FOUND");
    await expectAppError(alice.caller.sandboxes.resume({ id: "sb_missing" }), "SANDBOX_NOT_FOUND");
  });
});

describe("sandboxes.delete", () => {
  it("removes sandboxes in ERROR; a second delete is 404", async () => {
    const failing = await startFailing(bob, 2);
    for (const sandbox of failing) {
      expect(await bob.caller.sandboxes.delete({ id: sandbox.id })).toEqual({
        success: true,
        id: sandbox.id,
      });
      expect((await t.runtime.inspect(sandbox.id)).state).toBe("missing");
      await expectAppError(bob.caller.sandboxes.get({ id: sandbox.id }), "SANDBOX_NOT_FOUND");
    }
    await expectAppError(
      bob.caller.sandboxes.delete({ id: failing[0]?.id ?? "" }),
      "SANDBOX_NOT_FOUND",
    );
    expect((await bob.caller.sandboxes.search({})).items).toEqual([]);
  });

  it("stops a RUNNING sandbox's agent server and removes it", async () => {
    const running = await startRunning(alice);
    const sandboxDir = path.join(t.sandboxesDir, running.id);
    expect((await findSandboxProcesses(sandboxDir)).length).toBeGreaterThan(0);
    expect(await alice.caller.sandboxes.delete({ id: running.id })).toEqual({
      success: true,
      id: running.id,
    });
    expect(await findSandboxProcesses(sandboxDir)).toEqual([]);
    expect((await t.runtime.inspect(running.id)).state).toBe("missing");
    await expectAppError(alice.caller.sandboxes.get({ id: running.id }), "SANDBOX_NOT_FOUND");
    expect((await alice.caller.sandboxes.search({})).items).toEqual([]);
  });

  it("validates the id", async () => {
    await expectValidationError(alice.caller.sandboxes.delete({ id: "" }), ["id"]);
  });
});
