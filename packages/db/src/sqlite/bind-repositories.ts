import { completeSandbox } from "../port/new-sandbox";
import type { Repositories } from "../port/repositories";
import type { SecretRows } from "../secrets/secret-rows";
import type { SyncRepositories } from "./repositories";

/**
 * How a synchronous repository call is run: `read` for statements that only read, `write` for
 * the rest. The store runs them differently outside a transaction (reads on the read connection,
 * writes behind the write lock) and the same inside one (on the transaction's connection).
 */
export interface Executor {
  read<T>(op: (repos: SyncRepositories) => T): Promise<T>;
  write<T>(op: (repos: SyncRepositories) => T): Promise<T>;
}

/**
 * The asynchronous repositories of the port, each call run through `exec`. Secrets are sealed
 * before they are written and opened as they are read (`secrets`), inside the synchronous call.
 */
export function bindRepositories({ read, write }: Executor, secrets: SecretRows): Repositories {
  return {
    users: {
      insert: (user) => write((r) => r.users.insert(user)),
      get: (id) => read((r) => r.users.get(id)),
      count: () => read((r) => r.users.count()),
      list: () => read((r) => r.users.list()),
      setDisabled: (id, disabledAt) => write((r) => r.users.setDisabled(id, disabledAt)),
      markDeleted: (id, deletedAt) => write((r) => r.users.markDeleted(id, deletedAt)),
      restore: (id) => write((r) => r.users.restore(id)),
      insertApiKey: (key) => write((r) => r.users.insertApiKey(key)),
      listLiveKeys: (userId) => read((r) => r.users.listLiveKeys(userId)),
      revokeKey: (keyId, now) => write((r) => r.users.revokeKey(keyId, now)),
      reviveKeyByHash: (keyHash) => write((r) => r.users.reviveKeyByHash(keyHash)),
      findByKeyHash: (keyHash) => read((r) => r.users.findByKeyHash(keyHash)),
    },
    specs: {
      get: (id) => read((r) => r.specs.get(id)),
      upsert: (spec) => write((r) => r.specs.upsert(spec)),
      search: (page) => read((r) => r.specs.search(page)),
    },
    sandboxes: {
      insert: (row) =>
        write((r) => {
          const full = completeSandbox(row);
          r.sandboxes.insert(secrets.sealSandbox(full));
          return full;
        }),
      get: (id) => read((r) => optional(r.sandboxes.get(id), secrets.openSandbox)),
      update: (id, patch) =>
        write((r) =>
          optional(
            r.sandboxes.update(id, secrets.sealSandboxPatch(id, patch)),
            secrets.openSandbox,
          ),
        ),
      claim: (id, fromOwnerId, claim) =>
        write((r) =>
          optional(
            r.sandboxes.claim(id, fromOwnerId, {
              ...claim,
              ...secrets.sealSandboxPatch(id, { sessionApiKey: claim.sessionApiKey }),
            }),
            secrets.openSandbox,
          ),
        ),
      remove: (id) => write((r) => r.sandboxes.remove(id)),
      search: (filter, page) =>
        read((r) => secrets.openSandboxPage(r.sandboxes.search(filter, page))),
      listByStatus: (statuses) =>
        read((r) => secrets.openSandboxes(r.sandboxes.listByStatus(statuses))),
      listAll: () => read((r) => secrets.openSandboxes(r.sandboxes.listAll())),
      countByStatus: (statuses) => read((r) => r.sandboxes.countByStatus(statuses)),
      listLifetimeDue: (now, limit) =>
        read((r) => secrets.openSandboxes(r.sandboxes.listLifetimeDue(now, limit))),
      rescheduleLifetime: (id, expected, next) =>
        write((r) => r.sandboxes.rescheduleLifetime(id, expected, next)),
    },
    conversations: {
      insert: (row) => write((r) => r.conversations.insert(row)),
      get: (id) => read((r) => r.conversations.get(id)),
      update: (id, patch) => write((r) => r.conversations.update(id, patch)),
      recordEventActivity: (id, event) =>
        write((r) => r.conversations.recordEventActivity(id, event)),
      recordEventActivities: (activities) =>
        write((r) => {
          for (const { id, event } of activities) r.conversations.recordEventActivity(id, event);
        }),
      remove: (id) => write((r) => r.conversations.remove(id)),
      listBySandbox: (sandboxId) => read((r) => r.conversations.listBySandbox(sandboxId)),
      archiveBySandbox: (sandboxId, now) =>
        write((r) => r.conversations.archiveBySandbox(sandboxId, now)),
      search: (filter, sort, direction, page) =>
        read((r) => r.conversations.search(filter, sort, direction, page)),
      count: (filter) => read((r) => r.conversations.count(filter)),
    },
    startTasks: {
      insert: (row) => write((r) => r.startTasks.insert(row)),
      get: (id) => read((r) => r.startTasks.get(id)),
      update: (id, patch) => write((r) => r.startTasks.update(id, patch)),
      listByStatus: (statuses) => read((r) => r.startTasks.listByStatus(statuses)),
      search: (filter, sort, direction, page) =>
        read((r) => r.startTasks.search(filter, sort, direction, page)),
      count: (filter) => read((r) => r.startTasks.count(filter)),
    },
    conversationEvents: {
      insertIfNew: (row) => write((r) => r.conversationEvents.insertIfNew(row)),
      insertManyIfNew: (rows) =>
        write((r) => rows.map((row) => r.conversationEvents.insertIfNew(row))),
      latest: (conversationId) => read((r) => r.conversationEvents.latest(conversationId)),
      search: (filter, direction, page) =>
        read((r) => r.conversationEvents.search(filter, direction, page)),
      count: (filter) => read((r) => r.conversationEvents.count(filter)),
      removeByConversation: (conversationId) =>
        write((r) => r.conversationEvents.removeByConversation(conversationId)),
    },
    webhooks: {
      insert: (row) =>
        write((r) => {
          r.webhooks.insert(secrets.sealWebhook(row));
          return row;
        }),
      get: (id) => read((r) => optional(r.webhooks.get(id), secrets.openWebhook)),
      listByOwner: (ownerId) => read((r) => secrets.openWebhooks(r.webhooks.listByOwner(ownerId))),
      remove: (id) => write((r) => r.webhooks.remove(id)),
      search: (ownerId, page) =>
        read((r) => secrets.openWebhookPage(r.webhooks.search(ownerId, page))),
    },
    webhookDeliveries: {
      insert: (row) => write((r) => r.webhookDeliveries.insert(row)),
      insertMany: (rows) => write((r) => r.webhookDeliveries.insertMany(rows)),
      get: (id) => read((r) => r.webhookDeliveries.get(id)),
      dueHeads: (query) => read((r) => r.webhookDeliveries.dueHeads(query)),
      nextDueAt: (now) => read((r) => r.webhookDeliveries.nextDueAt(now)),
      countPending: () => read((r) => r.webhookDeliveries.countPending()),
      claim: (seqs, holder, now, until) =>
        write((r) => r.webhookDeliveries.claim(seqs, holder, now, until)),
      pendingBehind: (heads, perStream) =>
        read((r) => r.webhookDeliveries.pendingBehind(heads, perStream)),
      update: (seq, patch) => write((r) => r.webhookDeliveries.update(seq, patch)),
      recordOutcomes: (outcomes, holder) =>
        write((r) => r.webhookDeliveries.recordOutcomes(outcomes, holder)),
      search: (filter, page) => read((r) => r.webhookDeliveries.search(filter, page)),
    },
    idempotencyKeys: {
      insert: (row) =>
        write((r) => {
          const body = row.responseBody;
          const sealed = body === null ? null : secrets.sealIdempotentResponse(row.id, body);
          r.idempotencyKeys.insert({ ...row, responseBody: sealed });
          return row;
        }),
      get: (userId, key) =>
        read((r) => optional(r.idempotencyKeys.get(userId, key), secrets.openIdempotencyRecord)),
      complete: (id, status, body) =>
        write((r) =>
          r.idempotencyKeys.complete(id, status, secrets.sealIdempotentResponse(id, body)),
        ),
      remove: (id) => write((r) => r.idempotencyKeys.remove(id)),
      removeCreatedBefore: (before) => write((r) => r.idempotencyKeys.removeCreatedBefore(before)),
    },
    leases: {
      acquire: (name, holder, ttlMs) => write((r) => r.leases.acquire(name, holder, ttlMs)),
      release: (name, holder) => write((r) => r.leases.release(name, holder)),
      get: (name) => read((r) => r.leases.get(name)),
      listLive: (prefix) => read((r) => r.leases.listLive(prefix)),
    },
  };
}

function optional<T>(row: T | undefined, open: (row: T) => T): T | undefined {
  return row === undefined ? undefined : open(row);
}
