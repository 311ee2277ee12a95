// indexAllProducts (the lexical data step of migration 0018, and bench:scale's fill): every
// product of every store gets its lexical row, page by page across store boundaries.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import { describeEachDialect } from "../../test/support/harness.js";
import { createStores } from "../../test/support/database.js";
import { openTestDatabase, type TestDatabase } from "../vectors/test-support.js";
import { indexAllProducts, LexicalRepository } from "./repository.js";
import { lexicalCacheOf } from "./cache.js";

describeEachDialect("lexical: indexAllProducts", (dialect) => {
  let t: TestDatabase;
  const stores = { a: ["a1", "a2", "a3"], b: ["b1", "b2"], c: ["c1", "c2", "c3", "c4"] };
  before(async () => {
    t = await openTestDatabase(dialect);
    await createStores(t.database, Object.keys(stores));
    const rows = Object.entries(stores).flatMap(([storeId, ids]) =>
      ids.map((id) => ({
        store_id: storeId,
        product_id: id,
        vector_id: `v-${id}`,
        image_url: `https://img.example/${id}.png`,
        image_sha256: "0".repeat(64),
        name: `anorak ${id}`,
        category: null,
        brand: null,
        price: null,
        color_name: null,
        metadata: JSON.stringify({ name: `anorak ${id}` }),
        dominant_colors: "[]",
        model: "m",
        created_at: 0,
        updated_at: 0,
      })),
    );
    await t.database.db.insertInto("products").values(rows).execute();
  });
  after(async () => t.close());

  for (const [concurrency, pageSize] of [
    [1, 2],
    [3, 4],
  ] as const) {
    test(`pages of ${pageSize}, ${concurrency} at a time: every product of every store, once`, async () => {
      await sql`DELETE FROM product_text`.execute(t.database.db);
      assert.equal(await indexAllProducts(t.database.db, dialect, concurrency, pageSize), 9, "how many were written");
      const lexical = new LexicalRepository(t.database.db, dialect);
      for (const [storeId, ids] of Object.entries(stores)) {
        const { hits } = await lexical.search(storeId, "anorak", 10);
        assert.deepEqual(hits.map((h) => h.productId).sort(), ids, storeId);
      }
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM product_text`.execute(t.database.db);
      assert.equal(Number(rows[0]!.n), 9);
    });
  }

  test("storeIds: only those stores' products (migrate-data's copy of some stores), paged", async () => {
    await sql`DELETE FROM product_text`.execute(t.database.db);
    assert.equal(await indexAllProducts(t.database.db, dialect, 1, 2, { storeIds: ["a", "c"] }), 7);
    const { rows } = await sql<{ store_id: string }>`SELECT DISTINCT store_id FROM product_text ORDER BY store_id`.execute(t.database.db);
    assert.deepEqual(
      rows.map((r) => r.store_id),
      ["a", "c"],
    );
  });

  test("cached rankings: a query asked once leaves nothing in the cache; from its second ask its ranking is kept and answers", async () => {
    await sql`DELETE FROM product_text`.execute(t.database.db);
    await indexAllProducts(t.database.db, dialect, 1, 100);
    const lexical = new LexicalRepository(t.database.db, dialect, { cached: true });
    const cache = lexicalCacheOf(t.database.db);
    cache.clear();
    const ask = async () => (await lexical.search("c", "anorak", 10)).hits.map((h) => h.productId).sort();
    assert.deepEqual(await ask(), stores.c);
    assert.equal(cache.size, 0, "asked once: not kept");
    assert.deepEqual(await ask(), stores.c);
    assert.equal(cache.size, 1, "asked again: kept");
    assert.deepEqual(await ask(), stores.c, "answered from the cache");
    assert.equal(cache.size, 1);
    assert.deepEqual(
      (await lexical.search("a", "anorak", 10)).hits.map((h) => h.productId).sort(),
      stores.a,
      "another store's key is its own",
    );
    assert.equal(cache.size, 1);
  });

  test("mergeSegments: on SQLite merges the segments of an index written product by product until none are left to merge (two at a time: migration 0035), the matches unchanged", async () => {
    const lexical = new LexicalRepository(t.database.db, dialect);
    if (dialect === "postgres") {
      assert.equal(await lexical.mergeSegments(128), false, "nothing to merge on PostgreSQL");
      return;
    }
    await sql`DELETE FROM product_text`.execute(t.database.db);
    // One statement, hence one FTS5 segment, per product.
    for (const [storeId, ids] of Object.entries(stores))
      for (const id of ids)
        await sql`INSERT INTO product_text (store_id, product_id, name, brand, category, color, tags, description, other, words)
          VALUES (${storeId}, ${id}, ${`anorak ${id}`}, '', '', '', '', '', '', ${`anorak ${id}`})`.execute(t.database.db);
    const matches = async () => {
      const found: Record<string, string[]> = {};
      for (const storeId of Object.keys(stores))
        found[storeId] = (await lexical.search(storeId, "anorak", 10)).hits.map((h) => h.productId).sort();
      return found;
    };
    const before = await matches();
    assert.deepEqual(before, stores);
    const steps: boolean[] = [];
    for (let i = 0; i < 20 && steps.at(-1) !== false; i++) steps.push(await lexical.mergeSegments(128));
    assert.equal(steps[0], true, "the first step merged segments");
    assert.equal(steps.at(-1), false, `it ends: ${steps.join(", ")}`);
    assert.deepEqual(await matches(), before);
    await sql`INSERT INTO product_fts(product_fts) VALUES ('integrity-check')`.execute(t.database.db);
    const { rows } = await sql<{ v: number }>`SELECT v FROM product_fts_config WHERE k = 'usermerge'`.execute(t.database.db);
    assert.deepEqual(rows, [{ v: 2 }]);
  });
});
