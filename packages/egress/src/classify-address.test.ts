import { describe, expect, it } from "vitest";
import { classifyAddress, classifyName } from "./classify-address";

describe("classifyAddress", () => {
  it.each([
    ["93.184.215.14", "public"],
    ["8.8.8.8", "public"],
    ["2606:4700::1", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.1", "private"],
    ["fc00::1", "private"],
    ["fdff::1", "private"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["169.254.0.1", "link-local"],
    ["fe80::1", "link-local"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.255", "multicast"],
    ["ff02::1", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["255.255.255.255", "broadcast"],
    ["169.254.169.254", "metadata"],
    ["169.254.170.2", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["100.100.100.200", "metadata"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:10.1.2.3", "private"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:8.8.8.8", "public"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::808:808", "public"],
    ["::7f00:1", "reserved"],
    ["192.0.2.1", "reserved"],
    ["240.0.0.1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["2002:7f00:1::", "reserved"],
    ["not an address", "reserved"],
  ])("%s is %s", (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe("classifyName", () => {
  it("refuses metadata names and localhost by name, and judges nothing else", () => {
    expect(classifyName("metadata.google.internal")).toBe("metadata");
    expect(classifyName("METADATA.google.internal.")).toBe("metadata");
    expect(classifyName("localhost")).toBe("loopback");
    expect(classifyName("api.localhost")).toBe("loopback");
    expect(classifyName("example.com")).toBeNull();
    expect(classifyName("localhost.example.com")).toBeNull();
  });
});
