import {
  parseEgressEntry,
  parseOperatorEgressPolicy,
  type SandboxEgressPolicy,
} from "@sandbox-server/egress";
import type { SandboxRuntime, StartSandboxOptions } from "@sandbox-server/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAppError, expectValidationError } from "../../test/expect-error";
import { createTestCore, type TestCore, type TestUser } from "../../test/harness";
import { waitForStatus } from "../../test/wait";

// A real process runtime; its calls are recorded on the way through. Where the runtime cannot
// change a policy live (no setEgressPolicy yet), the test gives it a recording one.
let t: TestCore;
let alice: TestUser;
let bob: TestUser;
const started = new Map<string, StartSandboxOptions>();
const applied: [string, SandboxEgressPolicy][] = [];
let failApply: Error | null = null;

const narrowSpec: SandboxEgressPolicy = {
  allowInternet: false,
  allowOut: [parseEgressEntry("pypi.org:443")],
  denyOut: [],
};

beforeAll(async () => {
  t = await createTestCore({
    config: { operatorEgress: parseOperatorEgressPolicy("127.0.0.1:11434,10.20.0.0/16") },
  });
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
  await t.addSpec({ id: "narrow", network: narrowSpec });
  await t.addSpec({ id: "exits", command: ["/bin/sh", "-c", "exit 3"] });
  const runtime: SandboxRuntime = t.runtime;
  const start = runtime.start.bind(runtime);
  const real = runtime.setEgressPolicy?.bind(runtime);
  Object.assign(runtime, {
    start: (options: StartSandboxOptions) => {
      started.set(options.sandboxId, options);
      return start(options);
    },
    setEgressPolicy: async (id: string, policy: SandboxEgressPolicy) => {
      if (failApply) throw failApply;
      await real?.(id, policy);
      applied.push([id, policy]);
    },
  });
});

afterAll(async () => {
  await t?.close();
});

const open = { allow_internet: true, allow_out: [], deny_out: [] };

describe("network on sandboxes.start", () => {
  it("stores the policy normalised, shows it on every read and hands it to the runtime", async () => {
    const sandbox = await alice.caller.sandboxes.start({
      network: {
        allow_internet: false,
        allow_out: ["PyPI.org", "*.GitHub.com:443", "127.0.0.1:11434", "10.20.1.9/16"],
        deny_out: ["[2001:DB8::1/32]:443", "pypi.org."],
      },
    });
    const network = {
      allow_internet: false,
      allow_out: ["pypi.org", "*.github.com:443", "127.0.0.1:11434", "10.20.0.0/16"],
      deny_out: ["[2001:db8::/32]:443", "pypi.org"],
    };
    expect(sandbox.network).toEqual(network);
    expect((await alice.caller.sandboxes.get({ id: sandbox.id })).network).toEqual(network);
    expect((await alice.caller.sandboxes.batchGet({ id: [sandbox.id] }))[0]?.network).toEqual(
      network,
    );
    const found = (await alice.caller.sandboxes.search({})).items.find((s) => s.id === sandbox.id);
    expect(found?.network).toEqual(network);
    await waitForStatus(alice.caller, sandbox.id, "RUNNING");
    expect(started.get(sandbox.id)?.egress).toEqual({
      allowInternet: false,
      allowOut: network.allow_out.map(parseEgressEntry),
      denyOut: network.deny_out.map(parseEgressEntry),
    });
  });

  it("gives a sandbox its spec's default, or the server's, for the fields a create leaves out", async () => {
    const plain = await bob.caller.sandboxes.start({ sandbox_spec_id: "exits" });
    expect(plain.network).toEqual(open);
    const narrow = await bob.caller.sandboxes.start({ sandbox_spec_id: "narrow" });
    expect(narrow.network).toEqual({
      allow_internet: false,
      allow_out: ["pypi.org:443"],
      deny_out: [],
    });
    const mixed = await bob.caller.sandboxes.start({
      sandbox_spec_id: "narrow",
      network: { deny_out: ["*.example.com"] },
    });
    expect(mixed.network).toEqual({
      allow_internet: false,
      allow_out: ["pypi.org:443"],
      deny_out: ["*.example.com"],
    });
    const specs = (await bob.caller.sandboxSpecs.search({})).items;
    expect(specs.find((spec) => spec.id === "narrow")?.network).toEqual(narrow.network);
    expect(specs.find((spec) => spec.id === "default")?.network).toEqual(open);
    for (const id of [plain.id, narrow.id, mixed.id]) await bob.caller.sandboxes.delete({ id });
  });

  it("refuses a malformed entry with 422 naming it, recording nothing", async () => {
    const before = (await bob.caller.sandboxes.search({})).items.length;
    const error = await expectValidationError(
      bob.caller.sandboxes.start({
        network: { allow_out: ["pypi.org", "pypi.org:99999"], deny_out: ["https://x.org"] },
      }),
      ["network", "allow_out", 1],
      ["network", "deny_out", 0],
    );
    const messages = (error.issues ?? []).map((issue) => issue.message).join("\n");
    expect(messages).toContain('"pypi.org:99999": the port must be a number from 1 to 65535');
    expect(messages).toContain('"https://x.org"');
    expect((await bob.caller.sandboxes.search({})).items).toHaveLength(before);
  });

  it("refuses an allow_out entry outside the operator's policy, naming it and why", async () => {
    // The same request within what the operator opened is accepted (the refusal is not vacuous).
    const within = await bob.caller.sandboxes.start({
      sandbox_spec_id: "exits",
      network: { allow_out: ["127.0.0.1:11434", "10.20.0.0/24"] },
    });
    expect(within.network.allow_out).toEqual(["127.0.0.1:11434", "10.20.0.0/24"]);
    await bob.caller.sandboxes.delete({ id: within.id });
    const before = (await bob.caller.sandboxes.search({})).items.length;
    for (const [entry, why] of [
      ["127.0.0.1:22", "non-public addresses the operator has not opened"],
      ["10.0.0.0/8", "non-public addresses the operator has not opened"],
      ["localhost:11434", "non-public addresses the operator has not opened"],
      ["169.254.169.254", "the metadata address 169.254.169.254 is never allowed"],
      ["0.0.0.0/0", "the metadata address"],
      ["metadata.google.internal", "the metadata name metadata.google.internal"],
    ]) {
      const error = await expectValidationError(
        bob.caller.sandboxes.start({
          sandbox_spec_id: "exits",
          network: { allow_out: ["pypi.org", entry ?? ""] },
        }),
        ["network", "allow_out", 1],
      );
      expect(error.message).toContain(`"${entry}" is outside this server's egress policy`);
      expect(error.message).toContain(why);
    }
    // deny_out may name anything: it only narrows.
    const denying = await bob.caller.sandboxes.start({
      sandbox_spec_id: "exits",
      network: { deny_out: ["10.0.0.0/8", "169.254.169.254"] },
    });
    expect(denying.network.deny_out).toEqual(["10.0.0.0/8", "169.254.169.254"]);
    await bob.caller.sandboxes.delete({ id: denying.id });
    expect((await bob.caller.sandboxes.search({})).items).toHaveLength(before);
  });
});

describe("sandboxes.updateNetwork", () => {
  let id: string;

  beforeAll(async () => {
    id = (await alice.caller.sandboxes.start({ labels: { for: "patch" } })).id;
    await waitForStatus(alice.caller, id, "RUNNING");
  });

  it("replaces the fields present on a RUNNING sandbox, through the runtime first", async () => {
    const changed = await alice.caller.sandboxes.updateNetwork({
      id,
      deny_out: ["*.example.com"],
    });
    expect(changed.status).toBe("RUNNING");
    expect(changed.network).toEqual({ ...open, deny_out: ["*.example.com"] });
    expect(applied.at(-1)).toEqual([
      id,
      { allowInternet: true, allowOut: [], denyOut: [parseEgressEntry("*.example.com")] },
    ]);
    const narrowed = await alice.caller.sandboxes.updateNetwork({
      id,
      allow_internet: false,
      allow_out: ["pypi.org:443"],
    });
    expect(narrowed.network).toEqual({
      allow_internet: false,
      allow_out: ["pypi.org:443"],
      deny_out: ["*.example.com"],
    });
    expect((await alice.caller.sandboxes.get({ id })).network).toEqual(narrowed.network);
  });

  it("changes a PAUSED sandbox's policy too, which stays PAUSED", async () => {
    expect((await alice.caller.sandboxes.pause({ id })).status).toBe("PAUSED");
    const changed = await alice.caller.sandboxes.updateNetwork({ id, allow_internet: true });
    expect(changed.status).toBe("PAUSED");
    expect(changed.network.allow_internet).toBe(true);
    expect(applied.at(-1)?.[1].allowInternet).toBe(true);
    expect((await alice.caller.sandboxes.resume({ id })).status).toBe("RUNNING");
  });

  it("refuses malformed and widening entries (422), leaving the policy as it was", async () => {
    const before = (await alice.caller.sandboxes.get({ id })).network;
    const calls = applied.length;
    await expectValidationError(
      alice.caller.sandboxes.updateNetwork({ id, allow_out: ["not a host"] }),
      ["allow_out", 0],
    );
    const error = await expectValidationError(
      alice.caller.sandboxes.updateNetwork({ id, allow_out: ["192.168.1.1:80"] }),
      ["allow_out", 0],
    );
    expect(error.message).toContain('"192.168.1.1:80" is outside this server\'s egress policy');
    expect((await alice.caller.sandboxes.get({ id })).network).toEqual(before);
    expect(applied).toHaveLength(calls);
  });

  it("is 404 for an unknown sandbox and for another user's", async () => {
    await expectAppError(
      alice.caller.sandboxes.updateNetwork({ id: "sb_nope", allow_internet: false }),
      "SANDBOX_NOT_FOUND",
    );
    await expectAppError(
      bob.caller.sandboxes.updateNetwork({ id, allow_internet: false }),
      "SANDBOX_NOT_FOUND",
    );
  });

  it("is 409 with the status for a sandbox that is neither RUNNING nor PAUSED", async () => {
    const failing = await bob.caller.sandboxes.start({ sandbox_spec_id: "exits" });
    await waitForStatus(bob.caller, failing.id, "ERROR");
    const error = await expectAppError(
      bob.caller.sandboxes.updateNetwork({ id: failing.id, allow_internet: false }),
      "INVALID_SANDBOX_STATE",
    );
    expect(error.details).toEqual({ status: "ERROR" });
    expect(error.message).toContain("while it is ERROR");
    await bob.caller.sandboxes.delete({ id: failing.id });
  });

  it("answers 503 when the runtime fails, and keeps the policy the runtime still enforces", async () => {
    const before = (await alice.caller.sandboxes.get({ id })).network;
    failApply = new Error("nft said no");
    try {
      const error = await expectAppError(
        alice.caller.sandboxes.updateNetwork({ id, allow_internet: false }),
        "SANDBOX_UNAVAILABLE",
      );
      expect(error.message).toContain("nft said no");
    } finally {
      failApply = null;
    }
    expect((await alice.caller.sandboxes.get({ id })).network).toEqual(before);
  });

  it("is 501 where the runtime cannot change a policy live", async () => {
    const { setEgressPolicy } = t.runtime as SandboxRuntime;
    Object.assign(t.runtime, { setEgressPolicy: undefined });
    try {
      const error = await expectAppError(
        alice.caller.sandboxes.updateNetwork({ id, allow_internet: false }),
        "EGRESS_POLICY_NOT_LIVE",
      );
      expect(error.message).toContain("process runtime cannot change the egress policy");
    } finally {
      Object.assign(t.runtime, { setEgressPolicy });
    }
  });
});
