import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error -- a plain .mjs module of this package (the build's options), no types.
import { bundleOptions } from "../bundle.mjs";
// @ts-expect-error -- as above.
import { NATIVE_SPREAD } from "../native-spread.mjs";

const cache = fileURLToPath(new URL("../node_modules/.cache", import.meta.url));
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(path.join(cache, "native-spread-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A router whose middleware extend the context twice, bundled the way the server's bundle is. */
const ENTRY = `
import { initTRPC } from "@trpc/server";
const t = initTRPC.context().create();
const authed = t.procedure.use(({ ctx, next }) => next({ ctx: { user: "u1", base: ctx.base } }));
const router = t.router({
  hello: authed
    .input((value) => value)
    .use(({ next }) => next({ ctx: { extra: 2 } }))
    .query(({ ctx, input, path, type }) => ({ ctx, input, path, type })),
});
export const run = () => router.createCaller({ base: 1, kept: "yes" }).hello({ a: 1 });
`;

describe("the bundle's tRPC with native spread", () => {
  it("is patched, and middleware context and input reach the resolver as before", async () => {
    const outfile = path.join(dir, "router.mjs");
    await build({
      ...bundleOptions,
      sourcemap: false,
      stdin: { contents: ENTRY, resolveDir: path.dirname(cache), loader: "js" },
      outfile,
    });
    const bundled = readFileSync(outfile, "utf8");
    // esbuild renames the helper's variables: its shape is what is checked.
    const helper = /function _objectSpread2\((\w+)\) \{[^}]*\1 = \{ \.\.\.\1, \.\.\.\w+ \}/;
    expect(NATIVE_SPREAD).toMatch(helper);
    expect(bundled).toMatch(helper);
    expect(bundled).not.toMatch(/getOwnPropertyDescriptors\(/);
    const { run } = await import(pathToFileURL(outfile).href);
    expect(await run()).toEqual({
      ctx: { base: 1, kept: "yes", user: "u1", extra: 2 },
      input: { a: 1 },
      path: "hello",
      type: "query",
    });
  });
});
