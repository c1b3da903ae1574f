import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StartSandboxOptions } from "../types";
import { detectBwrap } from "./isolation/detect-bwrap";
import { HOST_ETC_ENTRIES } from "./isolation/system-view";
import type { ProcessRuntime } from "./process-runtime";
import { readProcState } from "./read-proc";
import { resolveSandboxPaths } from "./sandbox-files";
import { findSandboxProcesses } from "./sandbox-processes";
import {
  agentServerHostPid,
  downloadFile,
  hostPidOf,
  RuntimeFixture,
  runBash,
} from "./test/support";

/**
 * Each escape a command inside a sandbox could try, first run where it must work (an unisolated
 * sandbox of the same data directory, or the sandbox's own files), then shown to fail under
 * bubblewrap. bwrap is installed in CI: there these tests fail without it; on a machine without
 * it they are skipped with a warning, as the docker tests are without a daemon.
 */
const bwrap = detectBwrap();
const mustRun = bwrap.usable || process.env.CI === "true";
if (!mustRun) {
  console.warn(`[isolation tests] skipped: ${bwrap.usable ? "" : bwrap.reason}`);
}

const READY_TIMEOUT_MS = 20_000;
const CANARY_NAME = "SANDBOX_ISOLATION_TEST_CANARY";

interface Sandbox {
  id: string;
  key: string;
  url: string;
  dir: string;
}

interface World {
  dataDir: string;
  rootDir: string;
  /** Stand-ins for the control plane's database and admin key file in DATA_DIR. */
  dbFile: string;
  adminKeyFile: string;
  canary: string;
  /** A stand-in control plane: a process with a secret in its environment. */
  controlPlane: ChildProcess;
  isolated: ProcessRuntime;
  a: Sandbox;
  b: Sandbox;
  /** The same data directory, unisolated: where every probe must succeed. */
  open: Sandbox;
}

const fixture = new RuntimeFixture();
let world: World;

async function startSandbox(runtime: ProcessRuntime, rootDir: string): Promise<Sandbox> {
  const options: StartSandboxOptions = {
    sandboxId: `sb_${randomUUID().slice(0, 8)}`,
    ownerId: "user_1",
    specId: "default",
    sessionApiKey: `key-${randomUUID()}`,
    env: { GREETING: "hello" },
  };
  const started = await runtime.start(options);
  await runtime.waitUntilReady(options.sandboxId, READY_TIMEOUT_MS);
  return {
    id: options.sandboxId,
    key: options.sessionApiKey,
    url: started.agentServerUrl as string,
    dir: resolveSandboxPaths(rootDir, options.sandboxId).dir,
  };
}

function bash(sandbox: Sandbox, command: string) {
  return runBash(sandbox.url, sandbox.key, command);
}

async function createWorld(): Promise<World> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "isolation-data-"));
  const rootDir = path.join(dataDir, "sandboxes");
  await mkdir(rootDir);
  const canary = `canary-${randomUUID()}`;
  process.env[CANARY_NAME] = canary;
  const dbFile = path.join(dataDir, "db.sqlite");
  const adminKeyFile = path.join(dataDir, "admin-api-key");
  await writeFile(dbFile, `control-plane-db ${canary}\n`);
  await writeFile(adminKeyFile, `${canary}\n`, { mode: 0o600 });
  const controlPlane = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
    env: { ADMIN_API_KEY: canary },
    stdio: "ignore",
  });
  const isolated = fixture.createRuntime(rootDir, { sandboxing: "bwrap" });
  const unisolated = fixture.createRuntime(rootDir, { sandboxing: "none" });
  const [a, b, open] = await Promise.all([
    startSandbox(isolated, rootDir),
    startSandbox(isolated, rootDir),
    startSandbox(unisolated, rootDir),
  ]);
  await writeFile(path.join(a.dir, "workspace", "a-private.txt"), "A-private\n");
  await writeFile(path.join(b.dir, "workspace", "b-own.txt"), "B-own\n");
  return {
    dataDir,
    rootDir,
    dbFile,
    adminKeyFile,
    canary,
    controlPlane,
    isolated,
    a,
    b,
    open,
  };
}

describe.runIf(mustRun)("ProcessRuntime under bubblewrap", { timeout: 60_000 }, () => {
  beforeAll(async () => {
    world = await createWorld();
  }, 60_000);

  afterAll(async () => {
    world?.controlPlane.kill("SIGKILL");
    await fixture.cleanUp();
    if (world) await rm(world.dataDir, { recursive: true, force: true });
    delete process.env[CANARY_NAME];
  });

  it("reports isolation `namespaces`", () => {
    expect(world.isolated.isolation).toBe("namespaces");
  });

  it("runs as a user of its own, with a minimal /etc/passwd", async () => {
    const hostUid = String(process.getuid?.());
    expect((await bash(world.open, "id -u")).stdout.trim()).toBe(hostUid);
    const hostPasswd = await readFile("/etc/passwd", "utf8");
    expect((await bash(world.open, "cat /etc/passwd")).stdout).toBe(hostPasswd);

    const id = await bash(world.a, "id -u; id -un");
    expect(id.stdout.trim().split("\n")).toEqual(["10001", "agent"]);
    expect(id.stdout).not.toContain(`${hostUid}\n`);
    const passwd = await bash(world.a, "cat /etc/passwd");
    expect(passwd.stdout).toBe(
      "agent:x:10001:10001:agent:/home/agent:/bin/bash\n" +
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
    );
    // The agent server's own file route sees the same view.
    expect((await downloadFile(world.open.url, world.open.key, "/etc/passwd")).text).toBe(
      hostPasswd,
    );
    expect((await downloadFile(world.a.url, world.a.key, "/etc/passwd")).text).toBe(passwd.stdout);
  });

  it("sees its own /etc files and only the host's public ones, the same as the host's", async () => {
    // The positive control: the unisolated sandbox sees the host's whole /etc.
    const hostEtc = (await readdir("/etc")).sort();
    const openEtc = (await bash(world.open, "ls -A /etc")).stdout.trim().split("\n");
    expect(openEtc).toEqual(hostEtc);

    // In a network of its own, its resolver is its own too (resolv.conf names it).
    const ownNetwork = world.isolated.network === "own";
    const own = ["group", "hostname", "hosts", "nsswitch.conf", "passwd"];
    if (ownNetwork) own.push("resolv.conf");
    const hostEntries = HOST_ETC_ENTRIES.filter((entry) => !ownNetwork || entry !== "resolv.conf");
    const publicTop = [...new Set(hostEntries.map((entry) => entry.split("/")[0] ?? ""))];
    const expected = [...own, ...publicTop.filter((name) => hostEtc.includes(name))].sort();
    const seen = (await bash(world.a, "ls -A /etc")).stdout.trim().split("\n");
    expect(seen).toEqual([...new Set(expected)].sort());
    // Files are the host's (copied), directories the host's (bound); nothing private comes along.
    for (const entry of hostEntries) {
      const host = await stat(`/etc/${entry}`).catch(() => null);
      if (host?.isFile()) {
        const digest = createHash("sha256").update(await readFile(`/etc/${entry}`));
        expect((await bash(world.a, `sha256sum < /etc/${entry}`)).stdout).toBe(
          `${digest.digest("hex")}  -\n`,
        );
      } else if (host?.isDirectory()) {
        const listing = (await bash(world.a, `ls -A /etc/${entry}`)).stdout;
        expect(listing).toBe((await bash(world.open, `ls -A /etc/${entry}`)).stdout);
      }
    }
    // A symlink into the system directories stays one (ICU names the time zone from its target;
    // from a copy it scans every zoneinfo file on the first Date). Positive control: the host's.
    for (const entry of HOST_ETC_ENTRIES) {
      const host = await lstat(`/etc/${entry}`).catch(() => null);
      if (!host?.isSymbolicLink() || !(await realpath(`/etc/${entry}`)).startsWith("/usr/"))
        continue;
      const target = await readlink(`/etc/${entry}`);
      expect((await bash(world.open, `readlink /etc/${entry}`)).stdout).toBe(`${target}\n`);
      expect((await bash(world.a, `readlink /etc/${entry}`)).stdout).toBe(`${target}\n`);
    }
    for (const secret of ["/etc/shadow", "/etc/ssl/private", "/etc/sudoers"]) {
      expect((await bash(world.a, `test -e ${secret}`)).exitCode).not.toBe(0);
    }
    expect((await bash(world.a, "hostname; cat /etc/hostname")).stdout).toBe("sandbox\nsandbox\n");
  });

  it("cannot see, read or signal the control plane's processes", async () => {
    const pids = [world.controlPlane.pid as number, process.pid];
    for (const pid of pids) {
      const probe = `tr '\\0' '\\n' < /proc/${pid}/environ >/dev/null && kill -0 ${pid} && echo reached`;
      expect((await bash(world.open, probe)).stdout.trim()).toBe("reached");
    }
    const secret = await bash(world.open, `tr '\\0' '\\n' < /proc/${pids[0]}/environ`);
    expect(secret.stdout).toContain(`ADMIN_API_KEY=${world.canary}`);

    for (const pid of pids) {
      expect((await bash(world.a, `test -e /proc/${pid}`)).exitCode).not.toBe(0);
      const environ = await bash(world.a, `cat /proc/${pid}/environ`);
      expect(environ.exitCode).not.toBe(0);
      expect(environ.stdout).toBe("");
      expect((await bash(world.a, `kill -0 ${pid}`)).exitCode).not.toBe(0);
    }
    // Its pid 1 is bwrap's init, not the host's; every environment it can read is the sandbox's.
    const init = await bash(world.a, "tr '\\0' ' ' < /proc/1/cmdline");
    expect(init.stdout.startsWith(`${bwrap.usable ? bwrap.path : "bwrap"} `)).toBe(true);
    const environs = await bash(world.a, "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'");
    expect(environs.stdout).toContain("GREETING=hello");
    expect(environs.stdout).not.toContain(world.canary);
  });

  it("sees nothing of the data directory but its own workspace", async () => {
    const aFile = path.join(world.a.dir, "workspace", "a-private.txt");
    const bSecrets = path.join(world.b.dir, "secrets.json");
    // Unisolated, every one of these files is there for the reading.
    const openView = await bash(
      world.open,
      `cat ${world.dbFile} ${world.adminKeyFile} ${aFile} ${bSecrets}`,
    );
    expect(openView.exitCode).toBe(0);
    expect(openView.stdout).toContain("A-private");
    expect(openView.stdout).toContain(world.b.key);
    expect((await downloadFile(world.open.url, world.open.key, world.dbFile)).status).toBe(200);

    expect((await bash(world.b, "cat /workspace/b-own.txt")).stdout).toBe("B-own\n");
    expect((await bash(world.b, "ls /workspace")).stdout).toBe("b-own.txt\n");
    for (const file of [world.dbFile, world.adminKeyFile, aFile, bSecrets]) {
      const read = await bash(world.b, `cat ${file}`);
      expect(read.exitCode).not.toBe(0);
      expect(read.stdout).toBe("");
      expect((await downloadFile(world.b.url, world.b.key, file)).status).toBe(404);
    }
    for (const dir of [world.dataDir, world.rootDir, world.b.dir]) {
      expect((await bash(world.b, `ls ${dir}`)).exitCode).not.toBe(0);
    }
    expect((await downloadFile(world.b.url, world.b.key, "/workspace/b-own.txt")).text).toBe(
      "B-own\n",
    );
  });

  it("gets none of the control plane's environment", async () => {
    expect(process.env[CANARY_NAME]).toBe(world.canary);
    const env = await bash(world.b, "env");
    expect(env.stdout).toContain("GREETING=hello");
    expect(env.stdout).toContain("WORKSPACE_DIR=/workspace");
    expect(env.stdout).toContain("HOME=/home/agent");
    expect(env.stdout).not.toContain(CANARY_NAME);
    expect(env.stdout).not.toContain(world.canary);
  });

  it("has a /tmp of its own, and everything but its workspace and home is read-only", async () => {
    const name = `tmp-${randomUUID()}`;
    expect((await bash(world.a, `echo x > /tmp/${name} && cat /tmp/${name}`)).stdout).toBe("x\n");
    expect((await bash(world.b, `test -e /tmp/${name}`)).exitCode).not.toBe(0);
    await expect(stat(path.join("/tmp", name))).rejects.toThrow(/ENOENT/);

    const writes = await bash(world.a, "touch /workspace/w ~/h && echo ok");
    expect(writes.stdout).toBe("ok\n");
    // The bundle's code cache is there (the sandbox starts from it) and as read-only as the bundle.
    expect((await bash(world.a, "test -s /opt/agent-server/agent-server.cache")).exitCode).toBe(0);
    const readOnly = ["/usr/x", "/etc/passwd", "/etc/x", "/x", "/opt/agent-server/agent-server.js"];
    for (const target of [...readOnly, "/opt/agent-server/agent-server.cache"]) {
      expect((await bash(world.a, `touch ${target}`)).exitCode).not.toBe(0);
    }
  });

  it("pauses, resumes, restarts, is adopted and deleted like an unisolated sandbox", async () => {
    const runtime = world.isolated;
    const c = await startSandbox(runtime, world.rootDir);
    const sleeperInside = Number((await bash(c, "sleep 300 >/dev/null 2>&1 & echo $!")).stdout);
    const sleeper = await hostPidOf(c.dir, sleeperInside);

    expect(await runtime.pause(c.id)).toMatchObject({ state: "paused" });
    const paused = await findSandboxProcesses(c.dir);
    // bwrap, bwrap's init, the agent server, the sleeper at least: all stopped.
    expect(paused.length).toBeGreaterThanOrEqual(4);
    expect(paused.map((found) => found.state)).toEqual(paused.map(() => "T"));
    expect(await runtime.resume(c.id)).toMatchObject({ state: "running" });
    expect(await readProcState(sleeper)).toBe("alive");

    // Killed from outside, then restarted: isolated again.
    process.kill(await agentServerHostPid(c.dir), "SIGKILL");
    await expect
      .poll(() => runtime.inspect(c.id), { timeout: 5000 })
      .toMatchObject({ state: "exited", detail: "agent server exited (signal SIGKILL)" });
    await expect.poll(() => findSandboxProcesses(c.dir)).toEqual([]);
    const restarted = await runtime.resume(c.id);
    expect(restarted).toMatchObject({ state: "running" });
    const again = { ...c, url: restarted.agentServerUrl as string };
    expect((await bash(again, "id -u")).stdout).toBe("10001\n");

    // A control plane that starts anew adopts it, and can pause and delete it.
    const next = fixture.createRuntime(world.rootDir, { sandboxing: "bwrap" });
    expect(await next.inspect(c.id)).toMatchObject({ state: "running" });
    expect(await next.pause(c.id)).toMatchObject({ state: "paused" });
    expect(await next.resume(c.id)).toMatchObject({ state: "running" });
    await next.delete(c.id);
    expect(await findSandboxProcesses(c.dir)).toEqual([]);
    await expect(stat(c.dir)).rejects.toThrow(/ENOENT/);
  });
});
