// The malformed-request sweep: every kind of broken request we could think of (bad JSON, wrong
// types, huge and deeply nested bodies, bad encodings, odd headers, bad multipart, over-long and
// badly percent-encoded paths, unparsable HTTP) is sent to every route of both APIs (enumerated
// from each app's route registry, so new routes are swept automatically), signed in, so that the
// request gets past authentication to the parsers. Every answer must be a 4xx in that API's
// documented error shape — Search API `{error, message, details}`, Assistant API problem
// details with `code` and `correlation_id` — never a 5xx, never Fastify's own body.
//
// Kinds that only make sense for a body are sent to routes taking one (POST, PUT, PATCH, DELETE);
// kinds aimed at the path are sent to routes with a path parameter; the rest (query strings and
// headers) go to GET routes, whose handlers change nothing. Raw HTTP a parser refuses is sent on
// a socket to both listening APIs. Runs on both databases: PostgreSQL refuses text SQLite
// stores (NUL), so a request that reaches a query can fail differently there.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { gzipSync } from "node:zlib";
import type { InjectOptions } from "fastify";
import { createTestApp, describeEachDialect, type TestApp } from "./support/harness.js";
import { bearer, loginToken, registerStore } from "./support/factories.js";
import { anonymousSession, chatShop } from "./support/chat.js";
import { routesOf } from "../src/tenancy/authenticate.js";
import type { App } from "../src/platform/http/app.js";
import { JSON_MAX_DEPTH, JSON_MAX_KEYS } from "../src/platform/http/json-body.js";

type Api = "search" | "assistant";
interface Route {
  method: string;
  url: string;
}
interface Kind {
  name: string;
  applies: (r: Route) => boolean;
  request: (r: Route) => InjectOptions;
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const takesBody = (r: Route) => BODY_METHODS.has(r.method);
const hasParam = (r: Route) => /[:*]/.test(r.url);
const isGet = (r: Route) => r.method === "GET";
/** The route's path with every parameter filled by `value` (an id that exists nowhere by default). */
const fill = (r: Route, value = "zz-none") => r.url.replace(/:[A-Za-z_]+/g, value).replace(/\*/g, value);

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const manyKeys = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])));
const typed = (
  r: Route,
  contentType: string | undefined,
  payload: string | Buffer,
  headers: Record<string, string> = {},
): InjectOptions => ({
  method: r.method as InjectOptions["method"],
  url: fill(r),
  headers: { ...(contentType === undefined ? {} : { "content-type": contentType }), ...headers },
  payload,
});
const json = (r: Route, payload: string | Buffer, headers: Record<string, string> = {}) => typed(r, "application/json", payload, headers);
const get = (url: string, headers: Record<string, string> = {}): InjectOptions => ({ method: "GET", url, headers });

const KINDS: Kind[] = [
  // --- JSON syntax and shape
  { name: "truncated JSON", applies: takesBody, request: (r) => json(r, '{"a":') },
  { name: "JSON with trailing garbage", applies: takesBody, request: (r) => json(r, '{"a":1} trailing') },
  { name: "JSON with single quotes", applies: takesBody, request: (r) => json(r, "{'a':1}") },
  { name: "JSON with a trailing comma", applies: takesBody, request: (r) => json(r, '{"a":1,}') },
  { name: "JSON with comments", applies: takesBody, request: (r) => json(r, '{/* c */"a":1}') },
  { name: "NaN literal", applies: takesBody, request: (r) => json(r, '{"limit":NaN}') },
  { name: "empty JSON body", applies: takesBody, request: (r) => json(r, "") },
  { name: "whitespace-only JSON body", applies: takesBody, request: (r) => json(r, "   \n ") },
  { name: "JSON array instead of object", applies: takesBody, request: (r) => json(r, "[]") },
  { name: "JSON string instead of object", applies: takesBody, request: (r) => json(r, '"text"') },
  { name: "JSON null", applies: takesBody, request: (r) => json(r, "null") },
  { name: "JSON number", applies: takesBody, request: (r) => json(r, "42") },
  { name: "JSON true", applies: takesBody, request: (r) => json(r, "true") },
  {
    name: "wrong types everywhere",
    applies: takesBody,
    request: (r) =>
      json(
        r,
        JSON.stringify({
          limit: "ten",
          query: 5,
          image_url: [],
          name: {},
          email: 1,
          metadata: "x",
          url: false,
          events: "all",
          products: {},
        }),
      ),
  },
  { name: "unknown fields only", applies: takesBody, request: (r) => json(r, JSON.stringify({ zz_unknown: 1, "": 2, "a.b": 3 })) },
  { name: "huge number", applies: takesBody, request: (r) => json(r, '{"limit":1e400,"price":-1e400}') },
  { name: `nested ${JSON_MAX_DEPTH + 8} levels`, applies: takesBody, request: (r) => json(r, nested(JSON_MAX_DEPTH + 8)) },
  { name: "nested 1,000 levels", applies: takesBody, request: (r) => json(r, nested(1000)) },
  { name: "nested 20,000 levels", applies: takesBody, request: (r) => json(r, nested(20_000)) },
  { name: "nested arrays 20,000 levels", applies: takesBody, request: (r) => json(r, `${"[".repeat(20_000)}${"]".repeat(20_000)}`) },
  { name: `${JSON_MAX_KEYS + 1} keys in one object`, applies: takesBody, request: (r) => json(r, manyKeys(JSON_MAX_KEYS + 1)) },
  { name: "__proto__ key", applies: takesBody, request: (r) => json(r, '{"__proto__":{"admin":true}}') },
  { name: "constructor.prototype key", applies: takesBody, request: (r) => json(r, '{"constructor":{"prototype":{"admin":true}}}') },
  { name: "body over the size limit", applies: takesBody, request: (r) => json(r, `{"a":"${"x".repeat(2 * 1024 * 1024)}"}`) },
  {
    name: "very long string value",
    applies: takesBody,
    request: (r) => json(r, JSON.stringify({ name: "x".repeat(900_000), query: "x".repeat(900_000) })),
  },
  // --- encodings and content types
  {
    name: "invalid UTF-8 in JSON",
    applies: takesBody,
    request: (r) => json(r, Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d])),
  },
  {
    name: "UTF-16 JSON with BOM",
    applies: takesBody,
    request: (r) => json(r, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a":1}', "utf16le")])),
  },
  {
    name: "charset=utf-16 parameter",
    applies: takesBody,
    request: (r) => json(r, '{"a":1', { "content-type": "application/json; charset=utf-16" }),
  },
  { name: "lone surrogate escape", applies: takesBody, request: (r) => json(r, '{"query":"\\ud800","name":"\\udfff"}') },
  { name: "NUL bytes in strings", applies: takesBody, request: (r) => json(r, '{"query":"a\\u0000b","email":"\\u0000"}') },
  { name: "gzip Content-Encoding on a plain body", applies: takesBody, request: (r) => json(r, "{}x", { "content-encoding": "gzip" }) },
  { name: "gzip-compressed body", applies: takesBody, request: (r) => json(r, gzipSync('{"a":1}'), { "content-encoding": "gzip" }) },
  { name: "text/plain body", applies: takesBody, request: (r) => typed(r, "text/plain", "hello") },
  { name: "XML body", applies: takesBody, request: (r) => typed(r, "application/xml", "<a/>") },
  { name: "body without Content-Type", applies: takesBody, request: (r) => typed(r, undefined, "{}") },
  { name: "garbage Content-Type", applies: takesBody, request: (r) => typed(r, ";;;/", "{}") },
  { name: "Content-Type with a bad parameter", applies: takesBody, request: (r) => typed(r, "application/json; =;", "{") },
  {
    name: "form body that is not form-encoded",
    applies: takesBody,
    request: (r) => typed(r, "application/x-www-form-urlencoded", "%%%=%zz&&="),
  },
  {
    name: "form body with repeated and nested keys",
    applies: takesBody,
    request: (r) => typed(r, "application/x-www-form-urlencoded", "a[b][c]=1&a=2&a=3&grant_type=x&grant_type=y"),
  },
  // --- multipart
  { name: "multipart without a boundary", applies: takesBody, request: (r) => typed(r, "multipart/form-data", "--x\r\n\r\n") },
  { name: "multipart with an empty boundary", applies: takesBody, request: (r) => typed(r, "multipart/form-data; boundary=", "--\r\n") },
  {
    name: "multipart with a 300-character boundary",
    applies: takesBody,
    request: (r) => typed(r, `multipart/form-data; boundary=${"b".repeat(300)}`, "--b\r\n"),
  },
  {
    name: "multipart body that is not multipart",
    applies: takesBody,
    request: (r) => typed(r, "multipart/form-data; boundary=XYZ", "just text"),
  },
  {
    name: "truncated multipart",
    applies: takesBody,
    request: (r) =>
      typed(
        r,
        "multipart/form-data; boundary=XYZ",
        '--XYZ\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG',
      ),
  },
  {
    name: "multipart with a malformed part header",
    applies: takesBody,
    request: (r) => typed(r, "multipart/form-data; boundary=XYZ", "--XYZ\r\nnot a header\r\n\r\nvalue\r\n--XYZ--\r\n"),
  },
  {
    name: "multipart with a __proto__ field",
    applies: takesBody,
    request: (r) =>
      typed(r, "multipart/form-data; boundary=XYZ", '--XYZ\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\nx\r\n--XYZ--\r\n'),
  },
  {
    name: "multipart with 50 fields",
    applies: takesBody,
    request: (r) =>
      typed(
        r,
        "multipart/form-data; boundary=XYZ",
        `${Array.from({ length: 50 }, (_, i) => `--XYZ\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`).join("")}--XYZ--\r\n`,
      ),
  },
  {
    name: "multipart with a file that is not an image",
    applies: takesBody,
    request: (r) =>
      typed(
        r,
        "multipart/form-data; boundary=XYZ",
        '--XYZ\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nnot a png\r\n--XYZ--\r\n',
      ),
  },
  // --- paths
  {
    name: "over-long path parameter",
    applies: hasParam,
    request: (r) => ({ method: r.method as InjectOptions["method"], url: fill(r, "a".repeat(300)), ...bodyless(r) }),
  },
  {
    name: "badly percent-encoded path parameter",
    applies: hasParam,
    request: (r) => ({ method: r.method as InjectOptions["method"], url: fill(r, "%E0%A4%A"), ...bodyless(r) }),
  },
  {
    name: "invalid percent escape",
    applies: hasParam,
    request: (r) => ({ method: r.method as InjectOptions["method"], url: fill(r, "%zz"), ...bodyless(r) }),
  },
  {
    name: "overlong UTF-8 in path",
    applies: hasParam,
    request: (r) => ({ method: r.method as InjectOptions["method"], url: fill(r, "%C0%AF"), ...bodyless(r) }),
  },
  { name: "NUL in path parameter", applies: (r) => hasParam(r) && isGet(r), request: (r) => get(fill(r, "a%00b")) },
  { name: "emoji path parameter", applies: (r) => hasParam(r) && isGet(r), request: (r) => get(fill(r, "%F0%9F%98%80")) },
  { name: "dot-segment path parameter", applies: (r) => hasParam(r) && isGet(r), request: (r) => get(fill(r, "..%2F..%2Fetc")) },
  { name: "over-long URL", applies: isGet, request: (r) => get(`${fill(r)}?pad=${"p".repeat(60_000)}`) },
  // --- query strings
  { name: "badly encoded query string", applies: isGet, request: (r) => get(`${fill(r)}?limit=%ZZ&cursor=%E0%A4%A`) },
  { name: "wrong query types", applies: isGet, request: (r) => get(`${fill(r)}?limit=abc&offset=-5&days=x&since=yesterday`) },
  { name: "out-of-range query numbers", applies: isGet, request: (r) => get(`${fill(r)}?limit=1e400&days=99999999999999999999`) },
  { name: "repeated query parameters", applies: isGet, request: (r) => get(`${fill(r)}?limit=1&limit=2&cursor=a&cursor=b`) },
  { name: "bracketed query keys", applies: isGet, request: (r) => get(`${fill(r)}?a[b][c]=1&__proto__[x]=1`) },
  // --- headers
  { name: "Bearer without a token", applies: isGet, request: (r) => get(fill(r), { authorization: "Bearer" }) },
  { name: "Basic credentials", applies: isGet, request: (r) => get(fill(r), { authorization: "Basic dXNlcjpwYXNz" }) },
  { name: "10 KB bearer token", applies: isGet, request: (r) => get(fill(r), { authorization: `Bearer ${"x".repeat(10_000)}` }) },
  { name: "non-ASCII bearer", applies: isGet, request: (r) => get(fill(r), { authorization: "Bearer \u00e9\u00e9.\u00e9.\u00e9" }) },
  { name: "bad active-tenant header", applies: isGet, request: (r) => get(fill(r), { "x-service-active-tenant": "../../x%00" }) },
  { name: "garbage X-Forwarded-For", applies: isGet, request: (r) => get(fill(r), { "x-forwarded-for": "not-an-ip, ::::, 999.1.1.1" }) },
  {
    name: "odd request id",
    applies: isGet,
    request: (r) => get(fill(r), { "x-request-id": "<script>", "x-correlation-id": "x".repeat(500) }),
  },
  { name: "Accept: text/html only", applies: isGet, request: (r) => get(fill(r), { accept: "text/html" }) },
  { name: "Range header", applies: isGet, request: (r) => get(fill(r), { range: "bytes=999999-0" }) },
];

/** Requests for kinds that are not about the body: routes with a body still get a valid JSON `{}`. */
function bodyless(r: Route): Partial<InjectOptions> {
  return takesBody(r) ? { headers: { "content-type": "application/json" }, payload: "{}" } : {};
}

// Kinds that may legitimately succeed (the request is odd but acceptable): for them the sweep
// asserts no 5xx and the API's shape when it is an error.
const MAY_SUCCEED = new Set([
  "gzip-compressed body",
  "emoji path parameter",
  "dot-segment path parameter",
  "over-long URL",
  "badly encoded query string",
  "wrong query types",
  "out-of-range query numbers",
  "repeated query parameters",
  "bracketed query keys",
  "garbage X-Forwarded-For",
  "odd request id",
  "Accept: text/html only",
  "Range header",
  "bad active-tenant header",
  "Bearer without a token",
  "Basic credentials",
  "10 KB bearer token",
  "non-ASCII bearer",
  "over-long path parameter",
  "invalid percent escape",
  "overlong UTF-8 in path",
]);

// Routes that answer a non-JSON document by design on success (HTML pages, scripts, the
// OpenAPI document and docs, metrics): their errors are still checked.
const isApiError = (api: Api, res: { statusCode: number; headers: Record<string, unknown>; body: string }): string | null => {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    return `not JSON: ${res.body.slice(0, 120)}`;
  }
  if (api === "search") {
    if (typeof body.error !== "string" || typeof body.message !== "string" || typeof body.details !== "object" || body.details === null) {
      return `not {error, message, details}: ${res.body.slice(0, 200)}`;
    }
    if (!String(res.headers["content-type"]).startsWith("application/json")) return `content-type ${String(res.headers["content-type"])}`;
    if (!res.headers["x-request-id"]) return "no X-Request-Id";
  } else {
    for (const k of ["type", "title", "status", "detail", "code", "correlation_id"]) {
      if (body[k] === undefined) return `problem details without ${k}: ${res.body.slice(0, 200)}`;
    }
    if (body.status !== res.statusCode) return `status ${String(body.status)} in the body, ${res.statusCode} on the wire`;
    if (!String(res.headers["content-type"]).startsWith("application/problem+json"))
      return `content-type ${String(res.headers["content-type"])}`;
    if (!res.headers["x-correlation-id"]) return "no X-Correlation-Id";
  }
  return null;
};

describeEachDialect("malformed requests get a 4xx in the API's error shape on every route of both APIs", (dialect) => {
  let t: TestApp;
  const auth: Record<Api, Record<string, string>> = { search: {}, assistant: {} };
  let shopper = "";
  before(async () => {
    t = await createTestApp({ dialect });
    const store = await registerStore(t);
    auth.search = bearer(await loginToken(t.search, store.email, store.password));
    const shop = await chatShop(t);
    auth.assistant = bearer(shop.owner);
    shopper = await anonymousSession(t, shop);
  });
  after(() => t.close());

  // Browser pages (the docs, and billing's test-mode checkout page, which answers HTML to a
  // browser by design) are not API routes.
  const routes = (app: App): Route[] =>
    routesOf(app)
      .filter((r) => !["/docs", "/openapi.json", "/billing/checkout/"].some((p) => r.url.startsWith(p)))
      .map((r) => ({ method: r.method, url: r.url }));

  /** Routes that document a request body (OpenAPI requestBody); others may ignore any body sent. */
  const withBody = (app: App) => {
    const paths = (app.swagger() as { paths?: Record<string, Record<string, { requestBody?: unknown }>> }).paths ?? {};
    return (r: Route) => paths[r.url.replace(/:([A-Za-z_]+)/g, "{$1}")]?.[r.method.toLowerCase()]?.requestBody !== undefined;
  };

  // Routes that revoke the credential they are called with get none (they still parse the body).
  const REVOKING = new Set(["POST /oauth/refresh", "POST /v1/sessions/refresh", "POST /v1/sessions/revoke"]);

  /** The credentials that get `r` past authentication: shopper routes take a shopper session. */
  const credentialsFor = (api: Api, r: Route) =>
    REVOKING.has(`${r.method} ${r.url}`)
      ? {}
      : api === "assistant" && /^\/v1\/(chat|catalog|sessions\/me)/.test(r.url)
        ? bearer(shopper)
        : auth[api];

  for (const api of ["search", "assistant"] as const) {
    test(`${api} API: ${KINDS.length} kinds of malformed request on every route`, async () => {
      const app = t[api];
      const list = routes(app);
      const documentsBody = withBody(app);
      assert.ok(list.length > 10, `${api} routes enumerated`);
      const failures: string[] = [];
      let sent = 0;
      const perKind = new Map<string, number>();
      for (const kind of KINDS) {
        for (const route of list.filter(kind.applies)) {
          const req = kind.request(route);
          const headers = { ...credentialsFor(api, route), ...(req.headers as Record<string, string> | undefined) };
          const res = await app.inject({ ...req, headers });
          sent += 1;
          perKind.set(kind.name, (perKind.get(kind.name) ?? 0) + 1);
          const where = `${kind.name} → ${route.method} ${route.url}: ${res.statusCode}`;
          // The sweep's app runs without the embedding model: a request that parsed and
          // validated may reach a handler that answers 503 model_unavailable (server state, not
          // a client mistake; still in the API's shape).
          const modelMissing =
            res.statusCode === 503 && /model_unavailable|MODEL_UNAVAILABLE/.test(res.body) && isApiError(api, res) === null;
          if (res.statusCode >= 500 && !modelMissing) {
            failures.push(`${where} ${res.body.slice(0, 200)}`);
            continue;
          }
          if (res.statusCode < 400 || modelMissing) {
            const bodyIgnored = takesBody(route) && !documentsBody(route);
            if (!MAY_SUCCEED.has(kind.name) && !bodyIgnored) failures.push(`${where} (accepted)`);
            continue;
          }
          const problem = isApiError(api, res);
          if (problem) failures.push(`${where} ${problem}`);
        }
      }
      assert.ok(perKind.size >= 50, `at least 50 kinds were sent (${perKind.size})`);
      assert.deepEqual(failures, [], `${failures.length} of ${sent} malformed requests were not 4xx in the ${api} API's shape`);
    });
  }

  test("a body nested too deep or with too many keys is refused naming the limit", async () => {
    for (const [api, url] of [
      ["search", "/v1/search/text"],
      ["assistant", "/v1/admin/policies/returns"],
    ] as const) {
      const deep = await t[api].inject({
        method: api === "search" ? "POST" : "PUT",
        url,
        headers: { ...auth[api], "content-type": "application/json" },
        payload: nested(JSON_MAX_DEPTH + 1),
      });
      assert.equal(deep.statusCode, 400, deep.body);
      const deepBody = deep.json();
      assert.match(api === "search" ? deepBody.message : deepBody.detail, new RegExp(`${JSON_MAX_DEPTH} levels`));
      const keys = await t[api].inject({
        method: api === "search" ? "POST" : "PUT",
        url,
        headers: { ...auth[api], "content-type": "application/json" },
        payload: manyKeys(JSON_MAX_KEYS + 1),
      });
      assert.equal(keys.statusCode, 400, keys.body);
      assert.match(keys.body, new RegExp(`${JSON_MAX_KEYS} keys`));
    }
    // At the limit the body parses (and is then validated as usual).
    const atLimit = await t.search.inject({
      method: "POST",
      url: "/v1/search/text",
      headers: { ...auth.search, "content-type": "application/json" },
      payload: nested(JSON_MAX_DEPTH),
    });
    assert.equal(atLimit.statusCode, 400);
    assert.doesNotMatch(atLimit.body, /levels deep/);
  });

  test("a 415 names the content type the route accepts", async () => {
    const token = await t.search.inject({ method: "POST", url: "/oauth/token", payload: { grant_type: "client_credentials" } });
    assert.equal(token.statusCode, 415);
    assert.match(token.json().message, /application\/x-www-form-urlencoded/);
    assert.deepEqual(token.json().details.accepted, ["application/x-www-form-urlencoded"]);
    const upload = await t.search.inject({
      method: "POST",
      url: "/v1/search",
      headers: { ...auth.search, "content-type": "text/plain" },
      payload: "x",
    });
    assert.equal(upload.statusCode, 415);
    assert.match(upload.json().message, /multipart\/form-data/);
    const assistant = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/public-keys",
      headers: { ...auth.assistant, "content-type": "text/plain" },
      payload: "x",
    });
    assert.equal(assistant.statusCode, 415);
    assert.match(assistant.json().detail, /application\/json/);
  });

  test("an unknown enum value lists the allowed values once", async () => {
    const res = await t.search.inject({
      method: "POST",
      url: "/v1/search/filtered",
      headers: auth.search,
      payload: { query: "x", filters: [{ field: "name", operator: "like", value: "a" }] },
    });
    assert.equal(res.statusCode, 400);
    const { message, details } = res.json();
    assert.doesNotMatch(message, /must be equal to constant/);
    assert.equal((message.match(/filters\.0\.operator/g) ?? []).length, 1, message);
    assert.match(message, /must be one of: eq, /);
    assert.equal(details.errors.filter((e: { field: string }) => e.field === "filters.0.operator").length, 1);
  });

  test("requests Node cannot parse as HTTP are answered in each API's shape", async () => {
    await t.search.listen({ port: 0, host: "127.0.0.1" });
    await t.assistant.listen({ port: 0, host: "127.0.0.1" });
    const raw: [string, string][] = [
      ["bad header byte", "GET /health HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n"],
      ["header without colon", "GET /health HTTP/1.1\r\nHost: x\r\nnot-a-header\r\n\r\n"],
      ["oversized headers", `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"h".repeat(20_000)}\r\n\r\n`],
      ["bad request line", "GARBAGE\r\n\r\n"],
      ["bad HTTP version", "GET /health HTTP/9.9\r\nHost: x\r\n\r\n"],
      [
        "bad chunked encoding",
        "POST /v1/search/text HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n",
      ],
      [
        "both Content-Length and chunked",
        "POST /v1/search/text HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      ],
    ];
    for (const api of ["search", "assistant"] as const) {
      const address = t[api].server.address() as net.AddressInfo;
      for (const [name, request] of raw) {
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = net.connect(address.port, "127.0.0.1", () => socket.write(request));
          let data = "";
          socket.on("data", (d) => (data += d.toString("latin1")));
          socket.on("end", () => resolve(data));
          socket.on("error", reject);
          socket.setTimeout(5000, () => socket.destroy(new Error(`${name}: no answer`)));
        });
        const [head, body = ""] = answer.split("\r\n\r\n");
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head ?? "")?.[1]);
        assert.ok(status >= 400 && status < 500, `${api} ${name}: ${head}`);
        const headers = Object.fromEntries(
          (head ?? "")
            .split("\r\n")
            .slice(1)
            .map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
        );
        const problem = isApiError(api, { statusCode: status, headers, body });
        assert.equal(problem, null, `${api} ${name}: ${problem}`);
      }
    }
  });
});
