import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_SANDBOX_EGRESS } from "@sandbox-server/egress";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { completeSandbox } from "../port/new-sandbox";
import type { SandboxRow, WebhookRow } from "../port/rows";
import type { Store } from "../port/store";
import {
  createSecretBox,
  type SecretBox,
  SecretsKeyMismatchError,
  SecretUnreadableError,
} from "../secrets/secret-box";
import { createDb } from "./client";
import { createSqliteStore } from "./sqlite-store";

let dir: string;
let file: string;
const stores: Store[] = [];
const key = randomBytes(32);

function open(box: SecretBox = createSecretBox(key)): Store {
  const store = createSqliteStore(file, { secretBox: box });
  stores.push(store);
  return store;
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "secrets-test-"));
  file = path.join(dir, "store.db");
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A secret nobody could guess, so finding it in the file can only mean it was stored there. */
const secret = (name: string) => `${name}-${randomBytes(12).toString("hex")}`;

function sandbox(id: string, sessionApiKey: string): SandboxRow {
  return completeSandbox({
    id,
    ownerId: "usr_a",
    specId: "default",
    runtime: "process",
    status: "RUNNING",
    statusDetail: null,
    sessionApiKey,
    agentServerUrl: null,
    labels: {},
    env: {},
    network: DEFAULT_SANDBOX_EGRESS,
    lastActivityAt: null,
    createdAt: 1,
    updatedAt: 1,
  });
}

function webhook(id: string, value: string): WebhookRow {
  return {
    id,
    ownerId: "usr_a",
    url: "http://127.0.0.1:1/hook",
    events: null,
    conversationId: null,
    secret: value,
    createdAt: 1,
  };
}

/** What a separate connection reads from the file, bypassing the store. */
function raw(): { keys: Record<string, string>; secrets: Record<string, string> } {
  const sqlite = new Database(file, { readonly: true });
  try {
    const pairs = (sql: string) =>
      Object.fromEntries(
        (sqlite.prepare(sql).all() as { id: string; value: string }[]).map((r) => [r.id, r.value]),
      );
    return {
      keys: pairs("SELECT id, session_api_key AS value FROM sandboxes"),
      secrets: pairs("SELECT id, secret AS value FROM webhooks"),
    };
  } finally {
    sqlite.close();
  }
}

/** The database file and its write-ahead log, as bytes. */
function fileBytes(): string {
  return [file, `${file}-wal`]
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString("latin1"))
    .join("");
}

/** Rows written in plain text, as a database from before encryption holds them. */
function writePlain(sandboxes: SandboxRow[], hooks: WebhookRow[]): void {
  const handle = createDb(file);
  try {
    handle.sqlite
      .prepare("INSERT INTO users (id, name, is_admin, created_at) VALUES ('usr_a', 'a', 0, 1)")
      .run();
    for (const row of sandboxes) {
      handle.sqlite
        .prepare(
          "INSERT INTO sandboxes (id, owner_id, spec_id, runtime, status, session_api_key, labels, env, created_at, updated_at) VALUES (?, 'usr_a', 'default', 'process', 'RUNNING', ?, '{}', '{}', 1, 1)",
        )
        .run(row.id, row.sessionApiKey);
    }
    for (const row of hooks) {
      handle.sqlite
        .prepare(
          "INSERT INTO webhooks (id, owner_id, url, secret, created_at) VALUES (?, 'usr_a', 'http://127.0.0.1:1/hook', ?, 1)",
        )
        .run(row.id, row.secret);
    }
  } finally {
    handle.close();
  }
}

describe("secrets written through the store", () => {
  it("reach the file sealed and come back in plain text on every read", async () => {
    const store = open();
    await store.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
    const sessionKey = secret("session");
    const hookSecret = secret("whsec");
    expect(await store.sandboxes.insert(sandbox("sb_1", sessionKey))).toMatchObject({
      sessionApiKey: sessionKey,
    });
    await store.webhooks.insert(webhook("wh_1", hookSecret));
    const txKey = secret("session-tx");
    await store.transaction(async (tx) => {
      await tx.sandboxes.insert(sandbox("sb_2", txKey));
      expect((await tx.sandboxes.get("sb_2"))?.sessionApiKey).toBe(txKey);
    });

    // Every read hands out the plain text.
    expect((await store.sandboxes.get("sb_1"))?.sessionApiKey).toBe(sessionKey);
    const all = await store.sandboxes.listAll();
    expect(Object.fromEntries(all.map((s) => [s.id, s.sessionApiKey]))).toEqual({
      sb_1: sessionKey,
      sb_2: txKey,
    });
    expect((await store.sandboxes.listByStatus(["RUNNING"])).map((s) => s.sessionApiKey)).toEqual(
      expect.arrayContaining([sessionKey, txKey]),
    );
    const page = await store.sandboxes.search({ ownerId: "usr_a" }, { limit: 10 });
    expect(page.items.map((s) => s.sessionApiKey).sort()).toEqual([sessionKey, txKey].sort());
    expect((await store.webhooks.get("wh_1"))?.secret).toBe(hookSecret);
    expect((await store.webhooks.listByOwner("usr_a")).map((w) => w.secret)).toEqual([hookSecret]);
    expect((await store.webhooks.search("usr_a", { limit: 10 })).items[0]?.secret).toBe(hookSecret);
    const updated = await store.sandboxes.update("sb_1", { status: "PAUSED" });
    expect(updated?.sessionApiKey).toBe(sessionKey);

    // The file holds sealed values only.
    const stored = raw();
    for (const value of [...Object.values(stored.keys), ...Object.values(stored.secrets)]) {
      expect(value).toMatch(/^enc:v1:[A-Za-z0-9_-]+$/);
    }
    // Control: text the store writes as is is found in the file's bytes ...
    const bytes = fileBytes();
    expect(bytes).toContain("http://127.0.0.1:1/hook");
    expect(bytes).toContain("sb_1");
    // ... the secrets are not.
    for (const plain of [sessionKey, hookSecret, txKey]) expect(bytes).not.toContain(plain);
  });

  it("seals a session key given in an update", async () => {
    const store = open();
    await store.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
    await store.sandboxes.insert(sandbox("sb_1", secret("old")));
    const replacement = secret("new");
    const updated = await store.sandboxes.update("sb_1", { sessionApiKey: replacement });
    expect(updated?.sessionApiKey).toBe(replacement);
    expect((await store.sandboxes.get("sb_1"))?.sessionApiKey).toBe(replacement);
    expect(raw().keys.sb_1).toMatch(/^enc:v1:/);
    expect(fileBytes()).not.toContain(replacement);
  });
});

describe("opening a database written before encryption", () => {
  it("seals every plain text secret in one pass, and a second open changes nothing", async () => {
    const keys = { sb_1: secret("k1"), sb_2: secret("k2") };
    const hookSecret = secret("whsec");
    writePlain(
      Object.entries(keys).map(([id, value]) => sandbox(id, value)),
      [webhook("wh_1", hookSecret)],
    );
    // Control: before the store opens, the plain text is there to be found.
    expect(raw().keys).toEqual(keys);
    expect(raw().secrets).toEqual({ wh_1: hookSecret });

    const store = open();
    expect((await store.sandboxes.get("sb_1"))?.sessionApiKey).toBe(keys.sb_1);
    expect((await store.sandboxes.get("sb_2"))?.sessionApiKey).toBe(keys.sb_2);
    expect((await store.webhooks.get("wh_1"))?.secret).toBe(hookSecret);
    const sealed = raw();
    expect(Object.values(sealed.keys).every((v) => v.startsWith("enc:v1:"))).toBe(true);
    expect(sealed.secrets.wh_1).toMatch(/^enc:v1:/);
    await store.close();

    const again = open();
    expect(raw()).toEqual(sealed);
    expect((await again.sandboxes.get("sb_2"))?.sessionApiKey).toBe(keys.sb_2);
    expect((await again.webhooks.get("wh_1"))?.secret).toBe(hookSecret);
  });

  it("seals plain rows left beside sealed ones", async () => {
    const first = open();
    await first.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
    const sealedKey = secret("sealed");
    await first.sandboxes.insert(sandbox("sb_1", sealedKey));
    await first.close();
    const plainKey = secret("plain");
    const handle = createDb(file);
    handle.sqlite
      .prepare(
        "INSERT INTO sandboxes (id, owner_id, spec_id, runtime, status, session_api_key, labels, env, created_at, updated_at) VALUES ('sb_2', 'usr_a', 'default', 'process', 'RUNNING', ?, '{}', '{}', 2, 2)",
      )
      .run(plainKey);
    handle.close();
    expect(raw().keys.sb_2).toBe(plainKey);

    const store = open();
    expect(raw().keys.sb_2).toMatch(/^enc:v1:/);
    expect((await store.sandboxes.get("sb_1"))?.sessionApiKey).toBe(sealedKey);
    expect((await store.sandboxes.get("sb_2"))?.sessionApiKey).toBe(plainKey);
  });
});

describe("a key that does not fit the database", () => {
  async function sealedDatabase(): Promise<Record<string, string>> {
    const store = open();
    await store.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
    const keys = { sb_1: secret("k1"), sb_2: secret("k2") };
    for (const [id, value] of Object.entries(keys))
      await store.sandboxes.insert(sandbox(id, value));
    await store.webhooks.insert(webhook("wh_1", secret("whsec")));
    await store.close();
    return keys;
  }

  it("is refused when the store opens, and nothing is written", async () => {
    const keys = await sealedDatabase();
    // A plain row waiting to be sealed: a refused open must not seal it with the wrong key.
    const handle = createDb(file);
    handle.sqlite
      .prepare(
        "INSERT INTO webhooks (id, owner_id, url, secret, created_at) VALUES ('wh_plain', 'usr_a', 'http://127.0.0.1:1/hook', 'whsec_plain_value_1', 2)",
      )
      .run();
    handle.close();
    const before = raw();

    expect(() => createSqliteStore(file, { secretBox: createSecretBox(randomBytes(32)) })).toThrow(
      SecretsKeyMismatchError,
    );
    expect(() => createSqliteStore(file, { secretBox: createSecretBox(randomBytes(32)) })).toThrow(
      /none of the 3 encrypted secrets in the database decrypts with this key/,
    );
    expect(raw()).toEqual(before);
    expect(raw().secrets.wh_plain).toBe("whsec_plain_value_1");

    // The right key still opens it (and then seals the plain row).
    const store = open();
    expect((await store.sandboxes.get("sb_1"))?.sessionApiKey).toBe(keys.sb_1);
    expect((await store.webhooks.get("wh_plain"))?.secret).toBe("whsec_plain_value_1");
  });

  it("refuses an altered value, and a sealed value moved to another row, naming the rows", async () => {
    await sealedDatabase();
    const original = raw();
    const edit = (sql: string, ...params: string[]) => {
      const handle = createDb(file);
      handle.sqlite.prepare(sql).run(...params);
      handle.close();
    };
    // sb_2 gets sb_1's sealed key: valid ciphertext under the right key, sealed for another row.
    edit("UPDATE sandboxes SET session_api_key = ? WHERE id = 'sb_2'", original.keys.sb_1 ?? "");
    expect(() => open()).toThrow(SecretUnreadableError);
    expect(() => open()).toThrow(
      /^1 of the 3 encrypted secrets .* do not decrypt .*: sandboxes\/sb_2$/,
    );

    edit("UPDATE sandboxes SET session_api_key = ? WHERE id = 'sb_2'", original.keys.sb_2 ?? "");
    const sealedHook = original.secrets.wh_1 ?? "";
    const flipped = `${sealedHook.slice(0, -2)}${sealedHook.endsWith("AA") ? "BA" : "AA"}`;
    edit("UPDATE webhooks SET secret = ? WHERE id = 'wh_1'", flipped);
    expect(() => open()).toThrow(/do not decrypt .*: webhooks\/wh_1$/);

    // Restored, it opens: the refusals were about the changes.
    edit("UPDATE webhooks SET secret = ? WHERE id = 'wh_1'", sealedHook);
    expect((await open().sandboxes.listAll()).length).toBe(2);
  });
});

describe("the key check value", () => {
  it("is recorded by the first open; another key is refused though nothing is stored", async () => {
    await (await open()).close();
    stores.splice(0);
    const handle = createDb(file);
    const rows = handle.sqlite.prepare("SELECT check_value FROM secrets_key_check").all() as {
      check_value: string;
    }[];
    handle.close();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.check_value).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]?.check_value).not.toContain(key.toString("hex"));
    expect(() => createSqliteStore(file, { secretBox: createSecretBox(randomBytes(32)) })).toThrow(
      SecretsKeyMismatchError,
    );
    expect(await open().users.count()).toBe(0);
  });
});
