import { existsSync, readFileSync } from "node:fs";
import { Agent } from "node:https";
import { homedir } from "node:os";
import path from "node:path";
import type Dockerode from "dockerode";

/**
 * What the Docker CLI reads besides DOCKER_HOST. The app's env.ts reads the variables and passes
 * them here; this module never looks at process.env.
 */
export interface DockerHostSettings {
  /** DOCKER_TLS_VERIFY (the CLI treats any non-empty value as set): TLS, daemon cert verified. */
  tlsVerify?: boolean;
  /** DOCKER_TLS: TLS without verifying the daemon's certificate (implied by tlsVerify). */
  tls?: boolean;
  /** DOCKER_CERT_PATH: where ca.pem, cert.pem and key.pem are (default ~/.docker). */
  certPath?: string;
  /** SSH_AUTH_SOCK: the agent that authenticates ssh:// hosts. */
  sshAuthSocket?: string;
}

/**
 * Options for dockerode. Every field docker-modem would otherwise fill in from process.env
 * (DOCKER_HOST, DOCKER_CERT_PATH, ...) is set explicitly, so the endpoint is the one given here.
 */
export type DockerConnection = Dockerode.DockerOptions & {
  /** Carries `rejectUnauthorized: false` for TLS without verification. */
  agent?: Agent;
  /** Base path of a tcp:// endpoint with a path (docker-modem option). */
  pathPrefix?: string;
};

export const DEFAULT_DOCKER_SOCKET = "/var/run/docker.sock";
const DEFAULT_TCP_PORT = 2375;
const DEFAULT_TLS_PORT = 2376;
const DEFAULT_SSH_PORT = 22;

/** An endpoint the docker modem must not complete from the environment. */
const CLEARED: DockerConnection = {
  socketPath: undefined,
  host: undefined,
  port: undefined,
  username: undefined,
  protocol: undefined,
  ca: undefined,
  cert: undefined,
  key: undefined,
  timeout: undefined,
  pathPrefix: undefined,
};

/**
 * Turns a DOCKER_HOST value into dockerode options, as the Docker CLI reads it: empty or unset is
 * the local socket; `unix:///path`; `tcp://host[:port][/path]` (port 2375, or 2376 with TLS; a
 * value without a scheme is tcp); `ssh://[user@]host[:port]`. TLS as with DOCKER_TLS_VERIFY /
 * DOCKER_TLS and DOCKER_CERT_PATH. Throws a message naming the problem for anything else.
 */
export function dockerConnectionFromHost(
  host: string | undefined,
  settings: DockerHostSettings = {},
): DockerConnection {
  const value = host?.trim() ?? "";
  if (value === "") return { ...CLEARED, socketPath: DEFAULT_DOCKER_SOCKET, protocol: "http" };
  const withScheme = value.includes("://") ? value : `tcp://${value}`;
  const scheme = withScheme.slice(0, withScheme.indexOf("://")).toLowerCase();
  switch (scheme) {
    case "unix": {
      const socketPath = withScheme.slice("unix://".length) || DEFAULT_DOCKER_SOCKET;
      if (!socketPath.startsWith("/")) throw invalid(value, "a unix socket path must be absolute");
      return { ...CLEARED, socketPath, protocol: "http" };
    }
    case "tcp":
      return tcpConnection(value, withScheme, settings);
    case "ssh":
      return sshConnection(value, withScheme, settings);
    default:
      throw invalid(value, `unsupported scheme ${scheme}:// (use unix://, tcp:// or ssh://)`);
  }
}

function tcpConnection(
  original: string,
  withScheme: string,
  settings: DockerHostSettings,
): DockerConnection {
  // The CLI defaults an empty host to localhost (`tcp://:2375`); URL does not parse that.
  const url = parseUrl(original, withScheme.replace(/^tcp:\/\/(?=:|\/|$)/i, "tcp://localhost"));
  if (url.username || url.password || url.search || url.hash) {
    throw invalid(original, "tcp:// takes host, port and an optional path only");
  }
  const useTls = settings.tlsVerify === true || settings.tls === true;
  const port = url.port === "" ? (useTls ? DEFAULT_TLS_PORT : DEFAULT_TCP_PORT) : Number(url.port);
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const pathPrefix = url.pathname === "/" || url.pathname === "" ? undefined : url.pathname;
  const connection: DockerConnection = {
    ...CLEARED,
    host: hostname,
    port,
    protocol: useTls ? "https" : "http",
    pathPrefix,
  };
  if (!useTls) return connection;
  return { ...connection, ...tlsMaterial(settings) };
}

function sshConnection(
  original: string,
  withScheme: string,
  settings: DockerHostSettings,
): DockerConnection {
  const url = parseUrl(original, withScheme);
  if (url.password) throw invalid(original, "put no password in DOCKER_HOST; use an ssh agent");
  if ((url.pathname !== "" && url.pathname !== "/") || url.search || url.hash) {
    throw invalid(original, "ssh:// takes [user@]host[:port] only");
  }
  return {
    ...CLEARED,
    protocol: "ssh",
    host: url.hostname,
    port: url.port === "" ? DEFAULT_SSH_PORT : Number(url.port),
    username: url.username === "" ? undefined : decodeURIComponent(url.username),
    sshOptions: settings.sshAuthSocket ? { agent: settings.sshAuthSocket } : {},
  };
}

/**
 * As the CLI: with verification ca.pem is required (and trusted alone); cert.pem and key.pem are
 * sent when both exist. Without verification no CA is read.
 */
function tlsMaterial(settings: DockerHostSettings): DockerConnection {
  const dir = settings.certPath || path.join(homedir(), ".docker");
  const file = (name: string) => path.join(dir, name);
  const material: DockerConnection = {};
  if (existsSync(file("cert.pem")) && existsSync(file("key.pem"))) {
    material.cert = readFileSync(file("cert.pem"));
    material.key = readFileSync(file("key.pem"));
  }
  if (settings.tlsVerify === true) {
    if (!existsSync(file("ca.pem"))) {
      throw new Error(
        `DOCKER_TLS_VERIFY is set but ${file("ca.pem")} does not exist (set DOCKER_CERT_PATH)`,
      );
    }
    material.ca = readFileSync(file("ca.pem"));
    return material;
  }
  return {
    ...material,
    agent: new Agent({ rejectUnauthorized: false, cert: material.cert, key: material.key }),
  };
}

function parseUrl(original: string, withScheme: string): URL {
  try {
    const url = new URL(withScheme);
    if (url.port !== "" && !(Number(url.port) > 0)) throw new Error("bad port");
    return url;
  } catch {
    throw invalid(original, "it is not a valid URL");
  }
}

function invalid(value: string, why: string): Error {
  return new Error(`invalid DOCKER_HOST ${JSON.stringify(value)}: ${why}`);
}

/** How to name the endpoint in logs and messages (never certificates). */
export function describeDockerConnection(connection: DockerConnection): string {
  if (connection.socketPath) return `unix://${connection.socketPath}`;
  const scheme = connection.protocol === "ssh" ? "ssh" : "tcp";
  const user = connection.username ? `${connection.username}@` : "";
  const tls = connection.protocol === "https" ? " (TLS)" : "";
  return `${scheme}://${user}${connection.host}:${connection.port}${connection.pathPrefix ?? ""}${tls}`;
}
