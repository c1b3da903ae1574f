import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { DEFAULT_SANDBOX_EGRESS } from "@sandbox-server/egress";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { databaseUrl, postgresUrl } from "../../test/stores";
import { completeSandbox } from "../port/new-sandbox";
import type { SandboxRow } from "../port/rows";
import type { Store } from "../port/store";
import { createSecretBox, SecretsKeyMismatchError } from "../secrets/secret-box";
import { createPostgresStore } from "./pg-store";

const postgresTooling = fileURLToPath(new URL("../../../../tooling/postgres/", import.meta.url));

/** PostgreSQL tests run where this run has a server, and must run (and fail without) in CI. */
const enabled = postgresUrl() !== "" || inject("pgRequired");

function sandbox(id: string): SandboxRow {
  return completeSandbox({
    id,
    ownerId: "usr_a",
    specId: "default",
    runtime: "process",
    status: "RUNNING",
    statusDetail: null,
    sessionApiKey: `key-${id}`,
    agentServerUrl: null,
    labels: {},
    env: {},
    network: DEFAULT_SANDBOX_EGRESS,
    lastActivityAt: null,
    createdAt: 1,
    updatedAt: 1,
  });
}

/** A cluster of its own (tooling/postgres/postgres-up.sh): these tests stop and start it. */
function startCluster(): { url: string; dir: string } {
  const out = execFileSync("bash", [`${postgresTooling}postgres-up.sh`], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const value = (key: string) =>
    out
      .split("\n")
      .find((line) => line.startsWith(`${key}=`))
      ?.slice(key.length + 1) ?? "";
  return { url: value("TEST_DATABASE_URL"), dir: value("PG_TEST_DIR") };
}

const ctl = (dir: string, action: "stop" | "start" | "down") =>
  execFileSync("bash", [`${postgresTooling}postgres-ctl.sh`, dir, action], { stdio: "inherit" });

describe.runIf(enabled)("a PostgreSQL store whose server goes away", () => {
  let cluster: { url: string; dir: string } | undefined;
  const stores: Store[] = [];

  beforeAll(() => {
    cluster = startCluster();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => {
    if (cluster?.dir) ctl(cluster.dir, "down");
  });

  async function open(url: string, key = randomBytes(32)): Promise<Store> {
    const store = await createPostgresStore(url, {
      secretBox: createSecretBox(key),
      connectTimeoutMs: 3_000,
    });
    stores.push(store);
    return store;
  }

  it("answers StoreUnavailableError while it is down and recovers by itself when it returns", async () => {
    const { url, dir } = cluster ?? { url: "", dir: "" };
    const store = await open(url);
    await store.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
    await store.sandboxes.insert(sandbox("sb_1"));
    expect(await store.sandboxes.get("sb_1")).toMatchObject({ sessionApiKey: "key-sb_1" });

    ctl(dir, "stop");
    await expect(store.sandboxes.get("sb_1")).rejects.toMatchObject({
      name: "StoreUnavailableError",
    });
    await expect(store.sandboxes.insert(sandbox("sb_2"))).rejects.toMatchObject({
      name: "StoreUnavailableError",
    });
    await expect(
      store.transaction((tx) => tx.sandboxes.countByStatus(["RUNNING"])),
    ).rejects.toMatchObject({ name: "StoreUnavailableError" });

    ctl(dir, "start");
    expect(await store.sandboxes.get("sb_1")).toMatchObject({ sessionApiKey: "key-sb_1" });
    await store.transaction(async (tx) => {
      await tx.sandboxes.insert(sandbox("sb_3"));
    });
    expect(await store.sandboxes.countByStatus(["RUNNING"])).toBe(2);
  });

  it("fails to open with StoreUnavailableError naming the reason, never the password", async () => {
    const { url } = cluster ?? { url: "" };
    const wrong = new URL(url);
    wrong.password = "not-the-password-xyz";
    const opening = createPostgresStore(wrong.toString(), {
      secretBox: createSecretBox(randomBytes(32)),
    });
    await expect(opening).rejects.toMatchObject({ name: "StoreUnavailableError" });
    await expect(opening).rejects.toThrow(/password authentication failed/);
    await expect(opening).rejects.not.toThrow(/not-the-password-xyz/);

    const nowhere = new URL(url);
    nowhere.port = "1";
    await expect(
      createPostgresStore(nowhere.toString(), { secretBox: createSecretBox(randomBytes(32)) }),
    ).rejects.toThrow(/cannot connect to the database: .*ECONNREFUSED/);
  });

  /** A new database on the cluster, and a query on it. */
  async function freshDatabase(name: string) {
    const admin = new pg.Client({ connectionString: cluster?.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = databaseUrl(cluster?.url ?? "", name);
    const query = async (text: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(text)).rows;
      } finally {
        await client.end();
      }
    };
    return { url, query };
  }

  it("keeps secrets sealed at rest and refuses another key on open", async () => {
    const { url, query } = await freshDatabase("sealed");
    const key = randomBytes(32);
    const store = await open(url, key);
    await store.users.insert({ id: "usr_s", name: "s", isAdmin: false, createdAt: 1 });
    await store.sandboxes.insert({ ...sandbox("sb_sealed"), ownerId: "usr_s" });
    expect((await store.sandboxes.get("sb_sealed"))?.sessionApiKey).toBe("key-sb_sealed");
    const [stored] = await query("SELECT session_api_key FROM sandboxes");
    expect(String(stored?.session_api_key)).toMatch(/^enc:v1:/);
    expect(String(stored?.session_api_key)).not.toContain("key-sb_sealed");
    await expect(open(url, randomBytes(32))).rejects.toBeInstanceOf(SecretsKeyMismatchError);
    // The right key opens it again (migrations already applied: nothing to do).
    const again = await open(url, key);
    expect((await again.sandboxes.get("sb_sealed"))?.sessionApiKey).toBe("key-sb_sealed");
  });

  it("records the first key's check value and refuses any other key, even with nothing stored", async () => {
    const { url, query } = await freshDatabase("keycheck");
    const key = randomBytes(32);
    await open(url, key);
    const [row] = await query("SELECT check_value FROM secrets_key_check");
    expect(String(row?.check_value)).toMatch(/^[0-9a-f]{64}$/);
    expect(String(row?.check_value)).not.toContain(key.toString("hex"));
    await expect(open(url, randomBytes(32))).rejects.toThrow(
      /first opened with another secrets key/,
    );
    await open(url, key);
  });

  it("lets exactly one of two keys win when two replicas open a fresh database at once", async () => {
    const { url } = await freshDatabase("keyrace");
    const opened = await Promise.allSettled([open(url), open(url), open(url)]);
    const won = opened.filter((o) => o.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const lost of opened.filter((o) => o.status === "rejected")) {
      expect(lost.reason).toBeInstanceOf(SecretsKeyMismatchError);
    }
  });

  it("carries notices between stores, and reports a gap when the listening connection is lost", async () => {
    const { url, query } = await freshDatabase("notices");
    const key = randomBytes(32);
    const [a, b] = [await open(url, key), await open(url, key)];
    const heard: string[] = [];
    let gaps = 0;
    const stop = await b.notices?.listen(
      "test_channel",
      (payload) => heard.push(payload),
      () => {
        gaps++;
      },
    );
    await a.notices?.publish("test_channel", "one");
    await a.notices?.publish("other_channel", "not this one");
    await expect.poll(() => heard).toEqual(["one"]);

    await query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
    );
    // Lost, then listening again: two gaps (what was sent in between is not heard).
    await expect.poll(() => gaps, { timeout: 10_000 }).toBe(2);
    await a.notices?.publish("test_channel", "two");
    await expect.poll(() => heard).toEqual(["one", "two"]);
    await stop?.();
    await a.notices?.publish("test_channel", "three");
    await a.users.count();
    expect(heard).toEqual(["one", "two"]);
  });
});
