import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pino from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ConfigError } from "../src/config-error";
import { startServer } from "../src/server";
import { startTestServer, type TestServer } from "./harness";
import { type Receiver, startReceiver, verifySignature, waitUntil } from "./receiver";

let t: TestServer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await startTestServer({
    config: {
      webhookTimeoutMs: 1_000,
      webhookBackoffBaseMs: 40,
      webhookBackoffMaxMs: 200,
      // The receivers listen on 127.0.0.1.
      webhookAllowPrivateNetworks: true,
    },
  });
});
afterAll(async () => {
  await t.close();
  for (const receiver of receivers) await receiver.close();
});

const dbFile = () => path.join(t.dataDir, "sandbox-server.db");

/** Every text value of every table, read with a connection of our own (not the server's). */
function allStoredText(): string {
  const sqlite = new Database(dbFile(), { readonly: true, fileMustExist: true });
  try {
    const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    return tables
      .map(({ name }) => JSON.stringify(sqlite.prepare(`SELECT * FROM "${name}"`).all()))
      .join("\n");
  } finally {
    sqlite.close();
  }
}

function storedValue(sql: string, id: string): string {
  const sqlite = new Database(dbFile(), { readonly: true, fileMustExist: true });
  try {
    return (sqlite.prepare(sql).get(id) as { value: string }).value;
  } finally {
    sqlite.close();
  }
}

/** The database file with its write-ahead log and index, byte for byte. */
function fileBytes(): string {
  return [dbFile(), `${dbFile()}-wal`, `${dbFile()}-shm`]
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file).toString("latin1"))
    .join("");
}

async function webhookTo(secret?: string): Promise<{ receiver: Receiver; secret: string }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const res = await t.api("POST", "/api/v1/webhooks", {
    body: { url: receiver.url, ...(secret ? { secret } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { receiver, secret: res.body.secret };
}

/** Waits for a delivery after the first `after` requests and checks it is signed with `secret`. */
async function signedDelivery(receiver: Receiver, after: number, secret: string): Promise<void> {
  const delivery = await waitUntil(
    () => receiver.received.slice(after).find((r) => r.answered === 200),
    () => `a delivery after request ${after}; got ${receiver.received.length}`,
  );
  expect(verifySignature(secret, delivery)).toBe(true);
  // Control: the check can fail (another valid secret).
  expect(verifySignature(`whsec_${randomBytes(32).toString("base64")}`, delivery)).toBe(false);
}

it("keeps session keys and webhook secrets encrypted in the database file, and usable across a restart", async () => {
  const chosenSecret = `whsec_${randomBytes(24).toString("base64")}`;
  const chosen = await webhookTo(chosenSecret);
  const generated = await webhookTo();
  expect(chosen.secret).toBe(chosenSecret);
  expect(generated.secret).toMatch(/^whsec_/);

  const created = await t.api("POST", "/api/v1/sandboxes", { body: {} });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const sandboxId: string = created.body.id;
  const running = (await t.waitForStatus(sandboxId, "RUNNING")).body;

  // Positive control: its owner gets the session key, and it is the key the agent server takes.
  const sessionKey: string = running.session_api_key;
  expect(sessionKey.length).toBeGreaterThanOrEqual(24);
  const probe = (key: string) =>
    fetch(`${running.agent_server_url}/api/conversations/search`, {
      headers: { "x-session-api-key": key },
    });
  expect((await probe(sessionKey)).status).toBe(200);
  expect((await probe(`${sessionKey}x`)).status).toBe(401);
  // Both webhooks sign with their secrets (the sandbox's start was delivered to each).
  await signedDelivery(chosen.receiver, 0, chosen.secret);
  await signedDelivery(generated.receiver, 0, generated.secret);

  const plaintexts = { sessionKey, chosen: chosen.secret, generated: generated.secret };

  // The table values, read with our own connection: sealed, never the plain text.
  const storedKey = storedValue(
    "SELECT session_api_key AS value FROM sandboxes WHERE id = ?",
    sandboxId,
  );
  expect(storedKey).toMatch(/^enc:v1:[A-Za-z0-9_-]+$/);
  expect(storedKey).not.toContain(sessionKey);
  const hookSecrets = allStoredText().match(/"secret":"[^"]*"/g) ?? [];
  expect(hookSecrets).toHaveLength(2);
  for (const value of hookSecrets) expect(value).toMatch(/^"secret":"enc:v1:[A-Za-z0-9_-]+"$/);
  // Control: the dump holds what the server stores as is (the sandbox id, the receiver's URL) ...
  const dump = allStoredText();
  expect(dump).toContain(sandboxId);
  expect(dump).toContain(chosen.receiver.url);
  // ... and none of the secrets, in any table.
  for (const [name, plain] of Object.entries(plaintexts)) {
    expect(dump.includes(plain), `${name} in a table`).toBe(false);
  }
  // The same for the raw bytes of the file, its WAL and index.
  const bytes = fileBytes();
  expect(bytes).toContain(sandboxId);
  expect(bytes).toContain(chosen.receiver.url);
  for (const [name, plain] of Object.entries(plaintexts)) {
    expect(bytes.includes(plain), `${name} in the file`).toBe(false);
  }

  // The key file: generated on the first start, for its owner only, never logged.
  const keyFile = path.join(t.dataDir, "secrets-key");
  expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  const keyHex = readFileSync(keyFile, "utf8").trim();
  expect(keyHex).toMatch(/^[0-9a-f]{64}$/);
  expect(t.logs()).toContain(`secrets key written to ${keyFile}`);
  const keyForms = [keyHex, Buffer.from(keyHex, "hex").toString("base64")];
  for (const secret of [...keyForms, ...Object.values(plaintexts)]) {
    expect(t.logs()).not.toContain(secret);
  }

  // After a restart the control plane still talks to the sandbox with the stored key ...
  const before = [chosen.receiver.received.length, generated.receiver.received.length] as const;
  await t.restart();
  const after = await t.api("GET", `/api/v1/sandboxes/${sandboxId}`);
  expect(after.body.status).toBe("RUNNING");
  expect(after.body.session_api_key).toBe(sessionKey);
  const conversation = await t.api("POST", "/api/v1/app-conversations", {
    body: { sandbox_id: sandboxId },
  });
  expect(conversation.status, JSON.stringify(conversation.body)).toBe(201);
  const sent = await t.api(
    "POST",
    `/api/v1/app-conversations/${conversation.body.id}/send-message`,
    {
      body: { role: "user", content: [{ type: "text", text: "echo after-restart" }], run: true },
    },
  );
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  // ... and signs deliveries with the stored secrets.
  await signedDelivery(chosen.receiver, before[0], chosen.secret);
  await signedDelivery(generated.receiver, before[1], generated.secret);
  expect(fileBytes().includes(sessionKey)).toBe(false);
  expect(t.logs().includes(keyHex)).toBe(false);

  // Another key does not open this database: a one-line start-up error, and nothing changes.
  await t.server.close();
  const storedBefore = allStoredText();
  const wrongKey = startServer({
    dataDir: t.dataDir,
    runtime: t.runtime,
    log: pino({ level: "silent" }),
    secretsKey: randomBytes(32),
  });
  await expect(wrongKey).rejects.toBeInstanceOf(ConfigError);
  await expect(wrongKey).rejects.toThrow(
    /^none of the 3 encrypted secrets in the database decrypts with this key: .* \(the key is SECRETS_KEY\); start with the key this database was written with/,
  );
  expect(allStoredText()).toBe(storedBefore);
  // A key file others can read stops the start too.
  chmodSync(keyFile, 0o644);
  await expect(
    startServer({ dataDir: t.dataDir, runtime: t.runtime, log: pino({ level: "silent" }) }),
  ).rejects.toThrow(/can be read by other users \(mode 0644\); run chmod 600/);
  chmodSync(keyFile, 0o600);

  // With its own key file back in order it starts and still reaches the sandbox.
  await t.restart();
  const again = await t.api(
    "POST",
    `/api/v1/app-conversations/${conversation.body.id}/send-message`,
    {
      body: {
        role: "user",
        content: [{ type: "text", text: "echo after-second-restart" }],
        run: true,
      },
    },
  );
  expect(again.status, JSON.stringify(again.body)).toBe(200);
});
