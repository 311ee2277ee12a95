// Scale-out: two API contexts over one PostgreSQL schema and one Redis enforce ONE budget for the
// plan rate limit, the per-IP login throttle and the failed-login lockout, whichever process a
// request reaches. Every limiter of the codebase is built through ctx.limiters (Redis-backed when
// REDIS_URL is set), so these three stand for all of them.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../support/factories.js";
import { createPeers, describeWithPostgresAndRedis, randomIp, type Peer, type Peers } from "../support/peers.js";

describeWithPostgresAndRedis("scale: limits shared across processes through Redis", () => {
  let cluster: Peers;
  let a: Peer;
  let b: Peer;

  before(async () => {
    cluster = await createPeers("postgres", { redis: true });
    [a, b] = cluster.peers as [Peer, Peer];
  });
  after(() => cluster.close());

  test("the free plan's 10 requests a minute hold across both processes", async () => {
    const store: RegisteredStore = await registerStore(a.asTestApp(), { plan: "free" });
    const token = await machineToken(a.search, store);
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) {
      const p = i % 2 === 0 ? a : b;
      statuses.push((await p.search.inject({ method: "GET", url: "/v1/products", headers: bearer(token) })).statusCode);
    }
    assert.deepEqual(statuses.slice(0, 10), Array(10).fill(200));
    assert.deepEqual(statuses.slice(10), [429, 429, 429, 429]);
    // Another store's budget is its own.
    const other = await registerStore(b.asTestApp(), { plan: "free" });
    const otherToken = await machineToken(b.search, other);
    assert.equal((await a.search.inject({ method: "GET", url: "/v1/products", headers: bearer(otherToken) })).statusCode, 200);
  });

  test("10 logins a minute per IP hold across both processes", async () => {
    const store = await registerStore(a.asTestApp());
    const ip = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const p = i % 2 === 0 ? a : b;
      const res = await p.search.inject({
        method: "POST",
        url: "/oauth/login",
        remoteAddress: ip,
        payload: { email: store.email, password: store.password },
      });
      statuses.push(res.statusCode);
    }
    assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
  });

  test("5 failed logins spread over both processes lock the e-mail on both", async () => {
    const store = await registerStore(a.asTestApp());
    for (let i = 0; i < 5; i++) {
      const p = i < 3 ? a : b;
      const res = await p.search.inject({
        method: "POST",
        url: "/oauth/login",
        remoteAddress: randomIp(),
        payload: { email: store.email, password: "Wrong-password-9" },
      });
      assert.equal(res.statusCode, 401);
    }
    for (const p of [a, b]) {
      const res = await p.search.inject({
        method: "POST",
        url: "/oauth/login",
        remoteAddress: randomIp(),
        payload: { email: store.email, password: store.password },
      });
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(res.json().error, "too_many_requests");
    }
  });

  test("a login without a password is refused with 400 validation_failed", async () => {
    const res = await b.search.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: randomIp(),
      payload: { email: "x@example.com" },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, "validation_failed");
  });
});
