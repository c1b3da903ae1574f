import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAppError, expectValidationError } from "../../test/expect-error";
import { createTestCore, type TestCore, type TestUser } from "../../test/harness";
import { waitForStatus } from "../../test/wait";
import type { Sandbox } from "./contracts";

// The OpenHands-shaped sandbox procedures: batch read, delete by query, and the routes a sandbox
// calls with its own session key. Two real agent servers: alice's and bob's.
let t: TestCore;
let alice: TestUser;
let bob: TestUser;
let alices: Sandbox;
let bobs: Sandbox;

beforeAll(async () => {
  t = await createTestCore();
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
  const [a, b] = await Promise.all([
    alice.caller.sandboxes.start({}),
    bob.caller.sandboxes.start({}),
  ]);
  alices = await waitForStatus(alice.caller, a?.id ?? "", "RUNNING");
  bobs = await waitForStatus(bob.caller, b?.id ?? "", "RUNNING");
});

afterAll(async () => {
  await t?.close();
});

/** A caller that presents only a sandbox's session key, as the sandbox itself would. */
const asSandbox = (sandbox: Sandbox) =>
  t.callerFor(null, { sessionApiKey: sandbox.session_api_key ?? "" });

describe("sandboxes.batchGet", () => {
  it("answers an array aligned with the ids, null for unknown and other users' sandboxes", async () => {
    const batch = await alice.caller.sandboxes.batchGet({ id: [alices.id, "sb_missing", bobs.id] });
    expect(batch).toEqual([alices, null, null]);
    expect(await alice.caller.sandboxes.batchGet({ id: alices.id })).toEqual([alices]);
    expect(await bob.caller.sandboxes.batchGet({ id: [alices.id] })).toEqual([null]);
  });

  it("validates the ids", async () => {
    await expectValidationError(alice.caller.sandboxes.batchGet({ id: [] }), ["id"]);
    await expectValidationError(alice.caller.sandboxes.batchGet({ id: [""] }), ["id", 0]);
    const tooMany = Array.from({ length: 101 }, (_, i) => `sb_${i}`);
    await expectValidationError(alice.caller.sandboxes.batchGet({ id: tooMany }), ["id"]);
    await expectAppError(
      (await t.callerFor(null)).sandboxes.batchGet({ id: [alices.id] }),
      "UNAUTHORIZED",
    );
  });
});

describe("sandboxes.listSecrets and sandboxes.getSecret (session key of the sandbox)", () => {
  it("answer the sandbox itself: no secrets are kept here", async () => {
    const own = await asSandbox(alices);
    expect(await own.sandboxes.listSecrets({ id: alices.id })).toEqual({ secrets: [] });
    await expectAppError(
      own.sandboxes.getSecret({ id: alices.id, secret_name: "GITHUB_TOKEN" }),
      "NOT_FOUND",
    );
  });

  it("refuse another sandbox's key (403), and a missing or unknown key (401)", async () => {
    const bobsSandbox = await asSandbox(bobs);
    expect(await bobsSandbox.sandboxes.listSecrets({ id: bobs.id })).toEqual({ secrets: [] });
    await expectAppError(bobsSandbox.sandboxes.listSecrets({ id: alices.id }), "FORBIDDEN");
    await expectAppError(
      bobsSandbox.sandboxes.getSecret({ id: alices.id, secret_name: "X" }),
      "FORBIDDEN",
    );
    for (const caller of [
      await t.callerFor(null),
      await t.callerFor(null, { sessionApiKey: "not-a-session-key" }),
      // An API key is not a session key, not even the owner's.
      alice.caller,
    ]) {
      await expectAppError(caller.sandboxes.listSecrets({ id: alices.id }), "UNAUTHORIZED");
      await expectAppError(
        caller.sandboxes.getSecret({ id: alices.id, secret_name: "X" }),
        "UNAUTHORIZED",
      );
    }
  });

  it("validate their input", async () => {
    const own = await asSandbox(alices);
    await expectValidationError(own.sandboxes.listSecrets({ id: "" }), ["id"]);
    await expectValidationError(own.sandboxes.getSecret({ id: alices.id, secret_name: "" }), [
      "secret_name",
    ]);
  });
});

describe("users.me with expose_secrets (OpenHands' SDK)", () => {
  it("needs the session key of a RUNNING sandbox of the caller's", async () => {
    const withOwnSandbox = await t.callerFor(alice.apiKey, {
      sessionApiKey: alices.session_api_key ?? "",
    });
    expect(await withOwnSandbox.users.me({ expose_secrets: "true" })).toMatchObject({
      id: alice.id,
      llm_api_key: null,
    });
    const withBobsSandbox = await t.callerFor(alice.apiKey, {
      sessionApiKey: bobs.session_api_key ?? "",
    });
    await expectAppError(withBobsSandbox.users.me({ expose_secrets: "true" }), "FORBIDDEN");
    await expectAppError(alice.caller.users.me({ expose_secrets: "true" }), "UNAUTHORIZED");
    expect((await alice.caller.users.me({ expose_secrets: "false" })).id).toBe(alice.id);
    // @ts-expect-error: a query-string boolean
    await expectValidationError(alice.caller.users.me({ expose_secrets: "yes" }), [
      "expose_secrets",
    ]);
  });
});

describe("session keys of a sandbox that is not RUNNING", () => {
  it("are refused (401) while it is paused, and work again once resumed", async () => {
    await alice.caller.sandboxes.pause({ id: alices.id });
    const own = await asSandbox(alices);
    await expectAppError(own.sandboxes.listSecrets({ id: alices.id }), "UNAUTHORIZED");
    alices = await alice.caller.sandboxes.resume({ id: alices.id });
    expect(await own.sandboxes.listSecrets({ id: alices.id })).toEqual({ secrets: [] });
  });
});

describe("sandboxes.delete with OpenHands' query id, and sandboxes.deleteByQuery", () => {
  it("delete refuses a query id that names another sandbox (422), deleting nothing", async () => {
    await expectValidationError(
      alice.caller.sandboxes.delete({ id: alices.id, sandbox_id: bobs.id }),
      ["sandbox_id"],
    );
    expect((await alice.caller.sandboxes.get({ id: alices.id })).status).toBe("RUNNING");
    expect((await bob.caller.sandboxes.get({ id: bobs.id })).status).toBe("RUNNING");
  });

  it("deleteByQuery cannot reach another user's sandbox (404)", async () => {
    await expectAppError(
      bob.caller.sandboxes.deleteByQuery({ sandbox_id: alices.id }),
      "SANDBOX_NOT_FOUND",
    );
    await expectAppError(
      bob.caller.sandboxes.deleteByQuery({ sandbox_id: "sb_missing" }),
      "SANDBOX_NOT_FOUND",
    );
    await expectValidationError(bob.caller.sandboxes.deleteByQuery({ sandbox_id: "" }), [
      "sandbox_id",
    ]);
    await expectAppError(
      (await t.callerFor(null)).sandboxes.deleteByQuery({ sandbox_id: bobs.id }),
      "UNAUTHORIZED",
    );
    expect((await alice.caller.sandboxes.get({ id: alices.id })).status).toBe("RUNNING");
  });

  it("deleteByQuery and delete with a matching query id remove the owner's sandboxes", async () => {
    expect(await bob.caller.sandboxes.deleteByQuery({ sandbox_id: bobs.id })).toEqual({
      success: true,
      id: bobs.id,
    });
    await expectAppError(bob.caller.sandboxes.get({ id: bobs.id }), "SANDBOX_NOT_FOUND");
    expect((await t.runtime.inspect(bobs.id)).state).toBe("missing");
    expect(await alice.caller.sandboxes.delete({ id: alices.id, sandbox_id: alices.id })).toEqual({
      success: true,
      id: alices.id,
    });
    expect((await t.runtime.inspect(alices.id)).state).toBe("missing");
  });
});
