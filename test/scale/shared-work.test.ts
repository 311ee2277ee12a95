// Scale-out: two application contexts over one database (one PostgreSQL schema, or one SQLite
// file), each with its own connection pool, job queue instance and webhook dispatcher, stand for
// two worker processes. Jobs are claimed exactly once, a job whose worker died is taken over once
// its lease lapsed, the webhook outbox is drained by both without double delivery and in order
// per product, and a revocation made through one is refused by the other at once.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ManualClock } from "../../src/platform/clock.js";
import { describeEachDialect } from "../support/harness.js";
import { bearer, loginToken, machineToken, registerStore, type RegisteredStore } from "../support/factories.js";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { signBody } from "../../src/search/webhooks/events.js";
import { createPeers, type Peer, type Peers } from "../support/peers.js";

const SECRET = "whsec-scale-0123456789";

/** The value of a counter sample in a Prometheus text exposition (0 when absent). */
function sample(text: string, name: string, labels: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(" ").pop()) : 0;
}

describeEachDialect("scale: two worker processes share one database", (dialect) => {
  let cluster: Peers;
  let a: Peer;
  let b: Peer;
  let store: RegisteredStore;
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 9));

  before(async () => {
    cluster = await createPeers(dialect, { clock, dispatcher: { batch: 4 } });
    [a, b] = cluster.peers as [Peer, Peer];
    store = await registerStore(a.asTestApp());
  });
  after(() => cluster.close());

  test("claims each of 40 jobs exactly once across both queues, and both take part", async () => {
    const seen: { id: string; by: string }[] = [];
    for (const peer of [a, b]) {
      peer.ctx.jobs.register<{ n: number }>({
        kind: "scale.count",
        async run(job) {
          seen.push({ id: job.id, by: peer.ctx.jobs.instanceId });
          await new Promise((r) => setImmediate(r)); // let the other queue claim meanwhile
        },
      });
    }
    const ids = await a.ctx.database.transaction(async (tx) => {
      const out: string[] = [];
      for (let n = 0; n < 40; n++) out.push(await a.ctx.jobs.enqueue(tx, store.clientId, "scale.count", { n }));
      return out;
    });
    const [ranA, ranB] = await Promise.all([a.ctx.jobs.drain(), b.ctx.jobs.drain()]);
    assert.equal(ranA + ranB, 40);
    assert.equal(seen.length, 40, "40 runs in all");
    assert.deepEqual(new Set(seen.map((s) => s.id)), new Set(ids), "every job ran, none twice");
    assert.ok(ranA > 0 && ranB > 0, `both queues took jobs (a ${ranA}, b ${ranB})`);
    const rows = await b.ctx.database.db.selectFrom("jobs").select(["status", "attempts"]).where("kind", "=", "scale.count").execute();
    assert.equal(rows.length, 40);
    assert.ok(rows.every((r) => r.status === "completed" && r.attempts === 1));
  });

  test("a job whose worker died is claimed by the other once its lease lapsed, not before", async () => {
    const id = await a.ctx.database.transaction((tx) => a.ctx.jobs.enqueue(tx, store.clientId, "scale.count", { n: 99 }));
    // Worker a claims the job and "dies" (never finishes, never renews the lease).
    const claimed = await a.ctx.jobs.claim();
    assert.equal(claimed?.id, id);
    assert.equal(await b.ctx.jobs.claim(), undefined, "leased: b may not take it");
    clock.advance(31_000); // past the 30 s lease
    const retaken = await b.ctx.jobs.claim();
    assert.equal(retaken?.id, id);
    assert.equal(retaken?.locked_by, b.ctx.jobs.instanceId);
    assert.equal(retaken?.attempts, 2);
    assert.equal(await a.ctx.jobs.claim(), undefined, "now leased to b");
  });

  test("/metrics of either process reports the shared queue depth and the oldest job's age", async () => {
    const res = await a.search.inject({ method: "GET", url: "/metrics" });
    assert.equal(res.statusCode, 200);
    // The job of the previous test is still running (leased to b) and was created 31 s ago.
    assert.equal(sample(res.body, "shopsight_jobs", 'kind="scale.count",status="running"'), 1);
    const id = await a.ctx.database.transaction((tx) => a.ctx.jobs.enqueue(tx, store.clientId, "scale.count", { n: 100 }));
    clock.advance(12_000);
    const fromB = (await b.search.inject({ method: "GET", url: "/metrics" })).body;
    assert.equal(sample(fromB, "shopsight_jobs", 'kind="scale.count",status="queued"'), 1);
    assert.equal(sample(fromB, "shopsight_jobs_oldest_age_seconds", 'kind="scale.count"'), 12);
    await b.ctx.database.db.deleteFrom("jobs").where("id", "=", id).execute();
  });

  test("two dispatchers drain the webhook outbox: every delivery once, signed, in order per product", async () => {
    // A receiver that takes 15 ms per call, so one dispatcher's batch is still in flight when the
    // other claims: both really work at once.
    const calls: { delivery: string; body: any; signed: boolean }[] = [];
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        calls.push({
          delivery: String(req.headers["x-webhook-delivery"]),
          body: JSON.parse(body),
          signed: req.headers["x-webhook-signature"] === signBody(SECRET, body),
        });
        setTimeout(() => res.writeHead(200).end(), 15);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const receiver = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    try {
      const token = await machineToken(a.search, store);
      const hook = await a.search.inject({
        method: "POST",
        url: "/v1/search/webhooks",
        headers: bearer(token),
        payload: { url: `${receiver.url}/hook`, events: ["product.deleted"], secret: SECRET },
      });
      assert.equal(hook.statusCode, 201, hook.body);
      // 24 events for 24 products plus 4 events of one product, which must arrive in order.
      const service = a.services.webhooks;
      await a.ctx.database.transaction(async (tx) => {
        for (let n = 0; n < 24; n++) await service.emit(tx, store.clientId, "product.deleted", { product_id: `p${n}` }, `p${n}`);
        for (let n = 0; n < 4; n++) await service.emit(tx, store.clientId, "product.deleted", { product_id: "same", n }, "same");
      });
      const [sentA, sentB] = await Promise.all([a.workers.dispatcher.drain(), b.workers.dispatcher.drain()]);
      assert.equal(sentA + sentB, 28, "28 attempts in all");
      assert.ok(sentA > 0 && sentB > 0, `both dispatchers delivered (a ${sentA}, b ${sentB})`);
      assert.equal(calls.length, 28);
      assert.equal(new Set(calls.map((c) => c.delivery)).size, 28, "no delivery twice");
      assert.ok(
        calls.every((c) => c.signed),
        "every body signed with the webhook's secret",
      );
      const same = calls.filter((c) => c.body.data.product_id === "same").map((c) => c.body.data.n);
      assert.deepEqual(same, [0, 1, 2, 3], "one product's events in order");
      const rows = await b.ctx.database.db
        .selectFrom("webhook_deliveries")
        .select(["status", "attempts"])
        .where("store_id", "=", store.clientId)
        .execute();
      assert.ok(rows.length === 28 && rows.every((r) => r.status === "delivered" && r.attempts === 1));
      // Each process counts its own attempts; together they are the 28 deliveries.
      const delivered = async (p: Peer) =>
        sample(await p.ctx.metrics.render(), "shopsight_webhook_deliveries_total", 'outcome="delivered"');
      assert.equal((await delivered(a)) + (await delivered(b)), 28);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  test("a token refreshed through one process is refused by the other at once; the new one works on both", async () => {
    const old = await machineToken(a.search, store);
    assert.equal((await b.search.inject({ method: "GET", url: "/v1/products", headers: bearer(old) })).statusCode, 200);
    const refreshed = await a.search.inject({ method: "POST", url: "/oauth/refresh", headers: bearer(old) });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    const revoked = await b.search.inject({ method: "GET", url: "/v1/products", headers: bearer(old) });
    assert.equal(revoked.statusCode, 401);
    const fresh = refreshed.json().access_token as string;
    for (const p of [a, b])
      assert.equal((await p.search.inject({ method: "GET", url: "/v1/products", headers: bearer(fresh) })).statusCode, 200);
  });

  test("a client-secret rotation through one process revokes older machine tokens on the other at once, refresh included", async () => {
    const s = await registerStore(a.asTestApp());
    const old = await machineToken(a.search, s);
    assert.equal((await b.search.inject({ method: "GET", url: "/v1/products", headers: bearer(old) })).statusCode, 200);
    clock.advance(1000); // iat has whole seconds
    const rotated = await a.search.inject({ method: "POST", url: "/v1/security/client-secret/rotate", headers: bearer(old) });
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.equal((await b.search.inject({ method: "GET", url: "/v1/products", headers: bearer(old) })).statusCode, 401);
    assert.equal((await b.search.inject({ method: "POST", url: "/oauth/refresh", headers: bearer(old) })).statusCode, 401);
    const fresh = await machineToken(b.search, { ...s, clientSecret: rotated.json().client_secret as string });
    assert.equal((await a.search.inject({ method: "GET", url: "/v1/products", headers: bearer(fresh) })).statusCode, 200);
  });

  test(
    "a store's bulk jobs are counted against its plan's cap and written under one lock across processes",
    { skip: dialect === "sqlite" ? "the embedded SQLite default runs one process, whose transactions are serial" : false },
    async () => {
      const s = await registerStore(a.asTestApp());
      const token = await machineToken(b.search, s);
      // Process A holds the store's queue lock in an open transaction …
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let taken!: () => void;
      const lockTaken = new Promise<void>((resolve) => (taken = resolve));
      const holder = a.ctx.database.transaction(async (tx) => {
        await a.services.repositories.bulkJobs.with(tx).lockQueue(s.clientId);
        taken();
        await held;
      });
      await lockTaken;
      // … so process B's new job of that store waits for it, and goes through once it is released.
      let answered = false;
      const waiting = b.search
        .inject({
          method: "POST",
          url: "/v1/products/bulk",
          headers: bearer(token),
          payload: { products: [{ product_id: "locked-1", image_url: "https://images.example.com/a.png" }] },
        })
        .then((res) => {
          answered = true;
          return res;
        });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(answered, false, "B waits for A's check-and-write of the same store");
      release();
      await holder;
      assert.equal((await waiting).statusCode, 202);
      await a.ctx.database.db.deleteFrom("jobs").where("store_id", "=", s.clientId).execute();
    },
  );

  test("an API key revoked through one process is refused by the other at once", async () => {
    const owner = await loginToken(a.search, store.email, store.password);
    const created = await a.search.inject({
      method: "POST",
      url: "/v1/security/api-keys",
      headers: bearer(owner),
      payload: { name: "k", scopes: { products: ["read"] } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const { key, id } = created.json() as { key: string; id: string };
    assert.equal((await b.search.inject({ method: "GET", url: "/v1/products", headers: bearer(key) })).statusCode, 200);
    assert.equal((await b.search.inject({ method: "DELETE", url: `/v1/security/api-keys/${id}`, headers: bearer(owner) })).statusCode, 200);
    assert.equal((await a.search.inject({ method: "GET", url: "/v1/products", headers: bearer(key) })).statusCode, 401);
  });

  test("claims across both processes are fair: the store running fewer jobs goes first, and a store stops at its cap (4)", async () => {
    const s = await registerStore(a.asTestApp());
    const u = await registerStore(a.asTestApp());
    for (const peer of [a, b]) peer.ctx.jobs.register<{ n: number }>({ kind: "scale.fair", run: () => Promise.resolve() });
    const enqueue = async (storeId: string, n: number) => {
      clock.advance(1); // a distinct age per job
      return a.ctx.database.transaction((tx) => a.ctx.jobs.enqueue(tx, storeId, "scale.fair", { n }));
    };
    const many: string[] = [];
    for (let n = 0; n < 6; n++) many.push(await enqueue(s.clientId, n));
    const single = await enqueue(u.clientId, 0);
    const first = await a.ctx.jobs.claim();
    assert.equal(first?.id, many[0], "oldest job first while no store runs anything");
    const second = await b.ctx.jobs.claim();
    assert.equal(second?.id, single, "the other process prefers the store running nothing over an older job of the busy one");
    const next = [await a.ctx.jobs.claim(), await b.ctx.jobs.claim(), await a.ctx.jobs.claim()];
    assert.deepEqual(
      next.map((j) => j?.id),
      many.slice(1, 4),
    );
    assert.equal(await b.ctx.jobs.claim(), undefined, "the store runs 4 jobs over both processes: its cap");
    await a.ctx.database.db.deleteFrom("jobs").where("kind", "=", "scale.fair").execute();
  });
});
