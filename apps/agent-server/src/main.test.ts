import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { BUNDLE } from "../test/build-bundle";
import { openSocket } from "../test/socket-client";

let child: ChildProcess | undefined;
let dir: string | undefined;
afterEach(() => {
  if (child?.exitCode === null && child.pid) process.kill(child.pid, "SIGKILL");
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  child = undefined;
  dir = undefined;
});

describe("the bundle (node dist/agent-server.js)", () => {
  it("prints the listening line, answers /health, and exits 0 on SIGTERM", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-server-bundle-"));
    // Only the bundle, no node_modules beside it.
    const copy = path.join(dir, "agent-server.js");
    fs.copyFileSync(BUNDLE, copy);
    child = spawn(process.execPath, [copy, "--port", "0"], {
      cwd: dir,
      env: { PATH: process.env.PATH, SESSION_API_KEY: "bundle-key" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout: string[] = [];
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const first = await new Promise<string>((resolve) => lines.once("line", resolve));
    lines.on("line", (line) => stdout.push(line));
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });

    const listening = JSON.parse(first);
    expect(listening).toEqual({ event: "listening", host: "127.0.0.1", port: expect.any(Number) });
    expect(listening.port).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${listening.port}`;
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: "ok" });
    expect((await fetch(`${base}/api/conversations/count`)).status).toBe(401);
    const created = await fetch(`${base}/api/conversations`, {
      method: "POST",
      headers: { "x-session-api-key": "bundle-key", "content-type": "application/json" },
      body: JSON.stringify({ agent: { kind: "shell" } }),
    });
    expect(created.status).toBe(201);
    // The events socket: ws inside the bundle, with the modules it loads on first use only.
    const { id } = (await created.json()) as { id: string };
    const socket = await openSocket(
      `ws://127.0.0.1:${listening.port}/sockets/events/${id}?session_api_key=bundle-key`,
    );
    expect(await socket.waitForFrame((frame) => frame.key === "full_state")).toMatchObject({
      value: { id },
    });
    socket.ws.close();

    // An upload to a path that cannot be created is a 4xx, not the end of the process.
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array([1, 2, 3])]), "x.bin");
    const upload = await fetch(`${base}/api/file/upload?path=/proc/self/nope/x.bin`, {
      method: "POST",
      headers: { "x-session-api-key": "bundle-key" },
      body: form,
    });
    expect(upload.status).toBe(400);
    expect(await upload.json()).toEqual({ detail: expect.any(String) });
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: "ok" });

    const exited = new Promise<number | null>((resolve) =>
      child?.once("exit", (code) => resolve(code)),
    );
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stdout).toEqual([]);
    expect(stderr).not.toContain("bundle-key");
    expect(fs.existsSync(path.join(dir, ".agent-server", "conversations"))).toBe(true);
  });

  it("exits 2 when FILES_ROOT does not exist", async () => {
    child = spawn(process.execPath, [BUNDLE, "--port", "0", "--files-root", "/no/such/root"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) =>
      child?.once("exit", (exitCode) => resolve(exitCode)),
    );
    expect(code).toBe(2);
    expect(stderr).toContain("FILES_ROOT");
  });

  it("exits non-zero with a clear message on bad configuration", async () => {
    child = spawn(process.execPath, [BUNDLE, "--port", "nope"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) =>
      child?.once("exit", (exitCode) => resolve(exitCode)),
    );
    expect(code).toBe(2);
    expect(stderr).toContain("Invalid agent-server configuration");
  });

  it("exits 0 on a SIGTERM sent the moment its listening line appears", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-server-bundle-"));
    // Three times: with the handlers installed after the line, every one died by the signal here.
    for (let i = 0; i < 3; i++) {
      const started = spawn(process.execPath, [BUNDLE, "--port", "0"], {
        env: { PATH: process.env.PATH, HOME: dir, DATA_DIR: path.join(dir, `data-${i}`) },
        stdio: ["ignore", "pipe", "ignore"],
      });
      child = started;
      started.stdout?.once("data", () => started.kill("SIGTERM"));
      const exit = await new Promise<[number | null, string | null]>((resolve) =>
        started.once("exit", (code, signal) => resolve([code, signal])),
      );
      expect(exit).toEqual([0, null]);
    }
  });
});
