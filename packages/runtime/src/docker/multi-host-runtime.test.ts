import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseDockerHosts } from "./docker-hosts";
import { MultiHostRuntime } from "./multi-host-runtime";
import { testDockerConnection } from "./test/connection";
import {
  docker,
  dockerMissing,
  removeTestContainers,
  sandboxImage,
  startOptions,
  testInstance,
  waitFor,
} from "./test/support";

const daemonSocket = testDockerConnection().socketPath;

/**
 * A Docker host that can be made to stop answering: a unix socket relayed to the test daemon.
 * `down()` closes it and cuts every connection through it (pings, requests, the event stream),
 * as a machine that died would; `up()` opens it again. The daemon and its containers go on.
 */
class RelayedHost {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  constructor(
    readonly socketPath: string,
    private readonly target: string,
  ) {}

  up(): Promise<void> {
    if (this.server !== null) return Promise.resolve();
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    return new Promise((resolve) => server.listen(this.socketPath, resolve));
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

describe.skipIf(dockerMissing || daemonSocket === undefined)("MultiHostRuntime", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "multi-host-runtime-"));
  const flaky = new RelayedHost(path.join(dir, "flaky.sock"), daemonSocket ?? "");
  const hosts = parseDockerHosts(
    `flaky=unix://${flaky.socketPath},gone=unix://${path.join(dir, "gone.sock")}`,
  );
  const createRuntime = () =>
    new MultiHostRuntime({
      hosts,
      image: sandboxImage,
      instance: testInstance,
      hostProbeIntervalMs: 300,
      hostPingTimeoutMs: 1000,
    });
  let runtime: MultiHostRuntime;
  const sandbox = startOptions();

  afterAll(async () => {
    await flaky.up();
    await removeTestContainers();
    await runtime?.close();
    await flaky.down();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts with a host that does not answer and places sandboxes on the one that does", async () => {
    await flaky.up();
    runtime = createRuntime();
    await runtime.prepare();
    expect(runtime.hosts.map((host) => [host.name, host.health.state])).toEqual([
      ["flaky", "up"],
      ["gone", "down"],
    ]);
    await runtime.start(sandbox);
    const ready = await runtime.waitUntilReady(sandbox.sandboxId, 30_000);
    expect(ready.agentServerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(runtime.hostOf(sandbox.sandboxId)).toBe("flaky");
  });

  it("finds a sandbox's host by its labels in a runtime that never placed it", async () => {
    const fresh = createRuntime();
    try {
      expect((await fresh.inspect(sandbox.sandboxId)).state).toBe("running");
      expect(fresh.hostOf(sandbox.sandboxId)).toBe("flaky");
      expect((await fresh.list()).map((seen) => seen.sandboxId)).toContain(sandbox.sandboxId);
    } finally {
      await fresh.close();
    }
  });

  it("reports the sandboxes of a host that stops answering, with the host named, and recovers them when it answers again", async () => {
    const exits: string[] = [];
    const recovered: string[] = [];
    runtime.on("exit", (sandboxId, detail) => exits.push(`${sandboxId}: ${detail}`));
    runtime.on("recovered", (sandboxId) => recovered.push(sandboxId));
    // Positive control: while the host answers, probe passes report nothing.
    for (let pass = 0; pass < 3; pass++) await runtime.probeAll();
    expect(exits).toEqual([]);

    await flaky.down();
    await waitFor(
      async () => exits,
      (seen) => seen.length > 0,
      30_000,
    );
    expect(exits).toEqual([
      expect.stringMatching(
        new RegExp(`^${sandbox.sandboxId}: Docker host flaky \\(unix://.*\\) stopped answering`),
      ),
    ]);
    const seen = await runtime.inspect(sandbox.sandboxId);
    expect(seen.state).toBe("exited");
    expect(seen.detail).toContain("Docker host flaky");
    await expect(runtime.start(startOptions())).rejects.toThrow(
      /cannot be placed: no Docker host answers; Docker host flaky .* stopped answering/,
    );
    await expect(runtime.pause(sandbox.sandboxId)).rejects.toThrow(/Docker host flaky/);

    await flaky.up();
    await waitFor(
      async () => recovered,
      (ids) => ids.length > 0,
      30_000,
    );
    expect(recovered).toEqual([sandbox.sandboxId]);
    expect((await runtime.inspect(sandbox.sandboxId)).state).toBe("running");
  });

  it("removes a sandbox deleted while its host was down once the host answers again", async () => {
    await flaky.down();
    await waitFor(
      async () => runtime.hosts[0]?.health.state,
      (state) => state === "down",
      30_000,
    );
    await runtime.delete(sandbox.sandboxId);
    // Still there: the host could not be asked.
    const name = `sandbox-server-${sandbox.sandboxId}`;
    expect((await docker.getContainer(name).inspect()).State.Running).toBe(true);
    await flaky.up();
    const gone = await waitFor(
      () =>
        docker
          .getContainer(name)
          .inspect()
          .then(
            () => false,
            () => true,
          ),
      (removed) => removed,
      30_000,
    );
    expect(gone).toBe(true);
  });
});
