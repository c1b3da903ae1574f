import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeError } from "../src/describe-error";
import { appRouter } from "../src/router";
import { expectAppError } from "./expect-error";
import { type Caller, createTestCore, type TestCore, type TestUser } from "./harness";
import { CORE_ROOT } from "./paths";

/**
 * Guards over every procedure of the router, so that one added later is covered too: each has a
 * test file that calls it, refuses callers without a key, and (when admin-only) normal users.
 */

interface ProcedureInfo {
  path: string;
  protect: boolean;
  /** Documents 403 (admin-only procedures do; others may, for other reasons). */
  documents403: boolean;
}

function procedures(): ProcedureInfo[] {
  return Object.entries(appRouter._def.procedures).map(([procedurePath, procedure]) => {
    const meta = (
      procedure as unknown as { _def: { meta?: { openapi?: Record<string, unknown> } } }
    )._def.meta;
    const openapi = meta?.openapi ?? {};
    const statuses = Array.isArray(openapi.errorResponses) ? openapi.errorResponses : [];
    return {
      path: procedurePath,
      protect: openapi.protect !== false,
      documents403: statuses.includes(403),
    };
  });
}

/** The users procedures only admins may call. */
const ADMIN_ONLY = [
  "users.create",
  "users.list",
  "users.get",
  "users.disable",
  "users.enable",
  "users.delete",
];

/** The caller's function for a dotted procedure path (`sandboxes.get`). */
function procedureAt(caller: Caller, procedurePath: string): (input: unknown) => Promise<unknown> {
  let node: unknown = caller;
  for (const segment of procedurePath.split(".")) {
    node = (node as Record<string, unknown>)[segment];
  }
  if (typeof node !== "function") throw new Error(`no procedure at ${procedurePath}`);
  return node as (input: unknown) => Promise<unknown>;
}

/** Every test source of the package except this file. */
async function testSources(): Promise<{ file: string; text: string }[]> {
  const files: string[] = [];
  for (const dir of ["src", "test"]) {
    const entries = await readdir(path.join(CORE_ROOT, dir), { recursive: true });
    for (const entry of entries) {
      if (entry.endsWith(".test.ts")) files.push(path.join(CORE_ROOT, dir, entry));
    }
  }
  const self = path.join(CORE_ROOT, "test/procedures.test.ts");
  return Promise.all(
    files
      .filter((file) => file !== self)
      .map(async (file) => ({ file, text: await readFile(file, "utf8") })),
  );
}

describe("every procedure", () => {
  it("is called by a test file (`<router>.<procedure>(` appears in one)", async () => {
    const sources = await testSources();
    const untested = procedures()
      .map((procedure) => procedure.path)
      .filter((procedurePath) => {
        const call = new RegExp(`\\b${procedurePath.replace(/\./g, "\\.")}\\(`);
        return !sources.some((source) => call.test(source.text));
      });
    expect(untested, "procedures no test calls").toEqual([]);
    expect(procedures().length).toBeGreaterThan(20);
  });

  describe("with a started core", () => {
    let t: TestCore;
    let user: TestUser;

    beforeAll(async () => {
      t = await createTestCore({ database: ":memory:" });
      user = await t.createUser("someone");
    });

    afterAll(async () => {
      await t?.close();
    });

    it("refuses a caller without a valid key (401), before reading its input", async () => {
      const protectedOnes = procedures().filter((procedure) => procedure.protect);
      expect(protectedOnes.length).toBeGreaterThan(20);
      for (const key of [null, "ssk_not_a_key_of_anyone"]) {
        const caller = await t.callerFor(key);
        for (const procedure of protectedOnes) {
          await expectAppError(
            procedureAt(caller, procedure.path)("not an object"),
            "UNAUTHORIZED",
          );
        }
      }
    });

    it("refuses a user who is not an admin (403) only where admin-only, which is documented", async () => {
      const refused: string[] = [];
      for (const procedure of procedures()) {
        const answer = await procedureAt(
          user.caller,
          procedure.path,
        )("not an object").then(
          () => "answered",
          (error: unknown) => describeError(error).code,
        );
        if (answer === "FORBIDDEN") refused.push(procedure.path);
        else expect(answer, procedure.path).toBe("VALIDATION_FAILED");
      }
      expect(refused).toEqual(expect.arrayContaining(ADMIN_ONLY));
      for (const path of refused) {
        expect(procedures().find((p) => p.path === path)?.documents403, path).toBe(true);
      }
      // And an admin passes the same gate.
      for (const path of refused) {
        await expectAppError(procedureAt(t.admin, path)("not an object"), "VALIDATION_FAILED");
      }
    });

    it("validates every input before doing anything: a non-object is 422, also for an admin", async () => {
      for (const procedure of procedures()) {
        await expectAppError(
          procedureAt(t.admin, procedure.path)("not an object"),
          "VALIDATION_FAILED",
        );
      }
      expect(await t.store.sandboxes.listAll()).toEqual([]);
    });
  });
});
