// Every server here listens on 127.0.0.1 only. Public-looking names and addresses are served
// locally through two seams: an injected `lookup` (what DNS answers) and `connectOverride`
// (where a checked address really connects), which throws for any address a test did not map,
// so no test can reach the network.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { createSafeFetch, OutboundError, type LookupFn, type ResolvedAddress, type SafeFetchOptions } from "./safe-fetch.js";

// Self-signed test-only certificate for images.shopsight-test.example (valid until 2126).
// The key protects nothing; it exists so the https path (SNI, certificate name check against the
// original host while connecting to a pinned IP) is tested without a network.
const TEST_HOST = "images.shopsight-test.example";
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg7X8wmXvKb35rSHXH
eMwGkvaNxzmJu4/6n+kqDP2LNuKhRANCAAR9lO27oG7pbWdibLHOwQ7kYXksP1QL
6gBRiq5nZW5HQWI7DRTatVj/UUzNHaome5TgJcHcV5s3ogU2ytRLACpe
-----END PRIVATE KEY-----
`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIB0jCCAXegAwIBAgIUQItqQfhshMuSIlZU9PTvlEauv6kwCgYIKoZIzj0EAwIw
KDEmMCQGA1UEAwwdaW1hZ2VzLnNob3BzaWdodC10ZXN0LmV4YW1wbGUwIBcNMjYx
MTIxMTYwNjAxWhgPMjEyNjEwMjgxNjA2MDFaMCgxJjAkBgNVBAMMHWltYWdlcy5z
aG9wc2lnaHQtdGVzdC5leGFtcGxlMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE
fZTtu6Bu6W1nYmyxzsEO5GF5LD9UC+oAUYquZ2VuR0FiOw0U2rVY/1FMzR2qJnuU
4CXB3FebN6IFNsrUSwAqXqN9MHswHQYDVR0OBBYEFDPzW494CnD4qW1fXF2bR7QM
2BCYMB8GA1UdIwQYMBaAFDPzW494CnD4qW1fXF2bR7QM2BCYMA8GA1UdEwEB/wQF
MAMBAf8wKAYDVR0RBCEwH4IdaW1hZ2VzLnNob3BzaWdodC10ZXN0LmV4YW1wbGUw
CgYIKoZIzj0EAwIDSQAwRgIhAMJHOVoRTKk8yukSiI13hkqe/cHUvpHV32kKxYm0
3F1lAiEA/pmCGtoz66tojUtUaWwcpvEc0L/d0GPxJKnwgN55M2I=
-----END CERTIFICATE-----
`;

/** Documentation-free public addresses that tests pretend DNS returns. */
const PUBLIC_A = "93.184.216.34";
const PUBLIC_B = "93.184.216.35";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

interface TestServer {
  port: number;
  origin: string;
  requests: http.IncomingMessage[];
  close(): void;
}

const servers: TestServer[] = [];
after(() => {
  for (const s of servers) s.close();
});

async function serve(handler: Handler, secure = false): Promise<TestServer> {
  const requests: http.IncomingMessage[] = [];
  const wrapped: Handler = (req, res) => {
    requests.push(req);
    handler(req, res);
  };
  const server = secure ? https.createServer({ key: TEST_KEY, cert: TEST_CERT }, wrapped) : http.createServer(wrapped);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const s: TestServer = {
    port,
    origin: `${secure ? "https" : "http"}://127.0.0.1:${port}`,
    requests,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
  servers.push(s);
  return s;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** A lookup answering from a table, counting calls. */
function fakeDns(table: Record<string, string[] | (() => string[])>): LookupFn & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const entry = table[hostname];
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    const list = typeof entry === "function" ? entry() : entry;
    return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(fn, { calls });
}

/** connectOverride mapping "public" address:port pairs to local ports; refuses anything else. */
function pinTo(map: Record<string, number>): NonNullable<SafeFetchOptions["connectOverride"]> & { seen: string[] } {
  const seen: string[] = [];
  const fn = (t: { address: string; port: number }): { address: string; port: number } => {
    seen.push(`${t.address}:${t.port}`);
    const local = map[`${t.address}:${t.port}`];
    if (local === undefined) throw new Error(`test tried to connect to unmapped ${t.address}:${t.port}`);
    return { address: "127.0.0.1", port: local };
  };
  return Object.assign(fn, { seen });
}

const base = { timeoutMs: 2000, maxBytes: 1024 * 1024 };

async function rejectsWith(p: Promise<unknown>, kind: OutboundError["kind"], check?: (e: OutboundError) => void): Promise<OutboundError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof OutboundError, `expected OutboundError, got ${String(err)}`);
    assert.equal(err.kind, kind, `${err.kind}: ${err.message}`);
    check?.(err);
    return err;
  }
  assert.fail(`expected ${kind}, but the fetch succeeded`);
}

describe("safeFetch: basics", () => {
  it("fetches a body with status, lower-case headers, final url and duration", async () => {
    const s = await serve((req, res) => {
      res.setHeader("X-Echo-Host", req.headers.host ?? "");
      res.setHeader("X-Echo-Encoding", req.headers["accept-encoding"] ?? "");
      res.end("hello");
    });
    const fetch = createSafeFetch({ ...base, allowPrivate: true });
    const res = await fetch(`${s.origin}/a?b=1`, { headers: { Host: "evil.example", "Accept-Encoding": "gzip" } });
    fetch.close();
    assert.equal(res.status, 200);
    assert.equal(res.body.toString(), "hello");
    assert.equal(res.url, `${s.origin}/a?b=1`);
    assert.equal(res.headers["x-echo-host"], `127.0.0.1:${s.port}`, "Host cannot be overridden");
    assert.equal(res.headers["x-echo-encoding"], "identity", "no compressed bodies");
    assert.equal(res.redirects, 0);
    assert.equal(res.address, "127.0.0.1");
    assert.ok(res.durationMs >= 0 && res.durationMs < 2000);
    assert.equal(s.requests[0]?.url, "/a?b=1");
  });

  it("returns non-2xx answers as responses, not errors", async () => {
    const s = await serve((_req, res) => {
      res.statusCode = 404;
      res.end("nope");
    });
    const fetch = createSafeFetch({ ...base, allowPrivate: true });
    const res = await fetch(`${s.origin}/missing`);
    fetch.close();
    assert.equal(res.status, 404);
    assert.equal(res.body.toString(), "nope");
  });

  it("sends a request body with its length", async () => {
    const s = await serve((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => res.end(`${req.method} ${req.headers["content-length"]} ${body}`));
    });
    const fetch = createSafeFetch({ ...base, allowPrivate: true });
    const res = await fetch(`${s.origin}/hook`, { method: "post", body: '{"a":1}', headers: { "content-type": "application/json" } });
    fetch.close();
    assert.equal(res.body.toString(), 'POST 7 {"a":1}');
  });
});

describe("safeFetch: URL and scheme refusals", () => {
  const fetch = createSafeFetch({ ...base, allowPrivate: false, lookup: fakeDns({}) });
  after(() => fetch.close());

  for (const url of [
    "file:///etc/passwd",
    "ftp://example.com/a.jpg",
    "data:image/png;base64,AAAA",
    "javascript:alert(1)",
    "gopher://example.com/",
    "not a url",
    "/relative.jpg",
    "",
  ]) {
    it(`refuses ${JSON.stringify(url)} as invalid_url`, async () => {
      await rejectsWith(fetch(url), "invalid_url");
    });
  }

  it("refuses plain http when private addresses are not allowed, before resolving", async () => {
    const dns = fakeDns({ "public.test": [PUBLIC_A] });
    const f = createSafeFetch({ ...base, allowPrivate: false, lookup: dns });
    await rejectsWith(f("http://public.test/a.jpg"), "invalid_url", (e) => assert.equal(e.details.reason, "https_required"));
    assert.deepEqual(dns.calls, []);
    f.close();
  });

  it("refuses URLs with credentials and overlong URLs", async () => {
    await rejectsWith(fetch("https://user:pw@public.test/a.jpg"), "invalid_url", (e) =>
      assert.equal(e.details.reason, "credentials_in_url"),
    );
    await rejectsWith(fetch(`https://public.test/${"a".repeat(9000)}`), "invalid_url", (e) => assert.equal(e.details.reason, "too_long"));
  });
});

describe("safeFetch: address checks", () => {
  it("refuses a URL to 127.0.0.1 when private addresses are not allowed", async () => {
    const s = await serve((_req, res) => res.end("secret"));
    const fetch = createSafeFetch({ ...base, allowPrivate: false, allowHttp: true });
    await rejectsWith(fetch(`${s.origin}/`), "address_not_allowed", (e) => assert.equal(e.details.reason, "loopback"));
    fetch.close();
    assert.equal(s.requests.length, 0);
  });

  const literals: Array<[string, string]> = [
    ["https://127.0.0.1/", "loopback"],
    ["https://127.1/", "loopback"],
    ["https://2130706433/", "loopback"],
    ["https://0x7f.0.0.1/", "loopback"],
    ["https://[::1]/", "loopback"],
    ["https://[::ffff:127.0.0.1]/", "loopback"],
    ["https://[::ffff:7f00:1]/", "loopback"],
    ["https://169.254.169.254/latest/meta-data/", "link_local"],
    ["https://[fd00::1]/", "unique_local"],
    ["https://[fe80::1]/", "link_local"],
    ["https://10.0.0.1/", "private"],
    ["https://0.0.0.0/", "unspecified"],
    ["https://[::]/", "unspecified"],
    ["https://224.0.0.1/", "multicast"],
  ];
  for (const [url, reason] of literals) {
    it(`refuses the IP literal ${url} (${reason})`, async () => {
      const fetch = createSafeFetch({ ...base, allowPrivate: false, connectOverride: pinTo({}) });
      await rejectsWith(fetch(url), "address_not_allowed", (e) => assert.equal(e.details.reason, reason));
      fetch.close();
    });
  }

  const answers: Array<[string, string[], string]> = [
    ["127.0.0.1", ["127.0.0.1"], "loopback"],
    ["::ffff:127.0.0.1", ["::ffff:127.0.0.1"], "loopback"],
    ["169.254.169.254", ["169.254.169.254"], "link_local"],
    ["fd00::1", ["fd00::1"], "unique_local"],
    ["::1", ["::1"], "loopback"],
    ["a public and a private address", [PUBLIC_A, "10.1.2.3"], "private"],
  ];
  const refusalMessages = new Set<string>();
  for (const [label, addresses, reason] of answers) {
    it(`refuses a public-looking name that resolves to ${label}`, async () => {
      const pin = pinTo({});
      const fetch = createSafeFetch({
        ...base,
        allowPrivate: false,
        lookup: fakeDns({ "cdn.public.test": addresses }),
        connectOverride: pin,
      });
      await rejectsWith(fetch("https://cdn.public.test/a.jpg"), "address_not_allowed", (e) => {
        assert.equal(e.details.reason, reason, "the internal details keep the class (for the log)");
        assert.equal(e.details.resolved, true);
        assert.equal(e.details.host, "cdn.public.test");
        // The message, which callers may show, is the same whatever the name resolved to.
        refusalMessages.add(e.message);
        assert.equal(refusalMessages.size, 1, [...refusalMessages].join(" | "));
        for (const address of addresses) assert.equal(e.message.includes(address), false);
      });
      fetch.close();
      assert.deepEqual(pin.seen, [], "no connection attempted");
    });
  }

  it("refuses localhost through the real resolver", async () => {
    const fetch = createSafeFetch({ ...base, allowPrivate: false, connectOverride: pinTo({}) });
    await rejectsWith(fetch("https://localhost/"), "address_not_allowed", (e) => assert.equal(e.details.reason, "loopback"));
    fetch.close();
  });

  it("connects only to the checked address when DNS answers differently later (rebinding)", async () => {
    const s = await serve((req, res) => res.end(`host=${req.headers.host}`));
    let answers = 0;
    const dns = fakeDns({ "rebind.test": () => (answers++ === 0 ? [PUBLIC_A] : ["127.0.0.1"]) });
    const pin = pinTo({ [`${PUBLIC_A}:80`]: s.port });
    const fetch = createSafeFetch({ ...base, allowPrivate: false, allowHttp: true, lookup: dns, connectOverride: pin });
    const res = await fetch("http://rebind.test/a.jpg");
    fetch.close();
    assert.equal(res.body.toString(), "host=rebind.test");
    assert.equal(res.address, PUBLIC_A);
    assert.deepEqual(dns.calls, ["rebind.test"], "resolved once per hop");
    assert.deepEqual(pin.seen, [`${PUBLIC_A}:80`], "the socket was pinned to the checked address");
  });

  it("tries the next checked address when the first refuses the connection", async () => {
    const s = await serve((_req, res) => res.end("second"));
    const dead = await closedPort();
    const pin = pinTo({ [`${PUBLIC_A}:80`]: dead, [`${PUBLIC_B}:80`]: s.port });
    const fetch = createSafeFetch({
      ...base,
      allowPrivate: false,
      allowHttp: true,
      lookup: fakeDns({ "two.test": [PUBLIC_A, PUBLIC_B] }),
      connectOverride: pin,
    });
    const res = await fetch("http://two.test/");
    fetch.close();
    assert.equal(res.body.toString(), "second");
    assert.equal(res.address, PUBLIC_B);
  });

  it("lifts the address check with allowPrivate", async () => {
    const s = await serve((_req, res) => res.end("ok"));
    const fetch = createSafeFetch({ ...base, allowPrivate: true, lookup: fakeDns({ "dev.test": ["127.0.0.1"] }) });
    const res = await fetch(`http://dev.test:${s.port}/`);
    fetch.close();
    assert.equal(res.body.toString(), "ok");
  });
});

describe("safeFetch: https with a pinned address", () => {
  it("verifies the certificate and sends SNI for the host name while connecting to the checked IP", async () => {
    const s = await serve((req, res) => {
      const socket = req.socket as import("node:tls").TLSSocket;
      res.end(`sni=${socket.servername} host=${req.headers.host}`);
    }, true);
    const pin = pinTo({ [`${PUBLIC_A}:443`]: s.port });
    const fetch = createSafeFetch({
      ...base,
      allowPrivate: false,
      lookup: fakeDns({ [TEST_HOST]: [PUBLIC_A] }),
      connectOverride: pin,
      ca: TEST_CERT,
    });
    const res = await fetch(`https://${TEST_HOST}/img.jpg`);
    fetch.close();
    assert.equal(res.body.toString(), `sni=${TEST_HOST} host=${TEST_HOST}`);
    assert.deepEqual(pin.seen, [`${PUBLIC_A}:443`]);
  });

  it("refuses a certificate that does not name the host", async () => {
    const s = await serve((_req, res) => res.end("x"), true);
    const fetch = createSafeFetch({
      ...base,
      allowPrivate: false,
      lookup: fakeDns({ "other.shopsight-test.example": [PUBLIC_A] }),
      connectOverride: pinTo({ [`${PUBLIC_A}:443`]: s.port }),
      ca: TEST_CERT,
    });
    await rejectsWith(fetch("https://other.shopsight-test.example/"), "unreachable", (e) => {
      assert.equal(e.details.code, "ERR_TLS_CERT_ALTNAME_INVALID");
      assert.equal(e.details.reason, "tls");
    });
    fetch.close();
  });

  it("refuses an untrusted certificate", async () => {
    const s = await serve((_req, res) => res.end("x"), true);
    const fetch = createSafeFetch({
      ...base,
      allowPrivate: false,
      lookup: fakeDns({ [TEST_HOST]: [PUBLIC_A] }),
      connectOverride: pinTo({ [`${PUBLIC_A}:443`]: s.port }),
    });
    await rejectsWith(fetch(`https://${TEST_HOST}/`), "unreachable", (e) => assert.equal(e.details.reason, "tls"));
    fetch.close();
  });
});

describe("safeFetch: redirects", () => {
  /** A server reached as http://public.test/ whose /go?to=… answers 302 to `to`. */
  async function redirector(
    status = 302,
  ): Promise<{ s: TestServer; fetchVia: (to: string) => Promise<unknown>; pin: ReturnType<typeof pinTo> }> {
    const s = await serve((req, res) => {
      const to = new URL(req.url ?? "/", "http://x").searchParams.get("to");
      if (to) {
        res.statusCode = status;
        res.setHeader("location", to);
        res.end();
      } else res.end("landed");
    });
    const pin = pinTo({ [`${PUBLIC_A}:80`]: s.port });
    const fetch = createSafeFetch({
      ...base,
      allowPrivate: false,
      allowHttp: true,
      lookup: fakeDns({ "public.test": [PUBLIC_A], "internal.test": ["10.0.0.5"], "meta.test": ["169.254.169.254"] }),
      connectOverride: pin,
    });
    after(() => fetch.close());
    return { s, pin, fetchVia: (to) => fetch(`http://public.test/go?to=${encodeURIComponent(to)}`) };
  }

  const targets: Array<[string, string]> = [
    ["http://127.0.0.1:9/", "loopback"],
    ["http://[::1]/", "loopback"],
    ["http://169.254.169.254/latest/meta-data/", "link_local"],
    ["http://[::ffff:127.0.0.1]/", "loopback"],
    ["http://[fd00::1]/", "unique_local"],
    ["http://internal.test/", "private"],
    ["http://meta.test/", "link_local"],
  ];
  for (const [to, reason] of targets) {
    it(`re-checks a redirect to ${to} and refuses it (${reason})`, async () => {
      const { fetchVia, pin } = await redirector();
      await rejectsWith(fetchVia(to), "address_not_allowed", (e) => assert.equal(e.details.reason, reason));
      assert.deepEqual(pin.seen, [`${PUBLIC_A}:80`], "only the first, checked hop connected");
    });
  }

  it("refuses a redirect to a non-http scheme", async () => {
    const { fetchVia } = await redirector();
    await rejectsWith(fetchVia("file:///etc/passwd"), "invalid_url");
  });

  it("refuses a redirect from https down to plain http", async () => {
    const s = await serve((_req, res) => {
      res.statusCode = 301;
      res.setHeader("location", `http://${TEST_HOST}/plain`);
      res.end();
    }, true);
    const fetch = createSafeFetch({
      ...base,
      allowPrivate: false,
      lookup: fakeDns({ [TEST_HOST]: [PUBLIC_A] }),
      connectOverride: pinTo({ [`${PUBLIC_A}:443`]: s.port }),
      ca: TEST_CERT,
    });
    await rejectsWith(fetch(`https://${TEST_HOST}/`), "invalid_url", (e) => assert.equal(e.details.reason, "https_required"));
    fetch.close();
  });

  it("follows a redirect to a public address", async () => {
    const { fetchVia } = await redirector(307);
    const res = (await fetchVia("/landing")) as { body: Buffer; url: string; redirects: number };
    assert.equal(res.body.toString(), "landed");
    assert.equal(res.url, "http://public.test/landing");
    assert.equal(res.redirects, 1);
  });

  /** /hop/N redirects to /hop/N-1 (relative), /hop/0 answers. */
  async function chain(): Promise<TestServer> {
    return serve((req, res) => {
      const n = Number(/\/hop\/(\d+)/.exec(req.url ?? "")?.[1] ?? 0);
      if (n > 0) {
        res.statusCode = [301, 302, 303, 307, 308][n % 5] ?? 302;
        res.setHeader("location", `/hop/${n - 1}`);
        res.end();
      } else res.end("end");
    });
  }

  it("follows up to three redirects", async () => {
    const s = await chain();
    const fetch = createSafeFetch({ ...base, allowPrivate: true });
    const res = await fetch(`${s.origin}/hop/3`);
    fetch.close();
    assert.equal(res.body.toString(), "end");
    assert.equal(res.redirects, 3);
    assert.equal(res.url, `${s.origin}/hop/0`);
  });

  it("refuses a fourth redirect as too_many_redirects", async () => {
    const s = await chain();
    const fetch = createSafeFetch({ ...base, allowPrivate: true });
    await rejectsWith(fetch(`${s.origin}/hop/4`), "too_many_redirects", (e) => {
      assert.equal(e.details.limit, 3);
      assert.ok(e.status !== undefined && e.status >= 300 && e.status < 400);
    });
    fetch.close();
    assert.equal(s.requests.length, 4);
  });

  it("returns the redirect itself when followRedirects is false", async () => {
    const s = await chain();
    const fetch = createSafeFetch({ ...base, allowPrivate: true });
    const res = await fetch(`${s.origin}/hop/2`, { followRedirects: false });
    fetch.close();
    assert.equal(res.status, 303);
    assert.equal(res.headers.location, "/hop/1");
    assert.equal(s.requests.length, 1);
  });

  it("continues a 303 after POST as GET without body, keeps POST on 307", async () => {
    const s = await serve((req, res) => {
      if (req.url === "/see-other" || req.url === "/temporary") {
        res.statusCode = req.url === "/see-other" ? 303 : 307;
        res.setHeader("location", "/target");
        res.end();
        return;
      }
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => res.end(`${req.method}:${body}:${req.headers["content-type"] ?? "-"}`));
    });
    const fetch = createSafeFetch({ ...base, allowPrivate: true });
    const init = { method: "POST", body: "payload", headers: { "content-type": "text/plain" } };
    assert.equal((await fetch(`${s.origin}/see-other`, init)).body.toString(), "GET::-");
    assert.equal((await fetch(`${s.origin}/temporary`, init)).body.toString(), "POST:payload:text/plain");
    fetch.close();
  });

  it("drops credentials headers when a redirect leaves the origin", async () => {
    const target = await serve((req, res) => res.end(`auth=${req.headers.authorization ?? "-"} cookie=${req.headers.cookie ?? "-"}`));
    const origin = await serve((req, res) => {
      if (req.url === "/same") {
        res.statusCode = 302;
        res.setHeader("location", "/echo");
        res.end();
      } else if (req.url === "/echo") res.end(`auth=${req.headers.authorization ?? "-"}`);
      else {
        res.statusCode = 302;
        res.setHeader("location", `${target.origin}/`);
        res.end();
      }
    });
    const fetch = createSafeFetch({ ...base, allowPrivate: true });
    const headers = { authorization: "Bearer secret", cookie: "s=1" };
    assert.equal((await fetch(`${origin.origin}/same`, { headers })).body.toString(), "auth=Bearer secret");
    assert.equal((await fetch(`${origin.origin}/cross`, { headers })).body.toString(), "auth=- cookie=-");
    fetch.close();
  });
});

describe("safeFetch: size limits", () => {
  it("refuses a declared Content-Length above the limit without reading the body", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-length": String(50 * 1024 * 1024) });
      res.write(Buffer.alloc(1024)); // then hangs: the client must not wait for the rest
    });
    const fetch = createSafeFetch({ ...base, allowPrivate: true, maxBytes: 20 * 1024 * 1024 });
    await rejectsWith(fetch(`${s.origin}/big`), "too_large", (e) => {
      assert.equal(e.details.limit, 20 * 1024 * 1024);
      assert.equal(e.status, 200);
    });
    fetch.close();
  });

  it("cuts off a chunked body without a length once it passes the limit", async () => {
    let written = 0;
    const s = await serve((_req, res) => {
      const chunk = Buffer.alloc(16 * 1024, 7);
      const pump = (): void => {
        while (!res.destroyed && written < 100 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    const fetch = createSafeFetch({ ...base, allowPrivate: true });
    await rejectsWith(fetch(`${s.origin}/stream`, { maxBytes: 64 * 1024 }), "too_large", (e) => assert.equal(e.details.limit, 64 * 1024));
    fetch.close();
    assert.ok(written < 100 * 1024 * 1024, "the client stopped reading early");
  });

  it("accepts a body of exactly the limit, with and without Content-Length", async () => {
    const s = await serve((req, res) => {
      const body = Buffer.alloc(1000, 1);
      if (req.url === "/sized") res.setHeader("content-length", "1000");
      res.end(body);
    });
    const fetch = createSafeFetch({ ...base, allowPrivate: true, maxBytes: 1000 });
    assert.equal((await fetch(`${s.origin}/sized`)).body.length, 1000);
    assert.equal((await fetch(`${s.origin}/chunked`)).body.length, 1000);
    await rejectsWith(fetch(`${s.origin}/sized`, { maxBytes: 999 }), "too_large");
    fetch.close();
  });

  it("reports a body that ends before its Content-Length as unreachable", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("only ten b");
      setImmediate(() => res.socket?.destroy());
    });
    const fetch = createSafeFetch({ ...base, allowPrivate: true });
    await rejectsWith(fetch(`${s.origin}/cut`), "unreachable");
    fetch.close();
  });
});

describe("safeFetch: deadline", () => {
  it("times out a body dribbling in slower than the total deadline", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "image/jpeg" });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write("x")), 50);
      res.on("close", () => clearInterval(timer));
    });
    const fetch = createSafeFetch({ ...base, allowPrivate: true, timeoutMs: 300 });
    const started = Date.now();
    await rejectsWith(fetch(`${s.origin}/slow`), "timeout", (e) => assert.equal(e.details.limit, 300));
    fetch.close();
    assert.ok(Date.now() - started < 1500, "the deadline covers the body");
  });

  it("times out a server that never answers", async () => {
    const s = await serve(() => undefined);
    const fetch = createSafeFetch({ ...base, allowPrivate: true });
    await rejectsWith(fetch(`${s.origin}/never`, { timeoutMs: 200 }), "timeout");
    fetch.close();
  });

  it("counts redirect hops against the same deadline", async () => {
    const s = await serve((req, res) => {
      setTimeout(() => {
        res.statusCode = 302;
        res.setHeader("location", `/${Number(req.url?.slice(1) ?? 0) + 1}`);
        res.end();
      }, 120);
    });
    const fetch = createSafeFetch({ ...base, allowPrivate: true, timeoutMs: 300 });
    await rejectsWith(fetch(`${s.origin}/0`), "timeout");
    fetch.close();
  });

  it("times out name resolution that hangs", async () => {
    const fetch = createSafeFetch({ ...base, allowPrivate: false, timeoutMs: 200, lookup: () => new Promise(() => undefined) });
    await rejectsWith(fetch("https://slow-dns.test/"), "timeout");
    fetch.close();
  });
});

describe("safeFetch: unreachable", () => {
  it("reports a refused connection", async () => {
    const port = await closedPort();
    const fetch = createSafeFetch({ ...base, allowPrivate: true });
    await rejectsWith(fetch(`http://127.0.0.1:${port}/`), "unreachable", (e) => assert.equal(e.details.code, "ECONNREFUSED"));
    fetch.close();
  });

  it("reports a name that does not resolve", async () => {
    const fetch = createSafeFetch({ ...base, allowPrivate: false, lookup: fakeDns({}) });
    await rejectsWith(fetch("https://nowhere.test/"), "unreachable", (e) => {
      assert.equal(e.details.reason, "dns");
      assert.equal(e.details.code, "ENOTFOUND");
    });
    fetch.close();
  });
});
