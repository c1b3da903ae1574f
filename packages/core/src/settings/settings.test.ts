import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAppError, expectValidationError } from "../../test/expect-error";
import { createTestCore, type TestCore, type TestUser } from "../../test/harness";

// No sandbox: settings are the same for everyone and touch nothing.
let t: TestCore;
let alice: TestUser;

beforeAll(async () => {
  t = await createTestCore({ database: ":memory:" });
  alice = await t.createUser("alice");
});

afterAll(async () => {
  await t?.close();
});

describe("settings.get", () => {
  it("answers the same settings for every user: no LLM and no secrets configured", async () => {
    const settings = await alice.caller.settings.get({});
    expect(settings).toMatchObject({
      v1_enabled: true,
      agent: "shell",
      llm_model: null,
      llm_api_key: null,
      llm_api_key_set: false,
      search_api_key: null,
    });
    expect(await t.admin.settings.get({})).toEqual(settings);
  });

  it("needs a valid key and an object input", async () => {
    await expectAppError((await t.callerFor(null)).settings.get({}), "UNAUTHORIZED");
    // @ts-expect-error: not an object
    await expectValidationError(alice.caller.settings.get("x"), []);
  });
});

describe("settings.webClientConfig", () => {
  it("answers without any key: a self-hosted server without billing", async () => {
    const anonymous = await t.callerFor(null);
    const config = await anonymous.settings.webClientConfig({});
    expect(config).toMatchObject({
      app_mode: "oss",
      feature_flags: { enable_billing: false },
    });
    expect(await alice.caller.settings.webClientConfig({})).toEqual(config);
  });

  it("validates its input", async () => {
    // @ts-expect-error: not an object
    await expectValidationError((await t.callerFor(null)).settings.webClientConfig(5), []);
  });
});
