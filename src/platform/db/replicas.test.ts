// Read replicas against a real streaming replica (.ci/run step 3b: a second PostgreSQL 15
// cluster cloned with pg_basebackup): reads through database.reader() go to the replica; after a
// write in the same request, and for a store whose write the replica has not replayed, they go to
// the primary; a replica that lags, is unreachable or drops its connections falls back to the
// primary with no error to the caller. Replay is paused on the replica (pg_wal_replay_pause) to
// make it lag on purpose.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import type { Database } from "./index.js";
import { openDatabase } from "../../db/index.js";
import { ReplicaRouter, parseLsn } from "./replicas.js";
import { testEnv } from "../../../test/support/env.js";
import { createStores, createTestStorage, historyRow, withPg, type TestStorage } from "../../../test/support/database.js";
import { createTestApp } from "../../../test/support/harness.js";
import { bearer, machineToken, registerStore } from "../../../test/support/factories.js";
import { solidImage, startImageHost } from "../../../test/support/servers.js";

const primaryUrl = testEnv.databaseUrl;
const replicaUrl = testEnv.databaseReadUrl;
const skip = !primaryUrl || !replicaUrl;
if (skip && testEnv.ci) throw new Error("CI run without TEST_DATABASE_URL and TEST_DATABASE_READ_URL: the replica tests cannot run");

/** Where a read ran: true on the replica (in recovery), false on the primary. */
async function onReplica(db: Database, storeId: string): Promise<boolean> {
  const { rows } = await sql<{ r: boolean }>`SELECT pg_is_in_recovery() AS r`.execute(db.reader(storeId));
  return rows[0]!.r;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until every replica has replayed what the primary has written so far. */
async function caughtUp(db: Database): Promise<void> {
  const target = await withPg(async (c) => parseLsn((await c.query("SELECT pg_current_wal_insert_lsn()::text AS l")).rows[0].l));
  for (let i = 0; i < 200; i++) {
    await db.replicas!.poll();
    if (db.replicas!.status().every((r) => r.healthy && BigInt(r.replayLsn) >= target)) return;
    await sleep(50);
  }
  throw new Error("the replica did not catch up in 10 s");
}

const replay = (action: "pause" | "resume") => withPg((c) => c.query(`SELECT pg_wal_replay_${action}()`), replicaUrl);

/** Whether the replica's replay holds an ACCESS EXCLUSIVE lock on `table` (a qualified name), or on any relation a read can see. */
async function replayLocks(c: pg.Client, table?: string): Promise<boolean> {
  const { rows } = await c.query(
    `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
      WHERE l.locktype = 'relation' AND l.mode = 'AccessExclusiveLock' AND ($1::text IS NULL OR l.relation = to_regclass($1))`,
    [table ?? null],
  );
  return rows[0].n > 0;
}

/**
 * Pauses replay where the replica holds no ACCESS EXCLUSIVE lock on a table a read can see.
 * Paused while replay holds one (autovacuum shortening a system catalog, or a DDL statement,
 * replayed but not yet its transaction's end), reads of that table wait on the replica until the
 * lock timeout and then go to the primary (the router's rule 4), and a test meaning the replica
 * would see the primary. So: pause, look, and if such a lock is held, resume a moment and retry.
 * Locks on relations a transaction is still creating (not visible yet) do not count.
 */
async function pauseReplay(): Promise<void> {
  await withPg(async (c) => {
    await c.query("SET lock_timeout = 200");
    for (let attempt = 0; attempt < 50; attempt++) {
      await c.query("SELECT pg_wal_replay_pause()");
      for (let i = 0; i < 200; i++) {
        if ((await c.query("SELECT pg_get_wal_replay_pause_state()::text AS s")).rows[0].s === "paused") break;
        await sleep(10);
      }
      // With pg_class itself locked by replay this query times out: that is a held lock too.
      const held = await replayLocks(c).catch((error: { code?: string }) => {
        if (error.code === "55P03") return true;
        throw error;
      });
      if (!held) return;
      await c.query("SELECT pg_wal_replay_resume()");
      await sleep(50);
    }
    throw new Error("replay could not be paused clear of ACCESS EXCLUSIVE locks in 50 tries");
  }, replicaUrl);
}

/** Waits until the replica's replay holds an ACCESS EXCLUSIVE lock on `table` (a qualified name). */
async function replayHolds(table: string): Promise<void> {
  await withPg(async (c) => {
    for (let i = 0; i < 200; i++) {
      if (await replayLocks(c, table)) return;
      await sleep(50);
    }
    throw new Error(`the replica did not replay the lock on ${table} in 10 s`);
  }, replicaUrl);
}

describe(
  "read replicas [postgres streaming replica]",
  // A bound, so that a read stuck on the replica fails this file instead of the whole run.
  { skip: skip ? "TEST_DATABASE_URL / TEST_DATABASE_READ_URL not set: run .ci/run to start the replica" : false, timeout: 120_000 },
  () => {
    let storage: TestStorage;
    let database: Database;

    before(async () => {
      storage = createTestStorage("postgres", "shopsight-replicas");
      database = await openDatabase({ kind: "postgres", url: primaryUrl!, readUrls: [replicaUrl!] }, { pgSchema: storage.pgSchema! });
      await createStores(database, ["r-a", "r-b"]);
      await caughtUp(database);
    });

    after(async () => {
      await replay("resume").catch(() => undefined);
      await database?.close();
      await storage?.remove();
    });

    test("every connection of the pools, primary and replica, starts with the session settings (jit off; on replicas a lock timeout)", async () => {
      // Several at once, so that each pool opens more than one connection.
      const settings = async (db: typeof database.db) =>
        (
          await Promise.all(
            Array.from({ length: 4 }, () =>
              sql<{
                jit: string;
                lock: string;
                r: boolean;
              }>`SELECT current_setting('jit') AS jit, current_setting('lock_timeout') AS lock, pg_is_in_recovery() AS r, pg_sleep(0.05)`.execute(
                db,
              ),
            ),
          )
        ).map((res) => res.rows[0]!);
      const primary = await settings(database.db);
      assert.deepEqual(
        primary.map((p) => [p.jit, p.lock, p.r]),
        Array(4).fill(["off", "0", false]),
      );
      const replica = await settings(database.reader("r-a"));
      assert.deepEqual(
        replica.map((p) => [p.jit, p.lock, p.r]),
        Array(4).fill(["off", "1s", true]),
      );
    });

    test("sends a store's reads to the replica, and everything after a write in the same request to the primary", async () => {
      await database.readScope(async () => {
        assert.equal(await onReplica(database, "r-a"), true, "before any write: the replica");
        const { rows } = await sql<{ id: string }>`SELECT id FROM stores ORDER BY id`.execute(database.reader("r-a"));
        assert.deepEqual(
          rows.map((r) => r.id),
          ["r-a", "r-b"],
          "the replica has the schema and rows",
        );
        await database.db.updateTable("stores").set({ name: "renamed" }).where("id", "=", "r-a").execute();
        assert.equal(await onReplica(database, "r-a"), false, "after the write: the primary");
        assert.equal(await onReplica(database, "r-b"), false, "for any store of this request");
      });
      await database.readScope(async () => {
        // Appends to the event logs are not writes that move reads to the primary.
        await database.db
          .insertInto("search_history")
          .values(historyRow("r-b", `h-r-b-${Date.now()}`, { query_text: "x" }))
          .execute();
        assert.equal(await onReplica(database, "r-b"), true);
      });
      await caughtUp(database);
      await database.readScope(async () => assert.equal(await onReplica(database, "r-b"), true, "a new request starts on the replica"));
    });

    test("a store reads its own write in its next request while the replica has not replayed it; other stores stay on the replica", async () => {
      await caughtUp(database);
      await pauseReplay();
      try {
        await database.readScope(async () => {
          await database.db.updateTable("stores").set({ name: "written-while-paused" }).where("id", "=", "r-a").execute();
          await database.afterRequest("r-a");
        });
        await database.replicas!.poll();
        await database.readScope(async () => {
          const row = await database.reader("r-a").selectFrom("stores").select("name").where("id", "=", "r-a").executeTakeFirstOrThrow();
          assert.equal(row.name, "written-while-paused", "read-your-writes");
          assert.equal(await onReplica(database, "r-a"), false, "served by the primary");
          assert.equal(await onReplica(database, "r-b"), true, "another store still reads the replica (lag under the limit)");
          const stale = await database.reader("r-b").selectFrom("stores").select("name").where("id", "=", "r-a").executeTakeFirstOrThrow();
          assert.notEqual(stale.name, "written-while-paused", "the replica really has not replayed the write");
        });
      } finally {
        await replay("resume");
      }
      await caughtUp(database);
      await database.readScope(async () => {
        assert.equal(await onReplica(database, "r-a"), true, "once replayed, the store is back on the replica");
        const row = await database.reader("r-a").selectFrom("stores").select("name").where("id", "=", "r-a").executeTakeFirstOrThrow();
        assert.equal(row.name, "written-while-paused");
      });
    });

    test("skips a replica that lags more than the limit, without an error", async () => {
      let now = 1_000_000;
      const primary = new pg.Pool({ connectionString: primaryUrl, options: `-c search_path=${storage.pgSchema},public`, max: 2 });
      const { PostgresDialect } = await import("kysely");
      const router = new ReplicaRouter(primary, new PostgresDialect({ pool: primary }).createDriver(), {
        urls: [replicaUrl!],
        maxLagMs: 1_000,
        now: () => now,
        pgOptions: `-c search_path=${storage.pgSchema},public`,
      });
      try {
        await router.poll();
        assert.equal(router.status()[0]!.healthy, true);
        await pauseReplay();
        await primary.query("UPDATE stores SET updated_at = updated_at + 1 WHERE id = 'r-b'");
        await router.poll();
        now += 2_000;
        await primary.query("UPDATE stores SET updated_at = updated_at + 1 WHERE id = 'r-b'");
        await router.poll();
        const status = router.status()[0]!;
        assert.equal(status.healthy, false, `lag ${status.lagMs} ms is over the limit`);
        assert.ok(status.lagMs >= 2_000);
        const { rows } = await sql<{ r: boolean }>`SELECT pg_is_in_recovery() AS r`.execute(router.reader("r-b"));
        assert.equal(rows[0]!.r, false, "read from the primary");
        await replay("resume");
        for (let i = 0; i < 100 && !router.status()[0]!.healthy; i++) {
          await sleep(50);
          await router.poll();
        }
        assert.equal(router.status()[0]!.healthy, true, "healthy again once it has caught up");
      } finally {
        await replay("resume");
        await router.close();
        await primary.end();
      }
    });

    test("a read that waits on the replica for a lock replay holds goes to the primary after the lock timeout", async () => {
      const options = `-c search_path=${storage.pgSchema},public`;
      const primary = new pg.Pool({ connectionString: primaryUrl, options, max: 2 });
      const { PostgresDialect } = await import("kysely");
      const router = new ReplicaRouter(primary, new PostgresDialect({ pool: primary }).createDriver(), {
        urls: [replicaUrl!],
        lockTimeoutMs: 200,
        pgOptions: options,
      });
      const locker = new pg.Client({ connectionString: primaryUrl, options });
      await locker.connect();
      try {
        await router.poll();
        // A DDL-strength lock on the primary, replayed on the replica; replay paused before the
        // transaction's end, so the replica keeps holding it after the primary has let it go.
        await locker.query("BEGIN");
        await locker.query("LOCK TABLE stores IN ACCESS EXCLUSIVE MODE");
        // The lock's record is flushed (and so sent) only with a later commit or a WAL switch:
        // the test cluster commits asynchronously and nothing else may be writing.
        await withPg((c) => c.query("SELECT pg_switch_wal()"));
        await replayHolds(`"${storage.pgSchema}".stores`);
        await replay("pause");
        await locker.query("COMMIT");
        const before = { ...router.stats };
        const { rows } = await sql<{ id: string; r: boolean }>`SELECT id, pg_is_in_recovery() AS r FROM stores ORDER BY id`.execute(
          router.reader("r-a"),
        );
        assert.deepEqual(
          rows.map((r) => [r.id, r.r]),
          [
            ["r-a", false],
            ["r-b", false],
          ],
          "answered by the primary",
        );
        assert.equal(router.stats.fallbacks, before.fallbacks + 1, "the replica gave up waiting and the primary answered");
        assert.equal(router.status()[0]!.healthy, false, "the replica sits out until its next good poll");
      } finally {
        await locker.query("ROLLBACK").catch(() => undefined);
        await replay("resume");
        await locker.end();
        await router.close();
        await primary.end();
      }
    });

    test("falls back to the primary when the replica is unreachable or drops its connections", async () => {
      // Nothing listens on port 1: the replica is "down" from the start.
      const down = await openDatabase(
        { kind: "postgres", url: primaryUrl!, readUrls: ["postgres://shopsight:shopsight@127.0.0.1:1/shopsight_test"] },
        { pgSchema: storage.pgSchema!, migrate: false },
      );
      try {
        assert.equal(down.replicas!.status()[0]!.healthy, false);
        const rows = await down.reader("r-a").selectFrom("stores").select("id").orderBy("id").execute();
        assert.deepEqual(
          rows.map((r) => r.id),
          ["r-a", "r-b"],
        );
      } finally {
        await down.close();
      }
      // The replica ends our connection in the middle of a read (as when it shuts down): the read
      // is answered by the primary.
      await caughtUp(database);
      await database.readScope(async () => assert.equal(await onReplica(database, "r-a"), true));
      const before = { ...database.replicas!.stats };
      const read = sql<{ r: boolean }>`SELECT pg_is_in_recovery() AS r, pg_sleep(0.5)::text AS slept`.execute(database.reader("r-a"));
      await withPg(async (c) => {
        for (let i = 0; i < 100; i++) {
          const { rowCount } = await c.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_is_in_recovery() AS r, pg_sleep%' AND pid <> pg_backend_pid()",
          );
          if (rowCount) return;
          await sleep(20);
        }
        throw new Error("the read never reached the replica");
      }, replicaUrl);
      const { rows } = await read;
      assert.equal(rows[0]!.r, false, "answered by the primary, no error");
      assert.equal(database.replicas!.stats.fallbacks, before.fallbacks + 1, "the replica failed and the primary answered");
      await caughtUp(database);
      await database.readScope(async () => assert.equal(await onReplica(database, "r-a"), true, "back on the replica after a good poll"));
    });
  },
);

describe(
  "read replicas through the Search API [postgres streaming replica]",
  { skip: skip ? "TEST_DATABASE_URL / TEST_DATABASE_READ_URL not set: run .ci/run to start the replica" : false, timeout: 120_000 },
  () => {
    /** An app reading from the replica, a store with a machine token, and a red image URL. */
    async function withReplicaApp(
      fn: (t: Awaited<ReturnType<typeof createTestApp>>, token: string, red: string) => Promise<void>,
    ): Promise<void> {
      const t = await createTestApp({ dialect: "postgres", model: true, env: { DATABASE_READ_URLS: replicaUrl! } });
      const host = await startImageHost();
      try {
        const red = host.put("/red.png", await solidImage("#d01010"));
        const token = await machineToken(t.search, await registerStore(t));
        await fn(t, token, red);
      } finally {
        await replay("resume");
        await host.close();
        await t.close();
      }
    }

    test("a client lists its new product in its next request while the replica lags; searches, listings and analytics then read the replica", () =>
      withReplicaApp(async (t, token, red) => {
        const replicas = t.ctx.database.replicas!;
        await caughtUp(t.ctx.database);
        await pauseReplay();
        try {
          const created = await t.search.inject({
            method: "POST",
            url: "/v1/products",
            headers: bearer(token),
            payload: { product_id: "new-1", image_url: red, metadata: { category: "dresses" } },
          });
          assert.equal(created.statusCode, 201, created.body);
          await replicas.poll();
          const before = { ...replicas.stats };
          const listed = await t.search.inject({ method: "GET", url: "/v1/products?limit=10", headers: bearer(token) });
          assert.equal(listed.statusCode, 200);
          assert.equal(listed.json().total, 1, "the client reads its own write");
          assert.equal(replicas.stats.replica, before.replica, "not from the lagging replica");
          assert.ok(replicas.stats.primary > before.primary);
        } finally {
          await replay("resume");
        }
        await caughtUp(t.ctx.database);
        const onReplica = async (name: string, request: () => Promise<{ statusCode: number; body: string }>) => {
          const before = replicas.stats.replica;
          const res = await request();
          assert.equal(res.statusCode, 200, res.body);
          assert.ok(replicas.stats.replica > before, `${name} read the replica (${JSON.stringify(replicas.stats)})`);
          return res;
        };
        const listed = await onReplica("the listing", () =>
          t.search.inject({ method: "GET", url: "/v1/products?limit=10", headers: bearer(token) }),
        );
        assert.equal(JSON.parse(listed.body).total, 1);
        const search = await onReplica("the text search (vector stage)", () =>
          t.search.inject({ method: "POST", url: "/v1/search/text", headers: bearer(token), payload: { query: "red dress", limit: 5 } }),
        );
        assert.equal(JSON.parse(search.body).results[0]?.product_id, "new-1");
        await onReplica("analytics", () => t.search.inject({ method: "GET", url: "/v1/search/analytics?days=7", headers: bearer(token) }));
      }));

    test("a filtered search takes its candidates from the replica, and from the primary after the store's own write", () =>
      withReplicaApp(async (t, token, red) => {
        const created = await t.search.inject({
          method: "POST",
          url: "/v1/products",
          headers: bearer(token),
          payload: { product_id: "f-1", image_url: red, metadata: { category: "dresses" } },
        });
        assert.equal(created.statusCode, 201, created.body);
        const { rows } = await sql<{ s: string }>`SELECT current_schema() AS s`.execute(t.ctx.database.db);
        const schema = rows[0]!.s;
        const found = async (category: string) => {
          const res = await t.search.inject({
            method: "POST",
            url: "/v1/search/text",
            headers: bearer(token),
            payload: { query: "red dress", limit: 5, category },
          });
          assert.equal(res.statusCode, 200, res.body);
          return (res.json() as { results: { product_id: string }[] }).results.map((r) => r.product_id);
        };
        await caughtUp(t.ctx.database);
        await pauseReplay();
        try {
          // Changed on the primary behind the router's back (no request of the store recorded a
          // write): the paused replica still files the product under "dresses".
          await withPg((c) => c.query(`UPDATE "${schema}".products SET category = 'shoes' WHERE product_id = 'f-1'`));
          assert.deepEqual(await found("dresses"), ["f-1"], "the candidates come from the replica");
          assert.deepEqual(await found("shoes"), [], "not from the primary");
          // The store's own write through the API: its next requests read the primary.
          const updated = await t.search.inject({
            method: "PUT",
            url: "/v1/products/f-1",
            headers: bearer(token),
            payload: { metadata: { category: "bags" } },
          });
          assert.equal(updated.statusCode, 200, updated.body);
          await t.ctx.database.replicas!.poll();
          assert.deepEqual(await found("bags"), ["f-1"], "the client's filter sees its own write");
          assert.deepEqual(await found("dresses"), []);
        } finally {
          await replay("resume");
        }
      }));
  },
);
