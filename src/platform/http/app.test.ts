import { test } from "node:test";
import assert from "node:assert/strict";
import { createHttpApp } from "./app.js";
import { AppError } from "../errors/catalogue.js";
import { searchErrors } from "../../search/errors.js";
import { assistantErrors } from "../../assistant/errors.js";
import net from "node:net";
import type { AddressInfo } from "node:net";

/** Writes `chunks` to a raw connection to `port`, `gapMs` apart, and returns everything the server sent back. */
async function rawExchange(port: number, chunks: string[], gapMs: number): Promise<{ text: string; elapsedMs: number }> {
  const started = Date.now();
  const socket = net.connect(port, "127.0.0.1");
  let text = "";
  socket.on("data", (d: Buffer) => (text += d.toString("utf8")));
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.on("error", () => undefined);
  for (const chunk of chunks) {
    if (socket.destroyed) break;
    socket.write(chunk);
    await new Promise((r) => setTimeout(r, gapMs));
  }
  await closed;
  return { text, elapsedMs: Date.now() - started };
}

const limits = { requestTimeoutMs: 60_000, headersTimeoutMs: 15_000, keepAliveTimeoutMs: 72_000, connectionTimeoutMs: 120_000 };
const base = {
  config: { logLevel: "silent" as const, trustProxy: false, http: limits },
  title: "t",
  description: "d",
  isReady: () => true,
  logger: false,
};

test("search errors use {error, message, details}; 5xx bodies hide internals", async () => {
  const app = await createHttpApp({ errors: searchErrors, ...base });
  app.get("/boom", async () => {
    throw new Error("database password is hunter2");
  });
  app.get("/teapot", async () => {
    throw new AppError("not_found", "No such product.", { product_id: "p1" });
  });
  await app.ready();
  const boom = await app.inject({ method: "GET", url: "/boom" });
  assert.equal(boom.statusCode, 500);
  assert.deepEqual(boom.json(), { error: "internal_error", message: "Something went wrong on our side.", details: {} });
  assert.doesNotMatch(boom.body, /hunter2/);
  assert.ok(boom.headers["x-request-id"]);
  const nf = await app.inject({ method: "GET", url: "/teapot" });
  assert.deepEqual(nf.json(), { error: "not_found", message: "No such product.", details: { product_id: "p1" } });
  const route = await app.inject({ method: "DELETE", url: "/nowhere?x=1" });
  assert.equal(route.statusCode, 404);
  assert.deepEqual(route.json(), { error: "route_not_found", message: "No route DELETE /nowhere.", details: {} });
  await app.close();
});

test("assistant errors are problem details with a stable code and the correlation id", async () => {
  const app = await createHttpApp({ errors: assistantErrors, ...base });
  app.post(
    "/v1/things",
    { schema: { body: { type: "object", required: ["text"], properties: { text: { type: "string" } } } } },
    async () => ({}),
  );
  await app.ready();
  const res = await app.inject({ method: "POST", url: "/v1/things", payload: {}, headers: { "x-request-id": "client-supplied-id-1" } });
  assert.equal(res.statusCode, 400);
  assert.match(String(res.headers["content-type"]), /application\/problem\+json/);
  const body = res.json();
  assert.equal(body.code, "VALIDATION_FAILED");
  assert.equal(body.status, 400);
  assert.equal(body.correlation_id, "client-supplied-id-1");
  assert.equal(res.headers["x-correlation-id"], "client-supplied-id-1");
  const nf = await app.inject({ method: "GET", url: "/missing" });
  assert.equal(nf.json().code, "NOT_FOUND");
  assert.ok(nf.json().correlation_id);
  await app.close();
});

test("health answers 503 while not ready and 200 once ready", async () => {
  let ready = false;
  const app = await createHttpApp({ errors: searchErrors, ...base, isReady: () => ready });
  await app.ready();
  assert.equal((await app.inject({ method: "GET", url: "/health" })).statusCode, 503);
  ready = true;
  const ok = await app.inject({ method: "GET", url: "/health" });
  assert.equal(ok.statusCode, 200);
  assert.deepEqual(ok.json(), { status: "ok" });
  await app.close();
});

test("close lets an in-flight request finish", async () => {
  const app = await createHttpApp({ errors: searchErrors, ...base });
  let release!: () => void;
  let arrived!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const inHandler = new Promise<void>((r) => (arrived = r));
  app.get("/slow", async () => {
    arrived();
    await gate;
    return { done: true };
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address() as { port: number };
  const pending = fetch(`http://127.0.0.1:${address.port}/slow`);
  await inHandler; // the request is in flight
  const closing = app.close();
  release();
  const res = await pending;
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { done: true });
  await closing;
});

test("a body trickled in slower than HTTP_REQUEST_TIMEOUT_MS is cut with 408 in the API's error shape", async () => {
  for (const errors of [searchErrors, assistantErrors]) {
    const app = await createHttpApp({
      errors,
      ...base,
      config: { ...base.config, http: { ...limits, requestTimeoutMs: 1000, headersTimeoutMs: 1000 } },
    });
    app.post("/v1/echo", async (request) => request.body);
    await app.listen({ port: 0, host: "127.0.0.1" });
    const port = (app.server.address() as AddressInfo).port;
    const body = JSON.stringify({ text: "x".repeat(40) });
    const head = `POST /v1/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // One byte every 200 ms: the whole body would take 10 s.
    const { text, elapsedMs } = await rawExchange(port, [head, ...body.split("")], 200);
    assert.match(text, /^HTTP\/1\.1 408 /, text);
    assert.ok(elapsedMs < 5000, `cut after ${elapsedMs} ms`);
    const json = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>;
    if (errors === searchErrors) {
      assert.equal(json.error, "request_timeout");
      assert.match(String(json.message), /HTTP_REQUEST_TIMEOUT_MS/);
    } else {
      assert.equal(json.code, "REQUEST_TIMEOUT");
      assert.equal(json.status, 408);
    }
    // A request sent at once still works on the same server.
    const ok = await rawExchange(port, [head.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n") + body], 0);
    assert.match(ok.text, /^HTTP\/1\.1 200 /);
    await app.close();
  }
});

test("an HTTP/1.1 request without a Host header gets the API's error shape, not an empty 400", async () => {
  const app = await createHttpApp({ errors: searchErrors, ...base });
  app.get("/v1/ping", async () => ({ ok: true }));
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as AddressInfo).port;
  const { text } = await rawExchange(port, ["GET /v1/ping HTTP/1.1\r\nConnection: close\r\n\r\n"], 0);
  assert.match(text, /^HTTP\/1\.1 400 /, text);
  const json = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as { error: string; message: string };
  assert.equal(json.error, "validation_failed");
  assert.match(json.message, /no Host header/);
  await app.close();
});
