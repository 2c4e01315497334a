/**
 * The upstream address check against the IANA special-purpose registries, as property tests over
 * the spellings a URL may give an address (short, decimal, hex and octal IPv4; IPv6 compressed or
 * not, upper case, leading zeros, and every IPv6 form that carries an IPv4 address). The ranges
 * below are copied from the registries, not from the library the code uses, so a range the library
 * lacks fails here.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addressRefusal } from "../../../src/core/tools/upstream.js";

/** Fixed seed, so `npm test` runs the same cases; FC_RUNS=<n> runs more. */
const params = (numRuns: number) => ({ seed: 19, numRuns: numRuns * Number(process.env.FC_RUNS ?? 1) });

// https://www.iana.org/assignments/iana-ipv4-special-registry, plus multicast (224.0.0.0/4).
const IPV4_SPECIAL: Array<[string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.31.196.0", 24],
  ["192.52.193.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["192.175.48.0", 24],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["240.0.0.0", 4],
  ["224.0.0.0", 4],
];
// https://www.iana.org/assignments/iana-ipv6-special-registry, plus ::/96 (IPv4-compatible),
// fec0::/10 (site-local), ff00::/8 (multicast) and the space outside 2000::/3 (IANA allocates
// nothing else for global unicast).
const IPV6_SPECIAL: Array<[string, number]> = [
  ["::1", 128],
  ["::", 128],
  ["::ffff:0:0", 96],
  ["::", 96],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["100:0:0:1::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["2620:4f:8000::", 48],
  ["3fff::", 20],
  ["5f00::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
  ["4000::", 2],
  ["8000::", 1],
  ["::ffff:0:0:0", 96],
];
// Blocks in ordinary public use (Level 3, APNIC's 1/8, Cloudflare; Cloudflare, Google, RIPE's 2a00::/12).
const IPV4_PUBLIC: Array<[string, number]> = [
  ["8.0.0.0", 8],
  ["1.0.0.0", 8],
  ["104.16.0.0", 13],
];
const IPV6_PUBLIC: Array<[string, number]> = [
  ["2606:4700::", 32],
  ["2001:4860::", 32],
  ["2a00::", 12],
];

function v4Number(text: string): number {
  return text.split(".").reduce((sum, part) => sum * 256 + Number(part), 0);
}

function v6Number(text: string): bigint {
  const [head = "", tail = ""] = text.split("::");
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const h = groups(head);
  const t = groups(tail);
  const all = text.includes("::") ? [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t] : h;
  return all.reduce((sum, group) => (sum << 16n) | BigInt(parseInt(group, 16)), 0n);
}

const inV4 = ([base, prefix]: [string, number]) =>
  fc.integer({ min: 0, max: 2 ** (32 - prefix) - 1 }).map((host) => (v4Number(base) + host) >>> 0);
const inV6 = ([base, prefix]: [string, number]) =>
  fc.bigInt({ min: 0n, max: (1n << BigInt(128 - prefix)) - 1n }).map((host) => v6Number(base) + host);

const octets = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];

/** The spellings of one IPv4 address a URL's host may use; the URL parser reads each as that address. */
const v4Spelling = (n: number) =>
  fc
    .constantFrom<(n: number) => string>(
      (a) => octets(a).join("."),
      (a) => String(a),
      (a) => `0x${a.toString(16)}`,
      (a) =>
        octets(a)
          .map((o) => `0x${o.toString(16)}`)
          .join("."),
      (a) =>
        octets(a)
          .map((o) => `0${o.toString(8)}`)
          .join("."),
      (a) => `${octets(a)[0]}.${a & 0xffffff}`,
      (a) => `${octets(a)[0]}.${octets(a)[1]}.${a & 0xffff}`,
      (a) => `${octets(a).join(".")}.`,
    )
    .map((spell) => spell(n));

const hex4 = (n: number) => [(n >>> 16).toString(16), (n & 0xffff).toString(16)];

/** IPv6 forms that carry an IPv4 address: each is a special range whatever the IPv4 is. */
const v4InV6 = (n: number) =>
  fc
    .constantFrom<(n: number) => string>(
      (a) => `::ffff:${octets(a).join(".")}`,
      (a) => `::ffff:${hex4(a).join(":")}`,
      (a) => `0:0:0:0:0:ffff:${octets(a).join(".")}`,
      (a) => `::${octets(a).join(".")}`,
      (a) => `::${hex4(a).join(":")}`,
      (a) => `64:ff9b::${octets(a).join(".")}`,
      (a) => `64:ff9b:1::${hex4(a).join(":")}`,
      (a) => `2002:${hex4(a).join(":")}::1`,
      (a) => `::ffff:0:${octets(a).join(".")}`,
      (a) => `2001:0:4136:e378:8000:63bf:${hex4(~a >>> 0).join(":")}`,
    )
    .map((spell) => `[${spell(n)}]`);

/** Spellings of one IPv6 address: full, leading zeros, compressed by the URL parser, upper case. */
const v6Spelling = (n: bigint) => {
  const groups = Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(112 - 16 * i)) & 0xffffn));
  return fc
    .constantFrom<() => string>(
      () => groups.map((g) => g.toString(16)).join(":"),
      () => groups.map((g) => g.toString(16).padStart(4, "0")).join(":"),
      () => groups.map((g) => g.toString(16).toUpperCase()).join(":"),
      () => new URL(`http://[${groups.map((g) => g.toString(16)).join(":")}]/`).hostname.slice(1, -1),
    )
    .map((spell) => `[${spell()}]`);
};

const refused = (host: string) => addressRefusal(`https://${host}/v1`, false) !== null;

describe("addressRefusal against the IANA special-purpose registries", () => {
  it("refuses every spelling of every special IPv4 address", () => {
    const arb = fc
      .constantFrom(...IPV4_SPECIAL)
      .chain(inV4)
      .chain((n) => fc.oneof(v4Spelling(n), v4InV6(n)));
    fc.assert(
      fc.property(arb, (host) => {
        expect([host, refused(host)]).toEqual([host, true]);
      }),
      params(2000),
    );
  });

  it("refuses every spelling of every special IPv6 address", () => {
    const arb = fc
      .constantFrom(...IPV6_SPECIAL)
      .chain(inV6)
      .chain(v6Spelling);
    fc.assert(
      fc.property(arb, (host) => {
        expect([host, refused(host)]).toEqual([host, true]);
      }),
      params(2000),
    );
  });

  it("refuses a public IPv4 address inside any IPv6 form that carries it: the IPv4 address itself is the way to name it", () => {
    const arb = fc
      .constantFrom(...IPV4_PUBLIC)
      .chain(inV4)
      .chain(v4InV6);
    fc.assert(
      fc.property(arb, (host) => {
        expect([host, refused(host)]).toEqual([host, true]);
      }),
      params(500),
    );
  });

  it("lets every spelling of an ordinary public address through", () => {
    const v4 = fc
      .constantFrom(...IPV4_PUBLIC)
      .chain(inV4)
      .chain(v4Spelling);
    const v6 = fc
      .constantFrom(...IPV6_PUBLIC)
      .chain(inV6)
      .chain(v6Spelling);
    fc.assert(
      fc.property(fc.oneof(v4, v6), (host) => {
        expect([host, refused(host)]).toEqual([host, false]);
      }),
      params(1000),
    );
  });

  it("names the range in its refusal, for the spellings the probe found", () => {
    const hosts = [
      "[64:ff9b::169.254.169.254]",
      "[2002:a9fe:a9fe::1]",
      "[::169.254.169.254]",
      "[::10.0.0.1]",
      "[::ffff:0:a9fe:a9fe]",
      "[fec0::1]",
      "255.255.255.255",
      "224.0.0.1",
      "198.18.0.1",
      "[::ffff:169.254.169.254]",
    ];
    expect(hosts.map((host) => addressRefusal(`http://${host}`, true))).toEqual([
      "the host [64:ff9b::a9fe:a9fe] is a NAT64 (64:ff9b::/96, 64:ff9b:1::/48) address, which a deployed instance never calls",
      "the host [2002:a9fe:a9fe::1] is a 6to4 (2002::/16) address, which a deployed instance never calls",
      "the host [::a9fe:a9fe] is an IPv4-compatible (::/96, deprecated) address, which a deployed instance never calls",
      "the host [::a00:1] is an IPv4-compatible (::/96, deprecated) address, which a deployed instance never calls",
      "the host [::ffff:0:a9fe:a9fe] is an IPv4-translated (SIIT, ::ffff:0:0:0/96) address, which a deployed instance never calls",
      "the host [fec0::1] is a site-local (fec0::/10) address, which a deployed instance never calls",
      "the host 255.255.255.255 is a broadcast (255.255.255.255) address, which a deployed instance never calls",
      "the host 224.0.0.1 is a multicast (224.0.0.0/4) address, which a deployed instance never calls",
      "the host 198.18.0.1 is a reserved (IETF protocol assignments, documentation, benchmarking or future use) address, which a deployed instance never calls",
      "the host [::ffff:a9fe:a9fe] is a link-local address, which a deployed instance never calls",
    ]);
  });

  it("allows loopback, and only loopback, on a local instance", () => {
    const hosts = [
      "127.0.0.1",
      "127.1",
      "[::1]",
      "localhost",
      "localhost.",
      "api.localhost",
      "[::ffff:127.0.0.1]",
      "[::127.0.0.1]",
      "[64:ff9b::127.0.0.1]",
      "10.0.0.1",
    ];
    expect(
      hosts.map((host) => [
        host,
        addressRefusal(`http://${host}`, true) === null,
        addressRefusal(`http://${host}`, false) === null,
      ]),
    ).toEqual([
      ["127.0.0.1", true, false],
      ["127.1", true, false],
      ["[::1]", true, false],
      ["localhost", true, false],
      ["localhost.", true, false],
      ["api.localhost", true, false],
      ["[::ffff:127.0.0.1]", true, false],
      ["[::127.0.0.1]", false, false],
      ["[64:ff9b::127.0.0.1]", false, false],
      ["10.0.0.1", false, false],
    ]);
  });
});
