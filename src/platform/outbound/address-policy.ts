// Which IP addresses an outbound fetch may connect to. Pure functions, no I/O: `safe-fetch.ts`
// resolves names itself and runs every resolved address through `checkAddress` before it
// connects, on every redirect hop.
//
// Refused (IPv4, from the IANA special-purpose registry):
//   0.0.0.0/8 "this network" · 10/8, 172.16/12, 192.168/16 private · 100.64/10 carrier-grade NAT ·
//   127/8 loopback · 169.254/16 link-local (cloud metadata 169.254.169.254) · 192.0.0/24 IETF
//   protocol assignments · 192.0.2/24, 198.51.100/24, 203.0.113/24 documentation · 192.88.99/24
//   6to4 relay anycast · 198.18/15 benchmarking · 224/4 multicast · 240/4 reserved, including
//   the broadcast address 255.255.255.255.
// Refused (IPv6): everything outside global unicast 2000::/3 — that covers :: unspecified,
//   ::1 loopback, ::/96 IPv4-compatible, 100::/64 discard, fc00::/7 unique-local, fe80::/10
//   link-local, fec0::/10 site-local, ff00::/8 multicast — and inside 2000::/3: 2001::/23 IETF
//   protocol assignments (Teredo, ORCHID, benchmarking …), 2001:db8::/32 and 3fff::/20
//   documentation, 2002::/16 6to4 when the embedded IPv4 is refused.
// Addresses that carry an IPv4 address are judged by that IPv4 address: IPv4-mapped
//   ::ffff:a.b.c.d (also written ::ffff:7f00:1), IPv4-translated ::ffff:0:a.b.c.d, NAT64
//   64:ff9b::/96 and 6to4 2002:AABB:CCDD::/48. The NAT64 local-use prefix 64:ff9b:1::/48 is refused.
import net from "node:net";

/** Why an address is refused; stable strings, safe to log and to show to API callers. */
export type AddressRefusal =
  | "invalid"
  | "unspecified"
  | "this_network"
  | "loopback"
  | "private"
  | "carrier_grade_nat"
  | "link_local"
  | "unique_local"
  | "site_local"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "documentation"
  | "benchmarking"
  | "protocol_assignment"
  | "not_global_unicast";

export type AddressVerdict = { allowed: true } | { allowed: false; reason: AddressRefusal };

/** Decides whether one resolved address may be connected to. `family` is 4 or 6. */
export type AddressPolicy = (address: string, family: 4 | 6) => AddressVerdict;

const ALLOWED: AddressVerdict = Object.freeze({ allowed: true });
const refuse = (reason: AddressRefusal): AddressVerdict => ({ allowed: false, reason });

/** Parses a dotted-quad IPv4 address to a 32-bit unsigned integer, or null. */
export function parseIPv4(address: string): number | null {
  if (!net.isIPv4(address)) return null;
  const p = address.split(".");
  return ((Number(p[0]) << 24) | (Number(p[1]) << 16) | (Number(p[2]) << 8) | Number(p[3])) >>> 0;
}

/**
 * Parses an IPv6 address (any textual form: `::` compression, embedded dotted quad, zone id
 * `%eth0`, surrounding brackets) to its 16 bytes, or null when it is not a valid IPv6 address.
 */
export function parseIPv6(input: string): Uint8Array | null {
  let text = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input;
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  if (!net.isIPv6(text)) return null;
  const out = new Uint8Array(16);
  // A trailing dotted quad occupies the last two groups.
  let tailV4: number | null = null;
  const lastColon = text.lastIndexOf(":");
  if (text.indexOf(".", lastColon) >= 0) {
    tailV4 = parseIPv4(text.slice(lastColon + 1));
    if (tailV4 === null) return null;
    text = text.slice(0, lastColon + 1) + "0:0";
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parseGroups = (s: string): number[] => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)));
  const head = parseGroups(halves[0] ?? "");
  const tail = halves.length === 2 ? parseGroups(halves[1] ?? "") : [];
  if (halves.length === 1 && head.length !== 8) return null;
  if (head.length + tail.length > 8) return null;
  const groups = new Array<number>(8).fill(0);
  head.forEach((g, i) => (groups[i] = g));
  tail.forEach((g, i) => (groups[8 - tail.length + i] = g));
  for (let i = 0; i < 8; i++) {
    const g = groups[i] ?? 0;
    if (!(g >= 0 && g <= 0xffff)) return null;
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  }
  if (tailV4 !== null) {
    out[12] = tailV4 >>> 24;
    out[13] = (tailV4 >>> 16) & 0xff;
    out[14] = (tailV4 >>> 8) & 0xff;
    out[15] = tailV4 & 0xff;
  }
  return out;
}

const inV4 = (ip: number, base: number, bits: number): boolean => (bits === 0 ? true : ip >>> (32 - bits) === base >>> (32 - bits));

const v4 = (a: number, b: number, c: number, d: number): number => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

/** IPv4 ranges refused, most specific first where they overlap. */
const V4_RULES: ReadonlyArray<readonly [number, number, AddressRefusal]> = [
  [v4(255, 255, 255, 255), 32, "broadcast"],
  [v4(0, 0, 0, 0), 32, "unspecified"],
  [v4(0, 0, 0, 0), 8, "this_network"],
  [v4(10, 0, 0, 0), 8, "private"],
  [v4(100, 64, 0, 0), 10, "carrier_grade_nat"],
  [v4(127, 0, 0, 0), 8, "loopback"],
  [v4(169, 254, 0, 0), 16, "link_local"],
  [v4(172, 16, 0, 0), 12, "private"],
  [v4(192, 0, 0, 0), 24, "protocol_assignment"],
  [v4(192, 0, 2, 0), 24, "documentation"],
  [v4(192, 88, 99, 0), 24, "reserved"],
  [v4(192, 168, 0, 0), 16, "private"],
  [v4(198, 18, 0, 0), 15, "benchmarking"],
  [v4(198, 51, 100, 0), 24, "documentation"],
  [v4(203, 0, 113, 0), 24, "documentation"],
  [v4(224, 0, 0, 0), 4, "multicast"],
  [v4(240, 0, 0, 0), 4, "reserved"],
];

function checkV4Int(ip: number): AddressVerdict {
  for (const [base, bits, reason] of V4_RULES) if (inV4(ip, base, bits)) return refuse(reason);
  return ALLOWED;
}

const v4At = (b: Uint8Array, i: number): number =>
  (((b[i] ?? 0) << 24) | ((b[i + 1] ?? 0) << 16) | ((b[i + 2] ?? 0) << 8) | (b[i + 3] ?? 0)) >>> 0;

/** True when bytes [from, to) are all zero. */
const zeros = (b: Uint8Array, from: number, to: number): boolean => {
  for (let i = from; i < to; i++) if (b[i] !== 0) return false;
  return true;
};

function checkV6Bytes(b: Uint8Array): AddressVerdict {
  const b0 = b[0] ?? 0;
  const b1 = b[1] ?? 0;
  const w0 = (b0 << 8) | b1;
  const w1 = ((b[2] ?? 0) << 8) | (b[3] ?? 0);
  // ::ffff:a.b.c.d (IPv4-mapped)
  if (zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return checkV4Int(v4At(b, 12));
  // ::ffff:0:a.b.c.d (IPv4-translated, RFC 2765)
  if (zeros(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0) return checkV4Int(v4At(b, 12));
  if (zeros(b, 0, 15)) return refuse(b[15] === 1 ? "loopback" : b[15] === 0 ? "unspecified" : "reserved");
  // ::a.b.c.d (IPv4-compatible, deprecated)
  if (zeros(b, 0, 12)) return refuse("reserved");
  // 64:ff9b::/96 NAT64 well-known prefix → the embedded IPv4 decides; 64:ff9b:1::/48 local use.
  if (w0 === 0x0064 && w1 === 0xff9b) {
    if (zeros(b, 4, 12)) return checkV4Int(v4At(b, 12));
    return refuse("private");
  }
  if (b0 === 0xff) return refuse("multicast");
  if (b0 === 0xfc || b0 === 0xfd) return refuse("unique_local");
  if (b0 === 0xfe && (b1 & 0xc0) === 0x80) return refuse("link_local");
  if (b0 === 0xfe && (b1 & 0xc0) === 0xc0) return refuse("site_local");
  if ((b0 & 0xe0) !== 0x20) return refuse("not_global_unicast"); // outside 2000::/3
  if (w0 === 0x2001 && w1 === 0x0db8) return refuse("documentation");
  if (w0 === 0x2001 && w1 < 0x0200) return refuse("protocol_assignment"); // 2001::/23
  if (w0 === 0x3fff && w1 < 0x1000) return refuse("documentation"); // 3fff::/20
  if (w0 === 0x2002) {
    const embedded = checkV4Int(v4At(b, 2));
    return embedded.allowed ? ALLOWED : embedded;
  }
  return ALLOWED;
}

/**
 * The default policy: allows only publicly routable unicast addresses (see the file header for
 * every refused range). Anything that does not parse as an IP address is refused as "invalid".
 */
export function checkAddress(address: string, family?: 4 | 6): AddressVerdict {
  if (family !== 6) {
    const ip = parseIPv4(address);
    if (ip !== null) return checkV4Int(ip);
    if (family === 4) return refuse("invalid");
  }
  const bytes = parseIPv6(address);
  return bytes === null ? refuse("invalid") : checkV6Bytes(bytes);
}

/** Convenience: true when `checkAddress` allows the address. */
export const isPublicAddress = (address: string): boolean => checkAddress(address).allowed;

/** The policy used with OUTBOUND_ALLOW_PRIVATE=true: any syntactically valid address. */
export const allowAnyAddress: AddressPolicy = (address) =>
  net.isIP(address.replace(/^\[|\]$/g, "").replace(/%.*$/, "")) !== 0 ? ALLOWED : refuse("invalid");
