import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_KEY, startTestServer, type TestServer } from "../../test/harness";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.dispose());

const origin = "http://localhost:3001";

describe("CORS for OpenHands' web client", () => {
  it("answers a preflight without the session key, allowing X-Session-API-Key", async () => {
    const res = await fetch(`${server.baseUrl}/api/conversations/search`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "x-session-api-key, content-type",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain(
      "x-session-api-key",
    );
    // Never credentials: the header key alone authorises.
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("lets a cross-origin request through with the key, and still refuses one without it", async () => {
    const ok = await fetch(`${server.baseUrl}/api/conversations/search`, {
      headers: { origin, "x-session-api-key": SESSION_KEY },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("*");
    const refused = await fetch(`${server.baseUrl}/api/conversations/search`, {
      headers: { origin },
    });
    expect(refused.status).toBe(401);
    // Readable by the page, so it can tell the user.
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("adds nothing for same-origin requests, and OPTIONS without a preflight is no bypass", async () => {
    const plain = await fetch(`${server.baseUrl}/api/conversations/search`, {
      headers: { "x-session-api-key": SESSION_KEY },
    });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    const options = await fetch(`${server.baseUrl}/api/conversations/search`, {
      method: "OPTIONS",
      headers: { origin },
    });
    expect(options.status).toBe(401);
  });
});
