import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { ManualClock } from "../../platform/clock.js";
import { ConfigError, loadConfig } from "../../platform/config.js";
import { uuid } from "../../platform/ids.js";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { solidImage, startImageHost, type ImageHost } from "../../../test/support/servers.js";
import { StripeGateway } from "./stripe.js";

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const SEC = NOW / 1000;
const WEBHOOK_SECRET = "whsec_test_shopsight_secret";
const PRICES = { basic: "price_basic_test", premium: "price_premium_test", enterprise: "price_enterprise_test" };

interface Recorded {
  method: string;
  path: string;
  authorization: string | undefined;
  form: URLSearchParams;
}

/** A stand-in for api.stripe.com on 127.0.0.1: records each request and answers as Stripe does. */
async function startFakeStripe() {
  const requests: Recorded[] = [];
  let failNext = false;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0]!;
      requests.push({ method: req.method ?? "", path, authorization: req.headers.authorization, form: new URLSearchParams(body) });
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { "content-type": "application/json", "request-id": `req_${requests.length}` });
        res.end(JSON.stringify(payload));
      };
      if (failNext) {
        failNext = false;
        return send(400, { error: { type: "invalid_request_error", code: "resource_missing", message: "No such price: 'price_x'" } });
      }
      if (req.method === "POST" && path === "/v1/checkout/sessions") {
        const id = `cs_test_${requests.length}`;
        return send(200, {
          id,
          object: "checkout.session",
          mode: "subscription",
          url: `https://checkout.stripe.com/c/pay/${id}`,
          expires_at: SEC + 86400,
        });
      }
      const sub = /^\/v1\/subscriptions\/([\w-]+)$/.exec(path);
      if (req.method === "GET" && sub) {
        return send(200, {
          id: sub[1],
          object: "subscription",
          status: "active",
          items: {
            object: "list",
            data: [{ id: `si_${sub[1]}`, object: "subscription_item", price: { id: PRICES.basic, object: "price" } }],
          },
        });
      }
      if (req.method === "POST" && path === "/v1/billing_portal/sessions") {
        return send(200, { id: "bps_1", object: "billing_portal.session", url: "https://billing.stripe.com/p/session/test_1" });
      }
      send(404, { error: { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${path})` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    failNextRequest: () => {
      failNext = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const stripeEnv = (apiBase: string) => ({
  STRIPE_SECRET_KEY: "sk_test_shopsight",
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_PRICE_BASIC: PRICES.basic,
  STRIPE_PRICE_PREMIUM: PRICES.premium,
  STRIPE_PRICE_ENTERPRISE: PRICES.enterprise,
  STRIPE_API_BASE: apiBase,
});

type Obj = Record<string, unknown>;
const evt = (type: string, object: Obj, opts: { id?: string; created?: number } = {}) => ({
  id: opts.id ?? `evt_${randomBytes(8).toString("hex")}`,
  object: "event",
  api_version: "2026-10-28.endive",
  created: opts.created ?? SEC,
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  type,
  data: { object },
});

const checkoutCompleted = (store: RegisteredStore, plan: string, sub: string, customer: string, extra: Obj = {}) => ({
  id: `cs_test_${randomBytes(6).toString("hex")}`,
  object: "checkout.session",
  mode: "subscription",
  payment_status: "paid",
  status: "complete",
  client_reference_id: store.clientId,
  customer,
  subscription: sub,
  metadata: { store_id: store.clientId, plan_name: plan },
  ...extra,
});

const subscription = (
  store: RegisteredStore | null,
  sub: string,
  customer: string,
  price: string,
  status: string,
  period: [number, number],
) => ({
  id: sub,
  object: "subscription",
  customer,
  status,
  metadata: store ? { store_id: store.clientId } : {},
  items: {
    object: "list",
    data: [
      {
        id: `si_${sub}`,
        object: "subscription_item",
        price: { id: price, object: "price" },
        current_period_start: period[0],
        current_period_end: period[1],
      },
    ],
  },
});

const invoice = (
  store: RegisteredStore,
  id: string,
  sub: string,
  customer: string,
  o: { paid: boolean; amount: number; currency?: string; price?: string },
) => ({
  id,
  object: "invoice",
  customer,
  currency: o.currency ?? "usd",
  amount_due: o.amount,
  amount_paid: o.paid ? o.amount : 0,
  total: o.amount,
  status: o.paid ? "paid" : "open",
  created: SEC - 60,
  status_transitions: { paid_at: o.paid ? SEC - 30 : null },
  hosted_invoice_url: `https://invoice.stripe.com/i/${id}`,
  parent: { type: "subscription_details", subscription_details: { subscription: sub, metadata: { store_id: store.clientId } } },
  lines: {
    object: "list",
    data: [
      {
        id: `il_${id}`,
        period: { start: SEC - 3600, end: SEC - 3600 + 30 * 86400 },
        pricing: { price_details: { price: o.price ?? PRICES.premium } },
      },
    ],
  },
});

describeEachDialect("billing: Stripe checkout and webhook", (dialect) => {
  let t: TestApp;
  let fake: Awaited<ReturnType<typeof startFakeStripe>>;
  const clock = new ManualClock(NOW);
  before(async () => {
    fake = await startFakeStripe();
    t = await createTestApp({ dialect, clock, env: stripeEnv(fake.url) });
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  const send = (payload: string, header?: string, contentType = "application/json") =>
    t.search.inject({
      method: "POST",
      url: "/billing/webhooks/stripe",
      headers: { "content-type": contentType, ...(header === undefined ? {} : { "stripe-signature": header }) },
      payload,
    });
  const sign = (payload: string, opts: { secret?: string; timestamp?: number } = {}) =>
    Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: opts.secret ?? WEBHOOK_SECRET,
      timestamp: opts.timestamp ?? clock.now() / 1000,
    });
  const deliver = async (event: object) => {
    const payload = JSON.stringify(event);
    const res = await send(payload, sign(payload));
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { received: boolean; duplicate: boolean; outcome: string };
  };
  const planOf = async (token: string) => {
    const res = await t.search.inject({ method: "GET", url: "/v1/billing/current-plan", headers: bearer(token) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const invoicesOf = async (token: string) => {
    const res = await t.search.inject({ method: "GET", url: "/v1/billing/invoices", headers: bearer(token) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Obj[];
  };
  const freeStore = async () => {
    const store = await registerStore(t, { plan: "free" });
    return { store, token: await machineToken(t.search, store) };
  };

  test("checkout creates a Checkout Session in subscription mode through the stripe client", async () => {
    const { store, token } = await freeStore();
    const before = fake.requests.length;
    const res = await t.search.inject({
      method: "POST",
      url: "/v1/billing/checkout",
      headers: bearer(token),
      payload: { plan_name: "basic" },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.provider, "stripe");
    assert.match(body.checkout_url, /^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_\d+$/);
    assert.equal(body.session_id, body.checkout_url.split("/").pop());
    assert.equal(body.expires_at, new Date((SEC + 86400) * 1000).toISOString());

    const calls = fake.requests.slice(before);
    assert.equal(calls.length, 1);
    const call = calls[0]!;
    assert.equal(call.method, "POST");
    assert.equal(call.path, "/v1/checkout/sessions");
    assert.equal(call.authorization, "Bearer sk_test_shopsight");
    const f = call.form;
    assert.equal(f.get("mode"), "subscription");
    assert.equal(f.get("line_items[0][price]"), PRICES.basic);
    assert.equal(f.get("line_items[0][quantity]"), "1");
    assert.equal(f.get("client_reference_id"), store.clientId);
    assert.equal(f.get("metadata[store_id]"), store.clientId);
    assert.equal(f.get("metadata[plan_name]"), "basic");
    assert.equal(f.get("subscription_data[metadata][store_id]"), store.clientId);
    assert.equal(f.get("success_url"), "http://localhost:8080/billing/return?result=success&session_id={CHECKOUT_SESSION_ID}");
    assert.equal(f.get("cancel_url"), "http://localhost:8080/billing/return?result=cancel");
    assert.equal((await planOf(token)).plan_name, "free", "nothing changes before Stripe reports the payment");
  });

  test("a Stripe API error becomes 502 payment_provider_error without internals", async () => {
    const { token } = await freeStore();
    fake.failNextRequest();
    const res = await t.search.inject({
      method: "POST",
      url: "/v1/billing/checkout",
      headers: bearer(token),
      payload: { plan_name: "premium" },
    });
    assert.equal(res.statusCode, 502, res.body);
    assert.equal(res.json().error, "payment_provider_error");
    assert.deepEqual(res.json().details, { provider: "stripe", type: "invalid_request_error", code: "resource_missing", status: 400 });
    assert.doesNotMatch(res.body, /sk_test/);
  });

  test("checkout.session.completed with a valid signature changes the plan; a replayed event is acknowledged and applied once", async () => {
    const { store, token } = await freeStore();
    const completed = evt("checkout.session.completed", checkoutCompleted(store, "premium", "sub_replay", "cus_replay"), {
      created: SEC - 100,
    });
    const first = await deliver(completed);
    assert.deepEqual(first, { received: true, duplicate: false, outcome: "applied: free -> premium" });
    const plan = await planOf(token);
    assert.equal(plan.plan_name, "premium");
    assert.equal(plan.billing_provider, "stripe");
    assert.equal(plan.subscription_status, "active");

    // A newer event moves the store to basic; the replayed checkout event must not undo it.
    await deliver(
      evt(
        "customer.subscription.updated",
        subscription(store, "sub_replay", "cus_replay", PRICES.basic, "active", [SEC - 100, SEC + 86400 * 30]),
        { created: SEC - 50 },
      ),
    );
    assert.equal((await planOf(token)).plan_name, "basic");
    const replay = await deliver(completed);
    assert.deepEqual(replay, { received: true, duplicate: true, outcome: "already processed" });
    assert.equal((await planOf(token)).plan_name, "basic");
    const rows = await t.ctx.database.db
      .selectFrom("billing_stripe_events")
      .select(["event_id", "outcome"])
      .where("store_id", "=", store.clientId)
      .execute();
    assert.equal(rows.length, 2, "each event is recorded once");
  });

  test("the same event delivered twice at once is applied by exactly one delivery", async () => {
    const { store, token } = await freeStore();
    const event = evt("invoice.paid", invoice(store, "in_race", "sub_race", "cus_race", { paid: true, amount: 2999, price: PRICES.basic }));
    const payload = JSON.stringify(event);
    const results = await Promise.all([send(payload, sign(payload)), send(payload, sign(payload)), send(payload, sign(payload))]);
    assert.deepEqual(
      results.map((r) => r.statusCode),
      [200, 200, 200],
    );
    assert.deepEqual(results.map((r) => r.json().duplicate).sort(), [false, true, true]);
    assert.equal((await invoicesOf(token)).length, 1);
    assert.equal((await planOf(token)).plan_name, "basic");
  });

  test("invalid, tampered, stale or missing signatures are refused with 400 and change nothing; a valid retry then applies", async () => {
    const { store, token } = await freeStore();
    const event = evt("checkout.session.completed", checkoutCompleted(store, "enterprise", "sub_sig", "cus_sig"));
    const payload = JSON.stringify(event);

    const wrongSecret = await send(payload, sign(payload, { secret: "whsec_someone_else" }));
    assert.equal(wrongSecret.statusCode, 400);
    assert.equal(wrongSecret.json().error, "invalid_signature");
    assert.match(wrongSecret.json().details.reason, /signature/i);

    const tampered = payload.replace("enterprise", "premium");
    const tamperedRes = await send(tampered, sign(payload));
    assert.equal(tamperedRes.statusCode, 400);
    assert.equal(tamperedRes.json().error, "invalid_signature");

    const stale = await send(payload, sign(payload, { timestamp: clock.now() / 1000 - 301 }));
    assert.equal(stale.statusCode, 400);
    assert.match(stale.json().details.reason, /tolerance/i);

    assert.equal((await send(payload, "garbage")).json().error, "invalid_signature");
    const missing = await send(payload);
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().error, "validation_failed");
    const text = await send(payload, sign(payload), "text/plain");
    assert.equal(text.statusCode, 415);

    assert.equal((await planOf(token)).plan_name, "free");
    const seen = await t.ctx.database.db.selectFrom("billing_stripe_events").select("event_id").where("event_id", "=", event.id).execute();
    assert.equal(seen.length, 0, "a refused delivery is not recorded, so Stripe's retry is applied");
    assert.equal((await deliver(event)).outcome, "applied: free -> enterprise");
    assert.equal((await planOf(token)).plan_name, "enterprise");
  });

  test("customer.subscription.updated sets the plan from the price and the billing period from Stripe; older events and past_due do not change the plan", async () => {
    const { store, token } = await freeStore();
    const start = SEC - 86400 * 3;
    const end = start + 86400 * 30;
    const res = await deliver(
      evt("customer.subscription.updated", subscription(store, "sub_period", "cus_period", PRICES.premium, "active", [start, end]), {
        created: SEC - 10,
      }),
    );
    assert.equal(res.outcome, "applied: free -> premium");
    const plan = await planOf(token);
    assert.equal(plan.plan_name, "premium");
    assert.equal(plan.max_products, 50000);
    assert.equal(plan.requests_per_minute, 200);
    assert.equal(plan.period_start, new Date(start * 1000).toISOString());
    assert.equal(plan.period_end, new Date(end * 1000).toISOString());
    const usage = (await t.search.inject({ method: "GET", url: "/v1/billing/usage", headers: bearer(token) })).json();
    assert.equal(usage.period_start, plan.period_start);
    assert.equal(usage.api_calls, 1, "the current-plan call, inside Stripe's period");

    const older = await deliver(
      evt("customer.subscription.updated", subscription(store, "sub_period", "cus_period", PRICES.basic, "active", [start, end]), {
        created: SEC - 20,
      }),
    );
    assert.equal(older.outcome, "ignored: older than the last applied event");
    assert.equal((await planOf(token)).plan_name, "premium");

    const pastDue = await deliver(
      evt("customer.subscription.updated", subscription(store, "sub_period", "cus_period", PRICES.premium, "past_due", [start, end]), {
        created: SEC - 5,
      }),
    );
    assert.equal(pastDue.outcome, "recorded: status past_due");
    const p = await planOf(token);
    assert.equal(p.plan_name, "premium", "past_due keeps the plan while Stripe retries");
    assert.equal(p.subscription_status, "past_due");
  });

  test("invoice.paid and invoice.payment_failed are listed with amount, currency, status and link; replays add nothing and paid stays paid", async () => {
    const { store, token } = await freeStore();
    await deliver(evt("checkout.session.completed", checkoutCompleted(store, "premium", "sub_inv", "cus_inv"), { created: SEC - 100 }));
    const paid = evt("invoice.paid", invoice(store, "in_paid_1", "sub_inv", "cus_inv", { paid: true, amount: 9999 }), {
      created: SEC - 90,
    });
    assert.equal((await deliver(paid)).duplicate, false);
    assert.equal((await deliver(paid)).duplicate, true);
    const failed = evt("invoice.payment_failed", invoice(store, "in_failed_1", "sub_inv", "cus_inv", { paid: false, amount: 9999 }), {
      created: SEC - 80,
    });
    await deliver(failed);
    // A late payment_failed for the paid invoice (another event id) does not overwrite "paid".
    await deliver(
      evt("invoice.payment_failed", invoice(store, "in_paid_1", "sub_inv", "cus_inv", { paid: false, amount: 9999 }), {
        created: SEC - 70,
      }),
    );

    const list = await invoicesOf(token);
    assert.equal(list.length, 2);
    const byStatus = Object.fromEntries(list.map((i) => [i.status as string, i]));
    assert.deepEqual(
      { ...byStatus.paid, id: "x" },
      {
        id: "x",
        date: new Date((SEC - 30) * 1000).toISOString(),
        amount: 99.99,
        currency: "usd",
        status: "paid",
        url: "https://invoice.stripe.com/i/in_paid_1",
        plan_name: "premium",
        period_start: new Date((SEC - 3600) * 1000).toISOString(),
        period_end: new Date((SEC - 3600 + 30 * 86400) * 1000).toISOString(),
      },
    );
    assert.equal(byStatus.failed!.amount, 99.99);
    assert.equal(byStatus.failed!.url, "https://invoice.stripe.com/i/in_failed_1");
    assert.equal((await planOf(token)).plan_name, "premium", "a failed payment leaves the plan to Stripe's retries");
  });

  test("amounts in zero-decimal currencies are not divided by 100", async () => {
    const { store, token } = await freeStore();
    await deliver(
      evt(
        "invoice.paid",
        invoice(store, "in_jpy", "sub_jpy", "cus_jpy", { paid: true, amount: 4500, currency: "JPY", price: PRICES.basic }),
      ),
    );
    const [inv] = await invoicesOf(token);
    assert.equal(inv!.amount, 4500);
    assert.equal(inv!.currency, "jpy");
    assert.equal((await planOf(token)).plan_name, "basic", "a paid invoice of a new subscription puts its plan in force");
  });

  test("customer.subscription.deleted returns the store to free; a downgrade keeps every product and reports it over the limit", async () => {
    const { store, token } = await freeStore();
    await deliver(evt("checkout.session.completed", checkoutCompleted(store, "basic", "sub_del", "cus_del"), { created: SEC - 100 }));
    assert.equal((await planOf(token)).plan_name, "basic");
    await t.ctx.database.db
      .insertInto("products")
      .values(
        Array.from({ length: 60 }, (_, i) => ({
          store_id: store.clientId,
          product_id: `d-${i}`,
          vector_id: uuid(),
          image_url: "https://img.example/x.png",
          image_sha256: "0".repeat(64),
          name: null,
          category: null,
          brand: null,
          price: null,
          color_name: null,
          metadata: "{}",
          dominant_colors: "[]",
          model: "test",
          created_at: NOW,
          updated_at: NOW,
        })),
      )
      .execute();
    // The subscription object of a deletion carries no store metadata here: the recorded subscription id finds the store.
    const res = await deliver(
      evt("customer.subscription.deleted", subscription(null, "sub_del", "cus_del", PRICES.basic, "canceled", [SEC - 100, SEC]), {
        created: SEC - 1,
      }),
    );
    assert.equal(res.outcome, "applied: basic -> free (canceled)");
    const usage = (await t.search.inject({ method: "GET", url: "/v1/billing/usage", headers: bearer(token) })).json();
    assert.equal(usage.plan_name, "free");
    assert.equal(usage.products_count, 60, "products are kept");
    assert.equal(usage.max_products, 50);
    assert.equal(usage.products_percent, 120);
    assert.equal(usage.over_product_limit, true);
    const plan = await planOf(token);
    assert.equal(plan.subscription_status, "canceled");
    assert.equal(plan.period_start, "2026-11-01T00:00:00.000Z", "without a live subscription the period is the calendar month");
    // A deletion of some other (older) subscription of the store is ignored.
    await deliver(
      evt("customer.subscription.updated", subscription(store, "sub_new", "cus_del", PRICES.premium, "active", [SEC, SEC + 86400 * 30]), {
        created: SEC,
      }),
    );
    const stray = await deliver(
      evt("customer.subscription.deleted", subscription(store, "sub_del", "cus_del", PRICES.basic, "canceled", [SEC - 100, SEC]), {
        created: SEC + 1,
      }),
    );
    assert.equal(stray.outcome, "ignored: not the store's current subscription");
    assert.equal((await planOf(token)).plan_name, "premium");
  });

  test("with a live subscription, checkout asks Stripe for a billing-portal confirmation of the new price instead of a second subscription", async () => {
    const { store, token } = await freeStore();
    await deliver(evt("checkout.session.completed", checkoutCompleted(store, "basic", "sub_live", "cus_live"), { created: SEC - 100 }));
    const before = fake.requests.length;
    const res = await t.search.inject({
      method: "POST",
      url: "/v1/billing/checkout",
      headers: bearer(token),
      payload: { plan_name: "premium" },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().checkout_url, "https://billing.stripe.com/p/session/test_1");
    const calls = fake.requests.slice(before);
    assert.deepEqual(
      calls.map((c) => `${c.method} ${c.path}`),
      ["GET /v1/subscriptions/sub_live", "POST /v1/billing_portal/sessions"],
    );
    const f = calls[1]!.form;
    assert.equal(f.get("customer"), "cus_live");
    assert.equal(f.get("flow_data[type]"), "subscription_update_confirm");
    assert.equal(f.get("flow_data[subscription_update_confirm][subscription]"), "sub_live");
    assert.equal(f.get("flow_data[subscription_update_confirm][items][0][id]"), "si_sub_live");
    assert.equal(f.get("flow_data[subscription_update_confirm][items][0][price]"), PRICES.premium);
    assert.equal((await planOf(token)).plan_name, "basic", "the plan changes when Stripe sends the subscription update");
  });

  test("events for other stores, unknown stores and unhandled types are acknowledged and change nothing here", async () => {
    const a = await freeStore();
    const b = await freeStore();
    await deliver(evt("checkout.session.completed", checkoutCompleted(a.store, "premium", "sub_iso_a", "cus_iso_a")));
    await deliver(evt("invoice.paid", invoice(a.store, "in_iso_a", "sub_iso_a", "cus_iso_a", { paid: true, amount: 9999 })));
    assert.equal((await planOf(b.token)).plan_name, "free");
    assert.deepEqual(await invoicesOf(b.token), []);
    assert.equal((await invoicesOf(a.token)).length, 1);

    const ghost = { ...b.store, clientId: uuid() };
    assert.equal(
      (await deliver(evt("checkout.session.completed", checkoutCompleted(ghost, "premium", "sub_ghost", "cus_ghost")))).outcome,
      "ignored: unknown store",
    );
    assert.equal((await deliver(evt("charge.refunded", { id: "ch_1", object: "charge" }))).outcome, "ignored: event type not handled");
    assert.equal((await planOf(b.token)).plan_name, "free");
  });
});

describe("billing: Stripe configuration", () => {
  test("STRIPE_SECRET_KEY needs the webhook secret and the three price ids, named in the error", () => {
    const config = loadConfig({ STRIPE_SECRET_KEY: "sk_test_x", STRIPE_PRICE_BASIC: "price_b" });
    assert.throws(
      () => new StripeGateway(config),
      (e: unknown) =>
        e instanceof ConfigError &&
        /STRIPE_WEBHOOK_SECRET/.test(e.message) &&
        /STRIPE_PRICE_PREMIUM/.test(e.message) &&
        /STRIPE_PRICE_ENTERPRISE/.test(e.message) &&
        !/STRIPE_PRICE_BASIC/.test(e.message),
    );
  });

  test("a malformed key is refused at load, STRIPE_API_BASE is refused in production, and no key means the local checkout", () => {
    assert.throws(
      () => loadConfig({ STRIPE_SECRET_KEY: "pk_live_123" }),
      (e: unknown) => e instanceof ConfigError && /STRIPE_SECRET_KEY/.test(e.message),
    );
    assert.throws(
      () => new StripeGateway(loadConfig({ NODE_ENV: "production", STRIPE_API_BASE: "http://127.0.0.1:1" })),
      /STRIPE_API_BASE/,
    );
    const local = new StripeGateway(loadConfig({}));
    assert.equal(local.enabled, false);
    assert.equal(local.webhooksEnabled, false);
  });
});

describeEachDialect("billing: a downgrade below the product count keeps products and refuses new ones", (dialect) => {
  let t: TestApp;
  let host: ImageHost;
  let fake: Awaited<ReturnType<typeof startFakeStripe>>;
  before(async () => {
    fake = await startFakeStripe();
    host = await startImageHost();
    t = await createTestApp({ dialect, model: true, env: stripeEnv(fake.url) });
  });
  after(async () => {
    await t.close();
    await host.close();
    await fake.close();
  });

  test("premium → free with 55 products: all 55 stay listed, a 56th is refused with plan_limit_reached, replacing one still works", async () => {
    const store = await registerStore(t, { plan: "free" });
    const token = await machineToken(t.search, store);
    const deliver = async (event: object) => {
      const payload = JSON.stringify(event);
      const header = Stripe.webhooks.generateTestHeaderString({
        payload,
        secret: WEBHOOK_SECRET,
        timestamp: Math.floor(Date.now() / 1000),
      });
      const res = await t.search.inject({
        method: "POST",
        url: "/billing/webhooks/stripe",
        headers: { "content-type": "application/json", "stripe-signature": header },
        payload,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const now = Math.floor(Date.now() / 1000);
    await deliver(evt("checkout.session.completed", checkoutCompleted(store, "premium", "sub_down", "cus_down"), { created: now - 10 }));
    const service = t.services.products;
    const image = await t.ctx.images.fromBytes(await solidImage("#2040a0"));
    const [vector] = await t.ctx.images.embed([image.decoded]);
    for (let i = 0; i < 55; i++)
      await service.write(store.clientId, {
        productId: `keep-${i}`,
        imageUrl: "http://img/x.png",
        metadata: {},
        embedded: { image, vector: vector! },
      });

    const down = await deliver(
      evt("customer.subscription.deleted", subscription(store, "sub_down", "cus_down", PRICES.premium, "canceled", [now - 100, now]), {
        created: now,
      }),
    );
    assert.equal(down.outcome, "applied: premium -> free (canceled)");

    const url = host.put("/new.png", await solidImage("#a02040"));
    const refused = await t.search.inject({
      method: "POST",
      url: "/v1/products",
      headers: bearer(token),
      payload: { product_id: "new-one", image_url: url },
    });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().error, "plan_limit_reached");
    const replaced = await t.search.inject({
      method: "POST",
      url: "/v1/products",
      headers: bearer(token),
      payload: { product_id: "keep-0", image_url: url },
    });
    assert.equal(replaced.statusCode, 200, replaced.body);
    const usage = (await t.search.inject({ method: "GET", url: "/v1/billing/usage", headers: bearer(token) })).json();
    assert.equal(usage.products_count, 55);
    assert.equal(usage.over_product_limit, true);
  });
});
