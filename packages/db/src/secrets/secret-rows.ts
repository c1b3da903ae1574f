import type { Page } from "../paging";
import type { IdempotencyRecord, SandboxPatch, SandboxRow, WebhookRow } from "../port/rows";
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
 * The store's rows as they are written (secrets sealed) and read (secrets opened). Adapter-agnostic:
 * every implementation of the store port applies these, so callers only ever see plain text.
 */
export function secretRows(box: SecretBox) {
  const openSandbox = (row: SandboxRow): SandboxRow => ({
    ...row,
    sessionApiKey: box.open(row.sessionApiKey, sandboxKey(row.id)),
  });
  const openWebhook = (row: WebhookRow): WebhookRow => ({
    ...row,
    secret: box.open(row.secret, webhookSecret(row.id)),
  });
  return {
    sealSandbox: (row: SandboxRow): SandboxRow => ({
      ...row,
      sessionApiKey: box.seal(row.sessionApiKey, sandboxKey(row.id)),
    }),
    sealSandboxPatch: (id: string, patch: SandboxPatch): SandboxPatch =>
      patch.sessionApiKey === undefined
        ? patch
        : { ...patch, sessionApiKey: box.seal(patch.sessionApiKey, sandboxKey(id)) },
    openSandbox,
    openSandboxes: (rows: SandboxRow[]): SandboxRow[] => rows.map(openSandbox),
    openSandboxPage: (page: Page<SandboxRow>): Page<SandboxRow> => ({
      ...page,
      items: page.items.map(openSandbox),
    }),
    sealWebhook: (row: WebhookRow): WebhookRow => ({
      ...row,
      secret: box.seal(row.secret, webhookSecret(row.id)),
    }),
    openWebhook,
    openWebhooks: (rows: WebhookRow[]): WebhookRow[] => rows.map(openWebhook),
    openWebhookPage: (page: Page<WebhookRow>): Page<WebhookRow> => ({
      ...page,
      items: page.items.map(openWebhook),
    }),
    /*
     * A stored create response may hold a secret shown once (an API key): always sealed. It is not
     * in `secretColumns` (a record in progress has no body; records expire within a day), so the
     * start-up pass does not check it; one that does not open fails its replay, not the start.
     */
    sealIdempotentResponse: (id: string, body: string): string =>
      box.seal(body, idempotentResponse(id)),
    openIdempotencyRecord: (row: IdempotencyRecord): IdempotencyRecord =>
      row.responseBody === null
        ? row
        : { ...row, responseBody: box.open(row.responseBody, idempotentResponse(row.id)) },
  };
}
export type SecretRows = ReturnType<typeof secretRows>;
