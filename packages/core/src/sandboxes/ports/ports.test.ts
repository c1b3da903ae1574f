import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInSandbox } from "../../../test/agent";
import { expectAppError } from "../../../test/expect-error";
import { createTestCore, type TestCore, type TestUser } from "../../../test/harness";
import { waitForStatus } from "../../../test/wait";
import { openPortForHost } from "./open-port";
import { PortRoutes } from "./port-routes";

/*
 * The port URL verbs on a real core: signing through `sandboxes.getPort`, and what the proxy asks
 * of the core for a host (`openPortForHost`) — each refusal after the same host opened a tunnel.
 */
const APP_PORT = 8124;
let clock = Date.now();
let t: TestCore;
let alice: TestUser;
const routes = new PortRoutes(() => clock);

beforeAll(async () => {
  t = await createTestCore({ now: () => clock });
  alice = await t.createUser("alice");
});
afterAll(async () => {
  await t?.close();
});

/** A RUNNING sandbox of alice's whose port answers `hi` to each connection. */
async function startWithApp(input: { auto_resume?: boolean } = {}) {
  const created = await alice.caller.sandboxes.start(input);
  const sandbox = await waitForStatus(alice.caller, created.id, "RUNNING");
  const app = `require('net').createServer((s) => s.end('hi')).listen(${APP_PORT}, '127.0.0.1')`;
  await runInSandbox(
    sandbox.agent_server_url ?? "",
    sandbox.session_api_key ?? "",
    `setsid node -e "${app}" </dev/null >/dev/null 2>&1 &
for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/${APP_PORT}) 2>/dev/null && break; sleep 0.1; done`,
  );
  return sandbox;
}

/** What the sandbox's port says through a tunnel opened for `url`'s host. */
async function readThrough(url: string): Promise<string> {
  const opened = await openPortForHost(t.deps, new URL(url).host, routes);
  if (!opened) throw new Error("not a port URL's host");
  return new Promise((resolve) => {
    let text = "";
    const tunnel: Socket = opened.socket;
    tunnel.on("data", (chunk: Buffer) => {
      text += chunk;
    });
    tunnel.on("close", () => resolve(text));
  });
}

describe("port URLs in the core", () => {
  it("are signed for the owner only, never for the agent server's port", async () => {
    const sandbox = await startWithApp();
    const signed = await alice.caller.sandboxes.getPort({ id: sandbox.id, port: APP_PORT });
    expect(signed.port).toBe(APP_PORT);
    const bob = await t.createUser("bob");
    await expectAppError(
      bob.caller.sandboxes.getPort({ id: sandbox.id, port: APP_PORT }),
      "SANDBOX_NOT_FOUND",
    );
    const own = t.runtime.agentServerPort ?? Number(new URL(sandbox.agent_server_url ?? "").port);
    await expectAppError(
      alice.caller.sandboxes.getPort({ id: sandbox.id, port: own }),
      "PORT_NOT_ALLOWED",
    );
    expect(await openPortForHost(t.deps, "127.0.0.1:3000", routes)).toBeNull();
  });

  it("open the port until the URL expires, and count as activity", async () => {
    const sandbox = await startWithApp();
    const { url } = await alice.caller.sandboxes.getPort({
      id: sandbox.id,
      port: APP_PORT,
      expires_in_s: 60,
    });
    t.deps.activity.delete(sandbox.id);
    expect(await readThrough(url)).toBe("hi");
    expect(t.deps.activity.get(sandbox.id)).toBe(clock);
    clock += 61_000;
    await expect(readThrough(url)).rejects.toMatchObject({ code: "PORT_URL_EXPIRED" });
  });

  it("refuse a PAUSED sandbox unless it was created with auto_resume, which resumes it", async () => {
    const plain = await startWithApp();
    const woken = await startWithApp({ auto_resume: true });
    const urlOf = async (id: string) =>
      (await alice.caller.sandboxes.getPort({ id, port: APP_PORT })).url;
    const [plainUrl, wokenUrl] = [await urlOf(plain.id), await urlOf(woken.id)];
    expect(await readThrough(plainUrl)).toBe("hi");
    expect(await readThrough(wokenUrl)).toBe("hi");
    await alice.caller.sandboxes.pause({ id: plain.id });
    await alice.caller.sandboxes.pause({ id: woken.id });
    await expect(readThrough(plainUrl)).rejects.toMatchObject({ code: "SANDBOX_NOT_RUNNING" });
    expect(await readThrough(wokenUrl)).toBe("hi");
    expect((await alice.caller.sandboxes.get({ id: woken.id })).status).toBe("RUNNING");
    await alice.caller.sandboxes.delete({ id: woken.id });
    await expect(readThrough(wokenUrl)).rejects.toMatchObject({ code: "SANDBOX_NOT_FOUND" });
  });
});
