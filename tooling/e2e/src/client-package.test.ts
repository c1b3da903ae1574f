import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ServerProcess } from "@sandbox-server/server/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startCloneServer } from "./lib/clone-server";
import { run, runStatus } from "./lib/run";

/**
 * @sandbox-server/client as a user outside the repository gets it: `npm pack` in packages/client
 * of a fresh clone (after `npm ci` alone, so prepack must build dist/), the tarball installed into
 * a new project with its peers from the registry, a program type-checked against it and run
 * against a live control plane.
 */
const cloneDir = inject("cloneDir");
const fixture = fileURLToPath(new URL("../fixtures/client-project", import.meta.url));
const typescriptVersion = (
  createRequire(import.meta.url)("typescript/package.json") as { version: string }
).version;

let work: string;
let tarball: string;
let project: string;

const tar = (...args: string[]) => run("tar", args);

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "sandbox-e2e-client-"));
  const packed = await run("npm", ["pack", "--silent", "--pack-destination", work], {
    cwd: path.join(cloneDir, "packages/client"),
  });
  tarball = path.join(work, packed.trim().split("\n").at(-1) ?? "");
  project = path.join(work, "project");
  cpSync(fixture, project, { recursive: true });
  await run(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      tarball,
      `typescript@${typescriptVersion}`,
      "@types/node@20",
    ],
    { cwd: project },
  );
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the packed tarball", () => {
  it("holds the built package, its README and license, and no sources", async () => {
    const files = (await tar("-tzf", tarball)).trim().split("\n");
    expect(files).toEqual(
      expect.arrayContaining([
        "package/package.json",
        "package/dist/index.js",
        "package/dist/index.d.ts",
        "package/README.md",
        "package/LICENSE",
      ]),
    );
    expect(files.filter((file) => file.startsWith("package/src/"))).toEqual([]);
  });

  it("declares a publishable package that names no private package", async () => {
    const pkg = JSON.parse(await tar("-xzOf", tarball, "package/package.json"));
    expect(pkg.private).toBeUndefined();
    expect(pkg.license).toBe("MIT");
    for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
      const names = Object.keys(pkg[field] ?? {});
      expect(names.filter((name) => name.startsWith("@sandbox-server/"))).toEqual([]);
    }
    expect(await tar("-xzOf", tarball, "package/dist/index.d.ts")).not.toContain(
      "@sandbox-server/",
    );
  });

  it("installs with its peers @trpc/client and @trpc/server", () => {
    const resolve = createRequire(path.join(project, "package.json")).resolve;
    for (const name of ["@sandbox-server/client", "@trpc/client", "@trpc/server"]) {
      expect(() => resolve(`${name}/package.json`)).not.toThrow();
    }
  });
});

describe.each(["nodenext", "bundler"])("type-checked with moduleResolution %s", (mode) => {
  const tsc = (config: string) =>
    runStatus(path.join(project, "node_modules/.bin/tsc"), ["-p", config], { cwd: project });

  it("accepts the program", async () => {
    const result = await tsc(`tsconfig.${mode}.json`);
    expect(result.code, result.stdout).toBe(0);
  });

  it("reports the deliberate type error (the router's types are real, not any)", async () => {
    const result = await tsc(`tsconfig.${mode}.error.json`);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(
      /src\/deliberate-error\.ts\(\d+,.*Type 'number' is not assignable to type 'string'/,
    );
  });
});

describe("against a running control plane", () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startCloneServer(cloneDir);
  });

  afterAll(async () => {
    await server?.dispose();
  });

  it("makes the program's typed calls", async () => {
    // Emitted by the NodeNext check (its own compile, so this test stands alone).
    await run(path.join(project, "node_modules/.bin/tsc"), ["-p", "tsconfig.nodenext.json"], {
      cwd: project,
    });
    const result = await runStatus(process.execPath, ["dist/check.js"], {
      cwd: project,
      env: { ...process.env, SANDBOX_SERVER_URL: server.url, SANDBOX_API_KEY: server.adminKey },
    });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/^typed calls ok: sandbox sb_\w+ RUNNING, conversation /);
  });
});
