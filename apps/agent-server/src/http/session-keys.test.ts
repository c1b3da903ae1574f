import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SESSION_KEY, startTestServer, type TestServer } from "../../test/harness";

const NEW_KEY = "a-new-owner-key-0123456789";

describe("POST /api/session-keys (key rotation)", () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.dispose();
  });
  const start = async (...args: Parameters<typeof startTestServer>) => {
    const server = await startTestServer(...args);
    servers.push(server);
    return server;
  };
  const withKey = (key: string) => ({ "x-session-api-key": key });

  it("replaces the accepted key: the old one stops working, the new one works", async () => {
    const server = await start();
    expect((await server.api("GET", "/api/conversations/count")).status).toBe(200);
    const rotated = await server.api("POST", "/api/session-keys", { session_api_key: NEW_KEY });
    expect(rotated).toEqual({ status: 200, body: { success: true } });
    expect((await server.api("GET", "/api/conversations/count")).status).toBe(401);
    const withNew = await server.api(
      "GET",
      "/api/conversations/count",
      undefined,
      withKey(NEW_KEY),
    );
    expect(withNew.status).toBe(200);
    // Only the new key may rotate again.
    const again = await server.api("POST", "/api/session-keys", { session_api_key: SESSION_KEY });
    expect(again.status).toBe(401);
  });

  it("keeps the rotated key across a restart, over the key the server is started with", async () => {
    const first = await start();
    await first.api("POST", "/api/session-keys", { session_api_key: NEW_KEY });
    const file = path.join(first.dataDir, "session-api-key");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const second = await first.restart();
    servers.push(second);
    expect((await second.api("GET", "/api/conversations/count")).status).toBe(401);
    const withNew = await second.api(
      "GET",
      "/api/conversations/count",
      undefined,
      withKey(NEW_KEY),
    );
    expect(withNew.status).toBe(200);
  });

  it("refuses a rotation without the current key, and bad keys with 422", async () => {
    const server = await start();
    const anonymous = await server.api(
      "POST",
      "/api/session-keys",
      { session_api_key: NEW_KEY },
      withKey("wrong-key-wrong-key"),
    );
    expect(anonymous.status).toBe(401);
    for (const body of [
      {},
      { session_api_key: "short" },
      { session_api_key: "has spaces in it ok" },
    ]) {
      expect((await server.api("POST", "/api/session-keys", body)).status).toBe(422);
    }
    // Nothing changed: the start key still works.
    expect((await server.api("GET", "/api/conversations/count")).status).toBe(200);
  });

  it("answers 409 on a server started without session keys", async () => {
    const server = await start({ sessionApiKeys: [] });
    const res = await server.api("POST", "/api/session-keys", { session_api_key: NEW_KEY });
    expect(res.status).toBe(409);
    expect(fs.existsSync(path.join(server.dataDir, "session-api-key"))).toBe(false);
  });
});
