import { afterAll, describe, expect, it } from "vitest";
import { containerNameFor } from "./labels";
import {
  cleanUp,
  createRuntime,
  docker,
  dockerMissing,
  executeBash,
  startOptions,
} from "./test/support";

describe.skipIf(dockerMissing)("DockerRuntime lifecycle", () => {
  const runtime = createRuntime();
  afterAll(() => cleanUp(runtime));

  it("starts a sandbox that answers on a loopback-only published port", async () => {
    const options = startOptions({ labels: { team: "blue" } });
    await runtime.start(options);
    const ready = await runtime.waitUntilReady(options.sandboxId, 30_000);

    expect(ready.state).toBe("running");
    expect(ready.agentServerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.labels).toMatchObject({ team: "blue" });
    const info = await docker.getContainer(containerNameFor(options.sandboxId)).inspect();
    const bindings = info.NetworkSettings.Ports["8000/tcp"];
    expect(bindings?.length).toBeGreaterThan(0);
    for (const binding of bindings ?? []) expect(binding.HostIp).toBe("127.0.0.1");
  });

  it("runs commands inside the container, as the unprivileged agent user", async () => {
    const options = startOptions();
    await runtime.start(options);
    const ready = await runtime.waitUntilReady(options.sandboxId, 30_000);
    const info = await docker.getContainer(containerNameFor(options.sandboxId)).inspect();

    const result = await executeBash(
      ready.agentServerUrl!,
      options.sessionApiKey,
      "uname -a; id; cat /etc/os-release; hostname; pwd",
    );

    expect(result.exit_code).toBe(0);
    expect(result.stdout).toContain("Linux");
    expect(result.stdout).toMatch(/uid=10001\(agent\)/);
    expect(result.stdout).toContain("VERSION_CODENAME=bookworm");
    // The container's hostname is its id prefix: proof the command did not run on the host.
    expect(result.stdout).toContain(info.Config.Hostname);
    expect(result.stdout).toContain("/workspace");
  });

  it("applies resource limits and drops privileges", async () => {
    const options = startOptions({ resources: { memoryMb: 256, cpu: 0.5, pids: 128 } });
    await runtime.start(options);
    const { HostConfig: host, Mounts: mounts } = await docker
      .getContainer(containerNameFor(options.sandboxId))
      .inspect();

    expect(host.Memory).toBe(256 * 1024 * 1024);
    expect(host.NanoCpus).toBe(500_000_000);
    expect(host.PidsLimit).toBe(128);
    expect(host.Privileged).toBe(false);
    expect(host.Init).toBe(true);
    expect(host.CapDrop).toEqual(["ALL"]);
    expect(host.SecurityOpt).toContain("no-new-privileges");
    expect(host.Binds ?? []).toEqual([]);
    expect(mounts.filter((mount) => mount.Type === "bind")).toEqual([]);
  });

  it("pauses and resumes idempotently", async () => {
    const options = startOptions();
    await runtime.start(options);
    await runtime.waitUntilReady(options.sandboxId, 30_000);

    expect((await runtime.pause(options.sandboxId)).state).toBe("paused");
    expect((await runtime.pause(options.sandboxId)).state).toBe("paused");
    const info = await docker.getContainer(containerNameFor(options.sandboxId)).inspect();
    expect(info.State.Paused).toBe(true);

    // resume resolves only once the agent server answers again.
    expect((await runtime.resume(options.sandboxId)).state).toBe("running");
    expect((await runtime.resume(options.sandboxId)).state).toBe("running");
  });

  it("lists managed sandboxes and deletes idempotently", async () => {
    const options = startOptions({ labels: { purpose: "listing" } });
    await runtime.start(options);

    const listed = await runtime.list();
    const mine = listed.find((sandbox) => sandbox.sandboxId === options.sandboxId);
    expect(mine?.labels).toMatchObject({ purpose: "listing" });

    await runtime.delete(options.sandboxId);
    await runtime.delete(options.sandboxId);
    expect((await runtime.inspect(options.sandboxId)).state).toBe("missing");
    const after = await runtime.list();
    expect(after.map((sandbox) => sandbox.sandboxId)).not.toContain(options.sandboxId);
  });

  it("deletes a paused sandbox", async () => {
    const options = startOptions();
    await runtime.start(options);
    await runtime.waitUntilReady(options.sandboxId, 30_000);
    await runtime.pause(options.sandboxId);

    await runtime.delete(options.sandboxId);
    expect((await runtime.inspect(options.sandboxId)).state).toBe("missing");
  });

  it("refuses a second sandbox with the same id and a missing image, with clear messages", async () => {
    const options = startOptions();
    await runtime.start(options);
    await expect(runtime.start(options)).rejects.toThrow(/already has a container/);

    const other = startOptions({ image: "sandbox-server/no-such-image:never" });
    await expect(runtime.start(other)).rejects.toThrow(/not available locally.*npm run image/);
  });
});
