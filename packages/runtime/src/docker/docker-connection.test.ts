import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import Dockerode from "dockerode";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEFAULT_DOCKER_SOCKET,
  describeDockerConnection,
  dockerConnectionFromHost,
} from "./docker-connection";
import { isDockerAvailable } from "./is-docker-available";
import { testDockerConnection } from "./test/connection";
import { dockerMissing } from "./test/support";

const certDir = mkdtempSync(path.join(tmpdir(), "docker-certs-"));
for (const name of ["ca.pem", "cert.pem", "key.pem"]) {
  writeFileSync(path.join(certDir, name), `${name} contents`);
}
const emptyDir = mkdtempSync(path.join(tmpdir(), "docker-no-certs-"));
afterAll(() => {
  rmSync(certDir, { recursive: true, force: true });
  rmSync(emptyDir, { recursive: true, force: true });
});

describe("dockerConnectionFromHost", () => {
  it("uses the local socket when DOCKER_HOST is unset or empty", () => {
    for (const host of [undefined, "", "  "]) {
      const connection = dockerConnectionFromHost(host);
      expect(connection.socketPath).toBe(DEFAULT_DOCKER_SOCKET);
      expect(connection.host).toBeUndefined();
    }
  });

  it("reads unix:// paths, with the default socket for a bare unix://", () => {
    expect(dockerConnectionFromHost("unix:///run/user/1000/docker.sock").socketPath).toBe(
      "/run/user/1000/docker.sock",
    );
    expect(dockerConnectionFromHost("unix://").socketPath).toBe(DEFAULT_DOCKER_SOCKET);
  });

  it("reads tcp:// with the CLI's default ports and hosts", () => {
    expect(dockerConnectionFromHost("tcp://10.0.0.5:2375")).toMatchObject({
      host: "10.0.0.5",
      port: 2375,
      protocol: "http",
      socketPath: undefined,
    });
    expect(dockerConnectionFromHost("tcp://docker.internal")).toMatchObject({
      host: "docker.internal",
      port: 2375,
    });
    // Without a scheme the CLI assumes tcp; an empty host is localhost.
    expect(dockerConnectionFromHost("10.0.0.5:4243")).toMatchObject({
      host: "10.0.0.5",
      port: 4243,
    });
    expect(dockerConnectionFromHost("tcp://:2375")).toMatchObject({ host: "localhost" });
    expect(dockerConnectionFromHost("tcp://[::1]:2375")).toMatchObject({ host: "::1" });
    expect(dockerConnectionFromHost("tcp://10.0.0.5:2375/base")).toMatchObject({
      pathPrefix: "/base",
    });
  });

  it("uses TLS with the certificates of DOCKER_CERT_PATH when DOCKER_TLS_VERIFY is set", () => {
    const connection = dockerConnectionFromHost("tcp://docker.example:2376", {
      tlsVerify: true,
      certPath: certDir,
    });
    expect(connection).toMatchObject({ host: "docker.example", port: 2376, protocol: "https" });
    expect(connection.ca?.toString()).toBe("ca.pem contents");
    expect(connection.cert?.toString()).toBe("cert.pem contents");
    expect(connection.key?.toString()).toBe("key.pem contents");
    // The daemon's certificate is verified: no agent that turns verification off.
    expect(connection.agent).toBeUndefined();
    // The TLS port is the default with TLS.
    expect(
      dockerConnectionFromHost("tcp://docker.example", { tlsVerify: true, certPath: certDir }),
    ).toMatchObject({ port: 2376 });
    expect(describeDockerConnection(connection)).toBe("tcp://docker.example:2376 (TLS)");
  });

  it("requires ca.pem to verify, and sends no client certificate it does not have", () => {
    expect(() =>
      dockerConnectionFromHost("tcp://docker.example:2376", {
        tlsVerify: true,
        certPath: emptyDir,
      }),
    ).toThrow(/DOCKER_TLS_VERIFY.*ca\.pem does not exist/);
    const unverified = dockerConnectionFromHost("tcp://docker.example:2376", {
      tls: true,
      certPath: emptyDir,
    });
    expect(unverified.protocol).toBe("https");
    expect(unverified.cert).toBeUndefined();
    expect(unverified.ca).toBeUndefined();
    expect(unverified.agent?.options.rejectUnauthorized).toBe(false);
  });

  it("reads ssh:// with user and port", () => {
    expect(
      dockerConnectionFromHost("ssh://deploy@build-host:2222", { sshAuthSocket: "/tmp/agent" }),
    ).toMatchObject({
      protocol: "ssh",
      host: "build-host",
      port: 2222,
      username: "deploy",
      sshOptions: { agent: "/tmp/agent" },
    });
    expect(dockerConnectionFromHost("ssh://build-host")).toMatchObject({ port: 22 });
  });

  it("refuses what the CLI refuses, naming the problem", () => {
    expect(() => dockerConnectionFromHost("npipe:////./pipe/docker_engine")).toThrow(
      /invalid DOCKER_HOST.*unsupported scheme npipe/,
    );
    expect(() => dockerConnectionFromHost("fd://")).toThrow(/unsupported scheme fd/);
    expect(() => dockerConnectionFromHost("unix://relative.sock")).toThrow(/absolute/);
    expect(() => dockerConnectionFromHost("tcp://host:99999")).toThrow(/not a valid URL/);
    expect(() => dockerConnectionFromHost("tcp://user:pw@host:2375")).toThrow(/host, port/);
    expect(() => dockerConnectionFromHost("ssh://user:pw@host")).toThrow(/no password/);
  });

  it("is the endpoint dockerode uses, whatever the process environment says", () => {
    // docker-modem fills in unset options from DOCKER_HOST itself; the connection leaves none unset.
    const saved = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = "tcp://from-the-environment:2375";
    try {
      const docker = new Dockerode(dockerConnectionFromHost("unix:///var/run/other.sock"));
      const modem = docker.modem as unknown as { socketPath: unknown; host: unknown };
      expect(modem.socketPath).toBe("/var/run/other.sock");
      expect(modem.host).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
  });
});

describe("isDockerAvailable", () => {
  // Accepts and never answers; its connections are closed from this side at the end.
  const accepted = new Set<Socket>();
  const silent: Server = createServer((socket) => accepted.add(socket));
  afterAll(async () => {
    for (const socket of accepted) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it.skipIf(dockerMissing)("answers true for the daemon the tests use", async () => {
    expect(await isDockerAvailable({ docker: testDockerConnection(), timeoutMs: 3000 })).toBe(true);
  });

  it("answers false for a socket that does not exist and a tcp endpoint that never answers", async () => {
    const missing = dockerConnectionFromHost(`unix://${path.join(emptyDir, "docker.sock")}`);
    expect(await isDockerAvailable({ docker: missing })).toBe(false);

    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const address = silent.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    const hanging = dockerConnectionFromHost(`tcp://127.0.0.1:${port}`);
    expect(await isDockerAvailable({ docker: hanging, timeoutMs: 300 })).toBe(false);
  });
});
