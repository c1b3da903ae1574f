import type { Page } from "../paging";
import { completeSandbox } from "../port/new-sandbox";
import type { SandboxRow, WebhookRow } from "../port/rows";
import type { Executor } from "../query/query";
import { plainRepositories, type Repositories } from "../repositories";
import type { SecretBox } from "./secret-box";

/** Every column that holds a secret, by table. Each table's key column is `id`. */
export const secretColumns = [
  { table: "sandboxes", column: "session_api_key" },
  { table: "webhooks", column: "secret" },
] as const;

/** The place a secret is sealed for (authenticated with it): `sandboxes.session_api_key:sb_1`. */
export function secretContext(table: string, column: string, id: string): string {
  return `${table}.${column}:${id}`;
}

const sandboxKey = (id: string) => secretContext("sandboxes", "session_api_key", id);
const webhookSecret = (id: string) => secretContext("webhooks", "secret", id);
const idempotentResponse = (id: string) => secretContext("idempotency_keys", "response_body", id);

/**
 * The port's repositories over `exec`, as callers see them: secrets sealed with `box` on their
 * way in and opened on their way out.
 */
export function createRepositories(exec: Executor, box: SecretBox): Repositories {
  return sealedRepositories(plainRepositories(exec), box);
}

/**
 * `repos` as callers see them: secrets are sealed before they are written and opened as they are
 * read, so callers only ever see plain text and the database only sealed values. The one place
 * this happens, for every adapter and inside transactions too.
 */
export function sealedRepositories(repos: Repositories, box: SecretBox): Repositories {
  const { sandboxes, webhooks, idempotencyKeys } = repos;
  const sealKey = (id: string, key: string) => box.seal(key, sandboxKey(id));
  const openSandbox = (row: SandboxRow): SandboxRow => ({
    ...row,
    sessionApiKey: box.open(row.sessionApiKey, sandboxKey(row.id)),
  });
  const openWebhook = (row: WebhookRow): WebhookRow => ({
    ...row,
    secret: box.open(row.secret, webhookSecret(row.id)),
  });
  const openOne = (row: SandboxRow | undefined) => row && openSandbox(row);
  const openAll = (rows: SandboxRow[]) => rows.map(openSandbox);
  const openPage =
    <T>(open: (row: T) => T) =>
    (page: Page<T>) => ({
      ...page,
      items: page.items.map(open),
    });
  /*
   * A stored create response may hold a secret shown once (an API key): always sealed. It is not
   * in `secretColumns` (a record in progress has no body; records expire within a day), so the
   * start-up pass does not check it; one that does not open fails its replay, not the start.
   */
  const sealResponse = (id: string, body: string) => box.seal(body, idempotentResponse(id));
  return {
    ...repos,
    // Each method of these three is listed (no spread): a new one does not compile until it says
    // what it does with the secret.
    sandboxes: {
      remove: sandboxes.remove,
      countByStatus: sandboxes.countByStatus,
      rescheduleLifetime: sandboxes.rescheduleLifetime,
      async insert(row) {
        const full = completeSandbox(row);
        await sandboxes.insert({ ...full, sessionApiKey: sealKey(full.id, full.sessionApiKey) });
        return full;
      },
      get: (id) => sandboxes.get(id).then(openOne),
      update: (id, patch) => {
        const key = patch.sessionApiKey;
        const sealed = key === undefined ? patch : { ...patch, sessionApiKey: sealKey(id, key) };
        return sandboxes.update(id, sealed).then(openOne);
      },
      claim: (id, fromOwnerId, claim) => {
        const sealed = { ...claim, sessionApiKey: sealKey(id, claim.sessionApiKey) };
        return sandboxes.claim(id, fromOwnerId, sealed).then(openOne);
      },
      search: (filter, page) => sandboxes.search(filter, page).then(openPage(openSandbox)),
      listRunning: (ownerId, specId, limit) =>
        sandboxes.listRunning(ownerId, specId, limit).then(openAll),
      listByStatus: (statuses) => sandboxes.listByStatus(statuses).then(openAll),
      listAll: () => sandboxes.listAll().then(openAll),
      listLifetimeDue: (now, limit) => sandboxes.listLifetimeDue(now, limit).then(openAll),
    },
    webhooks: {
      remove: webhooks.remove,
      async insert(row) {
        await webhooks.insert({ ...row, secret: box.seal(row.secret, webhookSecret(row.id)) });
        return row;
      },
      get: (id) => webhooks.get(id).then((row) => row && openWebhook(row)),
      listByOwner: (ownerId) => webhooks.listByOwner(ownerId).then((rows) => rows.map(openWebhook)),
      search: (ownerId, page) => webhooks.search(ownerId, page).then(openPage(openWebhook)),
    },
    idempotencyKeys: {
      remove: idempotencyKeys.remove,
      removeCreatedBefore: idempotencyKeys.removeCreatedBefore,
      async insert(row) {
        const body = row.responseBody;
        const sealed = body === null ? null : sealResponse(row.id, body);
        await idempotencyKeys.insert({ ...row, responseBody: sealed });
        return row;
      },
      async get(userId, key) {
        const row = await idempotencyKeys.get(userId, key);
        if (!row || row.responseBody === null) return row;
        return { ...row, responseBody: box.open(row.responseBody, idempotentResponse(row.id)) };
      },
      complete: (id, status, body) => idempotencyKeys.complete(id, status, sealResponse(id, body)),
    },
  };
}
