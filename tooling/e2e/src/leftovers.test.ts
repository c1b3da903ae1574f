import { describe, expect, it } from "vitest";
import { agentServerProcesses } from "./lib/agent-server-processes";
import { dockerAnswers, dockerLines } from "./lib/docker";
import { runStatus } from "./lib/run";

/**
 * Run after every other suite (CI's last step): nothing the tests started may still be there.
 * Agent servers (plain or under bubblewrap), sandbox containers, networks and smoke-test volumes,
 * and the network namespaces and links the multi-host test hosts are made of.
 */
const MANAGED = "label=sandbox-server.managed";

it("leaves no agent-server process running", () => {
  expect(agentServerProcesses()).toEqual([]);
});

// In CI the daemon is up; elsewhere a machine without one has nothing of ours on it.
const answers = await dockerAnswers();

describe("on the Docker daemon", () => {
  it.runIf(answers)("leaves no sandbox container", async () => {
    expect(await dockerLines("ps", "-a", "--filter", MANAGED, "--format", "{{.Names}}")).toEqual(
      [],
    );
  });

  it.runIf(answers)("leaves no sandbox network", async () => {
    expect(
      await dockerLines("network", "ls", "--filter", MANAGED, "--format", "{{.Name}}"),
    ).toEqual([]);
  });

  it.runIf(answers)("leaves no smoke-test container or volume", async () => {
    const containers = await dockerLines(
      "ps",
      "-a",
      "--filter",
      "name=sandbox-server-smoke-",
      "--format",
      "{{.Names}}",
    );
    const volumes = await dockerLines(
      "volume",
      "ls",
      "--filter",
      "label=sandbox-server.smoke",
      "--format",
      "{{.Name}}",
    );
    expect([...containers, ...volumes]).toEqual([]);
  });
});

it("leaves no network namespace or link of the multi-host test hosts", async () => {
  const namespaces = (await runStatus("ip", ["netns", "list"]).catch(() => null))?.stdout ?? "";
  const links = (await runStatus("ip", ["-o", "link", "show"]).catch(() => null))?.stdout ?? "";
  const ours = [
    ...namespaces.split("\n").filter((line) => line.startsWith("sandbox-server-")),
    ...links.split("\n").filter((line) => /^\d+: sbxh-/.test(line)),
  ];
  expect(ours).toEqual([]);
});
