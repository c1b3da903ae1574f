import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../test/harness";

describe("health routes and auth", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.dispose());

  it.each(["/alive", "/health"])("%s answers ok without a key", async (route) => {
    const response = await fetch(`${server.baseUrl}${route}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("reports ready once started", async () => {
    const response = await fetch(`${server.baseUrl}/ready`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ready" });
  });

  it("describes the server without a key", async () => {
    const response = await fetch(`${server.baseUrl}/server_info`);
    const info = (await response.json()) as { uptime: number; idle_time: number };
    expect(response.status).toBe(200);
    expect(info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(info.uptime).toBeGreaterThanOrEqual(0);
    expect(info.idle_time).toBeGreaterThanOrEqual(0);
    expect((await fetch(`${server.baseUrl}/`)).status).toBe(200);
  });

  it("rejects /api routes without the session key or with a wrong one", async () => {
    const attempts: Record<string, string>[] = [{}, { "x-session-api-key": "wrong" }];
    for (const headers of attempts) {
      const response = await fetch(`${server.baseUrl}/api/conversations/count`, { headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ detail: "Unauthorized" });
    }
  });

  it("accepts the key and answers 404 with a JSON detail on unknown routes", async () => {
    expect((await server.api("GET", "/api/conversations/count")).status).toBe(200);
    expect(await server.api("GET", "/api/nope")).toEqual({
      status: 404,
      body: { detail: "Not Found" },
    });
    expect((await fetch(`${server.baseUrl}/nope`)).status).toBe(404);
  });
});

describe("loading the API on first use", () => {
  it("answers probes and refuses bad keys without loading it; the first API call loads it", async () => {
    const server = await startTestServer();
    try {
      for (const route of ["/health", "/alive", "/ready", "/server_info", "/"]) {
        expect((await fetch(`${server.baseUrl}${route}`)).status).toBe(200);
      }
      const info = await (await fetch(`${server.baseUrl}/server_info`)).json();
      expect(info).toMatchObject({ conversations: 0, running_conversations: 0 });
      expect((await fetch(`${server.baseUrl}/api/conversations/count`)).status).toBe(401);
      expect(server.server.apiLoaded).toBe(false);

      expect(await server.api("GET", "/api/conversations/count")).toEqual({ status: 200, body: 0 });
      expect(server.server.apiLoaded).toBe(true);
    } finally {
      await server.dispose();
    }
  });
});

describe("without configured keys", () => {
  it("lets every request through", async () => {
    const server = await startTestServer({ sessionApiKeys: [] });
    try {
      const response = await fetch(`${server.baseUrl}/api/conversations/count`);
      expect(response.status).toBe(200);
      expect(await response.json()).toBe(0);
    } finally {
      await server.dispose();
    }
  });
});
