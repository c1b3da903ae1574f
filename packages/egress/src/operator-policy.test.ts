import { describe, expect, it } from "vitest";
import { checkWithinOperator, parseOperatorEgressPolicy } from "./operator-policy";
import { EgressEntryError, parseEgressEntry } from "./parse-entry";

describe("parseOperatorEgressPolicy", () => {
  it("reads comma-separated entries, blanks skipped", () => {
    expect(parseOperatorEgressPolicy(" 127.0.0.1:11434, ,10.0.0.0/8,[::1]:8000,")).toEqual({
      allow: [
        { kind: "cidr", cidr: "127.0.0.1/32", port: 11434 },
        { kind: "cidr", cidr: "10.0.0.0/8", port: null },
        { kind: "cidr", cidr: "::1/128", port: 8000 },
      ],
    });
    expect(parseOperatorEgressPolicy("")).toEqual({ allow: [] });
  });

  it.each([
    ["169.254.169.254:80", "metadata address 169.254.169.254 is never allowed"],
    ["169.254.0.0/16", "metadata address 169.254.169.254"],
    ["0.0.0.0/0", "metadata address"],
    ["metadata.google.internal", "metadata name metadata.google.internal"],
    ["*.google.internal:80", "metadata name metadata.google.internal"],
    ["127.0.0.1", "needs a port"],
    ["127.0.0.0/8", "needs a port"],
    ["::1", "needs a port"],
    ["localhost", "needs a port"],
    ["10.0.0.0/8,nonsense entry", "not a host name"],
  ])("%s is refused (%s)", (text, reason) => {
    expect(() => parseOperatorEgressPolicy(text)).toThrow(EgressEntryError);
    expect(() => parseOperatorEgressPolicy(text)).toThrow(reason);
  });
});

describe("checkWithinOperator", () => {
  const operator = parseOperatorEgressPolicy(
    "127.0.0.1:11434,10.20.0.0/16,localhost:8000,*.corp.example:443",
  );
  const none = parseOperatorEgressPolicy("");

  it.each([
    // public destinations are the sandbox's to choose
    ["pypi.org", none],
    ["*.github.com:443", none],
    ["8.8.8.8", none],
    ["93.184.0.0/16:443", none],
    ["2606:4700::/32", none],
    ["8.0.0.0/7", none],
    ["64:ff9b::808:808", none],
    ["internal.corp.example", none],
    // non-public ones lie inside what the operator opened
    ["127.0.0.1:11434", operator],
    ["10.20.30.0/24", operator],
    ["10.20.30.40:5432", operator],
    ["localhost:8000", operator],
    ["git.corp.example:443", operator],
  ])("%s is within", (entry, op) => {
    expect(checkWithinOperator(parseEgressEntry(entry), op)).toBeNull();
  });

  it.each([
    ["127.0.0.1:11434", none, "not opened"],
    ["127.0.0.1", operator, "not opened"],
    ["127.0.0.1:22", operator, "not opened"],
    ["10.0.0.0/8", operator, "not opened"],
    ["192.168.1.1", operator, "not opened"],
    ["0.0.0.0/0", operator, "metadata address"],
    ["::/0", operator, "metadata address fd00:ec2::254"],
    ["11.0.0.0/7", none, "not opened"],
    ["100.0.0.0/8", none, "metadata address 100.100.100.200"],
    ["64:ff9b::a00:1", none, "not opened"],
    ["localhost", operator, "not opened"],
    ["api.localhost:8000", operator, "not opened"],
    ["metadata.goog", operator, "metadata name metadata.goog"],
    ["*.internal", operator, "metadata name metadata.google.internal"],
  ])("%s is refused", (entry, op, reason) => {
    const why = checkWithinOperator(parseEgressEntry(entry), op);
    expect(why).not.toBeNull();
    expect(why).toContain(reason === "not opened" ? "the operator has not opened" : reason);
  });
});
