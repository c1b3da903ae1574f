/**
 * Revocation across replicas: a key revoked through one control plane, or the keys of a user
 * disabled through it, are refused by another within 1 s — although that one had just verified
 * the key and keeps verified keys for 30 s (the revoking replica's notice drops them).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_SANDBOX_IMAGE } from "@sandbox-server/runtime";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { apiCall } from "../test/api-call";
import { type Replica, startReplica } from "./lib/replica";

const ADMIN_KEY = "ssk_revocation_admin_key_0123456789";
/** The bound: another replica refuses a revoked key within this long. */
const REFUSED_WITHIN_MS = 1_000;

const baseUrl = inject("testDatabaseUrl");
if (!baseUrl) throw new Error("the replica suite needs PostgreSQL: TEST_DATABASE_URL or CI=true");

describe("revocation on two replicas of one PostgreSQL", () => {
  const database = `revocation_${randomBytes(5).toString("hex")}`;
  const instance = `revocation-${randomBytes(4).toString("hex")}`;
  const dataDirs: string[] = [];
  const replicas: Replica[] = [];
  let a: Replica;
  let b: Replica;

  async function launch(name: string): Promise<Replica> {
    const dataDir = mkdtempSync(path.join(tmpdir(), `sandbox-revocation-${name}-`));
    dataDirs.push(dataDir);
    writeFileSync(path.join(dataDir, "instance-id"), `${instance}\n`);
    const u = new URL(baseUrl);
    u.pathname = `/${database}`;
    const replica = await startReplica(name, ADMIN_KEY, {
      DATA_DIR: dataDir,
      DATABASE_URL: u.toString(),
      SECRETS_KEY: secretsKey,
      ADMIN_API_KEY: ADMIN_KEY,
      SANDBOX_RUNTIME: "docker",
      SANDBOX_IMAGE: process.env.SANDBOX_TEST_IMAGE ?? DEFAULT_SANDBOX_IMAGE,
    });
    replicas.push(replica);
    return replica;
  }
  const secretsKey = randomBytes(32).toString("hex");

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    a = await launch("a");
    b = await launch("b");
  });

  afterAll(async () => {
    for (const replica of replicas) await replica.kill("SIGTERM");
    const network = `sandbox-server-${instance}`;
    const docker = (...args: string[]) =>
      execFileSync("docker", args, { encoding: "utf8", timeout: 60_000 }).trim();
    if (docker("network", "ls", "-q", "--filter", `name=^${network}$`)) {
      docker("network", "rm", network);
    }
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  const me = (replica: Replica, key: string) =>
    apiCall(replica.url, "GET", "/api/v1/users/me", { key }).then((r) => r.status);

  /** Polls `replica` with `key` until it is refused; false if still accepted after the bound. */
  async function refusedWithinBound(replica: Replica, key: string): Promise<boolean> {
    const deadline = Date.now() + REFUSED_WITHIN_MS;
    for (;;) {
      if ((await me(replica, key)) === 401) return true;
      if (Date.now() > deadline) return false;
    }
  }

  it("a key revoked through one replica is refused by the other, which had it cached", async () => {
    const user = await apiCall(a.url, "POST", "/api/v1/users", {
      key: ADMIN_KEY,
      body: { name: "rotating" },
    });
    const first: string = user.body.api_key;
    const second = await apiCall(a.url, "POST", "/api/v1/users/me/api-keys", {
      key: first,
      body: { name: "second" },
    });
    // B verifies (and caches) the first key.
    expect(await me(b, first)).toBe(200);
    expect(await me(b, first)).toBe(200);
    const keys = await apiCall(a.url, "GET", "/api/v1/users/me/api-keys", {
      key: second.body.api_key,
    });
    const firstId = keys.body.items.find((k: { current: boolean }) => !k.current)?.id;
    const revoked = await apiCall(a.url, "DELETE", `/api/v1/users/me/api-keys/${firstId}`, {
      key: second.body.api_key,
    });
    expect(revoked.status).toBe(200);
    expect(await refusedWithinBound(b, first)).toBe(true);
    expect(await me(b, second.body.api_key)).toBe(200);
  });

  it("a user disabled through one replica has every key refused by the other", async () => {
    const user = await apiCall(a.url, "POST", "/api/v1/users", {
      key: ADMIN_KEY,
      body: { name: "leaving" },
    });
    const key: string = user.body.api_key;
    expect(await me(b, key)).toBe(200);
    const disabled = await apiCall(a.url, "POST", `/api/v1/users/${user.body.id}/disable`, {
      key: ADMIN_KEY,
    });
    expect(disabled.status).toBe(200);
    expect(await refusedWithinBound(b, key)).toBe(true);
  });
});
