import { randomUUID } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { detectCgroups } from "./isolation/detect-cgroups";
import { cgroupNameFor } from "./isolation/sandbox-cgroup";
import { resolveSandboxPaths } from "./sandbox-files";
import { agentServerHostPid, RuntimeFixture, runBash } from "./test/support";

const fixture = new RuntimeFixture();

afterEach(async () => {
  await fixture.cleanUp();
});

const PIDS = 48;
const MEMORY_MB = 200;

/**
 * Spawns `count` sleeping children from node, which (unlike bash) does not retry a failed fork,
 * says whether all started, and ends them again.
 */
function spawnChildren(count: number): string {
  const script = [
    'const { spawn } = require("node:child_process");',
    "const children = [];",
    'const end = (text) => { console.log(text); for (const c of children) c.kill("SIGKILL"); process.exit(0); };',
    `for (let i = 0; i < ${count}; i++) {`,
    '  const child = spawn("sleep", ["60"], { stdio: "ignore" });',
    "  children.push(child);",
    '  child.on("error", (error) => end("refused " + error.code));',
    "}",
    'setTimeout(() => end("all started"), 1000);',
  ].join("\n");
  return `node -e '${script}'`;
}

/** Holds `mb` MB of memory that is really touched (zero-filled), then says so. */
function allocate(mb: number): string {
  return `node -e 'const held = []; for (let i = 0; i < ${mb}; i++) held.push(Buffer.alloc(1 << 20, 1)); console.log("allocated", held.length)'`;
}

describe("ProcessRuntime limits", { timeout: 60_000 }, () => {
  it("starts a registered sandbox in the cgroup register made, with its limits", async () => {
    const rootDir = await fixture.createRootDir();
    const runtime = fixture.createRuntime(rootDir);
    const sandboxId = `sb_${randomUUID().slice(0, 8)}`;
    const options = {
      sandboxId,
      ownerId: "user_1",
      specId: "default",
      sessionApiKey: `key-${randomUUID()}`,
      env: {},
      resources: { pids: PIDS, memoryMb: MEMORY_MB },
    };
    const cgroups = await detectCgroups();
    const dir = resolveSandboxPaths(rootDir, sandboxId).dir;
    const name = cgroupNameFor(dir, sandboxId);
    const pidsDir = cgroups.limits.usable
      ? (cgroups.parents.find((p) => p.controllers.includes("pids"))?.dir ?? "")
      : "";

    await runtime.register(options);
    if (cgroups.limits.usable) {
      // Made (with its limits) by register, before anything runs.
      expect((await readFile(path.join(pidsDir, name, "pids.max"), "utf8")).trim()).toBe(
        String(PIDS),
      );
    }
    const started = await runtime.start(options);
    await runtime.waitUntilReady(sandboxId, 20_000);
    if (!cgroups.limits.usable) {
      expect(
        (await runBash(started.agentServerUrl as string, options.sessionApiKey, "echo ok")).stdout,
      ).toBe("ok\n");
      return;
    }
    // The agent server (and so everything it starts) is in it, in every hierarchy.
    const agentServer = await agentServerHostPid(dir);
    const own = (await readFile(`/proc/${agentServer}/cgroup`, "utf8")).split("\n");
    expect(own.filter((line) => line.endsWith(`/${name}`))).toHaveLength(cgroups.parents.length);
    expect(
      (await runBash(started.agentServerUrl as string, options.sessionApiKey, spawnChildren(100)))
        .stdout,
    ).toBe("refused EAGAIN\n");

    await runtime.delete(sandboxId);
    for (const parent of cgroups.parents) {
      await expect(stat(path.join(parent.dir, name))).rejects.toThrow(/ENOENT/);
    }
  });

  it("removes the cgroup of a sandbox registered and deleted without a launch", async () => {
    const cgroups = await detectCgroups();
    const rootDir = await fixture.createRootDir();
    const runtime = fixture.createRuntime(rootDir);
    const sandboxId = `sb_${randomUUID().slice(0, 8)}`;
    await runtime.register({
      sandboxId,
      ownerId: "user_1",
      specId: "default",
      sessionApiKey: `key-${randomUUID()}`,
      env: {},
      resources: { pids: PIDS },
    });
    const name = cgroupNameFor(resolveSandboxPaths(rootDir, sandboxId).dir, sandboxId);
    const pidsParent = cgroups.limits.usable
      ? cgroups.parents.find((p) => p.controllers.includes("pids"))
      : undefined;
    if (pidsParent) expect((await stat(path.join(pidsParent.dir, name))).isDirectory()).toBe(true);
    await runtime.delete(sandboxId);
    if (pidsParent) await expect(stat(path.join(pidsParent.dir, name))).rejects.toThrow(/ENOENT/);
  });

  it("enforces pids and memory in a cgroup where cgroups are writable, and says why not elsewhere", async () => {
    const rootDir = await fixture.createRootDir();
    const runtime = fixture.createRuntime(rootDir);
    const sandboxId = `sb_${randomUUID().slice(0, 8)}`;
    const key = `key-${randomUUID()}`;
    const started = await runtime.start({
      sandboxId,
      ownerId: "user_1",
      specId: "default",
      sessionApiKey: key,
      env: {},
      resources: { pids: PIDS, memoryMb: MEMORY_MB, cpu: 1 },
    });
    await runtime.waitUntilReady(sandboxId, 20_000);
    const url = started.agentServerUrl as string;
    const dir = resolveSandboxPaths(rootDir, sandboxId).dir;
    const cgroups = await detectCgroups();

    if (!cgroups.limits.usable) {
      // The sandbox runs regardless; the log says the limits are not enforced, and why.
      expect(fixture.logs).toContainEqual({
        level: "warn",
        fields: {
          sandboxId,
          limits: { pids: PIDS, memoryMb: MEMORY_MB },
          reason: cgroups.limits.reason,
        },
        message: "sandbox limits not enforced",
      });
      expect((await runBash(url, key, "echo ok")).stdout).toBe("ok\n");
      return;
    }

    // The whole sandbox (bwrap's processes too) is in the cgroup, with the limits written.
    const name = cgroupNameFor(dir, sandboxId);
    const agentServer = await agentServerHostPid(dir);
    // In every hierarchy: v1's pids, memory and cpu (joined through `tasks`), v2's one.
    const own = (await readFile(`/proc/${agentServer}/cgroup`, "utf8")).split("\n");
    expect(own.filter((line) => line.endsWith(`/${name}`))).toHaveLength(cgroups.parents.length);
    const pidsDir = cgroups.parents.find((p) => p.controllers.includes("pids"))?.dir ?? "";
    expect((await readFile(path.join(pidsDir, name, "pids.max"), "utf8")).trim()).toBe(
      String(PIDS),
    );

    // A few processes are fine; a burst beyond the limit is refused.
    expect((await runBash(url, key, spawnChildren(5))).stdout).toBe("all started\n");
    expect((await runBash(url, key, spawnChildren(100))).stdout).toBe("refused EAGAIN\n");

    // Some memory is fine; more than the limit gets the process killed by the kernel.
    expect((await runBash(url, key, allocate(20))).stdout).toBe("allocated 20\n");
    const hog = await runBash(url, key, allocate(MEMORY_MB * 2));
    expect(hog.stdout).not.toContain("allocated");
    expect(hog.exitCode).toBe(137);
    expect((await runtime.inspect(sandboxId)).state).toBe("running");

    // When the kernel picks the agent server itself, the sandbox's exit says why.
    const agentServerInside = runtime.isolation === "namespaces" ? "2" : String(agentServer);
    // The kernel may kill the agent server before it answers this very request, so the answer
    // is not awaited as a success: the sandbox's state below is what the test asserts.
    await runBash(
      url,
      key,
      `echo 1000 > /proc/${agentServerInside}/oom_score_adj; (sleep 0.3; ${allocate(MEMORY_MB * 2)}) &`,
    ).catch(() => undefined);
    await expect
      .poll(() => runtime.inspect(sandboxId), { timeout: 10_000 })
      .toMatchObject({ state: "exited", detail: expect.stringContaining("out of memory") });

    await runtime.delete(sandboxId);
    for (const parent of cgroups.parents) {
      await expect(stat(path.join(parent.dir, name))).rejects.toThrow(/ENOENT/);
    }
  });
});
