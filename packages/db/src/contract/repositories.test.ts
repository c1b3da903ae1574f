import { DEFAULT_SANDBOX_EGRESS, type SandboxEgressPolicy } from "@sandbox-server/egress";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type OpenedStore, storeAdapters } from "../../test/stores";
import { InvalidPageIdError } from "../paging";
import { completeSandbox } from "../port/new-sandbox";
import type { NewSandboxSpec, SandboxFilter, SandboxRow } from "../port/rows";
import type { Store } from "../port/store";

let store: Store;
let repos: Store;
let opened: OpenedStore;

const narrowed: SandboxEgressPolicy = {
  allowInternet: false,
  allowOut: [
    { kind: "host", name: "github.com", wildcard: true, port: 443 },
    { kind: "cidr", cidr: "127.0.0.1/32", port: 11434 },
  ],
  denyOut: [{ kind: "cidr", cidr: "2001:db8::/32", port: null }],
};

function sandbox(id: string, createdAt: number, extra: Partial<SandboxRow> = {}): SandboxRow {
  return completeSandbox({
    id,
    ownerId: "usr_a",
    specId: "default",
    runtime: "process",
    status: "RUNNING",
    statusDetail: null,
    sessionApiKey: "k",
    agentServerUrl: null,
    labels: {},
    env: {},
    network: DEFAULT_SANDBOX_EGRESS,
    lastActivityAt: null,
    createdAt,
    updatedAt: createdAt,
    ...extra,
  });
}

function spec(network: SandboxEgressPolicy | null): NewSandboxSpec {
  return {
    id: "narrow",
    name: "narrow",
    description: "",
    runtime: "any",
    image: null,
    command: null,
    workingDir: null,
    initialEnv: {},
    cpu: null,
    memoryMb: null,
    pids: null,
    network,
    createdAt: 1,
  };
}

/** The same contract for every adapter of the store port. */
describe.each(storeAdapters())("$name store", (adapter) => {
  beforeEach(async () => {
    opened = await adapter.open();
    store = opened.store;
    repos = store;
    await repos.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
    await repos.users.insert({ id: "usr_b", name: "b", isAdmin: false, createdAt: 1 });
  });
  afterEach(() => adapter.cleanup());

  describe("sandbox repository", () => {
    it("pages with a stable keyset while rows are inserted between pages", async () => {
      for (let i = 0; i < 5; i++) await repos.sandboxes.insert(sandbox(`sb_${i}`, 100 + i));
      const first = await repos.sandboxes.search({ ownerId: "usr_a" }, { limit: 2 });
      expect(first.items.map((s) => s.id)).toEqual(["sb_4", "sb_3"]);
      // A newer row lands before the cursor and must not shift the next page.
      await repos.sandboxes.insert(sandbox("sb_new", 200));
      const second = await repos.sandboxes.search(
        { ownerId: "usr_a" },
        { limit: 2, pageId: first.nextPageId ?? undefined },
      );
      expect(second.items.map((s) => s.id)).toEqual(["sb_2", "sb_1"]);
      const third = await repos.sandboxes.search(
        { ownerId: "usr_a" },
        { limit: 2, pageId: second.nextPageId ?? undefined },
      );
      expect(third.items.map((s) => s.id)).toEqual(["sb_0"]);
      expect(third.nextPageId).toBeNull();
    });

    it("breaks ties on equal timestamps by id", async () => {
      for (const id of ["sb_a", "sb_b", "sb_c"]) await repos.sandboxes.insert(sandbox(id, 100));
      const first = await repos.sandboxes.search({ ownerId: "usr_a" }, { limit: 2 });
      const second = await repos.sandboxes.search(
        { ownerId: "usr_a" },
        { limit: 2, pageId: first.nextPageId ?? undefined },
      );
      expect([...first.items, ...second.items].map((s) => s.id)).toEqual(["sb_c", "sb_b", "sb_a"]);
    });

    it("filters by owner, status and label", async () => {
      await repos.sandboxes.insert(sandbox("sb_1", 1, { labels: { team: "x", env: "dev" } }));
      await repos.sandboxes.insert(sandbox("sb_2", 2, { labels: { team: "y" }, status: "PAUSED" }));
      await repos.sandboxes.insert(sandbox("sb_3", 3, { ownerId: "usr_b", labels: { team: "x" } }));
      const ids = async (f: SandboxFilter) =>
        (await repos.sandboxes.search(f, { limit: 10 })).items.map((s) => s.id);
      expect(await ids({ ownerId: "usr_a", label: "team=x" })).toEqual(["sb_1"]);
      expect(await ids({ ownerId: "usr_a", label: "env" })).toEqual(["sb_1"]);
      expect(await ids({ ownerId: "usr_a", status: "PAUSED" })).toEqual(["sb_2"]);
      expect(await ids({ ownerId: "usr_a" })).toEqual(["sb_2", "sb_1"]);
    });

    it("rejects a page id it did not produce", async () => {
      await expect(
        repos.sandboxes.search({ ownerId: "usr_a" }, { limit: 2, pageId: "junk" }),
      ).rejects.toThrow(InvalidPageIdError);
    });
  });

  describe("egress policies", () => {
    it("keeps a sandbox's policy through insert, reads and update", async () => {
      await repos.sandboxes.insert(sandbox("sb_1", 1, { network: narrowed }));
      expect((await repos.sandboxes.get("sb_1"))?.network).toEqual(narrowed);
      const page = await repos.sandboxes.search({ ownerId: "usr_a" }, { limit: 10 });
      expect(page.items[0]?.network).toEqual(narrowed);
      const updated = await repos.sandboxes.update("sb_1", { network: DEFAULT_SANDBOX_EGRESS });
      expect(updated?.network).toEqual(DEFAULT_SANDBOX_EGRESS);
      expect((await repos.sandboxes.get("sb_1"))?.network).toEqual(DEFAULT_SANDBOX_EGRESS);
    });

    it("stores the policy as JSON in the sandbox's network column", async () => {
      await repos.sandboxes.insert(sandbox("sb_2", 1, { network: narrowed }));
      const [row] = await opened.raw("SELECT network FROM sandboxes WHERE id = 'sb_2'");
      const stored = row?.network;
      // SQLite gives the JSON text, PostgreSQL the parsed jsonb.
      expect(typeof stored === "string" ? JSON.parse(stored) : stored).toEqual(narrowed);
    });

    it("keeps a spec's default policy, null when it has none", async () => {
      await repos.specs.upsert(spec(null));
      expect((await repos.specs.get("narrow"))?.network).toBeNull();
      await repos.specs.upsert(spec(narrowed));
      expect((await repos.specs.get("narrow"))?.network).toEqual(narrowed);
    });
  });

  describe("conversation repository", () => {
    it("filters by title substring literally and archives by sandbox", async () => {
      const base = {
        sandboxId: "sb_1",
        ownerId: "usr_a",
        agent: { kind: "shell" },
        metadata: {},
        archived: false,
        executionStatus: null,
        lastEventAt: null,
      };
      await repos.conversations.insert({
        ...base,
        id: "c1",
        title: "100% done",
        createdAt: 1,
        updatedAt: 5,
      });
      await repos.conversations.insert({
        ...base,
        id: "c2",
        title: "1000 done",
        createdAt: 2,
        updatedAt: 4,
      });
      const titled = await repos.conversations.search(
        { ownerId: "usr_a", titleContains: "0%" },
        "created",
        "asc",
        { limit: 10 },
      );
      expect(titled.items.map((c) => c.id)).toEqual(["c1"]);
      const byUpdated = await repos.conversations.search({ ownerId: "usr_a" }, "updated", "asc", {
        limit: 10,
      });
      expect(byUpdated.items.map((c) => c.id)).toEqual(["c2", "c1"]);
      await repos.conversations.archiveBySandbox("sb_1", 10);
      const live = await repos.conversations.search(
        { ownerId: "usr_a", archived: false },
        "created",
        "asc",
        { limit: 10 },
      );
      expect(live.items).toHaveLength(0);
    });

    it("moves a conversation by its events: times only forward, title only once", async () => {
      await repos.conversations.insert({
        id: "c1",
        sandboxId: "sb_1",
        ownerId: "usr_a",
        agent: { kind: "shell" },
        metadata: {},
        archived: false,
        title: null,
        executionStatus: "idle",
        lastEventAt: null,
        createdAt: 1,
        updatedAt: 50,
      });
      const record = (eventMs: number, executionStatus: string | null, title: string | null) =>
        repos.conversations.recordEventActivity("c1", { eventMs, executionStatus, title });

      await record(40, null, "first words");
      expect(await repos.conversations.get("c1")).toMatchObject({
        lastEventAt: 40,
        updatedAt: 50,
        executionStatus: "idle",
        title: "first words",
      });
      await record(100, "running", "second words");
      // An event that arrives late (older) moves nothing back.
      await record(70, null, null);
      expect(await repos.conversations.get("c1")).toMatchObject({
        lastEventAt: 100,
        updatedAt: 100,
        executionStatus: "running",
        title: "first words",
      });
    });

    it("moves several conversations by their events at once, as one by one would", async () => {
      const conversation = (id: string, title: string | null) => ({
        id,
        sandboxId: "sb_1",
        ownerId: "usr_a",
        agent: { kind: "shell" },
        metadata: {},
        archived: false,
        title,
        executionStatus: "idle",
        lastEventAt: 60,
        createdAt: 1,
        updatedAt: 50,
      });
      await repos.conversations.insert(conversation("c1", null));
      await repos.conversations.insert(conversation("c2", "kept"));
      await repos.conversations.recordEventActivities([
        { id: "c1", event: { eventMs: 40, executionStatus: "running", title: "first words" } },
        { id: "c2", event: { eventMs: 90, executionStatus: null, title: "other words" } },
      ]);
      await repos.conversations.recordEventActivities([]);
      expect(await repos.conversations.get("c1")).toMatchObject({
        lastEventAt: 60,
        updatedAt: 50,
        executionStatus: "running",
        title: "first words",
      });
      expect(await repos.conversations.get("c2")).toMatchObject({
        lastEventAt: 90,
        updatedAt: 90,
        executionStatus: "idle",
        title: "kept",
      });
    });
  });
});
