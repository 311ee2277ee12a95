import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ManualClock } from "../../platform/clock.js";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { solidImage, startImageHost, startReceiver, type ImageHost, type Receiver } from "../../../test/support/servers.js";
import { RETRY_DELAYS_S } from "./dispatcher.js";

const SECRET = "whsec-test-0123456789";

describeEachDialect("webhooks: registration, signed events, retries, outbox", (dialect) => {
  let t: TestApp;
  let host: ImageHost;
  let receiver: Receiver;
  let store: RegisteredStore;
  let token: string;
  let red: string;
  let blue: string;
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 8));

  before(async () => {
    t = await createTestApp({ dialect, model: true, clock });
    host = await startImageHost();
    receiver = await startReceiver(SECRET);
    red = host.put("/red.png", await solidImage("#d01010"));
    blue = host.put("/blue.png", await solidImage("#1030d0"));
    store = await registerStore(t);
    token = await machineToken(t.search, store);
  });
  after(async () => {
    await receiver.close();
    await host.close();
    await t.close();
  });

  const register = (payload: unknown, tok = token) =>
    t.search.inject({ method: "POST", url: "/v1/search/webhooks", headers: bearer(tok), payload: payload as object });
  const index = (product_id: string, image_url: string, metadata: object = {}) =>
    t.search.inject({ method: "POST", url: "/v1/products", headers: bearer(token), payload: { product_id, image_url, metadata } });

  test("registers, lists without secrets, validates events and URLs", async () => {
    const res = await register({ url: `${receiver.url}/hook`, events: ["product.indexed"], secret: SECRET });
    assert.equal(res.statusCode, 201, res.body);
    assert.match(res.json().id, /^wh_/);
    assert.equal(res.json().secret, undefined);
    const list = await t.search.inject({ method: "GET", url: "/v1/search/webhooks", headers: bearer(token) });
    assert.equal(list.json().length, 1);
    assert.doesNotMatch(list.body, new RegExp(SECRET));
    const unknownEvent = await register({ url: `${receiver.url}/hook`, events: ["product.exploded"], secret: SECRET });
    assert.equal(unknownEvent.statusCode, 400);
    const shortSecret = await register({ url: `${receiver.url}/hook`, events: ["product.indexed"], secret: "short" });
    assert.equal(shortSecret.statusCode, 400);
    const del = await t.search.inject({ method: "DELETE", url: `/v1/search/webhooks/${res.json().id}`, headers: bearer(token) });
    assert.equal(del.statusCode, 200);
    assert.equal(
      (await t.search.inject({ method: "DELETE", url: `/v1/search/webhooks/${res.json().id}`, headers: bearer(token) })).statusCode,
      404,
    );
  });

  test("without OUTBOUND_ALLOW_PRIVATE only public https URLs are accepted", async () => {
    const strict = await createTestApp({ dialect, env: { OUTBOUND_ALLOW_PRIVATE: "false" } });
    try {
      const s = await registerStore(strict);
      const tok = await machineToken(strict.search, s);
      const reg = (url: string) =>
        strict.search.inject({
          method: "POST",
          url: "/v1/search/webhooks",
          headers: bearer(tok),
          payload: { url, events: ["product.indexed"], secret: SECRET },
        });
      assert.equal((await reg("http://hooks.example.com/x")).json().error, "invalid_url");
      assert.equal((await reg("https://127.0.0.1/x")).json().error, "address_not_allowed");
      assert.equal((await reg("https://[::ffff:10.0.0.1]/x")).json().error, "address_not_allowed");
      assert.equal((await reg("https://169.254.169.254/latest")).json().error, "address_not_allowed");
      assert.equal((await reg("https://hooks.example.com/x")).statusCode, 201);
    } finally {
      await strict.close();
    }
  });

  test("every event arrives with the spec's envelope, a valid signature and a delivery id", async () => {
    receiver.calls.length = 0;
    const hook = (
      await register({
        url: `${receiver.url}/all`,
        events: ["product.indexed", "product.updated", "product.deleted", "product.duplicate_detected"],
        secret: SECRET,
      })
    ).json();
    assert.equal((await index("ev-1", red, { name: "Red", price: 5 })).statusCode, 201);
    assert.equal(
      (
        await t.search.inject({
          method: "PUT",
          url: "/v1/products/ev-1",
          headers: bearer(token),
          payload: { metadata: { name: "Red", price: 6 } },
        })
      ).statusCode,
      200,
    );
    assert.equal((await index("ev-2", red)).statusCode, 201); // the same image: a near-duplicate of ev-1
    assert.equal((await t.search.inject({ method: "DELETE", url: "/v1/products/ev-1", headers: bearer(token) })).statusCode, 204);
    await t.workers.drain();

    const events = receiver.calls.map((c) => c.json.event);
    assert.deepEqual(
      events.filter((e) => e !== "product.duplicate_detected" && e !== "product.indexed"),
      ["product.updated", "product.deleted"],
    );
    assert.equal(events.filter((e) => e === "product.indexed").length, 2);
    assert.ok(
      receiver.calls.every((c) => c.signatureValid),
      "every signature verifies",
    );
    assert.ok(receiver.calls.every((c) => /^sha256=[0-9a-f]{64}$/.test(String(c.headers["x-webhook-signature"]))));
    assert.equal(new Set(receiver.calls.map((c) => c.headers["x-webhook-delivery"])).size, receiver.calls.length);
    for (const c of receiver.calls) {
      assert.equal(c.json.webhook_id, hook.id);
      assert.match(c.json.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    }
    const indexed = receiver.calls.find((c) => c.json.event === "product.indexed" && c.json.data.product_id === "ev-1")!.json.data;
    assert.deepEqual(Object.keys(indexed).sort(), ["image_url", "indexed_at", "metadata", "product_id", "vector_id"]);
    assert.deepEqual(indexed.metadata, { name: "Red", price: 5 });
    const updated = receiver.calls.find((c) => c.json.event === "product.updated")!.json.data;
    assert.deepEqual(updated.changes, ["metadata.price"]);
    assert.equal(updated.previous_image_url, red);
    assert.equal(updated.new_image_url, red);
    assert.ok(updated.updated_at);
    const dup = receiver.calls.find((c) => c.json.event === "product.duplicate_detected")!.json.data;
    assert.equal(dup.new_product_id, "ev-2");
    assert.equal(dup.existing_product_id, "ev-1");
    assert.ok(dup.similarity_score > 0.95 && dup.similarity_score <= 1);
    assert.deepEqual(Object.keys(dup).sort(), [
      "detected_at",
      "existing_image_url",
      "existing_product_id",
      "new_image_url",
      "new_product_id",
      "similarity_score",
    ]);
    const deleted = receiver.calls.find((c) => c.json.event === "product.deleted")!.json.data;
    assert.deepEqual(Object.keys(deleted).sort(), ["deleted_at", "product_id"]);
    await t.search.inject({ method: "DELETE", url: `/v1/search/webhooks/${hook.id}`, headers: bearer(token) });
  });

  test("a receiver that is down gets everything later, in order per product, with the attempts logged", async () => {
    receiver.calls.length = 0;
    const hook = (await register({ url: `${receiver.url}/flaky`, events: ["product.indexed", "product.updated"], secret: SECRET })).json();
    receiver.status = 503;
    await index("ord-1", red, { v: 1 });
    for (let v = 2; v <= 4; v++) {
      await t.search.inject({ method: "PUT", url: "/v1/products/ord-1", headers: bearer(token), payload: { metadata: { v } } });
    }
    await t.workers.drain();
    assert.equal(receiver.calls.length, 0);
    let log = (await t.search.inject({ method: "GET", url: `/v1/search/webhooks/${hook.id}/deliveries`, headers: bearer(token) })).json();
    const first = log.find((d: { event: string }) => d.event === "product.indexed");
    assert.equal(first.status, "pending");
    assert.equal(first.attempts, 1);
    assert.equal(first.attempt_log[0].status_code, 503);
    assert.ok(first.next_retry_at);
    assert.equal(log.filter((d: { attempts: number }) => d.attempts === 0).length, 3, "later events of the product wait for the first");

    receiver.status = 200;
    clock.advance(RETRY_DELAYS_S[0]! * 1000 * 1.3);
    await t.workers.drain();
    assert.deepEqual(
      receiver.calls.map((c) => c.json.data.changes ?? "indexed"),
      ["indexed", ["metadata.v"], ["metadata.v"], ["metadata.v"]],
    );
    assert.ok(receiver.calls.every((c) => c.signatureValid));
    log = (await t.search.inject({ method: "GET", url: `/v1/search/webhooks/${hook.id}/deliveries`, headers: bearer(token) })).json();
    assert.ok(log.every((d: { status: string }) => d.status === "delivered"));
    assert.equal(log.find((d: { event: string }) => d.event === "product.indexed").attempt_log.length, 2);
    await t.search.inject({ method: "DELETE", url: `/v1/search/webhooks/${hook.id}`, headers: bearer(token) });
  });

  test("410 Gone from the receiver disables the webhook", async () => {
    receiver.calls.length = 0;
    const hook = (await register({ url: `${receiver.url}/gone`, events: ["product.indexed"], secret: SECRET })).json();
    receiver.status = 410;
    await index("gone-1", blue);
    await t.workers.drain();
    receiver.status = 200;
    const list = (await t.search.inject({ method: "GET", url: "/v1/search/webhooks", headers: bearer(token) })).json();
    const w = list.find((x: { id: string }) => x.id === hook.id);
    assert.equal(w.status, "disabled");
    await index("gone-2", blue);
    clock.advance(3600_000);
    await t.workers.drain();
    assert.equal(receiver.calls.length, 0, "nothing is sent to a disabled webhook");
  });

  test("deliveries give up after about a day of retries", async () => {
    const s = await registerStore(t);
    const tok = await machineToken(t.search, s);
    const hook = (await register({ url: `${receiver.url}/dead`, events: ["product.indexed"], secret: SECRET }, tok)).json();
    receiver.status = 500;
    await t.search.inject({ method: "POST", url: "/v1/products", headers: bearer(tok), payload: { product_id: "x", image_url: red } });
    const start = clock.now();
    for (let i = 0; i <= RETRY_DELAYS_S.length; i++) {
      await t.workers.drain();
      clock.advance(9 * 3600_000);
    }
    receiver.status = 200;
    const fresh = await machineToken(t.search, s); // the clock moved days ahead
    const [d] = (await t.search.inject({ method: "GET", url: `/v1/search/webhooks/${hook.id}/deliveries`, headers: bearer(fresh) })).json();
    assert.equal(d.status, "failed");
    assert.equal(d.attempts, RETRY_DELAYS_S.length + 1);
    const span = Date.parse(d.attempt_log.at(-1).at) - start;
    assert.ok(span > 18 * 3600_000, `retried for ${span / 3600_000} h`);
  });

  test("a second store cannot see, delete or read deliveries of the first store's webhooks", async () => {
    const hook = (await register({ url: `${receiver.url}/iso`, events: ["product.indexed"], secret: SECRET })).json();
    const other = await registerStore(t);
    const tok = await machineToken(t.search, other);
    assert.equal((await t.search.inject({ method: "GET", url: "/v1/search/webhooks", headers: bearer(tok) })).json().length, 0);
    assert.equal(
      (await t.search.inject({ method: "DELETE", url: `/v1/search/webhooks/${hook.id}`, headers: bearer(tok) })).statusCode,
      404,
    );
    assert.equal(
      (await t.search.inject({ method: "GET", url: `/v1/search/webhooks/${hook.id}/deliveries`, headers: bearer(tok) })).statusCode,
      404,
    );
    // B's products never trigger A's webhook.
    receiver.calls.length = 0;
    receiver.status = 200;
    await t.search.inject({ method: "POST", url: "/v1/products", headers: bearer(tok), payload: { product_id: "b-only", image_url: red } });
    await t.workers.drain();
    assert.equal(receiver.calls.filter((c) => c.json.data?.product_id === "b-only").length, 0);
  });
});
