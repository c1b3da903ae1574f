import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newId } from "../shared/ids";
import { type PortUrlSigner, parsePortHost, signPortUrl, tokenMatches } from "./port-urls";

const signer = (over: Partial<PortUrlSigner> = {}): PortUrlSigner => ({
  key: randomBytes(32),
  baseDomain: null,
  localPort: 3000,
  ...over,
});
const hostOf = (url: string) => new URL(url).host;

describe("port URLs", () => {
  it("name the sandbox, port and expiry in one host label that survives lower-casing", () => {
    const s = signer();
    const id = newId("sb");
    const { url, expiresAtMs } = signPortUrl(s, id, 65535, 1_900_000_000_123);
    expect(url).toMatch(/^http:\/\/p65535-[0-9a-z]{26}-[0-9a-z]{26}\.localhost:3000\/$/);
    expect(expiresAtMs).toBe(1_900_000_000_000);
    const label = hostOf(url).split(".")[0] as string;
    expect(label.length).toBeLessThanOrEqual(63);
    const parsed = parsePortHost(s, hostOf(url).toUpperCase());
    expect(parsed).toMatchObject({ port: 65535, sandboxId: id });
    expect(parsed && tokenMatches(s, parsed)).toBe(true);
  });

  it("use https under a base domain and ignore hosts outside it", () => {
    const s = signer({ baseDomain: "preview.example.com" });
    const id = newId("sb");
    const { url } = signPortUrl(s, id, 8080, Date.now() + 60_000);
    expect(url).toMatch(/^https:\/\/p8080-[0-9a-z]{26}-[0-9a-z]{26}\.preview\.example\.com\/$/);
    expect(parsePortHost(s, hostOf(url))?.sandboxId).toBe(id);
    expect(parsePortHost(s, hostOf(url).replace("example.com", "example.org"))).toBeNull();
    expect(parsePortHost(s, "preview.example.com")).toBeNull();
    expect(parsePortHost(s, "127.0.0.1:3000")).toBeNull();
  });

  it("are refused for another port, another sandbox or after the key changes", () => {
    const s = signer();
    const id = newId("sb");
    const other = newId("sb");
    const host = hostOf(signPortUrl(s, id, 8080, Date.now() + 60_000).url);
    const parsed = parsePortHost(s, host);
    if (!parsed) throw new Error("not parsed");
    expect(tokenMatches(s, parsed)).toBe(true);
    expect(tokenMatches(s, { ...parsed, port: 8081 })).toBe(false);
    expect(tokenMatches(s, { ...parsed, sandboxId: other })).toBe(false);
    expect(tokenMatches({ ...s, key: randomBytes(32) }, parsed)).toBe(false);
    const untokened = parsePortHost(s, host.replace(/-[0-9a-z]{26}\./, "."));
    expect(untokened).toMatchObject({ sandboxId: id, token: null });
  });
});
