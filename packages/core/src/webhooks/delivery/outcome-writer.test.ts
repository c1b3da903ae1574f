import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  createSecretBox,
  createSqliteStore,
  type DeliveryOutcome,
  SECRET_KEY_BYTES,
  type Store,
} from "@sandbox-server/db";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pollUntil } from "../../../test/wait";
import type { Logger } from "../../logger";
import { OutcomeWriter } from "./outcome-writer";

const REPLICA = "replica-a";
/** The fake clock of the rows: the claim below ends long before the outcome is written. */
const T0 = 1_000_000;

let dir: string;
let store: Store;
let other: Store;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "outcome-writer-"));
  const file = path.join(dir, "store.db");
  const key = randomBytes(SECRET_KEY_BYTES);
  // Each try of a write gives up on a locked file after 10 ms: the writer's own retries decide.
  store = createSqliteStore(file, { secretBox: createSecretBox(key), busyRetryMs: 10 });
  other = createSqliteStore(file, { secretBox: createSecretBox(key), attach: true });
  await store.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: T0 });
  await store.webhooks.insert({
    id: "wh_a",
    ownerId: "usr_a",
    url: "http://127.0.0.1:9/hook",
    events: null,
    conversationId: null,
    secret: "whsec_test",
    createdAt: T0,
  });
});

afterEach(async () => {
  await other.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A pending delivery of `wh_a`, claimed by this replica until T0 + 1 s; answers its seq. */
async function claimedDelivery(): Promise<number> {
  await store.webhookDeliveries.insertMany([
    {
      id: "dlv_a",
      webhookId: "wh_a",
      stream: "conversation:c1",
      eventId: "ev_a",
      eventKind: "MessageEvent",
      payload: "{}",
      status: "pending",
      attempts: 0,
      nextAttemptAt: T0,
      lastStatusCode: null,
      lastError: null,
      createdAt: T0,
      updatedAt: T0,
      completedAt: null,
    },
  ]);
  const row = await store.webhookDeliveries.get("dlv_a");
  if (!row) throw new Error("the delivery should be stored");
  expect(await store.webhookDeliveries.claim([row.seq], REPLICA, T0, T0 + 1_000)).toEqual([
    row.seq,
  ]);
  return row.seq;
}

function succeeded(seq: number): DeliveryOutcome {
  const at = T0 + 60_000;
  return {
    seq,
    status: "succeeded",
    attempts: 1,
    nextAttemptAt: T0,
    lastStatusCode: 204,
    lastError: null,
    completedAt: at,
    updatedAt: at,
  };
}

/** A logger that counts the writer's failed tries. */
function countingLogger(): Logger & { failures: number } {
  const log = {
    failures: 0,
    debug() {},
    info() {},
    warn() {
      log.failures += 1;
    },
    error() {},
    child: () => log,
  };
  return log;
}

/** Holds the file's write lock (another connection's open transaction) until `release`. */
function holdWriteLock(): { held: Promise<void>; release: () => void; done: Promise<void> } {
  let release = () => {};
  let entered = () => {};
  const held = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const done = other.transaction(
    () =>
      new Promise<void>((resolve) => {
        release = resolve;
        entered();
      }),
  );
  return { held, release: () => release(), done };
}

describe("the outcome writer", () => {
  it("keeps a delivered row's outcome until the store takes it, past its claim's end", async () => {
    const seq = await claimedDelivery();
    const log = countingLogger();
    const writer = new OutcomeWriter({ repos: store, replicaId: REPLICA, log }, () => true);
    const lock = holdWriteLock();
    await lock.held;
    const written = writer.write([succeeded(seq)]);
    // A second warning comes after six failed tries: past the five a batch once had.
    await pollUntil(
      async () => log.failures,
      (failures) => failures >= 2,
      "the writer did not retry",
    );
    lock.release();
    await lock.done;
    await written;
    const row = await store.webhookDeliveries.get("dlv_a");
    expect(row).toMatchObject({ status: "succeeded", claimedBy: null, attempts: 1 });
  });

  it("gives a batch up after a few tries once the worker stops", async () => {
    const seq = await claimedDelivery();
    const log = countingLogger();
    const writer = new OutcomeWriter({ repos: store, replicaId: REPLICA, log }, () => false);
    const lock = holdWriteLock();
    await lock.held;
    await expect(writer.write([succeeded(seq)])).rejects.toThrow();
    lock.release();
    await lock.done;
    // Still claimed and pending: due again (same webhook-id) once the claim ends.
    const row = await store.webhookDeliveries.get("dlv_a");
    expect(row).toMatchObject({ status: "pending", claimedBy: REPLICA });
  });
});
