// Search-history rows are written off the response path: queued by the search, inserted together
// after the current tick, flushed by readers and by the context's close() so a graceful stop
// loses none.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { createTestStorage, historyRow, openTestContext, recordingStatements, testConfig } from "../../../test/support/database.js";
import { registerStore } from "../../../test/support/factories.js";
import { historyWriter, SearchHistoryWriter } from "./history-writer.js";

/** A row as a search hands it to the writer (the writer adds the store). */
const row = (id: string, at: number) => {
  const { store_id: _store, ...fields } = historyRow("", id, { latency_ms: 3, created_at: at });
  return fields;
};

describeEachDialect("search history writer", (dialect) => {
  let t: TestApp;
  let storeId: string;
  before(async () => {
    t = await createTestApp({ dialect });
    storeId = (await registerStore(t)).clientId;
  });
  after(async () => t.close());

  const stored = async (ids: string[]) =>
    (await t.ctx.database.db.selectFrom("search_history").select("id").where("id", "in", ids).execute()).map((r) => r.id).sort();

  test("queues rows and writes everything queued in one go after the current tick", async () => {
    const writer = historyWriter(t.ctx);
    const ids = Array.from({ length: 50 }, (_, i) => `hw-a-${i}`);
    for (const id of ids) writer.add(storeId, row(id, Date.now()));
    assert.equal(writer.pending, 50, "nothing is written while the caller is still replying");
    assert.deepEqual(await stored(ids), []);
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(writer.pending, 0);
    await writer.flush();
    assert.deepEqual(await stored(ids), [...ids].sort());
  });

  test("batches of one size share a compiled statement and each writes its own values; a batch past one statement's rows is written whole", async () => {
    // Statements built through the writer's handle are recorded: a batch that failed and was
    // retried row by row (each row its own statement) would show here.
    const { recorded, statements } = recordingStatements(t.ctx.database.db);
    const writer = new SearchHistoryWriter({ ...t.ctx.database, db: recorded });
    const batch = (tag: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        ...row(`hw-d-${tag}-${i}`, 1_000 + i),
        mode: `mode ${tag}`,
        query_text: i % 2 === 0 ? null : `text ${tag} ${i}`,
        query_summary: `{"tag":"${tag}"}`,
        filters: `{"i":${i}}`,
        results: `[${i}]`,
        result_count: i,
        latency_ms: 100 + i,
        source: tag === "x" ? "api" : "widget",
      }));
    const written = [...batch("x", 3), ...batch("y", 3), ...batch("z", 450)];
    for (const rows of [written.slice(0, 3), written.slice(3, 6), written.slice(6)]) {
      for (const r of rows) writer.add(storeId, r);
      await writer.flush();
    }
    const read = await t.ctx.database.db.selectFrom("search_history").selectAll().where("id", "like", "hw-d-%").execute();
    assert.equal(statements.length, 1, "one statement built, for batches of 3 rows; the 450 rows in a transaction of their own");
    const byId = new Map(read.map((r) => [r.id, r]));
    assert.equal(byId.size, written.length);
    for (const w of written) {
      const r = byId.get(w.id)!;
      const parsedJson = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v);
      assert.deepEqual(
        { ...r, query_summary: parsedJson(r.query_summary), filters: parsedJson(r.filters), results: parsedJson(r.results) },
        {
          ...w,
          store_id: storeId,
          query_summary: JSON.parse(w.query_summary),
          filters: JSON.parse(w.filters),
          results: JSON.parse(w.results),
        },
        w.id,
      );
    }
  });

  test("a row of a store deleted meanwhile is dropped with a warning and the others are written", async () => {
    const warnings: string[] = [];
    const writer = new SearchHistoryWriter(t.ctx.database, (m) => warnings.push(m));
    writer.add(storeId, row("hw-b-1", Date.now()));
    writer.add("no-such-store", row("hw-b-2", Date.now()));
    writer.add(storeId, row("hw-b-3", Date.now()));
    await writer.flush();
    assert.deepEqual(await stored(["hw-b-1", "hw-b-2", "hw-b-3"]), ["hw-b-1", "hw-b-3"]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /1 search-history row/);
  });
});

test("closing the context writes the rows still queued (graceful stop loses none) [sqlite]", async () => {
  const storage = createTestStorage("sqlite");
  const config = await testConfig(storage);
  try {
    const first = await openTestContext(config, undefined);
    const now = Date.now();
    await first.database.db
      .insertInto("stores")
      .values({
        id: "s-close",
        slug: "s-close",
        name: "Close",
        status: "active",
        plan: "free",
        client_secret_hash: null,
        secret_rotated_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const writer = historyWriter(first);
    writer.add("s-close", row("hw-c-1", Date.now()));
    writer.add("s-close", row("hw-c-2", Date.now()));
    await first.close(); // no flush by the test
    const second = await openTestContext(config, undefined);
    const ids = (await second.database.db.selectFrom("search_history").select("id").orderBy("id").execute()).map((r) => r.id);
    await second.close();
    assert.deepEqual(ids, ["hw-c-1", "hw-c-2"]);
  } finally {
    await storage.remove();
  }
});
