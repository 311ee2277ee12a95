// The authentication cache in one process (embedded SQLite): a warm credential costs no statement,
// and every change authentication depends on is seen by the next request — a revoked API key, a
// refreshed (revoked) token, an allow-list entry, a plan change, a member's removal — including a
// change committed by another process on the same file (`npm run cli -- plan set`). Across API
// processes over PostgreSQL and Redis: test/scale/auth-cache.test.ts.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../../test/support/harness.js";
import { bearer, loginToken, machineToken, registerStore } from "../../test/support/factories.js";
import { runEntry } from "../../test/support/process.js";
import { authCacheOf } from "./auth-cache.js";

describe("authentication cache (one process, SQLite)", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const products = (token: string, remoteAddress = "127.0.0.1") =>
    t.search.inject({ method: "GET", url: "/v1/products", headers: bearer(token), remoteAddress });
  /** A products:read API key made by `owner`'s login. */
  const createKey = async (owner: string): Promise<{ key: string; id: string }> => {
    const created = await t.search.inject({
      method: "POST",
      url: "/v1/security/api-keys",
      headers: bearer(owner),
      payload: { name: "sync", scopes: { products: ["read"] } },
    });
    assert.equal(created.statusCode, 201, created.body);
    return created.json() as { key: string; id: string };
  };
  /** Lookups of one request: how many the cache answered and how many read the database. */
  const lookupsOf = async (request: () => Promise<{ statusCode: number; body: string }>, status = 200) => {
    const stats = authCacheOf(t.ctx).stats;
    const [hits, misses] = [stats.hits, stats.misses];
    const res = await request();
    assert.equal(res.statusCode, status, res.body);
    return { hits: stats.hits - hits, misses: stats.misses - misses };
  };

  test("is on for the embedded database, and a warm credential runs no authentication statement", async () => {
    assert.equal(authCacheOf(t.ctx).stats.enabled, true);
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    // Cold: the token's revocation, the store, its allow-list.
    assert.deepEqual(await lookupsOf(() => products(token)), { hits: 0, misses: 3 });
    assert.deepEqual(await lookupsOf(() => products(token)), { hits: 3, misses: 0 });

    const owner = await loginToken(t.search, store.email, store.password);
    await lookupsOf(() => products(owner));
    // A user login: revocation, memberships, the member's permissions.
    assert.deepEqual(await lookupsOf(() => products(owner)), { hits: 3, misses: 0 });

    const { key } = await createKey(owner);
    await lookupsOf(() => products(key));
    // An API key: the key, the store, its allow-list; its last-used time is not a change.
    assert.deepEqual(await lookupsOf(() => products(key)), { hits: 3, misses: 0 });
  });

  test("a revoked API key is refused by the next request", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const { key, id } = await createKey(owner);
    assert.equal((await products(key)).statusCode, 200);
    assert.equal((await products(key)).statusCode, 200);
    const revoked = await t.search.inject({ method: "DELETE", url: `/v1/security/api-keys/${id}`, headers: bearer(owner) });
    assert.equal(revoked.statusCode, 200, revoked.body);
    const refused = await products(key);
    assert.equal(refused.statusCode, 401);
    assert.match(refused.json().message, /revoked/);
  });

  test("a token replaced by /oauth/refresh is refused by the next request", async () => {
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    assert.equal((await products(token)).statusCode, 200);
    const refreshed = await t.search.inject({ method: "POST", url: "/oauth/refresh", headers: bearer(token) });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    assert.equal((await products(token)).statusCode, 401);
    assert.equal((await products(refreshed.json().access_token)).statusCode, 200);
  });

  test("an allow-list entry applies to the next request of a warm machine token", async () => {
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    const owner = await loginToken(t.search, store.email, store.password);
    assert.equal((await products(token, "198.51.100.9")).statusCode, 200);
    const added = await t.search.inject({
      method: "POST",
      url: "/v1/security/ip-whitelist",
      headers: bearer(owner),
      payload: { ip_address: "203.0.113.0/24", description: "office" },
    });
    assert.equal(added.statusCode, 201, added.body);
    const refused = await products(token, "198.51.100.9");
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error, "ip_not_allowed");
    assert.equal((await products(token, "203.0.113.4")).statusCode, 200);
  });

  test("a plan change applies to the next request (the free plan's limit is lifted)", async () => {
    const store = await registerStore(t, { plan: "free" });
    const token = await machineToken(t.search, store);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await products(token)).statusCode);
    assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
    await t.services.billing.applyPlanChange(store.clientId, "enterprise", "test");
    assert.equal((await products(token)).statusCode, 200);
  });

  test("a removed member is refused by the next request of their warm login", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    assert.equal((await products(owner)).statusCode, 200);
    const userId = (await t.ctx.database.db.selectFrom("users").select("id").where("email", "=", store.email).executeTakeFirstOrThrow()).id;
    await t.ctx.database.db.deleteFrom("memberships").where("store_id", "=", store.clientId).where("user_id", "=", userId).execute();
    const refused = await products(owner);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error, "not_a_member");
  });

  test("a change committed by another process on the same file (cli plan set) is seen", async () => {
    const store = await registerStore(t, { plan: "free" });
    const token = await machineToken(t.search, store);
    for (let i = 0; i < 10; i++) assert.equal((await products(token)).statusCode, 200);
    assert.equal((await products(token)).statusCode, 429);
    const cli = runEntry("cli.ts", ["plan", "set", "--plan", "enterprise", "--store", store.clientId], {
      DATA_DIR: t.dataDir,
      LOG_LEVEL: "silent",
    });
    assert.equal(await cli.exited, 0, cli.output());
    assert.equal((await products(token)).statusCode, 200, "the other process's plan change is read");
  });
});
