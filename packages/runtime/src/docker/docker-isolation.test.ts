import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demultiplex } from "./container-logs";
import { containerNameFor } from "./labels";
import { networkNameFor } from "./sandbox-network";
import {
  cleanUp,
  createRuntime,
  docker,
  dockerMissing,
  executeBash,
  sandboxImage,
  startOptions,
  testContainerLabels,
  testInstance,
} from "./test/support";

/**
 * A node one-liner that fetches each URL (3 s budget each) and prints one JSON array of
 * "REACHED <status> <body>" or "BLOCKED <why>". No single quotes, so it fits in `node -e '...'`.
 */
function probeScript(urls: string[]): string {
  return [
    `Promise.all(${JSON.stringify(urls)}.map((u) => fetch(u, { signal: AbortSignal.timeout(3000) })`,
    `.then((r) => r.text().then((t) => "REACHED " + r.status + " " + t),`,
    `(e) => "BLOCKED " + ((e.cause && e.cause.code) || e.name))))`,
    // Exit at once: an aborted connect would otherwise hold the process for undici's 10 s.
    `.then((results) => { console.log(JSON.stringify(results)); process.exit(0); })`,
  ].join("");
}

/** Every IPv4 address of this host that is not loopback (bridges' gateways included). */
function hostAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .filter((address) => address.family === "IPv4" && !address.internal)
    .map((address) => address.address);
}

describe.skipIf(dockerMissing)("a docker sandbox's network reach", () => {
  const runtime = createRuntime();
  const a = startOptions();
  const b = startOptions();
  // A service on the host listening on every address, as a careless local service would.
  const hostService: Server = createServer((_request, response) => response.end("host service"));
  let hostPort = 0;
  let aUrl = "";
  let bUrl = "";
  let bAddress = "";
  let gateway = "";

  beforeAll(async () => {
    await new Promise<void>((resolve) => hostService.listen(0, "0.0.0.0", resolve));
    hostPort = (hostService.address() as AddressInfo).port;
    await Promise.all([runtime.start(a), runtime.start(b)]);
    aUrl = (await runtime.waitUntilReady(a.sandboxId, 30_000)).agentServerUrl ?? "";
    bUrl = (await runtime.waitUntilReady(b.sandboxId, 30_000)).agentServerUrl ?? "";
    const bInfo = await docker.getContainer(containerNameFor(b.sandboxId)).inspect();
    const endpoint = bInfo.NetworkSettings.Networks[networkNameFor(testInstance)];
    bAddress = endpoint?.IPAddress ?? "";
    gateway = endpoint?.Gateway ?? "";
  });
  afterAll(async () => {
    hostService.closeAllConnections();
    await new Promise<void>((resolve) => hostService.close(() => resolve()));
    await cleanUp(runtime);
  });

  /** The sandbox network's gateway first, then every other address of the host. */
  function everyHostAddress(): string[] {
    return [gateway, ...hostAddresses().filter((address) => address !== gateway)];
  }

  function hostServiceUrls(addresses: string[]): string[] {
    return addresses.map((address) => `http://${address}:${hostPort}/`);
  }

  /** Runs the probe inside sandbox A, as an agent's command would run there. */
  async function probeFromA(urls: string[]): Promise<string[]> {
    const result = await executeBash(aUrl, a.sessionApiKey, `node -e '${probeScript(urls)}'`);
    expect(result.exit_code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as string[];
  }

  /** The same probe from a container on Docker's default bridge: outside the sandbox network. */
  async function probeFromDefaultBridge(urls: string[]): Promise<string[]> {
    const container = await docker.createContainer({
      Image: sandboxImage,
      Cmd: ["node", "-e", probeScript(urls)],
      Labels: testContainerLabels(),
      HostConfig: { NetworkMode: "bridge" },
    });
    await container.start();
    await container.wait();
    const output = await container.logs({ stdout: true, stderr: true, follow: false });
    await container.remove({ force: true });
    return JSON.parse(demultiplex(output)) as string[];
  }

  it("lets the probe reach what it should reach", async () => {
    expect(bAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    // A reaches its own agent server from inside.
    expect(await probeFromA(["http://127.0.0.1:8000/health"])).toEqual([
      expect.stringMatching(/^REACHED 200 .*ok/),
    ]);
    // The host reaches B through its published loopback port and at its container address.
    for (const url of [`${bUrl}/health`, `http://${bAddress}:8000/health`]) {
      expect((await fetch(url, { signal: AbortSignal.timeout(5000) })).status).toBe(200);
    }
    // The host service answers on the sandbox network's gateway address...
    const direct = await fetch(`http://${gateway}:${hostPort}/`);
    expect(await direct.text()).toBe("host service");
    // ...and a container that is not on the sandbox network reaches it at every host address.
    const addresses = everyHostAddress();
    expect(await probeFromDefaultBridge(hostServiceUrls(addresses))).toEqual(
      addresses.map(() => "REACHED 200 host service"),
    );
  });

  it("keeps sandbox A away from sandbox B's agent server", async () => {
    const results = await probeFromA([
      `http://${bAddress}:8000/health`,
      `http://${containerNameFor(b.sandboxId)}:8000/health`,
    ]);
    expect(results).toEqual([
      expect.stringMatching(/^BLOCKED /),
      expect.stringMatching(/^BLOCKED /),
    ]);
  });

  it("keeps sandbox A away from services on the host, at the gateway and every host address", async () => {
    const addresses = everyHostAddress();
    expect(addresses.length).toBeGreaterThan(1);
    const results = await probeFromA(hostServiceUrls(addresses));
    expect(results).toEqual(addresses.map(() => expect.stringMatching(/^BLOCKED /)));
  });
});
