import { completeSandbox } from "../port/new-sandbox";
import type { SandboxRow, WebhookRow } from "../port/rows";
import type { Repositories } from "../repositories";
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
  const opened =
    <T>(open: (row: T) => T) =>
    (row: T | undefined) =>
      row === undefined ? undefined : open(row);
  const openSandboxIfAny = opened(openSandbox);
  /*
   * A stored create response may hold a secret shown once (an API key): always sealed. It is not
   * in `secretColumns` (a record in progress has no body; records expire within a day), so the
   * start-up pass does not check it; one that does not open fails its replay, not the start.
   */
  const sealResponse = (id: string, body: string) => box.seal(body, idempotentResponse(id));
  return {
    ...repos,
    sandboxes: {
      ...sandboxes,
      async insert(row) {
        const full = completeSandbox(row);
        await sandboxes.insert({ ...full, sessionApiKey: sealKey(full.id, full.sessionApiKey) });
        return full;
      },
      get: (id) => sandboxes.get(id).then(openSandboxIfAny),
      update: (id, patch) =>
        sandboxes
          .update(
            id,
            patch.sessionApiKey === undefined
              ? patch
              : { ...patch, sessionApiKey: sealKey(id, patch.sessionApiKey) },
          )
          .then(opened(openSandbox)),
      claim: (id, fromOwnerId, claim) =>
        sandboxes
          .claim(id, fromOwnerId, { ...claim, sessionApiKey: sealKey(id, claim.sessionApiKey) })
          .then(opened(openSandbox)),
      search: async (filter, page) => {
        const found = await sandboxes.search(filter, page);
        return { ...found, items: found.items.map(openSandbox) };
      },
      listByStatus: async (statuses) => (await sandboxes.listByStatus(statuses)).map(openSandbox),
      listAll: async () => (await sandboxes.listAll()).map(openSandbox),
      listLifetimeDue: async (now, limit) =>
        (await sandboxes.listLifetimeDue(now, limit)).map(openSandbox),
    },
    webhooks: {
      ...webhooks,
      async insert(row) {
        await webhooks.insert({ ...row, secret: box.seal(row.secret, webhookSecret(row.id)) });
        return row;
      },
      get: (id) => webhooks.get(id).then(opened(openWebhook)),
      listByOwner: async (ownerId) => (await webhooks.listByOwner(ownerId)).map(openWebhook),
      search: async (ownerId, page) => {
        const found = await webhooks.search(ownerId, page);
        return { ...found, items: found.items.map(openWebhook) };
      },
    },
    idempotencyKeys: {
      ...idempotencyKeys,
      async insert(row) {
        const body = row.responseBody;
        await idempotencyKeys.insert({
          ...row,
          responseBody: body === null ? null : sealResponse(row.id, body),
        });
        return row;
      },
      get: (userId, key) =>
        idempotencyKeys
          .get(userId, key)
          .then(
            opened((row) =>
              row.responseBody === null
                ? row
                : { ...row, responseBody: box.open(row.responseBody, idempotentResponse(row.id)) },
            ),
          ),
      complete: (id, status, body) => idempotencyKeys.complete(id, status, sealResponse(id, body)),
    },
  };
}
