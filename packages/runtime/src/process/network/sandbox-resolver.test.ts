import type { SandboxEgressPolicy } from "@sandbox-server/egress";
import { describe, expect, it } from "vitest";
import { buildAnswer, DNS_TYPE, parseQuery, RCODE } from "./dns-message";
import { decideName } from "./sandbox-resolver";

const open: SandboxEgressPolicy = { allowInternet: true, allowOut: [], denyOut: [] };
const host = (name: string, port: number | null = null, wildcard = false) =>
  ({ kind: "host", name, wildcard, port }) as const;

/** A query as a stub resolver sends it: one question, recursion desired. */
function query(name: string, type: number): Buffer {
  const labels = name
    .split(".")
    .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)]));
  const header = Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(type, 0);
  tail.writeUInt16BE(1, 2);
  return Buffer.concat([header, ...labels, Buffer.from([0]), tail]);
}

describe("the resolver's DNS messages", () => {
  it("reads the question and answers it with the addresses", () => {
    const parsed = parseQuery(query("PyPI.org", DNS_TYPE.A));
    expect(parsed).toMatchObject({ id: 0x1234, name: "pypi.org", type: DNS_TYPE.A });
    if (!parsed) return;
    const answer = buildAnswer(parsed, RCODE.NOERROR, [Buffer.from([151, 101, 0, 223])]);
    expect(answer.readUInt16BE(0)).toBe(0x1234);
    expect(answer.readUInt16BE(2)).toBe(0x8180);
    expect(answer.readUInt16BE(6)).toBe(1);
    expect([...answer.subarray(-4)]).toEqual([151, 101, 0, 223]);
    expect(buildAnswer(parsed, RCODE.NXDOMAIN).readUInt16BE(2) & 0xf).toBe(RCODE.NXDOMAIN);
  });

  it("ignores what is not a query", () => {
    expect(parseQuery(Buffer.from([1, 2, 3]))).toBeNull();
    const response = query("a.b", DNS_TYPE.A);
    response[2] = 0x81;
    expect(parseQuery(response)).toBeNull();
  });
});

describe("decideName", () => {
  it("refuses metadata and localhost names before any lookup", () => {
    expect(decideName("metadata.google.internal", open)).toEqual({
      answer: false,
      rule: "metadata",
    });
    expect(decideName("db.localhost", open)).toMatchObject({ answer: false });
  });

  it("lets allow_out win over deny_out, and wildcards match only below their name", () => {
    const policy = {
      ...open,
      allowOut: [host("api.github.com", 443)],
      denyOut: [host("github.com", null, true)],
    };
    expect(decideName("api.github.com", policy)).toEqual({
      answer: true,
      sets: [
        { set: "allow", port: 443 },
        { set: "deny", port: null },
      ],
    });
    expect(decideName("gist.github.com", policy)).toEqual({
      answer: false,
      rule: "deny_out *.github.com",
    });
    expect(decideName("github.com", policy)).toEqual({ answer: true, sets: [] });
  });

  it("answers a name denied on one port only, and marks its addresses for that port", () => {
    expect(decideName("example.com", { ...open, denyOut: [host("example.com", 80)] })).toEqual({
      answer: true,
      sets: [{ set: "deny", port: 80 }],
    });
  });
});
