import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Where port URLs point and what signs them. The control plane serves them on its own listener:
 * `http://p{port}-{id}-{token}.localhost:{localPort}/` (`*.localhost` is loopback in browsers and
 * curl), or `https://p{port}-{id}-{token}.{baseDomain}/` behind a TLS front with a wildcard name.
 */
export interface PortUrlSigner {
  /** HMAC-SHA256 key of the tokens; replacing it invalidates every URL. */
  key: Uint8Array;
  baseDomain: string | null;
  /** The control plane's listening port (set once it listens; the local form needs it). */
  localPort: number;
}

/** What a port URL's host names: the sandbox, the port, the expiry and the token's MAC. */
export interface PortHost {
  port: number;
  sandboxId: string;
  /** Null when the host carries no token. */
  token: { expiresAtS: number; mac: string } | null;
}

export const DEFAULT_PORT_URL_TTL_S = 3600;
export const MAX_PORT_URL_TTL_S = 7 * 24 * 3600;

/*
 * Host names are case-insensitive (browsers lower-case them) and a label holds at most 63
 * characters, so the id's base62 body travels as a fixed-width base36 number and the token is
 * base36 too: `p65535-` + 26 + `-` + 7 (expiry, s) + 19 (96-bit MAC) = 60 characters.
 */
const ID_PATTERN = /^sb_[0-9A-Za-z]{22}$/;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const ID_WIDTH = 26;
const EXPIRY_WIDTH = 7;
const MAC_WIDTH = 19;
const MAC_BYTES = 12;
const LABEL = /^p([0-9]{1,5})-([0-9a-z]{26})(?:-([0-9a-z]{26}))?$/;

/** Whether a sandbox id can be carried in a port URL's host (every id the server makes can). */
export function hasPortUrls(sandboxId: string): boolean {
  return ID_PATTERN.test(sandboxId);
}

/** A signed URL that reaches `port` of the sandbox until `expiresAtMs` (rounded down to a second). */
export function signPortUrl(
  signer: PortUrlSigner,
  sandboxId: string,
  port: number,
  expiresAtMs: number,
): { url: string; expiresAtMs: number } {
  const expiresAtS = Math.floor(expiresAtMs / 1000);
  const mac = macOf(signer.key, sandboxId, port, expiresAtS);
  const label = `p${port}-${encodeId(sandboxId)}-${pad(expiresAtS.toString(36), EXPIRY_WIDTH)}${mac}`;
  const url = signer.baseDomain
    ? `https://${label}.${signer.baseDomain}/`
    : `http://${label}.localhost:${signer.localPort}/`;
  return { url, expiresAtMs: expiresAtS * 1000 };
}

/**
 * The port URL a Host header names, or null when it names none (an API request). Only the host's
 * first label counts, and only under the configured domain (or `localhost`).
 */
export function parsePortHost(signer: PortUrlSigner, host: string | undefined): PortHost | null {
  if (!host) return null;
  const name = host.toLowerCase().replace(/:[0-9]+$/, "");
  const dot = name.indexOf(".");
  if (dot < 0 || name.slice(dot + 1) !== (signer.baseDomain ?? "localhost")) return null;
  const match = LABEL.exec(name.slice(0, dot));
  if (!match) return null;
  const sandboxId = decodeId(match[2] as string);
  if (!sandboxId) return null;
  const token = match[3];
  return {
    port: Number(match[1]),
    sandboxId,
    token: token
      ? {
          expiresAtS: Number.parseInt(token.slice(0, EXPIRY_WIDTH), 36),
          mac: token.slice(EXPIRY_WIDTH),
        }
      : null,
  };
}

/** Whether the token was signed with this key for this sandbox, port and expiry. */
export function tokenMatches(signer: PortUrlSigner, host: PortHost): boolean {
  if (!host.token) return false;
  const expected = Buffer.from(macOf(signer.key, host.sandboxId, host.port, host.token.expiresAtS));
  const given = Buffer.from(host.token.mac);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function macOf(key: Uint8Array, sandboxId: string, port: number, expiresAtS: number): string {
  const digest = createHmac("sha256", key)
    .update(`sandbox-port-url\n${sandboxId}\n${port}\n${expiresAtS}`)
    .digest()
    .subarray(0, MAC_BYTES);
  return pad(BigInt(`0x${digest.toString("hex")}`).toString(36), MAC_WIDTH);
}

function encodeId(sandboxId: string): string {
  if (!hasPortUrls(sandboxId)) throw new Error(`sandbox id ${sandboxId} has no host form`);
  let value = 0n;
  for (const char of sandboxId.slice(3)) value = value * 62n + BigInt(BASE62.indexOf(char));
  return pad(value.toString(36), ID_WIDTH);
}

function decodeId(encoded: string): string | null {
  let value = BigInt(Number.parseInt(encoded.slice(0, 1), 36));
  for (const char of encoded.slice(1)) value = value * 36n + BigInt(Number.parseInt(char, 36));
  let body = "";
  for (let i = 0; i < 22; i++) {
    body = BASE62[Number(value % 62n)] + body;
    value /= 62n;
  }
  return value === 0n ? `sb_${body}` : null;
}

function pad(text: string, width: number): string {
  return text.padStart(width, "0");
}
