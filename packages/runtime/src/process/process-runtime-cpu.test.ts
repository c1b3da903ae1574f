import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { detectBwrap } from "./isolation/detect-bwrap";
import { type CgroupParent, detectCgroups } from "./isolation/detect-cgroups";
import { cgroupNameFor, cpuWeightFile } from "./isolation/sandbox-cgroup";
import {
  agentServerHostPid,
  hostPidOf,
  RuntimeFixture,
  runBash,
  startReadySandbox,
} from "./test/support";

/**
 * Every sandbox, limits or not, runs in a cgroup of its own below `sandbox-server`, whose CPU
 * weight all sandboxes share against the control plane. Needs bubblewrap and a writable cpu
 * controller (root): in CI (`CI=true`) these tests fail without them, elsewhere they are skipped
 * with a warning.
 */
const bwrap = detectBwrap();
const cgroups = await detectCgroups();
const cpuParent = cgroups.parents.find((parent) => parent.controllers.includes("cpu"));
const mustRun = (bwrap.usable && cpuParent !== undefined) || process.env.CI === "true";
if (!mustRun) {
  const reasons = [bwrap.usable ? "" : bwrap.reason, cgroups.cpu.usable ? "" : cgroups.cpu.reason];
  console.warn(`[cpu share tests] skipped: ${reasons.filter(Boolean).join("; ")}`);
}

const fixture = new RuntimeFixture();

afterEach(async () => {
  await fixture.cleanUp();
});

function requireCpuParent(): CgroupParent {
  if (!cpuParent) throw new Error(`no cpu cgroup here: ${JSON.stringify(cgroups.cpu)}`);
  return cpuParent;
}

/** The process's cgroup in the cpu hierarchy (v1's cpu line, v2's only one). */
async function cpuCgroupOf(pid: number): Promise<string | undefined> {
  const lines = (await readFile(`/proc/${pid}/cgroup`, "utf8")).split("\n");
  for (const line of lines) {
    const [, controllers, cgroupPath] = line.split(":");
    const named = controllers?.split(",") ?? [];
    if (requireCpuParent().version === 2 ? controllers === "" : named.includes("cpu")) {
      return cgroupPath;
    }
  }
  return undefined;
}

/** Writes `value` into `file` from inside the sandbox: the shell's exit code. */
async function writeInside(url: string, key: string, file: string, value: string) {
  return (await runBash(url, key, `echo ${value} > ${file}`)).exitCode;
}

describe.skipIf(!mustRun)("ProcessRuntime CPU share", { timeout: 60_000 }, () => {
  it("runs a sandbox without limits, and what it starts, in its cpu cgroup; adoption keeps it, delete removes it", async () => {
    const parent = requireCpuParent();
    const rootDir = await fixture.createRootDir();
    const runtime = fixture.createRuntime(rootDir);
    const sandbox = await startReadySandbox(runtime, rootDir);
    const name = cgroupNameFor(sandbox.dir, sandbox.id);
    const expected = `/sandbox-server/${name}`;

    // Its parent weighs what all sandboxes together get (the default: a quarter of the
    // control plane); the sandbox itself keeps the default weight among its siblings.
    const weight = cpuWeightFile(parent.version, 25);
    expect((await readFile(path.join(parent.dir, weight.file), "utf8")).trim()).toBe(weight.value);
    const own = cpuWeightFile(parent.version, 100);
    expect((await readFile(path.join(parent.dir, name, own.file), "utf8")).trim()).toBe(own.value);

    const agentServer = await agentServerHostPid(sandbox.dir);
    expect(await cpuCgroupOf(agentServer)).toMatch(new RegExp(`${expected}$`));
    const started = await runBash(sandbox.url, sandbox.key, "sleep 60 >/dev/null 2>&1 & echo $!");
    const command = await hostPidOf(sandbox.dir, Number(started.stdout.trim()));
    expect(await cpuCgroupOf(command)).toMatch(new RegExp(`${expected}$`));

    // A control plane that starts again adopts the sandbox: its cgroup stays, with it inside.
    await runtime.close();
    const successor = fixture.createRuntime(rootDir);
    expect(await successor.inspect(sandbox.id)).toMatchObject({ state: "running" });
    expect((await stat(path.join(parent.dir, name))).isDirectory()).toBe(true);
    expect(await cpuCgroupOf(agentServer)).toMatch(new RegExp(`${expected}$`));

    await successor.delete(sandbox.id);
    for (const each of cgroups.parents) {
      await expect(stat(path.join(each.dir, name))).rejects.toThrow(/ENOENT/);
    }
  });

  it("keeps a sandbox from changing or leaving its cgroup, which the host can write", async () => {
    const parent = requireCpuParent();
    const rootDir = await fixture.createRootDir();
    const runtime = fixture.createRuntime(rootDir);
    expect(runtime.isolation).toBe("namespaces");
    const sandbox = await startReadySandbox(runtime, rootDir);
    const name = cgroupNameFor(sandbox.dir, sandbox.id);
    const own = cpuWeightFile(parent.version, 100);
    const shared = cpuWeightFile(parent.version, 25);
    const most = cpuWeightFile(parent.version, 10_000).value;
    const probes = [
      // Its own weight and all sandboxes' weight: the host writes what is there already.
      { file: path.join(parent.dir, name, own.file), host: own.value, inside: most },
      { file: path.join(parent.dir, shared.file), host: shared.value, inside: most },
      // v1: out of the sandbox, into the control plane's own cgroup (where the test runs, so
      // the host's write moves its own thread nowhere); v2 would move the test's process.
      ...(parent.version === 1
        ? [{ file: path.join(path.dirname(parent.dir), "tasks"), host: "0", inside: "0" }]
        : []),
    ];
    for (const probe of probes) {
      await writeFile(probe.file, probe.host);
      expect(await writeInside(sandbox.url, sandbox.key, probe.file, probe.inside)).not.toBe(0);
    }
    expect((await readFile(path.join(parent.dir, name, own.file), "utf8")).trim()).toBe(own.value);
    expect((await readFile(path.join(parent.dir, shared.file), "utf8")).trim()).toBe(shared.value);
    expect(await cpuCgroupOf(await agentServerHostPid(sandbox.dir))).toMatch(
      new RegExp(`/sandbox-server/${name}$`),
    );
  });
});
