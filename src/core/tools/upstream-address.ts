/**
 * Which upstream hosts name an address a deployed instance must never call: every range of the
 * IANA IPv4 and IPv6 special-purpose address registries (private, loopback, link-local, shared,
 * documentation, benchmarking, multicast, broadcast, reserved, and the IPv6 forms that carry an
 * IPv4 address: mapped, translated, NAT64, 6to4, Teredo, IPv4-compatible), plus every IPv6 address
 * outside 2000::/3, the only block IANA allocates for global unicast.
 *
 * The parsing and the ranges are ipaddr.js's (pinned; see docs/real-tools.md): a hand-written
 * matcher missed NAT64, 6to4, SIIT and IPv4-compatible spellings of 169.254.169.254 before.
 */
import ipaddr from "ipaddr.js";

interface SpecialAddress {
  /** For a person: what the range is, e.g. "private" or "NAT64 (64:ff9b::/96)". */
  range: string;
  /** Loopback, which a local instance may be allowed to call (IPv4-mapped loopback included). */
  loopback: boolean;
}

const IPV4_RANGES: Record<string, string> = {
  unspecified: "unspecified (0.0.0.0/8, this network)",
  broadcast: "broadcast (255.255.255.255)",
  multicast: "multicast (224.0.0.0/4)",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "shared (carrier-grade NAT, 100.64.0.0/10)",
  private: "private",
  reserved: "reserved (IETF protocol assignments, documentation, benchmarking or future use)",
  benchmarking: "benchmarking (198.18.0.0/15)",
  as112: "AS112 (DNS sink)",
  amt: "AMT relay (192.52.193.0/24)",
};

const IPV6_RANGES: Record<string, string> = {
  unspecified: "unspecified (::)",
  linkLocal: "link-local",
  multicast: "multicast (ff00::/8)",
  loopback: "loopback",
  uniqueLocal: "private",
  ipv4Mapped: "IPv4-mapped (::ffff:0:0/96; name the IPv4 address itself)",
  rfc6145: "IPv4-translated (SIIT, ::ffff:0:0:0/96)",
  rfc6052: "NAT64 (64:ff9b::/96, 64:ff9b:1::/48)",
  "6to4": "6to4 (2002::/16)",
  teredo: "Teredo (2001::/32)",
  deprecatedSiteLocal: "site-local (fec0::/10)",
  discard: "discard-only (100::/64)",
  benchmarking: "benchmarking (2001:2::/48)",
  amt: "AMT relay (2001:3::/32)",
  as112v6: "AS112 (DNS sink)",
  deprecatedOrchid: "ORCHID (2001:10::/28)",
  orchid2: "ORCHIDv2 (2001:20::/28)",
  droneRemoteIdProtocolEntityTags: "drone remote ID (2001:30::/28)",
  segmentRouting: "segment routing (5f00::/16)",
  reserved: "reserved (documentation or IETF protocol assignments)",
};

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3");
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96");

/**
 * The special range `host` falls in, or null for a host name or an ordinary public address.
 * `host` is a URL's hostname (brackets of an IPv6 literal allowed), which the URL parser has
 * already made canonical: `127.1`, `0x7f.0.0.1` and `2130706433` all arrive as 127.0.0.1.
 */
export function specialAddress(hostname: string): SpecialAddress | null {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return { range: "loopback", loopback: true };
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return ipv4Special(ipaddr.IPv4.parse(host));
  if (!host.includes(":") || !ipaddr.IPv6.isValid(host)) return null;
  const address = ipaddr.IPv6.parse(host);
  // Only the loopback inside an IPv4-mapped address counts as loopback; its other ranges are the IPv4's.
  if (address.isIPv4MappedAddress())
    return ipv4Special(address.toIPv4Address()) ?? { range: IPV6_RANGES.ipv4Mapped ?? "IPv4-mapped", loopback: false };
  const range: string = address.range();
  if (range !== "unicast")
    return { range: IPV6_RANGES[range] ?? `special-purpose (${range})`, loopback: range === "loopback" };
  if (address.match(IPV4_COMPATIBLE)) return { range: "IPv4-compatible (::/96, deprecated)", loopback: false };
  if (!address.match(GLOBAL_UNICAST))
    return { range: "unallocated (outside 2000::/3, global unicast)", loopback: false };
  return null;
}

function ipv4Special(address: ipaddr.IPv4): SpecialAddress | null {
  const range: string = address.range();
  if (range === "unicast") return null;
  return { range: IPV4_RANGES[range] ?? `special-purpose (${range})`, loopback: range === "loopback" };
}
