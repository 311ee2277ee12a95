import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { allowAnyAddress, checkAddress, parseIPv4, parseIPv6, type AddressRefusal } from "./address-policy.js";

const refused: Array<[string, AddressRefusal]> = [
  // IPv4
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "this_network"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["100.64.0.1", "carrier_grade_nat"],
  ["100.127.255.254", "carrier_grade_nat"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.169.254", "link_local"],
  ["169.254.0.1", "link_local"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.8", "protocol_assignment"],
  ["192.0.2.10", "documentation"],
  ["192.88.99.1", "reserved"],
  ["192.168.1.1", "private"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.254", "reserved"],
  ["255.255.255.255", "broadcast"],
  // IPv6
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::FFFF:7F00:0001", "loopback"],
  ["::ffff:169.254.169.254", "link_local"],
  ["::ffff:a9fe:a9fe", "link_local"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:0:10.0.0.1", "private"],
  ["::ffff:0.0.0.0", "unspecified"],
  ["::127.0.0.1", "reserved"],
  ["::8.8.8.8", "reserved"],
  ["64:ff9b::127.0.0.1", "loopback"],
  ["64:ff9b::a00:1", "private"],
  ["64:ff9b::169.254.169.254", "link_local"],
  ["64:ff9b:1::1", "private"],
  ["2002:7f00:1::", "loopback"],
  ["2002:a00:1::1", "private"],
  ["2002:a9fe:a9fe::1", "link_local"],
  ["fc00::1", "unique_local"],
  ["fd00::1", "unique_local"],
  ["fdff:ffff::1", "unique_local"],
  ["fe80::1", "link_local"],
  ["fe80::1%eth0", "link_local"],
  ["febf:ffff::1", "link_local"],
  ["fec0::1", "site_local"],
  ["ff02::1", "multicast"],
  ["ff0e::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["2001:0db8:85a3::8a2e:370:7334", "documentation"],
  ["3fff::1", "documentation"],
  ["3fff:fff::1", "documentation"],
  ["2001::1", "protocol_assignment"],
  ["2001:1ff::1", "protocol_assignment"],
  ["100::1", "not_global_unicast"],
  ["4000::1", "not_global_unicast"],
  ["1::1", "not_global_unicast"],
];

const allowed = [
  "93.184.216.34",
  "8.8.8.8",
  "1.1.1.1",
  "172.32.0.1",
  "172.15.255.255",
  "100.128.0.1",
  "100.63.255.255",
  "169.253.255.255",
  "192.169.0.1",
  "223.255.255.255",
  "2606:2800:220:1:248:1893:25c8:1946",
  "2a00:1450:4001:81b::200e",
  "2001:4860:4860::8888",
  "2001:200::1",
  "3fff:1000::1",
  "::ffff:93.184.216.34",
  "::ffff:5db8:d822",
  "64:ff9b::8.8.8.8",
  "2002:5db8:d822::1",
];

describe("checkAddress", () => {
  for (const [address, reason] of refused) {
    it(`refuses ${address} as ${reason}`, () => {
      assert.deepEqual(checkAddress(address), { allowed: false, reason });
    });
  }

  it("allows public unicast addresses, including public IPv4 inside mapped, NAT64 and 6to4 forms", () => {
    for (const address of allowed) assert.deepEqual(checkAddress(address), { allowed: true }, address);
  });

  it("refuses anything that is not an IP address", () => {
    for (const text of ["example.com", "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "::g", "127.0.0.1 ", "0x7f.0.0.1", "2130706433"]) {
      assert.deepEqual(checkAddress(text), { allowed: false, reason: "invalid" }, text);
    }
  });

  it("judges an address by the family it is given", () => {
    assert.deepEqual(checkAddress("::1", 4), { allowed: false, reason: "invalid" });
    assert.deepEqual(checkAddress("127.0.0.1", 6), { allowed: false, reason: "invalid" });
    assert.deepEqual(checkAddress("::ffff:127.0.0.1", 6), { allowed: false, reason: "loopback" });
  });
});

describe("parseIPv4 and parseIPv6", () => {
  it("parses dotted quads to unsigned integers", () => {
    assert.equal(parseIPv4("127.0.0.1"), 0x7f000001);
    assert.equal(parseIPv4("255.255.255.255"), 0xffffffff);
    assert.equal(parseIPv4("::1"), null);
  });

  it("parses every textual IPv6 form to the same 16 bytes", () => {
    const expect = (text: string, hex: string): void => assert.equal(Buffer.from(parseIPv6(text) ?? []).toString("hex"), hex, text);
    expect("::", "00000000000000000000000000000000");
    expect("::1", "00000000000000000000000000000001");
    expect("1::", "00010000000000000000000000000000");
    expect("2001:db8::ff00:42:8329", "20010db8000000000000ff0000428329");
    expect("2001:0db8:0000:0000:0000:ff00:0042:8329", "20010db8000000000000ff0000428329");
    expect("::ffff:192.0.2.128", "00000000000000000000ffffc0000280");
    expect("[fe80::1%25eth0]", "fe800000000000000000000000000001");
    assert.equal(parseIPv6("1:2:3:4:5:6:7:8:9"), null);
    assert.equal(parseIPv6("1::2::3"), null);
    assert.equal(parseIPv6("127.0.0.1"), null);
  });
});

describe("allowAnyAddress", () => {
  it("allows private addresses but still refuses non-addresses", () => {
    assert.deepEqual(allowAnyAddress("127.0.0.1", 4), { allowed: true });
    assert.deepEqual(allowAnyAddress("fe80::1%lo", 6), { allowed: true });
    assert.deepEqual(allowAnyAddress("localhost", 4), { allowed: false, reason: "invalid" });
  });
});
