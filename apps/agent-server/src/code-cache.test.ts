import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { BUNDLE } from "../test/build-bundle";

let children: ChildProcess[] = [];
let dir: string | undefined;
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.pid) child.kill("SIGKILL");
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  children = [];
  dir = undefined;
});

/** A copy of the bundle alone in a fresh directory (so its cache is this test's). */
function bundleCopy(): { entry: string; cache: string } {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-server-cache-"));
  const entry = path.join(dir, "agent-server.js");
  fs.copyFileSync(BUNDLE, entry);
  return { entry, cache: path.join(dir, "agent-server.cache") };
}

function run(entry: string, flag: string): string {
  return execFileSync(process.execPath, [entry, flag], { encoding: "utf8" }).trim();
}

/** Starts the bundle and answers its /health status. */
async function healthOf(entry: string): Promise<number> {
  const child = spawn(process.execPath, [entry, "--port", "0"], {
    cwd: dir,
    env: { PATH: process.env.PATH, SESSION_API_KEY: "cache-key", HOME: dir },
    stdio: ["ignore", "pipe", "ignore"],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve) => lines.once("line", resolve));
  const { port } = JSON.parse(first) as { port: number };
  return (await fetch(`http://127.0.0.1:${port}/health`)).status;
}

describe("the bundle's code cache", () => {
  it("is written for this bundle and used; a cache for another bundle or a cut-short one is ignored", async () => {
    const { entry, cache } = bundleCopy();
    expect(run(entry, "--code-cache-status")).toBe("absent");

    expect(run(entry, "--write-code-cache")).toBe("");
    expect(run(entry, "--code-cache-status")).toBe("used");
    expect(await healthOf(entry)).toBe(200);
    const written = fs.readFileSync(cache);

    // Made for another bundle (its hash differs), though V8 itself would take it.
    fs.writeFileSync(cache, Buffer.concat([Buffer.from("0".repeat(32)), written.subarray(32)]));
    expect(run(entry, "--code-cache-status")).toBe("stale");
    expect(await healthOf(entry)).toBe(200);

    // Made for this bundle, but cut short (V8 itself would crash on it).
    fs.writeFileSync(cache, written.subarray(0, written.length - 1000));
    expect(run(entry, "--code-cache-status")).toBe("refused");
    expect(await healthOf(entry)).toBe(200);
  });
});
