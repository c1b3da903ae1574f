import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAppError, expectValidationError } from "../../test/expect-error";
import { createTestCore, type TestCore, type TestUser } from "../../test/harness";

// No sandbox is started here: listing specs never touches the runtime.
let t: TestCore;
let alice: TestUser;

beforeAll(async () => {
  t = await createTestCore({ database: ":memory:" });
  alice = await t.createUser("alice");
  await t.addSpec({
    id: "with-env",
    initialEnv: { OPENAI_API_KEY: "sk-secret-value", MODE: "fast" },
    createdAt: 1,
  });
  await t.addSpec({ id: "docker-only", runtime: "docker", image: "example/agent:1", createdAt: 2 });
});

afterAll(async () => {
  await t?.close();
});

describe("sandboxSpecs.search", () => {
  it("lists the built-in spec with this server's isolation", async () => {
    const page = await alice.caller.sandboxSpecs.search({});
    const builtin = page.items.find((spec) => spec.id === "default");
    expect(builtin).toMatchObject({
      id: "default",
      runtime: "any",
      command: null,
      isolation: t.runtime.isolation,
      cpu: 1,
      memory_mb: 1024,
      pids: 512,
    });
    expect(page.items.map((spec) => spec.id).sort()).toEqual([
      "default",
      "docker-only",
      "with-env",
    ]);
    expect(page.next_page_id).toBeNull();
  });

  it("never shows a spec's environment values", async () => {
    const page = await alice.caller.sandboxSpecs.search({});
    const withEnv = page.items.find((spec) => spec.id === "with-env");
    expect(withEnv?.initial_env).toEqual({ OPENAI_API_KEY: "***", MODE: "***" });
    expect(JSON.stringify(page)).not.toContain("sk-secret-value");
  });

  it("says a spec this server cannot run has no isolation here", async () => {
    const page = await alice.caller.sandboxSpecs.search({});
    expect(page.items.find((spec) => spec.id === "docker-only")).toMatchObject({
      runtime: "docker",
      image: "example/agent:1",
      isolation: null,
    });
  });

  it("pages with an opaque cursor, every spec exactly once", async () => {
    const seen: string[] = [];
    let pageId: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const page = await alice.caller.sandboxSpecs.search({ limit: 1, page_id: pageId });
      expect(page.items).toHaveLength(1);
      seen.push(...page.items.map((spec) => spec.id));
      if (page.next_page_id === null) break;
      pageId = page.next_page_id;
    }
    expect(seen.sort()).toEqual(["default", "docker-only", "with-env"]);
  });

  it("validates paging", async () => {
    await expectValidationError(alice.caller.sandboxSpecs.search({ limit: 0 }), ["limit"]);
    await expectValidationError(alice.caller.sandboxSpecs.search({ limit: 101 }), ["limit"]);
    await expectValidationError(alice.caller.sandboxSpecs.search({ limit: 1.5 }), ["limit"]);
    await expectValidationError(alice.caller.sandboxSpecs.search({ page_id: "garbage" }), [
      "page_id",
    ]);
  });

  it("refuses a caller without a valid key", async () => {
    await expectAppError((await t.callerFor(null)).sandboxSpecs.search({}), "UNAUTHORIZED");
  });
});
