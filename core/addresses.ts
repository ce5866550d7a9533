import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Which addresses outbound requests (webhooks, functions' `fetch`) must not reach unless the operator allows private
 * targets (TESSERA_ALLOW_PRIVATE_TARGETS): loopback, private, link-local (cloud
 * metadata lives at 169.254.169.254), CGNAT, unspecified, multicast and reserved.
 * Checked on literal hosts when an endpoint is saved, and on every resolved
 * address at connect time (so DNS rebinding cannot slip through).
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network" (RFC 791); 0.0.0.0 reaches the local host on Linux
  ["10.0.0.0", 8], // RFC 1918
  ["100.64.0.0", 10], // CGNAT (RFC 6598)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata (RFC 3927)
  ["172.16.0.0", 12], // RFC 1918
  ["192.0.0.0", 24], // IETF protocol assignments (RFC 6890)
  ["192.168.0.0", 16], // RFC 1918
  ["198.18.0.0", 15], // benchmarking (RFC 2544)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["fc00::", 7], // unique local (RFC 4193), e.g. AWS metadata fd00:ec2::254
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv6");
}

/**
 * Whether `ip` (an IPv4 or IPv6 literal, brackets allowed) is an address outbound
 * requests must not reach. IPv4 embedded in IPv6 (`::ffff:127.0.0.1`, NAT64 `64:ff9b::…`)
 * is judged as the IPv4 address. Anything that is not an IP literal counts as private,
 * so a caller can never be waved through by a malformed value.
 *
 * @example
 *   isPrivateAddress("10.1.2.3");       // true
 *   isPrivateAddress("::ffff:7f00:1");  // true (127.0.0.1)
 *   isPrivateAddress("93.184.215.14");  // false
 */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const family = isIP(bare);
  if (family === 4) return BLOCKED.check(bare, "ipv4");
  if (family !== 6) return true;
  const embedded = embeddedIpv4(bare);
  if (embedded) return BLOCKED.check(embedded, "ipv4");
  // A zone (`fe80::1%eth0`) names an interface, not part of the address.
  return BLOCKED.check(bare.split("%")[0]!, "ipv6");
}

/** Host names that always mean this machine or the cloud's metadata service. */
const PRIVATE_NAMES = /^(?:localhost|.+\.localhost|metadata\.google\.internal)\.?$/i;

/**
 * Whether a URL's host is private on its face: a private IP literal or a name such as
 * `localhost`. Other names are judged at connect time, once resolved.
 *
 * @example
 *   isPrivateHost(new URL("https://[::1]:8443/").hostname); // true
 *   isPrivateHost("hooks.example.com");                     // false (checked when connecting)
 */
export function isPrivateHost(hostname: string): boolean {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  if (isIP(bare) !== 0) return isPrivateAddress(bare);
  return PRIVATE_NAMES.test(bare);
}

/** The IPv4 address inside an IPv4-mapped (`::ffff:0:0/96`), -compatible or NAT64 (`64:ff9b::/96`) IPv6 one. */
function embeddedIpv4(ipv6: string): string | undefined {
  const words = expandIpv6(ipv6);
  if (!words) return undefined;
  const high = words.slice(0, 6);
  const zeros = high.every((word) => word === 0);
  const mapped = high.slice(0, 5).every((word) => word === 0) && high[5] === 0xffff;
  const nat64 = words[0] === 0x64 && words[1] === 0xff9b && high.slice(2).every((word) => word === 0);
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
  if (zeros && words[6] === 0 && words[7]! <= 1) return undefined;
  if (!zeros && !mapped && !nat64) return undefined;
  const [a, b] = [words[6]!, words[7]!];
  return `${a >> 8}.${a & 0xff}.${b >> 8}.${b & 0xff}`;
}

/** Eight 16-bit words of an IPv6 literal (already validated by isIP), with a dotted tail expanded. */
function expandIpv6(ip: string): number[] | undefined {
  let text = ip.split("%")[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
    text =
      text.slice(0, -dotted[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const parse = (part: string | undefined) => (part ? part.split(":").map((word) => parseInt(word, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const fill = tail === undefined ? 0 : 8 - left.length - right.length;
  const words = [...left, ...Array<number>(fill).fill(0), ...right];
  return words.length === 8 && words.every((word) => Number.isInteger(word)) ? words : undefined;
}

export interface TargetPolicy {
  /** TESSERA_ALLOW_HTTP_TARGETS: plain `http:` is allowed too. */
  allowHttp: boolean;
  /** TESSERA_ALLOW_PRIVATE_TARGETS: private, loopback and metadata hosts are allowed. */
  allowPrivate: boolean;
}

/**
 * Why a webhook target URL is refused, or undefined when it is acceptable: not an
 * absolute URL, not `https:` (unless http is allowed), credentials in it (fetch
 * refuses them; send an `Authorization` header instead), or a host private on its face.
 *
 * @example
 *   targetUrlProblem("http://hooks.example.com", { allowHttp: false, allowPrivate: false });
 *   // "must use https (the operator has not allowed http targets)"
 */
export function targetUrlProblem(url: string, policy: TargetPolicy): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "must be an absolute URL";
  }
  if (parsed.protocol !== "https:" && !(policy.allowHttp && parsed.protocol === "http:")) {
    return policy.allowHttp
      ? "must use https or http"
      : "must use https (the operator has not allowed http targets)";
  }
  if (parsed.username || parsed.password) {
    return "must not contain credentials; send them in a custom header instead";
  }
  if (!policy.allowPrivate && isPrivateHost(parsed.hostname)) {
    return "must not point at a loopback, private, link-local or metadata address";
  }
  return undefined;
}

export class BlockedAddressError extends Error {
  readonly code = "EBLOCKED";
  constructor(host: string, address: string) {
    super(`blocked address: ${host} resolves to ${address} (private targets are not allowed)`);
    this.name = "BlockedAddressError";
  }
}

/**
 * dns.lookup keeping only public addresses; none left is an error. Given to a socket
 * as its `lookup`, so the address judged is the address dialled (no DNS rebinding).
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  const lookupOptions = { ...options, all: true as const };
  dnsLookup(hostname, lookupOptions, (error, addresses) => {
    if (error) return callback(error, "", 0);
    const allowed = addresses.filter((entry) => !isPrivateAddress(entry.address));
    if (allowed.length === 0) {
      return callback(new BlockedAddressError(hostname, addresses[0]?.address ?? "nothing"), "", 0);
    }
    // Node asks for every address when it races IPv4 and IPv6 (autoSelectFamily).
    if (options.all) {
      return (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, allowed);
    }
    callback(null, allowed[0]!.address, allowed[0]!.family);
  });
};
