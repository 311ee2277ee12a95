import { test } from "node:test";
import assert from "node:assert/strict";
import { createHttpApp } from "./app.js";
import { AppError } from "../errors/catalogue.js";
import { searchErrors } from "../../search/errors.js";
import { assistantErrors } from "../../assistant/errors.js";

const base = {
  config: { logLevel: "silent" as const, trustProxy: false },
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
