import type { EgressDenial } from "@sandbox-server/egress";
import type { SandboxRuntime } from "@sandbox-server/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCore, type TestCore, type TestUser } from "../../../test/harness";
import { type Receiver, startReceiver } from "../../../test/receiver";
import { pollUntil } from "../../../test/wait";
import type { CoreMetrics } from "../../metrics";
import { EGRESS_EVENT_WINDOW_MS, EgressDenialThrottle, watchEgressDenials } from "./egress-denials";

const denial = (sandboxId: string, destination: string, at: number): EgressDenial => ({
  sandboxId,
  destination,
  rule: "private range (private)",
  at: new Date(at),
});

describe("EgressDenialThrottle", () => {
  it("reports a destination's first denial at once, then one per window with the count held back", () => {
    let now = 1_000_000;
    const throttle = new EgressDenialThrottle(() => now);
    const first = throttle.record(denial("sb_1", "10.0.0.1:80", now));
    expect(first).toMatchObject({ destination: "10.0.0.1:80", denied: 1 });
    expect(first?.first_denied_at).toBe(new Date(now).toISOString());
    // Other destinations and other sandboxes have windows of their own.
    expect(throttle.record(denial("sb_1", "10.0.0.2:80", now))?.denied).toBe(1);
    expect(throttle.record(denial("sb_2", "10.0.0.1:80", now))?.denied).toBe(1);
    const heldFrom = now + 1_000;
    for (let i = 0; i < 5; i++) {
      now = heldFrom + i;
      expect(throttle.record(denial("sb_1", "10.0.0.1:80", now))).toBeNull();
    }
    now = 1_000_000 + EGRESS_EVENT_WINDOW_MS;
    const next = throttle.record(denial("sb_1", "10.0.0.1:80", now));
    expect(next).toMatchObject({ denied: 6, first_denied_at: new Date(heldFrom).toISOString() });
    // The window starts again from that event.
    now += 1;
    expect(throttle.record(denial("sb_1", "10.0.0.1:80", now))).toBeNull();
    // A deleted sandbox's state goes with it.
    throttle.forget("sb_1");
    expect(throttle.record(denial("sb_1", "10.0.0.1:80", now))?.denied).toBe(1);
  });
});

describe("watchEgressDenials", () => {
  let t: TestCore;
  let alice: TestUser;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestCore({ config: { webhookAllowPrivateNetworks: true } });
    alice = await t.createUser("alice");
    await t.addSpec({ id: "exits", command: ["/bin/sh", "-c", "exit 3"] });
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it("counts every denial per sandbox and sends the owner's webhooks sandbox.egress_denied", async () => {
    // No runtime reports denials yet: the listener the core subscribes is called as a runtime's
    // enforcer would call it.
    let listener: ((denial: EgressDenial) => void) | undefined;
    const runtime: SandboxRuntime = t.runtime;
    Object.assign(runtime, { onEgressDenied: (l: typeof listener) => (listener = l) });
    const counted: string[] = [];
    const forgotten: string[] = [];
    const metrics: CoreMetrics = {
      forward: () => undefined,
      webhookAttempt: () => undefined,
      eventStored: () => undefined,
      egressDenied: (id) => counted.push(id),
      sandboxDeleted: (id) => forgotten.push(id),
    };
    const stop = watchEgressDenials({ ...t.deps, metrics });
    try {
      await alice.caller.webhooks.create({
        url: `${receiver.url}/denied`,
        events: ["sandbox.egress_denied"],
      });
      const sandbox = await alice.caller.sandboxes.start({ sandbox_spec_id: "exits" });
      const at = Date.now();
      for (let i = 0; i < 3; i++) listener?.(denial(sandbox.id, "10.1.2.3:5432", at + i));
      listener?.({ ...denial(sandbox.id, "[::1]:22", at), rule: "private range (loopback)" });
      // A denial for a sandbox the store does not know is counted, never sent.
      listener?.(denial("sb_unknown", "10.1.2.3:5432", at));
      expect(counted).toEqual([...Array(4).fill(sandbox.id), "sb_unknown"]);

      const received = await pollUntil(
        async () => receiver.at("/denied"),
        (requests) => requests.length >= 2,
        "two sandbox.egress_denied deliveries",
      );
      const payloads = received
        .map((r) => r.payload)
        .sort((a, b) => String(a.data.destination).localeCompare(String(b.data.destination)));
      expect(payloads.map((p) => [p.kind, p.sandbox_id, p.conversation_id])).toEqual([
        ["sandbox.egress_denied", sandbox.id, null],
        ["sandbox.egress_denied", sandbox.id, null],
      ]);
      expect(payloads.map((p) => p.data)).toEqual([
        {
          sandbox_id: sandbox.id,
          destination: "[::1]:22",
          rule: "private range (loopback)",
          denied: 1,
          first_denied_at: new Date(at).toISOString(),
        },
        {
          sandbox_id: sandbox.id,
          destination: "10.1.2.3:5432",
          rule: "private range (private)",
          denied: 1,
          first_denied_at: new Date(at).toISOString(),
        },
      ]);
      await alice.caller.sandboxes.delete({ id: sandbox.id });
      expect(forgotten).toContain(sandbox.id);
    } finally {
      await stop();
    }
  });
});
