import { describe, expect, it } from "vitest";
import { DestinationRefused } from "../destination/checked-connector";
import { DnsFailure } from "../destination/destination-policy";
import { categorizeError, categorizeStatus, storedCategory } from "./failure-category";

const coded = (code: string) => Object.assign(new Error(`boom at 10.0.0.1 (${code})`), { code });

describe("failure categories", () => {
  it("names what went wrong without messages or addresses", () => {
    expect(categorizeError(new DestinationRefused("loopback"))).toBe("destination_refused");
    expect(categorizeError(new DnsFailure("x"))).toBe("dns_failed");
    expect(categorizeError(coded("ENOTFOUND"))).toBe("dns_failed");
    expect(categorizeError(coded("ECONNREFUSED"))).toBe("connect_refused");
    expect(categorizeError(coded("ECONNRESET"))).toBe("connection_reset");
    expect(categorizeError(coded("UND_ERR_CONNECT_TIMEOUT"))).toBe("timeout");
    expect(categorizeError(new DOMException("late", "TimeoutError"))).toBe("timeout");
    expect(categorizeError(coded("EPROTO"))).toBe("tls_error");
    expect(categorizeError(coded("DEPTH_ZERO_SELF_SIGNED_CERT"))).toBe("tls_error");
    expect(categorizeError(coded("ERR_TLS_CERT_ALTNAME_INVALID"))).toBe("tls_error");
    expect(categorizeError(new Error("wrapped", { cause: coded("ECONNREFUSED") }))).toBe(
      "connect_refused",
    );
    expect(categorizeError(new Error("something else"))).toBe("network_error");
    expect([302, 404, 500, 999].map(categorizeStatus)).toEqual([
      "http_3xx",
      "http_4xx",
      "http_5xx",
      "http_error",
    ]);
  });

  it("maps messages stored before categories existed", () => {
    expect(storedCategory("The receiver answered 500", 500)).toBe("http_5xx");
    expect(storedCategory("The receiver refused the connection", null)).toBe("network_error");
    expect(storedCategory("timeout", null)).toBe("timeout");
    expect(storedCategory(null, 200)).toBeNull();
  });
});
