import { describe, expect, it } from "vitest";
import {
  mergeParents,
  parseMountInfo,
  parseOwnCgroups,
  subtreeControlChange,
} from "./detect-cgroups";

describe("parseMountInfo", () => {
  it("reads mount point, root, type and super options of cgroup mounts", () => {
    const text = [
      "30 24 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate",
      "41 35 0:36 /docker/abc /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
      "garbage",
    ].join("\n");
    expect(parseMountInfo(text)).toEqual([
      { mountPoint: "/sys/fs/cgroup", root: "/", type: "cgroup2", options: ["rw", "nsdelegate"] },
      {
        mountPoint: "/sys/fs/cgroup/pids",
        root: "/docker/abc",
        type: "cgroup",
        options: ["rw", "pids"],
      },
    ]);
  });
});

describe("parseOwnCgroups", () => {
  it("maps each v1 controller to the process's cgroup; the v2 line names none", () => {
    const own = parseOwnCgroups("8:pids:/\n4:memory:/process_api/x\n2:cpu,cpuacct:/a\n0::/\n");
    expect(own.get("pids")).toBe("/");
    expect(own.get("memory")).toBe("/process_api/x");
    expect(own.get("cpuacct")).toBe("/a");
    expect([...own.keys()].sort()).toEqual(["cpu", "cpuacct", "memory", "pids"]);
  });
});

describe("subtreeControlChange", () => {
  it("enables only the controllers a v2 subtree_control lacks, or writes nothing", () => {
    expect(subtreeControlChange("\n", ["pids", "memory"])).toBe("+pids +memory");
    expect(subtreeControlChange("memory pids\n", ["cpu"])).toBe("+cpu");
    expect(
      subtreeControlChange("cpuset cpu io memory pids\n", ["pids", "memory", "cpu"]),
    ).toBeNull();
    // `cpuset` is not `cpu`.
    expect(subtreeControlChange("cpuset\n", ["cpu"])).toBe("+cpu");
  });
});

describe("mergeParents", () => {
  it("gives v2 limits and cpu one parent, and keeps v1 hierarchies apart", () => {
    const v2 = "/sys/fs/cgroup/sandbox-server";
    expect(
      mergeParents([
        { dir: v2, version: 2, controllers: ["pids", "memory"] },
        { dir: v2, version: 2, controllers: ["cpu"] },
      ]),
    ).toEqual([{ dir: v2, version: 2, controllers: ["pids", "memory", "cpu"] }]);
    const v1 = [
      {
        dir: "/sys/fs/cgroup/pids/sandbox-server",
        version: 1 as const,
        controllers: ["pids" as const],
      },
      {
        dir: "/sys/fs/cgroup/cpu/sandbox-server",
        version: 1 as const,
        controllers: ["cpu" as const],
      },
    ];
    expect(mergeParents(v1)).toEqual(v1);
  });
});
