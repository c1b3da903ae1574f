import { describe, expect, it } from "vitest";
import { EgressEntryError, formatEgressTarget, parseEgressEntry } from "./parse-entry";

describe("parseEgressEntry", () => {
  it.each([
    ["pypi.org", { kind: "host", name: "pypi.org", wildcard: false, port: null }],
    ["PyPI.org.", { kind: "host", name: "pypi.org", wildcard: false, port: null }],
    ["*.github.com", { kind: "host", name: "github.com", wildcard: true, port: null }],
    ["*.GitHub.com:443", { kind: "host", name: "github.com", wildcard: true, port: 443 }],
    ["localhost:11434", { kind: "host", name: "localhost", wildcard: false, port: 11434 }],
    ["10.1.2.3", { kind: "cidr", cidr: "10.1.2.3/32", port: null }],
    ["10.1.2.3:8080", { kind: "cidr", cidr: "10.1.2.3/32", port: 8080 }],
    ["10.1.2.3/8", { kind: "cidr", cidr: "10.0.0.0/8", port: null }],
    ["10.1.2.3/8:53", { kind: "cidr", cidr: "10.0.0.0/8", port: 53 }],
    ["0.0.0.0/0", { kind: "cidr", cidr: "0.0.0.0/0", port: null }],
    ["::1", { kind: "cidr", cidr: "::1/128", port: null }],
    ["[::1]:11434", { kind: "cidr", cidr: "::1/128", port: 11434 }],
    ["2001:DB8::7/32", { kind: "cidr", cidr: "2001:db8::/32", port: null }],
    ["[2001:db8::/32]:443", { kind: "cidr", cidr: "2001:db8::/32", port: 443 }],
    ["::ffff:10.0.0.1", { kind: "cidr", cidr: "10.0.0.1/32", port: null }],
    ["[::ffff:10.0.0.0/104]", { kind: "cidr", cidr: "10.0.0.0/8", port: null }],
    ["  pypi.org  ", { kind: "host", name: "pypi.org", wildcard: false, port: null }],
  ])("%s", (text, expected) => {
    expect(parseEgressEntry(text)).toEqual(expected);
  });

  it.each([
    ["", "empty entry"],
    ["pypi.org:0", "port"],
    ["pypi.org:65536", "port"],
    ["pypi.org:http", "port"],
    ["pypi.org:", "port"],
    ["10.0.0.1/33", "prefix length"],
    ["10.0.0.1/x", "prefix length"],
    ["[::1", "missing ]"],
    ["[::1]x", "only :port"],
    ["[10.0.0.1]:80", "brackets are for IPv6"],
    ["::1:80/200", "prefix length"],
    ["10.0.0.256", "cannot end in digits"],
    ["010.0.0.1/8", "not an IPv4/IPv6 address"],
    ["*", "not a host name"],
    ["*.", "not a host name"],
    ["a.*.github.com", "not a host name"],
    ["https://pypi.org", "not a URL"],
    ["py pi.org", "not a host name"],
    ["-pypi.org", "not a host name"],
    ["a..b", "not a host name"],
    [`${"a".repeat(64)}.com`, "not a host name"],
  ])("%j is refused (%s)", (text, reason) => {
    const attempt = () => parseEgressEntry(text);
    expect(attempt).toThrow(EgressEntryError);
    expect(attempt).toThrow(reason);
    expect(attempt).toThrow(`"${text}"`);
  });
});

describe("formatEgressTarget", () => {
  it.each([
    ["pypi.org", "pypi.org"],
    ["*.GitHub.com:443", "*.github.com:443"],
    ["10.1.2.3", "10.1.2.3"],
    ["10.1.2.3/8:53", "10.0.0.0/8:53"],
    ["[::1]:11434", "[::1]:11434"],
    ["2001:db8::/32", "2001:db8::/32"],
    ["[2001:db8::/32]:443", "[2001:db8::/32]:443"],
  ])("%s is shown as %s and reads back the same", (text, shown) => {
    const target = parseEgressEntry(text);
    expect(formatEgressTarget(target)).toBe(shown);
    expect(parseEgressEntry(shown)).toEqual(target);
  });
});
