// IP addresses and CIDR ranges for the IP allow-list: parsing, canonical text, matching.
// Addresses are held as BigInt so IPv4 (32 bits) and IPv6 (128 bits) share one code path.
// IPv4-mapped IPv6 addresses (::ffff:192.0.2.1, what a dual-stack socket reports for IPv4
// clients) are treated as the IPv4 address.
import net from "node:net";

export interface IpAddress {
  version: 4 | 6;
  value: bigint;
}

export interface IpRange {
  version: 4 | 6;
  network: bigint;
  prefix: number;
}

const bitsOf = (version: 4 | 6) => (version === 4 ? 32 : 128);

function parseV4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseV6(text: string): bigint | undefined {
  if (!net.isIPv6(text)) return undefined;
  let head = text;
  let tailV4: bigint | undefined;
  const lastColon = head.lastIndexOf(":");
  if (head.slice(lastColon + 1).includes(".")) {
    tailV4 = parseV4(head.slice(lastColon + 1));
    if (tailV4 === undefined) return undefined;
    head = `${head.slice(0, lastColon + 1)}0:0`;
  }
  const [left, right, extra] = head.split("::");
  if (extra !== undefined) return undefined;
  const groups = (s: string | undefined) => (s ? s.split(":") : []);
  const l = groups(left);
  const r = groups(right);
  const missing = 8 - l.length - r.length;
  if (right === undefined ? missing !== 0 : missing < 0) return undefined;
  const all = [...l, ...Array<string>(right === undefined ? 0 : missing).fill("0"), ...r];
  let value = 0n;
  for (const g of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    value = (value << 16n) | BigInt(parseInt(g, 16));
  }
  if (tailV4 !== undefined) value = (value & ~0xffffffffn) | tailV4;
  return value;
}

const MAPPED_PREFIX = 0xffffn << 32n;

/** Parses one address (no brackets, no zone); IPv4-mapped IPv6 becomes IPv4. */
export function parseIp(text: string): IpAddress | undefined {
  const t = text.trim();
  const v4 = parseV4(t);
  if (v4 !== undefined) return { version: 4, value: v4 };
  const v6 = t.includes("%") ? undefined : parseV6(t);
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return { version: 4, value: v6 & 0xffffffffn };
  return { version: 6, value: v6 };
}

function formatV4(v: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 255n)).join(".");
}

function formatV6(v: bigint): string {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((v >> BigInt(i * 16)) & 0xffffn));
  // RFC 5952: compress the longest run (of at least two) of zero groups, the first one on ties.
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLen).join(":")}`;
}

export function formatIp(a: IpAddress): string {
  return a.version === 4 ? formatV4(a.value) : formatV6(a.value);
}

export type RangeParse = { ok: true; range: IpRange } | { ok: false; reason: string };

/**
 * Parses "192.0.2.7", "2001:db8::1", "192.0.2.0/24" or "2001:db8::/32". A range whose address has
 * host bits set ("192.0.2.7/24") is refused, naming the network that was probably meant.
 */
export function parseRange(text: string): RangeParse {
  const [addr, prefixText, extra] = text.trim().split("/");
  if (extra !== undefined || addr === undefined) return { ok: false, reason: "is not an IP address or CIDR range" };
  const raw = parseIp(addr);
  if (!raw) return { ok: false, reason: "is not an IPv4 or IPv6 address" };
  // An IPv4-mapped IPv6 range is written with a /96+ prefix; keep the literal family for prefix checks.
  const writtenV6 = addr.includes(":");
  const ip: IpAddress = writtenV6 && raw.version === 4 ? { version: 6, value: MAPPED_PREFIX | raw.value } : raw;
  const bits = bitsOf(ip.version);
  let prefix = bits;
  if (prefixText !== undefined) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(prefixText) || Number(prefixText) > bits) {
      return { ok: false, reason: `has a prefix length outside 0–${bits}` };
    }
    prefix = Number(prefixText);
  }
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);
  const network = ip.value & mask;
  if (network !== ip.value) {
    return {
      ok: false,
      reason: `has host bits set; the network is ${formatIp({ version: ip.version, value: network })}/${prefix}`,
    };
  }
  // A mapped-IPv4 range covering only the mapped space becomes the equivalent IPv4 range.
  if (ip.version === 6 && prefix >= 96 && network >> 32n === 0xffffn) {
    return { ok: true, range: { version: 4, network: network & 0xffffffffn, prefix: prefix - 96 } };
  }
  return { ok: true, range: { version: ip.version, network, prefix } };
}

/** Canonical text: a single address without a prefix, a range as network/prefix. */
export function formatRange(r: IpRange): string {
  const addr = formatIp({ version: r.version, value: r.network });
  return r.prefix === bitsOf(r.version) ? addr : `${addr}/${r.prefix}`;
}

export function rangeContains(r: IpRange, a: IpAddress): boolean {
  if (r.version !== a.version) return false;
  const bits = bitsOf(r.version);
  const shift = BigInt(bits - r.prefix);
  return a.value >> shift === r.network >> shift;
}

/** Whether `address` (request.ip) falls in any of the canonical ranges. */
export function addressAllowed(address: string, ranges: Iterable<string>): boolean {
  const a = parseIp(address);
  if (!a) return false;
  for (const text of ranges) {
    const parsed = parseRange(text);
    if (parsed.ok && rangeContains(parsed.range, a)) return true;
  }
  return false;
}
