import { parseOperatorEgressPolicy, type SandboxEgressPolicy } from "@sandbox-server/egress";
import type { SandboxRuntime } from "@sandbox-server/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCommandSpec, startTestServer, type TestServer } from "./harness";

// The real express app over a real runtime. Where the runtime cannot change a policy live (no
// setEgressPolicy yet), the PATCH tests give it a recording one; the 501 test takes it away.
let t: TestServer;
let alice: string;
let bob: string;
const applied: [string, SandboxEgressPolicy][] = [];

function recordPolicyChanges(runtime: SandboxRuntime) {
  const real = runtime.setEgressPolicy?.bind(runtime);
  Object.assign(runtime, {
    setEgressPolicy: async (id: string, policy: SandboxEgressPolicy) => {
      await real?.(id, policy);
      applied.push([id, policy]);
    },
  });
}

beforeAll(async () => {
  t = await startTestServer({
    config: { operatorEgress: parseOperatorEgressPolicy("127.0.0.1:11434,10.20.0.0/16") },
  });
  recordPolicyChanges(t.runtime);
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
});

afterAll(async () => {
  await t?.close();
});

const open = { allow_internet: true, allow_out: [], deny_out: [] };

describe("network on POST /api/v1/sandboxes", () => {
  it("answers 201 with the policy normalised; every read shows it", async () => {
    const created = await t.api("POST", "/api/v1/sandboxes", {
      key: alice,
      body: {
        network: {
          allow_internet: false,
          allow_out: ["PyPI.org:443", "[::ffff:127.0.0.1]:11434"],
          deny_out: ["10.20.0.0/16"],
        },
      },
    });
    expect(created.status).toBe(201);
    const network = {
      allow_internet: false,
      allow_out: ["pypi.org:443", "127.0.0.1:11434"],
      deny_out: ["10.20.0.0/16"],
    };
    expect(created.body.network).toEqual(network);
    const { id } = created.body;
    expect((await t.api("GET", `/api/v1/sandboxes/${id}`, { key: alice })).body.network).toEqual(
      network,
    );
    const batch = await t.api("GET", `/api/v1/sandboxes?id=${id}`, { key: alice });
    expect(batch.body[0].network).toEqual(network);
    const search = await t.api("GET", "/api/v1/sandboxes/search", { key: alice });
    expect(search.body.items.find((s: { id: string }) => s.id === id).network).toEqual(network);
    // Without `network` a sandbox gets the spec's default, which the spec shows.
    const plain = await t.api("POST", "/api/v1/sandboxes", { key: alice, body: {} });
    expect(plain.body.network).toEqual(open);
    const specs = await t.api("GET", "/api/v1/sandbox-specs/search", { key: alice });
    expect(specs.body.items[0].network).toEqual(open);
    for (const sandbox of [id, plain.body.id]) {
      expect((await t.api("DELETE", `/api/v1/sandboxes/${sandbox}`, { key: alice })).status).toBe(
        200,
      );
    }
  });

  it("answers 422 naming a malformed entry", async () => {
    const res = await t.api("POST", "/api/v1/sandboxes", {
      key: bob,
      body: { network: { allow_out: ["pypi.org", "*.*.example.com"] } },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(res.body.issues).toEqual([
      expect.objectContaining({
        path: ["network", "allow_out", 1],
        message: expect.stringContaining('"*.*.example.com": not a host name'),
      }),
    ]);
    expect((await t.api("GET", "/api/v1/sandboxes/search", { key: bob })).body.items).toEqual([]);
  });

  it("answers 422 naming an allow_out entry that widens the operator's policy, and why", async () => {
    // Narrowing is always accepted, and opening what the operator opened too.
    const narrowing = await t.api("POST", "/api/v1/sandboxes", {
      key: bob,
      body: { network: { allow_out: ["10.20.3.0/24:5432"], deny_out: ["192.168.0.0/16"] } },
    });
    expect(narrowing.status).toBe(201);
    await t.api("DELETE", `/api/v1/sandboxes/${narrowing.body.id}`, { key: bob });

    const widening = await t.api("POST", "/api/v1/sandboxes", {
      key: bob,
      body: { network: { allow_out: ["192.168.0.0/16"] } },
    });
    expect(widening.status).toBe(422);
    expect(widening.body.code).toBe("VALIDATION_FAILED");
    expect(widening.body.message).toContain(
      '"192.168.0.0/16" is outside this server\'s egress policy: it reaches non-public addresses the operator has not opened (SANDBOX_EGRESS_ALLOW: 127.0.0.1:11434, 10.20.0.0/16)',
    );
    expect(widening.body.issues[0].path).toEqual(["network", "allow_out", 0]);
    const metadata = await t.api("POST", "/api/v1/sandboxes", {
      key: bob,
      body: { network: { allow_out: ["[fd00:ec2::254]:80"] } },
    });
    expect(metadata.status).toBe(422);
    expect(metadata.body.message).toContain("the metadata address fd00:ec2::254 is never allowed");
    expect((await t.api("GET", "/api/v1/sandboxes/search", { key: bob })).body.items).toEqual([]);
  });
});

describe("PATCH /api/v1/sandboxes/{id}/network", () => {
  let id: string;

  beforeAll(async () => {
    id = (await t.api("POST", "/api/v1/sandboxes", { key: alice, body: {} })).body.id;
    await t.waitForStatus(id, "RUNNING", alice);
  });

  it("replaces the fields present while RUNNING and while PAUSED", async () => {
    const running = await t.api("PATCH", `/api/v1/sandboxes/${id}/network`, {
      key: alice,
      body: { allow_internet: false, allow_out: ["pypi.org"] },
    });
    expect(running.status).toBe(200);
    expect(running.body.status).toBe("RUNNING");
    expect(running.body.network).toEqual({
      allow_internet: false,
      allow_out: ["pypi.org"],
      deny_out: [],
    });
    expect(applied.at(-1)?.[0]).toBe(id);
    expect(applied.at(-1)?.[1].allowInternet).toBe(false);

    expect((await t.api("POST", `/api/v1/sandboxes/${id}/pause`, { key: alice })).status).toBe(200);
    const paused = await t.api("PATCH", `/api/v1/sandboxes/${id}/network`, {
      key: alice,
      body: { deny_out: ["*.example.com"] },
    });
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe("PAUSED");
    expect(paused.body.network).toEqual({
      allow_internet: false,
      allow_out: ["pypi.org"],
      deny_out: ["*.example.com"],
    });
    const read = await t.api("GET", `/api/v1/sandboxes/${id}`, { key: alice });
    expect(read.body.network).toEqual(paused.body.network);
    // The same over tRPC (the procedure both surfaces share).
    const trpc = await t.trpc(
      "mutation",
      "sandboxes.updateNetwork",
      { id, allow_internet: true },
      alice,
    );
    expect(trpc.status).toBe(200);
    expect(trpc.body.network.allow_internet).toBe(true);
  });

  it("answers 422 for a malformed or widening entry, 404 for another user's sandbox", async () => {
    const malformed = await t.api("PATCH", `/api/v1/sandboxes/${id}/network`, {
      key: alice,
      body: { deny_out: ["pypi.org:0"] },
    });
    expect(malformed.status).toBe(422);
    expect(malformed.body.issues[0].path).toEqual(["deny_out", 0]);
    const widening = await t.api("PATCH", `/api/v1/sandboxes/${id}/network`, {
      key: alice,
      body: { allow_out: ["127.0.0.1:22"] },
    });
    expect(widening.status).toBe(422);
    expect(widening.body.message).toContain('"127.0.0.1:22" is outside');
    const others = await t.api("PATCH", `/api/v1/sandboxes/${id}/network`, {
      key: bob,
      body: { allow_internet: false },
    });
    expect(others.status).toBe(404);
    expect(others.body.code).toBe("SANDBOX_NOT_FOUND");
    const missing = await t.api("PATCH", "/api/v1/sandboxes/sb_missing/network", {
      key: alice,
      body: {},
    });
    expect(missing.status).toBe(404);
  });

  it("answers 501 where the runtime cannot change a policy live", async () => {
    const { setEgressPolicy } = t.runtime;
    Object.assign(t.runtime, { setEgressPolicy: undefined });
    try {
      const res = await t.api("PATCH", `/api/v1/sandboxes/${id}/network`, {
        key: alice,
        body: { allow_internet: false },
      });
      expect(res.status).toBe(501);
      expect(res.body.code).toBe("EGRESS_POLICY_NOT_LIVE");
    } finally {
      Object.assign(t.runtime, { setEgressPolicy });
    }
  });

  it("answers 409 with the status when the sandbox is neither RUNNING nor PAUSED", async () => {
    await addCommandSpec(t, "exits", ["/bin/sh", "-c", "exit 3"]);
    const failing = await t.api("POST", "/api/v1/sandboxes", {
      key: bob,
      body: { sandbox_spec_id: "exits" },
    });
    await t.waitForStatus(failing.body.id, "ERROR", bob);
    const res = await t.api("PATCH", `/api/v1/sandboxes/${failing.body.id}/network`, {
      key: bob,
      body: { allow_internet: false },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("INVALID_SANDBOX_STATE");
    expect(res.body.details).toEqual({ status: "ERROR" });
  });

  it("keeps the policy over a control-plane restart", async () => {
    const before = (await t.api("GET", `/api/v1/sandboxes/${id}`, { key: alice })).body.network;
    await t.restart();
    recordPolicyChanges(t.runtime);
    const after = await t.api("GET", `/api/v1/sandboxes/${id}`, { key: alice });
    expect(after.body.network).toEqual(before);
  });
});
