// The one outbound HTTP client of the project (product images, webhooks, bulk callbacks,
// storefront calls). It exists to make server-side request forgery impossible by construction:
//
// - Only http: and https: URLs, without credentials, at most 8,192 characters. Plain http is
//   refused unless `allowHttp` (default: `allowPrivate`) is set.
// - Names are resolved here (not by the socket layer). EVERY resolved address is checked by the
//   address policy (`address-policy.ts`: loopback, private, link-local, CGNAT, unique-local,
//   multicast, documentation, reserved, IPv4-mapped/NAT64/6to4 forms …); one refused address
//   refuses the whole name. The socket then connects to the checked IP itself (the name is only
//   used for the Host header and for TLS SNI and certificate verification), so a DNS answer that
//   changes between check and connect (DNS rebinding) cannot redirect the connection.
// - Redirects (301, 302, 303, 307, 308) are followed by hand, at most `maxRedirects` (default 3);
//   every hop is parsed, resolved and checked again. Credentials headers (authorization, cookie,
//   proxy-authorization) are dropped when a redirect leaves the origin; 303 (and 301/302 after a
//   POST) continue as GET without a body.
// - One deadline (`timeoutMs`, default from OUTBOUND_TIMEOUT_MS = 10 s) covers DNS, connect, TLS,
//   every redirect hop and the whole body, so a server dribbling bytes slowly still times out.
// - The body is limited to `maxBytes` (default from OUTBOUND_MAX_BYTES = 20 MB): a larger
//   Content-Length is refused before reading, and a body without a length is cut off as soon as
//   it passes the limit. `Accept-Encoding: identity` is sent, nothing is decompressed.
// - OUTBOUND_ALLOW_PRIVATE=true (`allowPrivate`) lifts the address check and allows plain http,
//   for local development and tests only.
//
// Failures throw `OutboundError` with a `kind`; callers map kinds onto their own catalogue codes
// (images → image_* in src/embeddings/image.ts; webhooks record the kind in their delivery log).
// A response with any HTTP status (including 4xx/5xx and, with followRedirects=false, 3xx) is a
// successful fetch: the caller decides what the status means.
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { performance } from "node:perf_hooks";
import { allowAnyAddress, checkAddress, type AddressPolicy } from "./address-policy.js";
import { ALLOW_PRIVATE_HINT, normalizeHost } from "./target.js";
import { messageOf } from "../errors/catalogue.js";

/**
 * What went wrong, stable strings:
 * - `invalid_url`: not an absolute http(s) URL, credentials in the URL, plain http when only https
 *   is allowed, or a redirect Location that is any of these.
 * - `address_not_allowed`: the host (or a redirect target) resolves to a refused address.
 * - `unreachable`: DNS failure, connection refused/reset, TLS failure (bad certificate …), the
 *   response ended early.
 * - `timeout`: the total deadline passed (DNS, connect, headers, redirects and body together).
 * - `too_large`: Content-Length or the bytes received exceed `maxBytes`.
 * - `too_many_redirects`: more than `maxRedirects` redirects.
 */
export type OutboundErrorKind = "invalid_url" | "address_not_allowed" | "unreachable" | "timeout" | "too_large" | "too_many_redirects";

export interface OutboundErrorDetails {
  /** The URL being fetched when it failed (after redirects). */
  url?: string;
  /** Host name of that URL. */
  host?: string;
  /** The refused or failing address. Internal: do not show to API callers (it reveals internal DNS). */
  address?: string;
  /** The policy's refusal (an AddressRefusal, e.g. loopback) or a short machine reason (invalid_url, unreachable). */
  reason?: string;
  /**
   * The refused address came from resolving the host name: then `reason` (the address class) is
   * internal too — naming it would let a caller map internal DNS names; the log keeps it.
   */
  resolved?: boolean;
  /** The HTTP status of the last response, when one was received. */
  status?: number;
  /** The limit that was hit (bytes, milliseconds or redirects). */
  limit?: number;
  /** Node's error code (ECONNREFUSED, ENOTFOUND, ERR_TLS_CERT_ALTNAME_INVALID …). */
  code?: string;
}

export class OutboundError extends Error {
  override name = "OutboundError";
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
    readonly details: OutboundErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
  /** HTTP status of the last response received, if any. */
  get status(): number | undefined {
    return this.details.status;
  }
}

export const isOutboundError = (e: unknown): e is OutboundError => e instanceof OutboundError;

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses. Default: `dns.promises.lookup(host, {all: true})`. */
export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

export interface SafeFetchOptions {
  /** OUTBOUND_ALLOW_PRIVATE: lift the address check and allow plain http (development, tests). */
  allowPrivate: boolean;
  /** Default total deadline per fetch, ms (OUTBOUND_TIMEOUT_MS, default 10,000). */
  timeoutMs: number;
  /** Default body limit per fetch, bytes (OUTBOUND_MAX_BYTES, default 20 MB). */
  maxBytes: number;
  /** Redirects followed at most (default 3); one more is `too_many_redirects`. */
  maxRedirects?: number;
  /** User-Agent header (default "Shopsight/0.1 (+safe-fetch)"). */
  userAgent?: string;
  /** Name resolution, injectable for tests. */
  lookup?: LookupFn;
  /** Allow plain http. Default: `allowPrivate`. */
  allowHttp?: boolean;
  /** Address policy. Default: `checkAddress` (public unicast only), or any address when `allowPrivate`. */
  addressPolicy?: AddressPolicy;
  /** Reuse connections (per checked IP, port and TLS name). Default true. */
  keepAlive?: boolean;
  /** Trusted CA certificates for https, REPLACING the default roots (tests, private CAs). */
  ca?: string | Buffer | Array<string | Buffer>;
  /**
   * TEST SEAM ONLY — never set in production code. Called with each checked address right before
   * connecting; returns where the socket really connects. Lets tests serve a "public" address
   * from a loopback server and observe which address the connection was pinned to.
   */
  connectOverride?: (target: { hostname: string; address: string; family: 4 | 6; port: number }) => {
    address: string;
    port: number;
  };
}

export interface SafeFetchInit {
  /** Default GET. */
  method?: string;
  /** Request headers. host, content-length, connection and transfer-encoding are managed here. */
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Overrides the default deadline for this call, ms. */
  timeoutMs?: number;
  /** Overrides the default body limit for this call, bytes. */
  maxBytes?: number;
  /** Follow redirects (default true). When false a 3xx is returned as the response. */
  followRedirects?: boolean;
}

export interface SafeResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The final URL, after redirects. */
  url: string;
  /** Wall time of the whole fetch, all hops, ms. */
  durationMs: number;
  /** Redirects followed. */
  redirects: number;
  /** The checked IP address the final response came from. */
  address: string;
}

export type SafeFetch = ((url: string, init?: SafeFetchInit) => Promise<SafeResponse>) & {
  /** Closes idle pooled connections. The function stays usable. */
  close(): void;
};

const MAX_URL_LENGTH = 8192;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MANAGED_HEADERS = new Set(["host", "content-length", "connection", "transfer-encoding", "keep-alive"]);
const ORIGIN_BOUND_HEADERS = new Set(["authorization", "cookie", "proxy-authorization"]);
/** Errors that happen before a request was sent: the next resolved address may be tried. */
const CONNECT_ERRORS = new Set(["ECONNREFUSED", "ENETUNREACH", "EHOSTUNREACH", "EADDRNOTAVAIL", "EAFNOSUPPORT"]);

const defaultLookup: LookupFn = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Creates a fetch function with the given limits and policy. */
export function createSafeFetch(opts: SafeFetchOptions): SafeFetch {
  const maxRedirects = opts.maxRedirects ?? 3;
  const userAgent = opts.userAgent ?? "Shopsight/0.1 (+safe-fetch)";
  const lookup = opts.lookup ?? defaultLookup;
  const allowHttp = opts.allowHttp ?? opts.allowPrivate;
  const policy: AddressPolicy = opts.addressPolicy ?? (opts.allowPrivate ? allowAnyAddress : checkAddress);
  const keepAlive = opts.keepAlive ?? true;
  // Idle sockets are dropped after 4 s, below the common 5 s server keep-alive, to avoid reusing
  // a socket the server is closing. Pools are keyed by the checked IP, so reuse cannot bypass a check.
  const httpAgent = new http.Agent({ keepAlive, timeout: 4000 });
  const httpsAgent = new https.Agent({ keepAlive, timeout: 4000 });

  function parseTarget(raw: string, base?: URL): URL {
    if (raw.length > MAX_URL_LENGTH) {
      throw new OutboundError("invalid_url", `The URL is longer than ${MAX_URL_LENGTH} characters.`, {
        reason: "too_long",
        limit: MAX_URL_LENGTH,
      });
    }
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      throw new OutboundError("invalid_url", "The URL is not a valid absolute URL.", { reason: "unparsable" });
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new OutboundError("invalid_url", "Only http and https URLs can be fetched.", {
        url: url.href,
        reason: "unsupported_scheme",
      });
    }
    if (url.protocol === "http:" && !allowHttp) {
      throw new OutboundError("invalid_url", `Only https URLs can be fetched; ${ALLOW_PRIVATE_HINT}.`, {
        url: url.href,
        reason: "https_required",
      });
    }
    if (url.username !== "" || url.password !== "") {
      throw new OutboundError("invalid_url", "URLs with credentials are not fetched.", { reason: "credentials_in_url" });
    }
    if (url.hostname === "") throw new OutboundError("invalid_url", "The URL has no host.", { reason: "no_host" });
    return url;
  }

  /** Resolves (unless an IP literal) and checks every address. */
  async function resolve(url: URL, deadline: Deadline): Promise<ResolvedAddress[]> {
    const hostname = normalizeHost(url.hostname);
    const literal = net.isIP(hostname);
    let addresses: ResolvedAddress[];
    if (literal !== 0) {
      addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
    } else {
      try {
        addresses = await deadline.race(lookup(hostname));
      } catch (err) {
        if (err instanceof OutboundError) throw err;
        if (deadline.expired) throw deadline.timeoutError(url);
        const code = errorCode(err);
        throw new OutboundError(
          "unreachable",
          `Could not resolve ${hostname}.`,
          { url: url.href, host: hostname, reason: "dns", code },
          { cause: err },
        );
      }
      if (addresses.length === 0) {
        throw new OutboundError("unreachable", `${hostname} has no addresses.`, { url: url.href, host: hostname, reason: "dns" });
      }
    }
    for (const a of addresses) {
      const verdict = policy(a.address, a.family);
      if (!verdict.allowed) {
        // An address the caller wrote may be named with its class; one a host name resolved to may not.
        throw new OutboundError(
          "address_not_allowed",
          literal !== 0
            ? `${hostname} is a ${verdict.reason.replace(/_/g, " ")} address, which may not be fetched; ${ALLOW_PRIVATE_HINT}.`
            : `${hostname} resolves to an address that may not be fetched (only public internet addresses are); ${ALLOW_PRIVATE_HINT}.`,
          {
            url: url.href,
            host: hostname,
            address: a.address,
            reason: verdict.reason,
            resolved: literal === 0,
          },
        );
      }
    }
    return addresses;
  }

  function send(
    url: URL,
    target: ResolvedAddress,
    method: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
    deadline: Deadline,
  ): Promise<http.IncomingMessage> {
    const isHttps = url.protocol === "https:";
    const hostname = normalizeHost(url.hostname);
    const port = url.port !== "" ? Number(url.port) : isHttps ? 443 : 80;
    const connect = opts.connectOverride
      ? opts.connectOverride({ hostname, address: target.address, family: target.family, port })
      : { address: target.address, port };
    const requestHeaders: Record<string, string> = {
      ...headers,
      host: url.host,
      ...(body !== undefined ? { "content-length": String(body.length) } : {}),
    };
    const options: https.RequestOptions = {
      host: connect.address,
      port: connect.port,
      family: net.isIP(connect.address),
      method,
      path: url.pathname + url.search,
      headers: requestHeaders,
      agent: isHttps ? httpsAgent : httpAgent,
      signal: deadline.signal,
      // The certificate is verified against the name, not the IP we connect to. No SNI for IP literals.
      ...(isHttps ? { servername: net.isIP(hostname) === 0 ? hostname : "", ...(opts.ca ? { ca: opts.ca } : {}) } : {}),
    };
    return new Promise((resolvePromise, reject) => {
      const req = (isHttps ? https : http).request(options, resolvePromise);
      req.once("error", (err) => {
        if (req.reusedSocket) reusedSocketErrors.add(err);
        reject(err);
      });
      req.end(body);
    });
  }

  async function connectAndSend(
    url: URL,
    addresses: ResolvedAddress[],
    method: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
    deadline: Deadline,
  ): Promise<{ res: http.IncomingMessage; address: string }> {
    let lastError: unknown;
    for (const target of addresses) {
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          const res = await send(url, target, method, headers, body, deadline);
          return { res, address: target.address };
        } catch (err) {
          lastError = err;
          if (deadline.expired) throw deadline.timeoutError(url);
          // A pooled socket the server closed meanwhile: retry once, idempotent methods only.
          const code = errorCode(err);
          const retryable =
            attempt === 0 &&
            code === "ECONNRESET" &&
            err instanceof Error &&
            reusedSocketErrors.has(err) &&
            (method === "GET" || method === "HEAD");
          if (retryable) continue;
          if (code !== undefined && CONNECT_ERRORS.has(code)) break; // try the next address
          throw toUnreachable(err, url, target.address);
        }
      }
    }
    throw toUnreachable(lastError, url, addresses[addresses.length - 1]?.address);
  }

  async function safeFetch(rawUrl: string, init: SafeFetchInit = {}): Promise<SafeResponse> {
    const started = performance.now();
    const timeoutMs = init.timeoutMs ?? opts.timeoutMs;
    const maxBytes = init.maxBytes ?? opts.maxBytes;
    const follow = init.followRedirects ?? true;
    let url = parseTarget(rawUrl);
    let method = (init.method ?? "GET").toUpperCase();
    let body: Buffer | undefined = typeof init.body === "string" ? Buffer.from(init.body) : init.body;
    let headers: Record<string, string> = {
      "user-agent": userAgent,
      accept: "*/*",
      "accept-encoding": "identity",
    };
    for (const [k, v] of Object.entries(init.headers ?? {})) {
      const key = k.toLowerCase();
      if (!MANAGED_HEADERS.has(key)) headers[key] = v;
    }
    headers["accept-encoding"] = "identity";

    const deadline = new Deadline(timeoutMs);
    try {
      for (let redirects = 0; ; redirects++) {
        const addresses = await resolve(url, deadline);
        const { res, address } = await connectAndSend(url, addresses, method, headers, body, deadline);
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (follow && REDIRECT_STATUSES.has(status) && location !== undefined) {
          res.destroy();
          if (redirects >= maxRedirects) {
            throw new OutboundError("too_many_redirects", `More than ${maxRedirects} redirects.`, {
              url: url.href,
              status,
              limit: maxRedirects,
            });
          }
          const next = parseTarget(location, url);
          if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
            if (method !== "HEAD") method = "GET";
            body = undefined;
            delete headers["content-type"];
          }
          if (next.origin !== url.origin) {
            headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !ORIGIN_BOUND_HEADERS.has(name)));
          }
          url = next;
          continue;
        }
        const noBody = method === "HEAD" || status === 204 || status === 304 || (status >= 100 && status < 200);
        const responseBody = noBody ? (res.resume(), Buffer.alloc(0)) : await readBody(res, maxBytes, deadline, url, status);
        return {
          status,
          headers: flattenHeaders(res.headers),
          body: responseBody,
          url: url.href,
          durationMs: performance.now() - started,
          redirects,
          address,
        };
      }
    } catch (err) {
      if (err instanceof OutboundError) throw err;
      if (deadline.expired) throw deadline.timeoutError(url);
      throw toUnreachable(err, url);
    } finally {
      deadline.clear();
    }
  }

  return Object.assign(safeFetch, {
    close(): void {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  });
}

/** One total deadline for a fetch: an AbortSignal for the sockets plus a race helper for DNS. */
class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  constructor(readonly ms: number) {
    this.timer = setTimeout(() => this.controller.abort(), ms);
  }
  get signal(): AbortSignal {
    return this.controller.signal;
  }
  get expired(): boolean {
    return this.controller.signal.aborted;
  }
  timeoutError(url: URL): OutboundError {
    return new OutboundError("timeout", `The fetch did not complete within ${this.ms} ms.`, {
      url: url.href,
      host: normalizeHost(url.hostname),
      limit: this.ms,
    });
  }
  /** Settles with `p`, or rejects with a sentinel when the deadline passes first. */
  race<T>(p: Promise<T>): Promise<T> {
    if (this.expired) return Promise.reject(new DeadlinePassed());
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(new DeadlinePassed());
      this.signal.addEventListener("abort", onAbort, { once: true });
      p.then(
        (v) => {
          this.signal.removeEventListener("abort", onAbort);
          resolve(v);
        },
        (e: unknown) => {
          this.signal.removeEventListener("abort", onAbort);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  }
  clear(): void {
    clearTimeout(this.timer);
  }
}

class DeadlinePassed extends Error {
  override name = "DeadlinePassed";
}

/** Reads the body, refusing more than `maxBytes`; preallocates when Content-Length is known. */
function readBody(res: http.IncomingMessage, maxBytes: number, deadline: Deadline, url: URL, status: number): Promise<Buffer> {
  const declared = res.headers["content-length"];
  const length = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : undefined;
  if (length !== undefined && length > maxBytes) {
    res.destroy();
    return Promise.reject(
      new OutboundError("too_large", `The response declares ${length} bytes; the limit is ${maxBytes}.`, {
        url: url.href,
        status,
        limit: maxBytes,
      }),
    );
  }
  return new Promise<Buffer>((resolve, reject) => {
    const fixed = length !== undefined ? Buffer.allocUnsafe(length) : undefined;
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (err: Error | undefined, value?: Buffer): void => {
      if (settled) return;
      settled = true;
      deadline.signal.removeEventListener("abort", onAbort);
      if (err) {
        res.destroy();
        reject(err);
      } else resolve(value ?? Buffer.alloc(0));
    };
    const onAbort = (): void => finish(deadline.timeoutError(url));
    if (deadline.expired) {
      onAbort();
      return;
    }
    deadline.signal.addEventListener("abort", onAbort, { once: true });
    res.on("data", (chunk: Buffer) => {
      if (settled) return;
      const next = received + chunk.length;
      if (next > maxBytes) {
        finish(new OutboundError("too_large", `The response body exceeds ${maxBytes} bytes.`, { url: url.href, status, limit: maxBytes }));
        return;
      }
      if (fixed !== undefined && next <= fixed.length) chunk.copy(fixed, received);
      else chunks.push(chunk);
      received = next;
    });
    res.once("end", () => {
      if (fixed !== undefined && chunks.length === 0) finish(undefined, received === fixed.length ? fixed : fixed.subarray(0, received));
      else
        finish(
          undefined,
          fixed !== undefined
            ? Buffer.concat([fixed.subarray(0, Math.min(received, fixed.length)), ...chunks])
            : Buffer.concat(chunks, received),
        );
    });
    res.once("error", (err) => finish(deadline.expired ? deadline.timeoutError(url) : toUnreachable(err, url)));
    res.once("close", () => {
      if (!res.complete) {
        finish(
          deadline.expired
            ? deadline.timeoutError(url)
            : new OutboundError("unreachable", "The response ended before the body was complete.", {
                url: url.href,
                status,
                reason: "incomplete_body",
              }),
        );
      }
    });
  });
}

function toUnreachable(err: unknown, url: URL, address?: string): OutboundError {
  if (err instanceof OutboundError) return err;
  const code = errorCode(err);
  const detail = messageOf(err);
  return new OutboundError(
    "unreachable",
    `Could not fetch ${url.host}: ${detail}`,
    {
      url: url.href,
      host: normalizeHost(url.hostname),
      ...(address ? { address } : {}),
      ...(code ? { code } : {}),
      reason: code?.startsWith("ERR_TLS") || /CERT|SSL|TLS/i.test(code ?? "") ? "tls" : "network",
    },
    { cause: err },
  );
}

function errorCode(err: unknown): string | undefined {
  if (typeof err === "object" && err !== null && "code" in err) {
    const code = err.code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

/** Errors of requests sent on a pooled (kept-alive) socket: a reset there is retried once. */
const reusedSocketErrors = new WeakSet<Error>();

function flattenHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}
