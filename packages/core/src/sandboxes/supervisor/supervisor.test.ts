import path from "node:path";
import { findSandboxProcesses } from "@sandbox-server/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCore, type TestCore } from "../../../test/harness";
import { waitForStatus } from "../../../test/wait";

// Neither the timer's passes nor its sweeps come by themselves here: the test runs each pass.
const NEVER_MS = 3_600_000;

let t: TestCore;

beforeAll(async () => {
  t = await createTestCore({
    config: { supervisorIntervalMs: NEVER_MS, supervisorSweepMs: NEVER_MS },
  });
});

afterAll(async () => {
  await t?.close();
});

describe("the supervisor", () => {
  it("inspects every sandbox on its first pass, then not again until the next sweep", async () => {
    const { id } = await t.admin.sandboxes.start({});
    await waitForStatus(t.admin, id, "RUNNING");
    const inspected: string[] = [];
    const inspect = t.runtime.inspect.bind(t.runtime);
    t.runtime.inspect = (sandboxId) => {
      inspected.push(sandboxId);
      return inspect(sandboxId);
    };
    try {
      for (let pass = 0; pass < 3; pass++) await t.core.supervisor.tick();
    } finally {
      t.runtime.inspect = inspect;
    }
    expect(inspected).toEqual([id]);
  });

  it("records an agent server that exits between sweeps at once, from the runtime's event", async () => {
    const { id } = await t.admin.sandboxes.start({});
    await waitForStatus(t.admin, id, "RUNNING");
    const processes = await findSandboxProcesses(path.join(t.sandboxesDir, id));
    expect(processes.length).toBeGreaterThan(0);
    for (const { pid } of processes) process.kill(pid, "SIGKILL");
    const errored = await waitForStatus(t.admin, id, "ERROR");
    expect(errored.status_detail).toMatch(/exited|signal/i);
  });
});
