import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig } from "../../create-core";
import type { CoreConfig, CoreDeps } from "../../deps";
import { checkedConnector, DestinationRefused } from "./checked-connector";

let server: Server;
let port: number;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(String(req.headers.host));
    res.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A resolver whose answers the test changes; each question is counted. */
function dns(answers: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve = async (host: string) => {
    asked.push(host);
    return answers[host] ?? [];
  };
  return { asked, resolve };
}

function agentWith(config: Partial<CoreConfig>, agentServerUrls: string[] = []) {
  const deps = {
    config: { ...defaultConfig, ...config },
    repos: {
      sandboxes: {
        listAll: async () => agentServerUrls.map((agentServerUrl) => ({ agentServerUrl })),
      },
    },
  } as unknown as CoreDeps;
  return new Agent({ connect: checkedConnector(deps, 2_000) });
}

async function post(agent: Agent, url: string) {
  try {
    const res = await request(url, { method: "POST", dispatcher: agent, body: "{}" });
    await res.body.dump();
    return res.statusCode;
  } catch (error) {
    return error;
  } finally {
    await agent.close();
  }
}

describe("checkedConnector", () => {
  it("connects to the address it checked, under the URL's host name", async () => {
    const { asked, resolve } = dns({ "hook.test": ["127.0.0.1"] });
    const agent = agentWith({ webhookAllowPrivateNetworks: true, webhookResolveHost: resolve });
    expect(await post(agent, `http://hook.test:${port}/x`)).toBe(200);
    expect(hits.at(-1)).toBe(`hook.test:${port}`);
    expect(asked).toEqual(["hook.test"]);
  });

  it("refuses a name whose address is not allowed, without connecting", async () => {
    const before = hits.length;
    const { resolve } = dns({ "hook.test": ["127.0.0.1"], "mixed.test": ["8.8.8.8", "10.0.0.1"] });
    for (const url of [`http://hook.test:${port}/x`, `http://mixed.test:${port}/x`]) {
      const error = await post(agentWith({ webhookResolveHost: resolve }), url);
      expect(error).toBeInstanceOf(DestinationRefused);
    }
    const literal = await post(agentWith({}), `http://127.0.0.1:${port}/x`);
    expect(literal).toBeInstanceOf(DestinationRefused);
    expect(hits.length).toBe(before);
  });

  it("refuses the control plane and agent servers even where private networks are allowed", async () => {
    const before = hits.length;
    const open = { webhookAllowPrivateNetworks: true };
    const controlPlane = agentWith({
      ...open,
      webhookDeniedTargets: [{ host: "127.0.0.1", port }],
    });
    expect(await post(controlPlane, `http://localhost:${port}/x`)).toMatchObject({
      refusal: "control-plane",
    });
    const agentServer = agentWith(open, [`http://127.0.0.1:${port}`]);
    expect(await post(agentServer, `http://[::ffff:127.0.0.1]:${port}/x`)).toMatchObject({
      refusal: "agent-server",
    });
    expect(hits.length).toBe(before);
  });
});
