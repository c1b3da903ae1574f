import { spawnSync } from "node:child_process";
import type Dockerode from "dockerode";
import { afterAll, describe, expect, it } from "vitest";
import { isNotFound } from "./docker-errors";
import type { DockerRuntime } from "./docker-runtime";
import { firewallRulesFor } from "./host-firewall";
import { containerNameFor, MANAGED_LABEL } from "./labels";
import { BRIDGE_NAME_OPTION, bridgeNameFor, ICC_OPTION, networkNameFor } from "./sandbox-network";
import {
  cleanUp,
  createRuntime,
  docker,
  dockerMissing,
  removeTestContainers,
  startOptions,
  testInstance,
} from "./test/support";

function inspectNetwork(name: string): Promise<Dockerode.NetworkInspectInfo | null> {
  return docker
    .getNetwork(name)
    .inspect()
    .then(
      (info) => info as Dockerode.NetworkInspectInfo,
      (error: unknown) => {
        if (isNotFound(error)) return null;
        throw error;
      },
    );
}

/** Which of the bridge's firewall rules are in place (`iptables -C` answers 0 for a rule). */
function rulesInPlace(bridge: string): string[] {
  return firewallRulesFor(bridge)
    .filter(
      (rule) => spawnSync("iptables", ["-w", "5", "-C", rule.chain, ...rule.spec]).status === 0,
    )
    .map((rule) => rule.chain);
}

describe.skipIf(dockerMissing)("the sandbox network", () => {
  const runtimes: DockerRuntime[] = [];
  const handMade: string[] = [];
  const runtimeFor = (suffix: string, options: Parameters<typeof createRuntime>[0] = {}) => {
    const runtime = createRuntime({ instance: `${testInstance}-${suffix}`, ...options });
    runtimes.push(runtime);
    return runtime;
  };
  afterAll(async () => {
    await removeTestContainers();
    for (const runtime of runtimes) await runtime.close();
    for (const name of handMade)
      await docker
        .getNetwork(name)
        .remove()
        .catch(() => undefined);
  });

  it("is created on first use: a bridge with inter-container traffic off, owned by the instance", async () => {
    const runtime = runtimeFor("create");
    const name = networkNameFor(`${testInstance}-create`);
    expect(await inspectNetwork(name)).toBeNull();

    await runtime.prepare();
    const info = await inspectNetwork(name);
    expect(info).toMatchObject({
      Name: name,
      Driver: "bridge",
      Internal: false,
      Labels: { [MANAGED_LABEL]: `${testInstance}-create` },
      Options: { [ICC_OPTION]: "false", [BRIDGE_NAME_OPTION]: bridgeNameFor(name) },
    });

    // Idempotent, also for a second runtime of the same instance (a restarted control plane).
    await runtime.prepare();
    await runtimeFor("create").prepare();
    const named = await docker.listNetworks({ filters: { name: [name] } });
    expect(named.filter((network) => network.Name === name).map((network) => network.Id)).toEqual([
      info?.Id,
    ]);
  });

  it("is the only network of a sandbox, whose port stays on 127.0.0.1", async () => {
    const runtime = runtimeFor("join");
    const options = startOptions();
    await runtime.start(options);
    const ready = await runtime.waitUntilReady(options.sandboxId, 30_000);
    expect(ready.state).toBe("running");

    const info = await docker.getContainer(containerNameFor(options.sandboxId)).inspect();
    const name = networkNameFor(`${testInstance}-join`);
    expect(info.HostConfig.NetworkMode).toBe(name);
    expect(Object.keys(info.NetworkSettings.Networks)).toEqual([name]);
    for (const binding of info.NetworkSettings.Ports["8000/tcp"] ?? []) {
      expect(binding.HostIp).toBe("127.0.0.1");
    }
  });

  it("gets the host firewall rules for its bridge, which go with the network", async () => {
    const runtime = runtimeFor("firewall", { hostFirewall: "iptables" });
    const bridge = bridgeNameFor(networkNameFor(`${testInstance}-firewall`));
    await runtime.prepare();
    expect(rulesInPlace(bridge)).toEqual(["INPUT", "DOCKER-USER"]);
    // Preparing again (or a restarted control plane) adds no second copy.
    await runtime.prepare();
    const listed = spawnSync("iptables", ["-w", "5", "-S", "INPUT"]).stdout.toString();
    const ofBridge = listed.split("\n").filter((line) => line.includes(` ${bridge} `));
    // The refusal, and (with egress enforced here) the sandboxes' DNS to the resolver and their
    // proxy clients to the egress proxy above it.
    expect(ofBridge.filter((line) => line.includes("REJECT"))).toHaveLength(1);
    expect(ofBridge.length).toBe(runtime.network === "own" ? 3 : 1);
    if (runtime.network === "own") {
      expect(ofBridge.slice(0, 2).sort()).toEqual([
        expect.stringMatching(/-p tcp .*--dport 3128 .*-j ACCEPT/),
        expect.stringMatching(/-p udp .*--dport 53 .*-j ACCEPT/),
      ]);
    }

    await runtime.close();
    expect(await inspectNetwork(networkNameFor(`${testInstance}-firewall`))).toBeNull();
    expect(rulesInPlace(bridge)).toEqual([]);
  });

  it("stays while a stopped sandbox needs it, and goes once no sandbox is left", async () => {
    const name = networkNameFor(`${testInstance}-keep`);
    const first = runtimeFor("keep");
    const options = startOptions();
    await first.start(options);
    await first.waitUntilReady(options.sandboxId, 30_000);
    await docker.getContainer(containerNameFor(options.sandboxId)).stop({ t: 1 });
    await first.close();
    expect(await inspectNetwork(name)).not.toBeNull();

    // A restarted control plane brings the stopped sandbox back on the same network.
    const second = runtimeFor("keep");
    expect((await second.resume(options.sandboxId)).state).toBe("running");
    await second.delete(options.sandboxId);
    await second.close();
    expect(await inspectNetwork(name)).toBeNull();
  });

  it("is created again when it was removed from under a running control plane", async () => {
    const warnings: string[] = [];
    const logger = {
      info() {},
      debug() {},
      error() {},
      warn: (_: object, msg = "") => warnings.push(msg),
    };
    const runtime = runtimeFor("gone", { logger });
    const name = networkNameFor(`${testInstance}-gone`);
    await runtime.prepare();
    await docker.getNetwork(name).remove();

    const options = startOptions();
    await runtime.start(options);
    expect((await runtime.waitUntilReady(options.sandboxId, 30_000)).state).toBe("running");
    expect(await inspectNetwork(name)).not.toBeNull();
    // It was the runtime's recovery, not a check it made anyway before every start.
    expect(warnings).toContain("sandbox network was gone");
  });

  it("refuses a network of its name that is not its own or lets containers talk", async () => {
    const foreign = `${networkNameFor(testInstance)}-foreign`;
    const chatty = `${networkNameFor(testInstance)}-chatty`;
    handMade.push(foreign, chatty);
    await docker.createNetwork({ Name: foreign, CheckDuplicate: true });
    await docker.createNetwork({
      Name: chatty,
      CheckDuplicate: true,
      Labels: { [MANAGED_LABEL]: `${testInstance}-chatty` },
    });

    await expect(runtimeFor("foreign", { network: foreign }).prepare()).rejects.toThrow(
      /exists but is not this control plane's/,
    );
    const options = startOptions();
    await expect(runtimeFor("chatty", { network: chatty }).start(options)).rejects.toThrow(
      /lets containers reach each other/,
    );
    await expect(
      docker.getContainer(containerNameFor(options.sandboxId)).inspect(),
    ).rejects.toThrow(/no such container/i);
  });
});

describe.skipIf(dockerMissing)("DOCKER_RUNTIME", () => {
  const runtimes: DockerRuntime[] = [];
  afterAll(async () => {
    for (const runtime of runtimes) await cleanUp(runtime);
  });

  it("is passed to the container as its OCI runtime", async () => {
    const runtime = createRuntime({ instance: `${testInstance}-runc`, ociRuntime: "runc" });
    runtimes.push(runtime);
    const options = startOptions();
    await runtime.start(options);

    expect((await runtime.waitUntilReady(options.sandboxId, 30_000)).state).toBe("running");
    const info = await docker.getContainer(containerNameFor(options.sandboxId)).inspect();
    expect(info.HostConfig.Runtime).toBe("runc");
  });

  it("must be known to the daemon: an unknown one is refused before any container exists", async () => {
    const runtime = createRuntime({
      instance: `${testInstance}-nope`,
      ociRuntime: "no-such-oci-runtime",
    });
    runtimes.push(runtime);
    const options = startOptions();

    await expect(runtime.start(options)).rejects.toThrow(
      /"no-such-oci-runtime" \(DOCKER_RUNTIME\) is not configured on the Docker daemon; it knows: .*runc/,
    );
    await expect(
      docker.getContainer(containerNameFor(options.sandboxId)).inspect(),
    ).rejects.toThrow(/no such container/i);
  });
});
