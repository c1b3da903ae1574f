import { appRouter, createContextInner } from "@sandbox-server/core";
import { DEFAULT_SANDBOX_EGRESS } from "@sandbox-server/egress";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, killAgentServer, startTestServer, type TestServer } from "./harness";

let t: TestServer;
let alice: string;
let bob: string;
beforeAll(async () => {
  t = await startTestServer();
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
});
afterAll(async () => {
  await t.close();
});

async function startRunning(key: string, labels?: Record<string, string>) {
  const created = await t.api("POST", "/api/v1/sandboxes", { key, body: { labels } });
  expect(created.status).toBe(201);
  expect(["STARTING", "RUNNING"]).toContain(created.body.status);
  return (await t.waitForStatus(created.body.id, "RUNNING", key)).body;
}

describe("sandbox lifecycle", () => {
  it("starts, pauses, resumes and deletes, idempotently where the design says so", async () => {
    const sandbox = await startRunning(alice, { team: "a" });
    expect(sandbox.agent_server_url).toMatch(
      /^http:\/\/(127\.0\.0\.1:\d+|198\.19\.\d+\.\d+:8000)$/,
    );
    expect(sandbox.session_api_key).toBeTruthy();
    expect(sandbox.exposed_urls[0].url).toBe(sandbox.agent_server_url);
    const health = await fetch(`${sandbox.agent_server_url}/health`);
    expect(health.status).toBe(200);

    const resumedRunning = await t.api("POST", `/api/v1/sandboxes/${sandbox.id}/resume`, {
      key: alice,
    });
    expect(resumedRunning.status).toBe(200);
    expect(resumedRunning.body.status).toBe("RUNNING");

    const paused = await t.api("POST", `/api/v1/sandboxes/${sandbox.id}/pause`, { key: alice });
    expect(paused.body.status).toBe("PAUSED");
    expect(paused.body.agent_server_url).toBeNull();
    expect(paused.body.session_api_key).toBeNull();
    const pausedAgain = await t.api("POST", `/api/v1/sandboxes/${sandbox.id}/pause`, {
      key: alice,
    });
    expect(pausedAgain.status).toBe(200);
    expect(pausedAgain.body.status).toBe("PAUSED");

    const resumed = await t.api("POST", `/api/v1/sandboxes/${sandbox.id}/resume`, { key: alice });
    expect(resumed.body.status).toBe("RUNNING");
    expect((await fetch(`${resumed.body.agent_server_url}/health`)).status).toBe(200);

    const deleted = await t.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`, { key: alice });
    expect(deleted).toEqual({ status: 200, body: { success: true, id: sandbox.id } });
    expect((await t.api("GET", `/api/v1/sandboxes/${sandbox.id}`, { key: alice })).status).toBe(
      404,
    );
    expect((await t.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`, { key: alice })).status).toBe(
      404,
    );
    expect(await t.runtime.inspect(sandbox.id)).toMatchObject({ state: "missing" });
  });

  it("marks a killed agent server ERROR within seconds, refuses illegal moves, and resume brings it back", async () => {
    const sandbox = await startRunning(alice);
    await killAgentServer(t, sandbox.id);
    const errored = await t.waitForStatus(sandbox.id, "ERROR", alice, 10_000);
    expect(errored.body.status_detail).toMatch(/SIGKILL|exit/i);

    const pause = await t.api("POST", `/api/v1/sandboxes/${sandbox.id}/pause`, { key: alice });
    expect(pause.status).toBe(409);
    expect(pause.body.code).toBe("INVALID_SANDBOX_STATE");
    expect(pause.body.details.status).toBe("ERROR");

    const resumed = await t.api("POST", `/api/v1/sandboxes/${sandbox.id}/resume`, { key: alice });
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe("RUNNING");
    expect((await fetch(`${resumed.body.agent_server_url}/health`)).status).toBe(200);
    await t.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`, { key: alice });
  });

  it("refuses resume and delete of a STOPPING sandbox with 409 and its status", async () => {
    const sandbox = await startRunning(alice);
    await t.server.core.deps.repos.sandboxes.update(sandbox.id, { status: "STOPPING" });
    for (const [method, route] of [
      ["POST", `/api/v1/sandboxes/${sandbox.id}/resume`],
      ["POST", `/api/v1/sandboxes/${sandbox.id}/pause`],
      ["DELETE", `/api/v1/sandboxes/${sandbox.id}`],
    ] as const) {
      const res = await t.api(method, route, { key: alice });
      expect(res.status).toBe(409);
      expect(res.body.message).toContain("STOPPING");
    }
    await t.server.core.deps.repos.sandboxes.update(sandbox.id, { status: "RUNNING" });
    await t.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`, { key: alice });
  });

  it("never shows or lets another user touch a sandbox", async () => {
    const sandbox = await startRunning(alice);
    for (const [method, route] of [
      ["GET", `/api/v1/sandboxes/${sandbox.id}`],
      ["POST", `/api/v1/sandboxes/${sandbox.id}/pause`],
      ["POST", `/api/v1/sandboxes/${sandbox.id}/resume`],
      ["DELETE", `/api/v1/sandboxes/${sandbox.id}`],
    ] as const) {
      const res = await t.api(method, route, { key: bob });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("SANDBOX_NOT_FOUND");
    }
    const bobs = await t.api("GET", "/api/v1/sandboxes/search", { key: bob });
    expect(bobs.body.items).toEqual([]);
    expect(
      (await t.api("GET", `/api/v1/sandboxes/${sandbox.id}`, { key: alice })).body.status,
    ).toBe("RUNNING");
    await t.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`, { key: alice });
  });

  it("answers 429 SANDBOX_LIMIT_REACHED past the running limit", async () => {
    const limited = await startTestServer({ config: { maxRunningSandboxes: 1 } });
    try {
      const first = await limited.api("POST", "/api/v1/sandboxes", { body: {} });
      expect(first.status).toBe(201);
      const second = await limited.api("POST", "/api/v1/sandboxes", { body: {} });
      expect(second.status).toBe(429);
      expect(second.body.code).toBe("SANDBOX_LIMIT_REACHED");
      // Settled before the server closes, so closing removes it.
      await limited.waitForStatus(first.body.id, "RUNNING");
    } finally {
      await limited.close();
    }
  });

  it("never passes the running limit under many concurrent creates", async () => {
    const limit = 3;
    const attempts = 40;
    const limited = await startTestServer({ config: { maxRunningSandboxes: limit } });
    try {
      // Through the procedures in-process, so the creates truly overlap (over HTTP they arrive
      // one by one): every create reads the count before any of them inserts.
      const caller = appRouter.createCaller(
        await createContextInner({ deps: limited.server.core.deps, apiKey: ADMIN_KEY }),
      );
      const answers = await Promise.allSettled(
        Array.from({ length: attempts }, () => caller.sandboxes.start({})),
      );
      const refused = answers.filter((a) => a.status === "rejected");
      const started = answers.flatMap((a) => (a.status === "fulfilled" ? [a.value.id] : []));
      expect(started).toHaveLength(limit);
      expect(refused).toHaveLength(attempts - limit);
      for (const answer of refused) {
        expect(answer.reason).toMatchObject({ cause: { code: "SANDBOX_LIMIT_REACHED" } });
      }
      const listed = await limited.api("GET", "/api/v1/sandboxes/search");
      expect(listed.body.items).toHaveLength(limit);
      const over = await limited.api("POST", "/api/v1/sandboxes", { body: {} });
      expect(over.status).toBe(429);
      // Settled before the server closes, so closing removes them.
      for (const id of started) await limited.waitForStatus(id, "RUNNING");
    } finally {
      await limited.close();
    }
  });
});

describe("search", () => {
  it("pages through more than one page while rows are inserted, with filters", async () => {
    const repos = t.server.core.deps.repos;
    const me = (await t.api("GET", "/api/v1/users/me", { key: bob })).body.id as string;
    const insert = (id: string, createdAt: number, labels: Record<string, string> = {}) =>
      repos.sandboxes.insert({
        id,
        ownerId: me,
        specId: "default",
        runtime: "none",
        status: "ERROR",
        statusDetail: "seeded",
        sessionApiKey: "k",
        agentServerUrl: null,
        labels,
        env: {},
        network: DEFAULT_SANDBOX_EGRESS,
        lastActivityAt: null,
        createdAt,
        updatedAt: createdAt,
      });
    for (let i = 0; i < 5; i++) await insert(`sb_page_${i}`, 1000 + i, { n: String(i % 2) });
    const seen: string[] = [];
    let pageId: string | null = null;
    let pages = 0;
    do {
      const query: string = pageId ? `&page_id=${encodeURIComponent(pageId)}` : "";
      const res = await t.api("GET", `/api/v1/sandboxes/search?limit=2${query}`, { key: bob });
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((s: { id: string }) => s.id));
      pageId = res.body.next_page_id;
      if (pages === 0) await insert("sb_page_new", 5000);
      pages++;
    } while (pageId);
    expect(pages).toBe(3);
    expect(seen).toEqual(["sb_page_4", "sb_page_3", "sb_page_2", "sb_page_1", "sb_page_0"]);

    const labelled = await t.api("GET", "/api/v1/sandboxes/search?label=n%3D1", { key: bob });
    expect(labelled.body.items.map((s: { id: string }) => s.id)).toEqual([
      "sb_page_3",
      "sb_page_1",
    ]);
    const byStatus = await t.api("GET", "/api/v1/sandboxes/search?status=RUNNING", { key: bob });
    expect(byStatus.body.items).toEqual([]);
  });

  it("lists the built-in sandbox spec with the isolation this server gives it", async () => {
    const res = await t.api("GET", "/api/v1/sandbox-specs/search");
    expect(res.status).toBe(200);
    const spec = res.body.items.find((s: { id: string }) => s.id === "default");
    expect(spec).toBeDefined();
    expect(spec.isolation).toBe(t.runtime.isolation);
    // This suite runs where isolation exists: bubblewrap (CI installs it) or Docker.
    expect(spec.isolation).toBe(t.runtime.kind === "docker" ? "container" : "namespaces");
  });
});

describe("tRPC and REST parity", () => {
  it("gives the same statuses, codes and payloads on both surfaces", async () => {
    const sandbox = await startRunning(alice);
    const cases: [string, "query" | "mutation", string, string, unknown][] = [
      ["GET", "query", `/api/v1/sandboxes/${sandbox.id}`, "sandboxes.get", { id: sandbox.id }],
      ["GET", "query", "/api/v1/sandboxes/sb_missing", "sandboxes.get", { id: "sb_missing" }],
      [
        "POST",
        "mutation",
        `/api/v1/sandboxes/${sandbox.id}/pause`,
        "sandboxes.pause",
        { id: sandbox.id },
      ],
      [
        "POST",
        "mutation",
        `/api/v1/sandboxes/${sandbox.id}/pause`,
        "sandboxes.pause",
        { id: sandbox.id },
      ],
      [
        "POST",
        "mutation",
        `/api/v1/sandboxes/${sandbox.id}/resume`,
        "sandboxes.resume",
        { id: sandbox.id },
      ],
      [
        "GET",
        "query",
        "/api/v1/sandboxes/search?status=BOGUS",
        "sandboxes.search",
        { status: "BOGUS" },
      ],
    ];
    for (const [method, kind, route, procedure, input] of cases) {
      const rest = await t.api(method, route, { key: alice });
      const trpc = await t.trpc(kind, procedure, input, alice);
      expect(trpc.status, `${procedure} ${JSON.stringify(input)}`).toBe(rest.status);
      if (rest.status >= 400) {
        expect(trpc.body.data.code).toBe(rest.body.code);
        expect(trpc.body.message).toBe(rest.body.message);
      } else {
        expect({ ...trpc.body, updated_at: null }).toEqual({ ...rest.body, updated_at: null });
      }
    }
    await t.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`, { key: alice });
  });
});
