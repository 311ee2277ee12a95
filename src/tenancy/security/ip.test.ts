import { test } from "node:test";
import assert from "node:assert/strict";
import { addressAllowed, formatRange, parseIp, parseRange } from "./ip.js";

const canonical = (text: string) => {
  const r = parseRange(text);
  return r.ok ? formatRange(r.range) : `error: ${r.reason}`;
};

test("parses IPv4, IPv6 and IPv4-mapped IPv6 addresses", () => {
  assert.deepEqual(parseIp("192.0.2.1"), { version: 4, value: 0xc0000201n });
  assert.equal(parseIp("2001:db8::1")?.version, 6);
  assert.deepEqual(parseIp("::ffff:192.0.2.1"), { version: 4, value: 0xc0000201n }, "mapped IPv4 is IPv4");
  assert.deepEqual(parseIp("::ffff:c000:201"), { version: 4, value: 0xc0000201n });
  for (const bad of [
    "",
    "1.2.3",
    "1.2.3.4.5",
    "256.1.1.1",
    "01.2.3.4",
    "fe80::1%eth0",
    "2001:db8:::1",
    "gggg::1",
    "1:2:3:4:5:6:7:8:9",
    "localhost",
  ]) {
    assert.equal(parseIp(bad), undefined, bad);
  }
});

test("canonicalises addresses and ranges", () => {
  assert.equal(canonical("203.0.113.7"), "203.0.113.7");
  assert.equal(canonical("203.0.113.7/32"), "203.0.113.7");
  assert.equal(canonical("203.0.113.0/24"), "203.0.113.0/24");
  assert.equal(canonical("2001:DB8:0:0:0:0:0:1"), "2001:db8::1");
  assert.equal(canonical("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1", "first longest zero run is compressed");
  assert.equal(canonical("2001:db8::/32"), "2001:db8::/32");
  assert.equal(canonical("::/0"), "::/0");
  assert.equal(canonical("0.0.0.0/0"), "0.0.0.0/0");
  assert.equal(canonical("::ffff:198.51.100.0/120"), "198.51.100.0/24", "mapped range becomes IPv4");
  assert.equal(canonical("::1"), "::1");
});

test("refuses malformed ranges and ranges with host bits set", () => {
  assert.match(canonical("203.0.113.7/24"), /host bits set; the network is 203\.0\.113\.0\/24/);
  assert.match(canonical("2001:db8::1/32"), /network is 2001:db8::\/32/);
  assert.match(canonical("203.0.113.0/33"), /prefix length outside 0–32/);
  assert.match(canonical("2001:db8::/129"), /prefix length outside 0–128/);
  assert.match(canonical("203.0.113.0/ 24"), /prefix/);
  assert.match(canonical("203.0.113.0/24/1"), /not an IP address/);
  assert.match(canonical("example.com"), /not an IPv4 or IPv6 address/);
});

test("matches addresses against single addresses and CIDR ranges of both families", () => {
  const list = ["203.0.113.0/24", "198.51.100.7", "2001:db8:abcd::/48", "2001:db8::5"];
  assert.equal(addressAllowed("203.0.113.200", list), true);
  assert.equal(addressAllowed("203.0.114.1", list), false);
  assert.equal(addressAllowed("198.51.100.7", list), true);
  assert.equal(addressAllowed("198.51.100.8", list), false);
  assert.equal(addressAllowed("::ffff:203.0.113.9", list), true, "dual-stack socket form of an IPv4 client");
  assert.equal(addressAllowed("2001:db8:abcd:12::1", list), true);
  assert.equal(addressAllowed("2001:db8:abce::1", list), false);
  assert.equal(addressAllowed("2001:db8::5", list), true);
  assert.equal(addressAllowed("2001:db8::6", list), false);
  assert.equal(addressAllowed("not-an-ip", list), false);
  assert.equal(addressAllowed("10.0.0.1", ["0.0.0.0/0"]), true);
  assert.equal(addressAllowed("2001:db8::1", ["0.0.0.0/0"]), false, "an IPv4 range never matches IPv6");
  assert.equal(addressAllowed("2001:db8::1", ["::/0"]), true);
});
