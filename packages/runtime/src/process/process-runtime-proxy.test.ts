import { createServer, type Server } from "node:http";
import type { EgressDenial } from "@sandbox-server/egress";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectBwrap } from "./isolation/detect-bwrap";
import { chooseLink, detectNetns, type NetnsLink } from "./network/detect-netns";
import type { ProcessRuntime } from "./process-runtime";
import type { ProcessRuntimeOptions } from "./process-runtime-options";
import { LanHost } from "./test/lan-host";
import { PROXY_CLIENT_SCRIPT, probeFromHost } from "./test/probe";
import { RuntimeFixture, runBash, type StartedSandbox, startReadySandbox } from "./test/support";

/**
 * A process sandbox's HTTP(S) clients that honour the proxy variables meet the control plane's
 * egress proxy: what the policy allows goes through, what it refuses is a 403 naming the
 * destination and the rule; a client that ignores the variables still meets the enforcer. On
 * both data paths (veth, pasta) where they work here. Needs root, bubblewrap, nftables and veth
 * or pasta (in CI they must be there).
 */
const netns = detectNetns();
const mustRun = (detectBwrap().usable && netns.usable) || process.env.CI === "true";

const LAN_NAME = "lan.proxy-test.internal";
const REBIND_NAME = "rebind.proxy-test.internal";

async function sh(sandbox: StartedSandbox, command: string): Promise<string> {
  return (await runBash(sandbox.url, sandbox.key, command)).stdout.trim();
}

/** A CONNECT through the proxy the variables name, by node: `<status> <body>`. */
function nodeConnect(target: string): string {
  return `node -e '${PROXY_CLIENT_SCRIPT}' proxy connect ${target}`;
}

/** Both data paths where they work here. */
const LINKS: NetnsLink[] = ["veth", "pasta"].filter((link) =>
  netns.usable ? chooseLink(netns, link as NetnsLink).usable : mustRun,
) as NetnsLink[];

for (const link of LINKS) proxySuite(link);

function proxySuite(link: NetnsLink): void {
  const fixture = new RuntimeFixture();
  const lan = new LanHost();
  const denials: EgressDenial[] = [];
  let runtime: ProcessRuntime;
  let controlPlane: Server;
  let controlPort: number;
  let rebinds = 0;
  let rootDir: string;

  function options(): Partial<ProcessRuntimeOptions> {
    return {
      sandboxing: "bwrap",
      networking: "own",
      networkLink: link,
      egress: { operator: { allow: [{ kind: "cidr", cidr: `${lan.address}/32`, port: null }] } },
      resolveName: async (name) => {
        if (name === LAN_NAME) return [lan.address];
        // Each lookup answers differently: the LAN host, then the host's loopback.
        if (name === REBIND_NAME) return [rebinds++ % 2 === 0 ? lan.address : "127.0.0.1"];
        return null;
      },
    };
  }
  let open: StartedSandbox;
  let closed: StartedSandbox;

  describe.runIf(mustRun)(`ProcessRuntime: the egress proxy (${link})`, { timeout: 90_000 }, () => {
    beforeAll(async () => {
      await lan.start();
      controlPlane = createServer((_q, r) => r.end("control-plane"));
      await new Promise<void>((resolve) => controlPlane.listen(0, "127.0.0.1", resolve));
      const address = controlPlane.address();
      controlPort = typeof address === "object" && address ? address.port : 0;
      rootDir = await fixture.createRootDir();
      runtime = fixture.createRuntime(rootDir, options());
      runtime.onEgressDenied((denial) => denials.push(denial));
      const lanCidr = { kind: "cidr" as const, cidr: `${lan.address}/32`, port: null };
      [open, closed] = await Promise.all([
        startReadySandbox(runtime, rootDir),
        startReadySandbox(runtime, rootDir, {
          egress: { allowInternet: true, allowOut: [], denyOut: [lanCidr] },
        }),
      ]);
    }, 120_000);

    afterAll(async () => {
      await fixture.cleanUp();
      await lan.stop();
      controlPlane?.close();
    });

    it("names the proxy in the sandbox's proxy variables, its own loopback excepted", async () => {
      expect(await sh(open, "echo $HTTP_PROXY $https_proxy $NO_PROXY")).toBe(
        "http://127.0.0.1:3128 http://127.0.0.1:3128 localhost,127.0.0.1,::1",
      );
    });

    it("carries what the policy allows, by name and by address (curl)", async () => {
      expect(await sh(open, `curl -sS --max-time 10 http://${LAN_NAME}:8080/`)).toBe("lan-host");
      expect(await sh(open, `curl -sS --max-time 10 http://${lan.address}:8080/`)).toBe("lan-host");
      // A tunnel (CONNECT) to an allowed destination opens.
      expect(await sh(open, nodeConnect(`${lan.address}:8080`))).toBe("200");
    });

    it("answers 403 naming the destination and the rule for what the policy refuses", async () => {
      const plain = await sh(
        closed,
        `curl -sS --max-time 10 -w '%{http_code}' http://${lan.address}:8080/`,
      );
      expect(plain).toBe(`${lan.address}:8080 refused by rule: deny_out ${lan.address}\n403`);
      const byName = await sh(
        closed,
        `curl -sS --max-time 10 -w '%{http_code}' http://${LAN_NAME}:8080/`,
      );
      expect(byName).toBe(`${LAN_NAME}:8080 refused by rule: deny_out ${lan.address}\n403`);
      // HTTPS: the CONNECT is answered 403 (curl reports the code), with the reason for node.
      const tls = await sh(
        closed,
        `curl -s --max-time 10 -o /dev/null -w '%{http_connect}' https://${lan.address}:8080/`,
      );
      expect(tls).toBe("403");
      expect(await sh(closed, nodeConnect(`${lan.address}:8080`))).toBe(
        `403 ${lan.address}:8080 refused by rule: deny_out ${lan.address}`,
      );
      expect(denials).toContainEqual(
        expect.objectContaining({
          destination: `${lan.address}:8080`,
          rule: `deny_out ${lan.address}`,
        }),
      );
    });

    it("is no way to the host: not its loopback (the control plane's port), not its own addresses", async () => {
      expect(await probeFromHost("http", "127.0.0.1", String(controlPort))).toBe(
        "reply control-plane",
      );
      expect(await sh(open, nodeConnect(`127.0.0.1:${controlPort}`))).toBe(
        `403 127.0.0.1:${controlPort} refused by rule: non-public range (loopback)`,
      );
      expect(await sh(open, nodeConnect(`[::ffff:127.0.0.1]:${controlPort}`))).toMatch(/^403 /);
      expect(await sh(open, nodeConnect(`localhost:${controlPort}`))).toBe(
        `403 localhost:${controlPort} refused by rule: loopback name`,
      );
      // The host's end of the LAN host's link is one of the host's own addresses.
      const hostSide = lan.address.replace(/\.2$/, ".1");
      expect(await sh(open, nodeConnect(`${hostSide}:${controlPort}`))).toBe(
        `403 ${hostSide}:${controlPort} refused by rule: the control plane's host`,
      );
    });

    it("connects to the address it judged: a name that rebinds to the host's loopback never reaches it", async () => {
      const answers = new Set<string>();
      for (let i = 0; i < 4; i++) {
        answers.add(
          await sh(
            open,
            `curl -s --max-time 10 -w ' %{http_code}' http://${REBIND_NAME}:${controlPort}/`,
          ),
        );
      }
      expect(rebinds).toBeGreaterThanOrEqual(4);
      // Judged the LAN host: nothing listens there on that port (502); judged loopback: 403.
      for (const answer of answers) expect(answer).toMatch(/ (502|403)$/);
      expect([...answers].some((a) => a.endsWith("403"))).toBe(true);
    });

    it("leaves a client that ignores the variables to the enforcer", async () => {
      const direct = `curl -s --noproxy '*' --max-time 10 -o /dev/null -w '%{http_code}' http://${lan.address}:8080/; echo " $?"`;
      expect(await sh(open, direct)).toBe("200 0");
      // Refused at once by the ruleset (curl: 7, could not connect), no 403 to read.
      expect(await sh(closed, direct)).toBe("000 7");
    });

    it("listens again where an adopted sandbox reaches it, after a restart of the control plane", async () => {
      await runtime.close();
      runtime = fixture.createRuntime(rootDir, options());
      expect((await runtime.inspect(open.id)).state).toBe("running");
      expect(await sh(open, `curl -sS --max-time 10 http://${lan.address}:8080/`)).toBe("lan-host");
    });
  });
}
