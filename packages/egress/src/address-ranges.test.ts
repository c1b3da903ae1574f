import { describe, expect, it } from "vitest";
import { addressBytes, addressInCidr, nonPublicRanges } from "./address-ranges";
import { classifyAddress } from "./classify-address";

describe("nonPublicRanges", () => {
  const ranges = nonPublicRanges();
  const inSome = (address: string) => ranges.some((r) => addressInCidr(address, r.cidr));

  it("holds every address the classifier refuses, and none it lets through", () => {
    const samples = [
      "10.1.2.3",
      "172.31.255.255",
      "192.168.0.1",
      "127.0.0.1",
      "169.254.169.254",
      "169.254.1.1",
      "100.64.0.1",
      "100.100.100.200",
      "224.0.0.1",
      "0.0.0.0",
      "255.255.255.255",
      "198.18.0.2",
      "192.0.2.1",
      "240.0.0.1",
      "::1",
      "::",
      "fe80::1",
      "fd00:ec2::254",
      "fc00::1",
      "ff02::1",
      "2001:db8::1",
      "::ffff:10.0.0.1",
      "64:ff9b::a00:1",
      "64:ff9b::808:808",
      "8.8.8.8",
      "1.1.1.1",
      "151.101.0.223",
      "2606:4700::1111",
      "168.63.129.16",
    ];
    for (const address of samples) {
      expect(inSome(address), address).toBe(classifyAddress(address) !== "public");
    }
  });

  it("names each range as the classifier names its addresses", () => {
    for (const range of ranges) {
      // IPv4-compatible ::/96 is reserved as a whole; its first address is `::`, unspecified.
      if (range.cidr === "::/96") continue;
      const network = range.cidr.split("/")[0] as string;
      if (range.class !== "metadata")
        expect([range.class, "metadata"]).toContain(classifyAddress(network));
      else expect(classifyAddress(network)).toBe("metadata");
    }
    expect(ranges.filter((r) => r.class === "metadata").map((r) => r.cidr)).toContain(
      "169.254.169.254/32",
    );
  });

  it("gives addresses as bytes", () => {
    expect([...addressBytes("10.0.0.1")]).toEqual([10, 0, 0, 1]);
    expect(addressBytes("::1")).toHaveLength(16);
  });
});
