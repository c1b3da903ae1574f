import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/server";
import { ADMIN_KEY, createRuntime } from "./harness";

/** Two servers: one logging at warn (the default: no access lines), one writing access lines. */
const servers: { server: RunningServer; dataDir: string; logs: () => string }[] = [];

async function boot(level: "warn" | "info") {
  const dataDir = mkdtempSync(path.join(tmpdir(), "sandbox-server-request-id-"));
  let logs = "";
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs += chunk.toString();
      done();
    },
  });
  const server = await startServer({
    dataDir,
    runtime: await createRuntime("process", dataDir),
    log: pino({ level }, sink),
    adminApiKey: ADMIN_KEY,
  });
  servers.push({ server, dataDir, logs: () => logs });
  return servers[servers.length - 1] as (typeof servers)[number];
}

let quiet: Awaited<ReturnType<typeof boot>>;
let verbose: Awaited<ReturnType<typeof boot>>;

beforeAll(async () => {
  quiet = await boot("warn");
  verbose = await boot("info");
});

afterAll(async () => {
  for (const { server, dataDir } of servers) {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

const list = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/api/v1/sandboxes/search`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}`, ...headers },
  });

describe("request ids", () => {
  it("echo a caller's sane X-Request-Id, and refuse to echo one that is not", async () => {
    const given = await list(quiet.server.url, { "x-request-id": "trace-42.a_b" });
    expect(given.status).toBe(200);
    expect(given.headers.get("x-request-id")).toBe("trace-42.a_b");
    const insane = await list(quiet.server.url, { "x-request-id": "has spaces and {braces}" });
    expect(insane.status).toBe(200);
    expect(insane.headers.get("x-request-id")).not.toBe("has spaces and {braces}");
  });

  it("are not made per request when nothing logs them (warn level), and are when access lines are written", async () => {
    const plain = await list(quiet.server.url);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("x-request-id")).toBeNull();

    const logged = await list(verbose.server.url);
    expect(logged.status).toBe(200);
    const id = logged.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(() => verbose.logs()).toContain(`"requestId":"${id}"`);
  });
});
