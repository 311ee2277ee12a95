import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer } from "../../../test/support/factories.js";
import { addMember } from "../../../test/support/members.js";
import { anonymousSession, chatShop, type ChatShop } from "../../../test/support/chat.js";
import { fakeProduct, startStorefront, type StorefrontServer } from "../../../test/support/storefront-server.js";
import { ManualClock } from "../../platform/clock.js";
import { secretBoxFor, SecretBox } from "../../platform/secrets.js";
import { tokenAad } from "../storefront/index.js";

interface AuditEvent {
  id: string;
  operation: string;
  actor_user_id: string | null;
  target_id: string | null;
  reason: string | null;
  outcome: string;
  status_code: number;
  error_code: string | null;
  correlation_id: string;
  created_at: string;
}

describeEachDialect("assistant: storefront connections, settings and the admin audit trail", (dialect) => {
  let t: TestApp;
  let clock: ManualClock;
  let a: ChatShop;
  let b: ChatShop;
  let shop: StorefrontServer;
  const TOKEN = "shpat_secret_token_never_shown_42";

  async function audit(owner: string, query = ""): Promise<AuditEvent[]> {
    const res = await t.assistant.inject({ method: "GET", url: `/v1/admin/audit${query}`, headers: bearer(owner) });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { events: AuditEvent[] }).events;
  }

  async function connect(owner: string, payload: Record<string, unknown>) {
    return t.assistant.inject({ method: "POST", url: "/v1/admin/connections/storefront", headers: bearer(owner), payload });
  }

  before(async () => {
    clock = new ManualClock(Date.parse("2026-03-03T08:00:00Z"));
    t = await createTestApp({ dialect, clock });
    a = await chatShop(t);
    b = await chatShop(t);
    shop = await startStorefront({ token: TOKEN, shop: { name: "Alpha Outfitters", currency: "EUR" } });
    shop.products = [fakeProduct(1, "Rain jacket", "89.90")];
  });
  after(async () => {
    await shop.close();
    await t.close();
  });
  beforeEach(() => shop.reset());

  test("connect with a private token: validated against the store first, stored encrypted, never echoed", async () => {
    const res = await connect(a.owner, { store_url: `${shop.url}/some/path?x=1`, private_token: TOKEN, reason: "launch the assistant" });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json() as Record<string, unknown>;
    assert.match(String(body.connection_id), /^conn_/);
    assert.equal(body.store_url, shop.url);
    assert.equal(body.status, "connected");
    assert.equal(body.auth, "token");
    assert.equal(body.shop_name, "Alpha Outfitters");
    assert.equal(body.shop_currency, "EUR");
    assert.equal(body.verified_at, "2026-03-03T08:00:00.000Z");
    assert.ok(!res.body.includes(TOKEN));
    assert.equal(body.private_token, undefined);
    // The token was sent to the store (one read) before anything was kept.
    assert.equal(shop.calls.length, 1);
    assert.equal(shop.calls[0]!.path, "/admin/api/2024-07/shop.json");
    assert.equal(shop.calls[0]!.token, TOKEN);

    // Encryption at rest: the column is an AES-256-GCM envelope, not the token, and it opens only with its own row's identity.
    const row = await t.ctx.database.db
      .selectFrom("assistant_storefront_connections")
      .selectAll()
      .where("id", "=", String(body.connection_id))
      .executeTakeFirstOrThrow();
    assert.ok(row.token_ciphertext);
    assert.ok(!row.token_ciphertext!.includes(TOKEN));
    assert.ok(!Buffer.from(row.token_ciphertext!.split(".")[2]!, "base64url").toString("latin1").includes(TOKEN));
    assert.match(row.token_ciphertext!, /^v1\.[0-9a-f]{8}\./);
    const box = secretBoxFor(t.ctx.config);
    assert.equal(box.open(row.token_ciphertext!, tokenAad(a.storeId, row.id)), TOKEN);
    assert.throws(() => box.open(row.token_ciphertext!, tokenAad(b.storeId, row.id)));
    assert.throws(
      () => new SecretBox(Buffer.alloc(32, 7)).open(row.token_ciphertext!, tokenAad(a.storeId, row.id)),
      /another connector key/,
    );

    const list = await t.assistant.inject({ method: "GET", url: "/v1/admin/connections", headers: bearer(a.owner) });
    assert.equal(list.statusCode, 200);
    assert.equal(list.json().active_source, `storefront:${new URL(shop.url).host}`);
    assert.ok(!list.body.includes(TOKEN));
  });

  test("a rejected token or an unreachable store keeps nothing", async () => {
    const before = await t.ctx.database.db
      .selectFrom("assistant_storefront_connections")
      .select("id")
      .where("store_id", "=", b.storeId)
      .execute();
    const bad = await connect(b.owner, { store_url: shop.url, private_token: "shpat_wrong_token_123", reason: "try" });
    assert.equal(bad.statusCode, 422, bad.body);
    assert.equal(bad.json().code, "STOREFRONT_TOKEN_REJECTED");
    assert.ok(!bad.body.includes("shpat_wrong_token_123"));
    shop.down = true;
    const down = await connect(b.owner, { store_url: shop.url, private_token: TOKEN, reason: "try" });
    assert.equal(down.statusCode, 422);
    assert.equal(down.json().code, "STOREFRONT_UNREACHABLE");
    shop.down = false;
    const nothing = await connect(b.owner, { store_url: "http://127.0.0.1:1", reason: "closed port" });
    assert.equal(nothing.statusCode, 422);
    const after = await t.ctx.database.db
      .selectFrom("assistant_storefront_connections")
      .select("id")
      .where("store_id", "=", b.storeId)
      .execute();
    assert.deepEqual(after, before);
    const list = await t.assistant.inject({ method: "GET", url: "/v1/admin/connections", headers: bearer(b.owner) });
    assert.deepEqual(list.json().connections, []);
    assert.equal(list.json().active_source, "shopsight_catalog");
  });

  test("switch a connection to a token: validated before it replaces anything", async () => {
    const res = await connect(b.owner, { store_url: shop.url, reason: "public first" });
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().connection_id as string;
    assert.equal(res.json().auth, "none");
    const stored = await t.ctx.database.db
      .selectFrom("assistant_storefront_connections")
      .select("token_ciphertext")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.token_ciphertext, null);

    const wrong = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/connections/storefront/token",
      headers: bearer(b.owner),
      payload: { connection_id: id, private_token: "shpat_nope_nope_nope", reason: "upgrade" },
    });
    assert.equal(wrong.statusCode, 422);
    const still = await t.ctx.database.db
      .selectFrom("assistant_storefront_connections")
      .select(["token_ciphertext", "auth"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(still, { token_ciphertext: null, auth: "none" });

    clock.advance(1000);
    const ok = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/connections/storefront/token",
      headers: bearer(b.owner),
      payload: { connection_id: id, private_token: TOKEN, reason: "upgrade" },
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().auth, "token");
    assert.equal(ok.json().verified_at, new Date(clock.now()).toISOString());
    assert.ok(!ok.body.includes(TOKEN));

    // Another store's connection id is not found; an unknown id neither.
    const cross = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/connections/storefront/token",
      headers: bearer(a.owner),
      payload: { connection_id: id, private_token: TOKEN, reason: "steal" },
    });
    assert.equal(cross.statusCode, 404);
    const delCross = await t.assistant.inject({ method: "DELETE", url: `/v1/admin/connections/${id}`, headers: bearer(a.owner) });
    assert.equal(delCross.statusCode, 404);
    const listA = await t.assistant.inject({ method: "GET", url: "/v1/admin/connections", headers: bearer(a.owner) });
    assert.ok(!(listA.json().connections as Array<{ connection_id: string }>).some((c) => c.connection_id === id));

    // Disconnect: the store's embedded catalogue again; the token route then refuses the connection.
    const del = await t.assistant.inject({ method: "DELETE", url: `/v1/admin/connections/${id}`, headers: bearer(b.owner) });
    assert.equal(del.statusCode, 204);
    const list = await t.assistant.inject({ method: "GET", url: "/v1/admin/connections", headers: bearer(b.owner) });
    assert.equal(list.json().active_source, "shopsight_catalog");
    assert.equal(list.json().connections[0].status, "disconnected");
    const again = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/connections/storefront/token",
      headers: bearer(b.owner),
      payload: { connection_id: id, private_token: TOKEN, reason: "x" },
    });
    assert.equal(again.statusCode, 409);
  });

  test("connecting again replaces the previous connection (one connected storefront per store)", async () => {
    const first = await t.assistant.inject({ method: "GET", url: "/v1/admin/connections", headers: bearer(a.owner) });
    const oldId = first.json().connections.find((c: { status: string }) => c.status === "connected").connection_id;
    const res = await connect(a.owner, { store_url: shop.url, private_token: TOKEN, reason: "re-connect" });
    assert.equal(res.statusCode, 201);
    const list = await t.assistant.inject({ method: "GET", url: "/v1/admin/connections", headers: bearer(a.owner) });
    const conns = list.json().connections as Array<{ connection_id: string; status: string }>;
    assert.equal(conns.filter((c) => c.status === "connected").length, 1);
    assert.equal(conns.find((c) => c.connection_id === oldId)!.status, "disconnected");
  });

  test("bad input is VALIDATION_FAILED; only dashboard sessions with connector:write:store", async () => {
    for (const payload of [
      {},
      { store_url: shop.url },
      { store_url: "ftp://shop.example", reason: "x" },
      { store_url: "not a url", reason: "x" },
      { store_url: "https://user:pw@shop.example", reason: "x" },
      { store_url: shop.url, reason: "x", extra: 1 },
      { store_url: shop.url, reason: "x", private_token: "short" },
      { store_url: shop.url, reason: "   " },
    ]) {
      const res = await connect(a.owner, payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().code, "VALIDATION_FAILED");
    }
    for (const payload of [
      { connection_id: "nope", private_token: TOKEN, reason: "x" },
      { connection_id: "conn_abc", reason: "x" },
    ]) {
      const res = await t.assistant.inject({
        method: "POST",
        url: "/v1/admin/connections/storefront/token",
        headers: bearer(a.owner),
        payload,
      });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
    }
    const viewer = await addMember(t, a.owner, "viewer");
    const denied = await connect(viewer.token, { store_url: shop.url, private_token: TOKEN, reason: "x" });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().code, "MISSING_PERMISSION");
    const shopper = await anonymousSession(t, a);
    const s = await connect(shopper, { store_url: shop.url, reason: "x" });
    assert.equal(s.statusCode, 401);
  });

  test("settings: defaults, replace, validation, isolation", async () => {
    const get = await t.assistant.inject({ method: "GET", url: "/v1/admin/settings", headers: bearer(b.owner) });
    assert.equal(get.statusCode, 200);
    const { correlation_id, ...defaults } = get.json() as Record<string, unknown>;
    assert.ok(correlation_id);
    assert.deepEqual(defaults, { currency: "USD", support_contact: null, updated_at: null });
    const put = await t.assistant.inject({
      method: "PUT",
      url: "/v1/admin/settings",
      headers: bearer(b.owner),
      payload: { currency: "eur", support_contact: { email: "help@b.example", hours: "Mon–Fri 9–17" } },
    });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(put.json().currency, "EUR");
    assert.deepEqual(put.json().support_contact, { email: "help@b.example", hours: "Mon–Fri 9–17" });
    const otherStore = await t.assistant.inject({ method: "GET", url: "/v1/admin/settings", headers: bearer(a.owner) });
    assert.notEqual(otherStore.json().currency, "EUR");
    const vanity = { phone: "647-799-2694 / 1-888-30-ROOTS (76687)" };
    const withVanity = await t.assistant.inject({
      method: "PUT",
      url: "/v1/admin/settings",
      headers: bearer(b.owner),
      payload: { currency: "CAD", support_contact: vanity },
    });
    assert.equal(withVanity.statusCode, 200, "a vanity number and two numbers are a phone as shoppers read it");
    assert.deepEqual(withVanity.json().support_contact, vanity);
    for (const payload of [
      { currency: "XXZ", support_contact: null },
      { currency: "EURO", support_contact: null },
      { currency: "EUR" },
      { currency: "EUR", support_contact: {} },
      { currency: "EUR", support_contact: { email: "not-an-email" } },
      { currency: "EUR", support_contact: { url: "javascript:alert(1)" } },
      { currency: "EUR", support_contact: { fax: "123" } },
      { currency: "EUR", support_contact: { phone: "call us" } },
      { currency: "EUR", support_contact: { phone: "+1 <script>" } },
      { currency: "EUR", support_contact: null, x: 1 },
    ]) {
      const res = await t.assistant.inject({ method: "PUT", url: "/v1/admin/settings", headers: bearer(b.owner), payload });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().code, "VALIDATION_FAILED");
    }
  });

  test("audit: every admin call recorded (who, what, when, outcome), no secret in it, per store", async () => {
    const policy = await t.assistant.inject({
      method: "PUT",
      url: "/v1/admin/policies/returns",
      headers: bearer(a.owner),
      payload: { handle: "returns", title: "Returns", body_markdown: "30 days.", locale: "en", published: true },
    });
    assert.ok(policy.statusCode < 300, policy.body);
    const events = await audit(a.owner, "?limit=200");
    const ops = events.map((e) => e.operation);
    for (const op of ["public_key.create", "connection.create", "connection.list", "policy.put"])
      assert.ok(ops.includes(op), `${op} in ${ops.join(",")}`);
    const create = events.find((e) => e.operation === "connection.create" && e.reason === "launch the assistant")!;
    assert.equal(create.outcome, "success");
    assert.match(create.target_id!, /^conn_/);
    assert.equal(create.reason, "launch the assistant");
    assert.equal(create.status_code, 201);
    assert.equal(create.created_at, "2026-03-03T08:00:00.000Z");
    const owner = await t.ctx.database.db.selectFrom("users").select("id").where("email", "=", a.store.email).executeTakeFirstOrThrow();
    assert.equal(create.actor_user_id, owner.id);
    const refused = events.find((e) => e.operation === "connection.create" && e.status_code === 400)!;
    assert.equal(refused.outcome, "failure");
    assert.equal(refused.error_code, "VALIDATION_FAILED");
    const forbidden = events.find((e) => e.status_code === 403)!;
    assert.equal(forbidden.error_code, "MISSING_PERMISSION");
    assert.notEqual(forbidden.actor_user_id, owner.id);

    // The credential switch in store B is audited as connection.credential, success and failure.
    const eventsB = await audit(b.owner, "?operation=connection.credential");
    assert.deepEqual(eventsB.map((e) => [e.outcome, e.status_code]).sort(), [
      ["failure", 409],
      ["failure", 422],
      ["success", 200],
    ]);
    assert.ok(eventsB.every((e) => e.operation === "connection.credential"));

    // No token anywhere in the trail, in any store.
    const rows = await t.ctx.database.db.selectFrom("assistant_audit_events").selectAll().execute();
    assert.ok(rows.length > 10);
    const dump = JSON.stringify(rows);
    assert.ok(!dump.includes(TOKEN));
    assert.ok(!dump.includes("shpat_wrong_token_123"));
    // Isolation: store B's trail holds nothing of store A.
    const allB = await audit(b.owner, "?limit=200");
    const idsA = new Set(events.map((e) => e.id));
    assert.ok(allB.every((e) => !idsA.has(e.id)));
    assert.ok(!allB.some((e) => e.operation === "policy.put"));
    assert.ok(allB.some((e) => e.operation === "settings.put" && e.outcome === "success"));
    assert.ok(allB.some((e) => e.operation === "settings.read"));
    assert.ok(allB.some((e) => e.operation === "connection.delete" && e.outcome === "success"));

    // Paging and bad input.
    const page1 = await t.assistant.inject({ method: "GET", url: "/v1/admin/audit?limit=2", headers: bearer(a.owner) });
    const cursor = page1.json().next_cursor as string;
    assert.ok(cursor);
    const page2 = await t.assistant.inject({ method: "GET", url: `/v1/admin/audit?limit=2&cursor=${cursor}`, headers: bearer(a.owner) });
    assert.equal(page2.statusCode, 200);
    const seen = new Set((page1.json().events as AuditEvent[]).map((e) => e.id));
    assert.ok((page2.json().events as AuditEvent[]).every((e) => !seen.has(e.id)));
    for (const q of ["limit=0", "limit=201", "cursor=%20", "operation=DROP", "x=1"]) {
      const res = await t.assistant.inject({ method: "GET", url: `/v1/admin/audit?${q}`, headers: bearer(a.owner) });
      assert.equal(res.statusCode, 400, q);
    }
  });
});
