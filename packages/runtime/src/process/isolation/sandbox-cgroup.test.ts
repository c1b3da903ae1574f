import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CgroupParent, CgroupSupport } from "./detect-cgroups";
import { cpuWeightFile, createSandboxCgroup, parentsFor } from "./sandbox-cgroup";

/**
 * The files written into cgroups, on a plain directory standing in for cgroupfs (which creates
 * the interface files itself): cgroup v2 is not mounted with controllers on the development
 * machine, so this is where v2's writes are checked. The real v1 hierarchy is exercised by
 * process-runtime-cpu.test.ts and process-runtime-limits.test.ts.
 */
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function fakeParent(version: 1 | 2, controllers: CgroupParent["controllers"]) {
  const root = await mkdtemp(path.join(tmpdir(), "cgroup-files-"));
  dirs.push(root);
  const dir = path.join(root, "sandbox-server");
  await mkdir(dir);
  if (version === 2) await writeFile(path.join(dir, "cgroup.subtree_control"), "");
  return { dir, version, controllers };
}

const read = (...parts: string[]) => readFile(path.join(...parts), "utf8");

describe("cpuWeightFile", () => {
  it("writes v2's weight as it is and v1's shares in the same ratio to 1024", () => {
    expect(cpuWeightFile(2, 25)).toEqual({ file: "cpu.weight", value: "25" });
    expect(cpuWeightFile(1, 25)).toEqual({ file: "cpu.shares", value: "256" });
    expect(cpuWeightFile(1, 100)).toEqual({ file: "cpu.shares", value: "1024" });
    expect(cpuWeightFile(1, 1)).toEqual({ file: "cpu.shares", value: "10" });
    expect(cpuWeightFile(1, 10_000)).toEqual({ file: "cpu.shares", value: "102400" });
  });
});

describe("parentsFor", () => {
  const support = (parents: CgroupParent[]): CgroupSupport => ({
    parents,
    limits: { usable: true },
    cpu: { usable: true },
  });
  const pids: CgroupParent = { dir: "/p", version: 1, controllers: ["pids"] };
  const memory: CgroupParent = { dir: "/m", version: 1, controllers: ["memory"] };
  const cpu: CgroupParent = { dir: "/c", version: 1, controllers: ["cpu"] };
  const v2: CgroupParent = { dir: "/u", version: 2, controllers: ["pids", "memory", "cpu"] };

  it("puts every sandbox into the cpu parent, and one with limits into the others too", () => {
    expect(parentsFor(support([pids, memory, cpu]), false)).toEqual([cpu]);
    expect(parentsFor(support([pids, memory, cpu]), true)).toEqual([pids, memory, cpu]);
    expect(parentsFor(support([v2]), false)).toEqual([v2]);
  });

  it("makes no cgroup for a sandbox without limits where there is no cpu controller", () => {
    expect(parentsFor(support([pids, memory]), false)).toEqual([]);
    expect(parentsFor(support([pids, memory]), true)).toEqual([pids, memory]);
  });
});

describe("createSandboxCgroup", () => {
  it("v2: enables the controllers, weighs the parent, joins through cgroup.procs", async () => {
    const parent = await fakeParent(2, ["pids", "memory", "cpu"]);
    const joinFiles = await createSandboxCgroup([parent], "sb_1-abc", {}, 25);
    expect(joinFiles).toEqual([path.join(parent.dir, "sb_1-abc", "cgroup.procs")]);
    expect(await read(parent.dir, "cgroup.subtree_control")).toBe("+pids +memory +cpu");
    expect(await read(parent.dir, "cpu.weight")).toBe("25");
    // No limits: nothing but the directory (the kernel's defaults stand, no cpu.weight either).
    expect(await readdir(path.join(parent.dir, "sb_1-abc"))).toEqual([]);

    await createSandboxCgroup([parent], "sb_2-abc", { pids: 64, memoryMb: 1 }, 25);
    expect(await read(parent.dir, "sb_2-abc", "pids.max")).toBe("64");
    expect(await read(parent.dir, "sb_2-abc", "memory.max")).toBe(String(1024 * 1024));
    expect(await read(parent.dir, "sb_2-abc", "memory.swap.max")).toBe("0");
  });

  it("v1: weighs the cpu parent in shares and joins through tasks", async () => {
    const cpu = await fakeParent(1, ["cpu"]);
    const joinFiles = await createSandboxCgroup([cpu], "sb_1-abc", {}, 50);
    expect(joinFiles).toEqual([path.join(cpu.dir, "sb_1-abc", "tasks")]);
    expect(await read(cpu.dir, "cpu.shares")).toBe("512");
    expect(await readdir(path.join(cpu.dir, "sb_1-abc"))).toEqual([]);
  });
});
