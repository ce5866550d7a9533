import { describe, expect, it } from "vitest";
import { isPrivateAddress, isPrivateHost } from "../../core/index.ts";

describe("private address classification", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.0.0.1", "RFC 1918"],
    ["172.16.0.1", "RFC 1918"],
    ["172.31.255.255", "RFC 1918"],
    ["192.168.1.1", "RFC 1918"],
    ["169.254.169.254", "cloud metadata (link-local)"],
    ["100.64.0.1", "CGNAT"],
    ["100.127.255.255", "CGNAT"],
    ["0.0.0.0", "unspecified"],
    ["::1", "IPv6 loopback"],
    ["::", "IPv6 unspecified"],
    ["fe80::1", "IPv6 link-local"],
    ["fe80::1%eth0", "IPv6 link-local with a zone"],
    ["fc00::1", "unique local"],
    ["fd00:ec2::254", "AWS metadata (unique local)"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback in hex"],
    ["::ffff:10.1.2.3", "IPv4-mapped private"],
    ["64:ff9b::a9fe:a9fe", "NAT64 of the metadata address"],
    ["[::1]", "bracketed IPv6 loopback"],
  ])("refuses %s (%s)", (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each(["8.8.8.8", "93.184.215.14", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])(
    "allows the public address %s",
    (ip) => {
      expect(isPrivateAddress(ip)).toBe(false);
    },
  );

  it("counts anything that is not an IP literal as private", () => {
    expect(isPrivateAddress("example.com")).toBe(true);
    expect(isPrivateAddress("")).toBe(true);
  });

  it("judges URL hosts: private literals (in any notation the URL parser accepts) and localhost names", () => {
    expect(isPrivateHost(new URL("https://2130706433/").hostname)).toBe(true);
    expect(isPrivateHost(new URL("https://0x7f.1/").hostname)).toBe(true);
    expect(isPrivateHost(new URL("https://[::1]:8443/").hostname)).toBe(true);
    expect(isPrivateHost("localhost")).toBe(true);
    expect(isPrivateHost("api.localhost")).toBe(true);
    expect(isPrivateHost("LOCALHOST.")).toBe(true);
    expect(isPrivateHost("metadata.google.internal")).toBe(true);
    expect(isPrivateHost("hooks.example.com")).toBe(false);
    expect(isPrivateHost("8.8.8.8")).toBe(false);
  });
});
