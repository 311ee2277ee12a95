// Held postings (postings.ts): the cache alone, then LexicalRepository on SQLite with it, against
// the same repository without caches (the full-text statements) on the same rows.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { createStores, historyRow, productRow, recordingStatements } from "../../test/support/database.js";
import { mulberry32 } from "../platform/prng.js";
import { openTestDatabase, type TestDatabase } from "../vectors/test-support.js";
import { COMMON_TTL_MS, PostingCache, type TextRow } from "./postings.js";
import { LexicalRepository } from "./repository.js";
import type { Group } from "./query.js";

const row = (id: number, words = `w${id}`): TextRow => ({ id, product_id: `p${id}`, name: words, words });
const ids = (rows: readonly TextRow[] | undefined) => rows?.map((r) => r.id);

describe("PostingCache", () => {
  test("a phrase is read from its second ask at a version; a query is matched only when all its phrases are held", () => {
    const c = new PostingCache();
    assert.deepEqual(c.wanted("s", 1, ['"red"', '"dress"']), [], "asked once: remembered, not read");
    assert.equal(c.match("s", 1, [['"red"'], ['"dress"']], false, 10), undefined, "nothing held");
    assert.deepEqual(c.wanted("s", 1, ['"red"', '"red"', '"coat"']), ['"red"'], "asked again: read (once)");
    c.put("s", 1, '"red"', [row(5), row(3), row(1)]);
    assert.deepEqual(c.wanted("s", 1, ['"red"']), [], "held");
    assert.equal(c.match("s", 1, [['"red"'], ['"dress"']], false, 10), undefined, '"dress" is not held');
    assert.deepEqual(ids(c.match("s", 1, [['"red"']], true, 10)), [5, 3, 1]);
  });

  test("AND: a phrase of every group; OR: of any; each product once, newest first, at most the limit", () => {
    const c = new PostingCache();
    const put = (phrase: string, rows: TextRow[]) => {
      c.wanted("s", 1, [phrase]);
      c.wanted("s", 1, [phrase]);
      c.put("s", 1, phrase, rows);
    };
    put('"red"', [row(9), row(7), row(4), row(2)]);
    put('"crimson"', [row(8), row(4)]);
    put('"dress"', [row(8), row(7), row(3), row(2)]);
    put('"gown"', [row(6)]);
    put('"silk"', []);
    const colour = ['"red"', '"crimson"'];
    const kind = ['"dress"', '"gown"'];
    assert.deepEqual(ids(c.match("s", 1, [colour, kind], true, 10)), [8, 7, 2]);
    assert.deepEqual(ids(c.match("s", 1, [colour, kind], false, 10)), [9, 8, 7, 6, 4, 3, 2]);
    assert.deepEqual(ids(c.match("s", 1, [colour, kind], false, 3)), [9, 8, 7], "limit: the newest");
    assert.deepEqual(ids(c.match("s", 1, [colour, ['"silk"']], true, 10)), [], "a phrase that matches nothing is held too");
    assert.equal(c.held.rows, 7, "a product matched by several phrases is held once");
  });

  test("a moved version empties the store's entry; another store's is its own", () => {
    const c = new PostingCache();
    for (const s of ["a", "b"]) {
      c.wanted(s, 1, ['"red"']);
      c.wanted(s, 1, ['"red"']);
      c.put(s, 1, '"red"', s === "a" ? [row(1)] : [row(2)]);
    }
    assert.deepEqual(ids(c.match("b", 1, [['"red"']], true, 10)), [2]);
    assert.equal(c.match("a", 2, [['"red"']], true, 10), undefined, "version 2: nothing held");
    assert.deepEqual(c.wanted("a", 2, ['"red"']), ['"red"'], "version 2: asked before in the store, so read again");
    assert.deepEqual(c.wanted("c", 1, ['"red"']), [], "asked in other stores, not in c: c's first ask");
    assert.equal(c.match("a", 1, [['"red"']], true, 10), undefined, "version 1 is gone");
    c.put("a", 1, '"red"', [row(1)]);
    assert.equal(c.match("a", 1, [['"red"']], true, 10), undefined, "rows read at a version since left are not kept");
    assert.deepEqual(ids(c.match("b", 1, [['"red"']], true, 10)), [2], "store b is untouched");
  });

  test("a phrase matching more than phraseMax products is common: not held, its queries unanswered, not read again at later versions until COMMON_TTL_MS", () => {
    let now = 0;
    const c = new PostingCache(1_000_000, 2, 100, () => now);
    c.wanted("s", 1, ['"red"', '"dress"']);
    assert.deepEqual(c.wanted("s", 1, ['"red"', '"dress"']), ['"red"', '"dress"']);
    c.put("s", 1, '"red"', [row(3), row(2), row(1)]);
    c.put("s", 1, '"dress"', [row(2)]);
    assert.deepEqual(c.wanted("s", 1, ['"red"']), [], "known as common: not read again");
    assert.equal(c.match("s", 1, [['"red"'], ['"dress"']], true, 10), undefined);
    assert.deepEqual(ids(c.match("s", 1, [['"dress"']], true, 10)), [2]);
    assert.deepEqual(c.wanted("s", 2, ['"red"', '"dress"']), ['"dress"'], "version 2: red still common, dress read again");
    now = COMMON_TTL_MS;
    assert.deepEqual(c.wanted("s", 2, ['"red"']), ['"red"'], "forgotten after COMMON_TTL_MS: read again");
  });

  test("bounded: the least recently searched store is dropped; a store alone over the bound starts over", () => {
    // Sizes (postings.ts): a store 64; a row 48 + "p1" + name + words = 54; a phrase '"x"' 3 + 4 per
    // posting and one more. Stores a and b with one row each: 129 apiece; c with two rows: 187.
    const max = 330;
    const c = new PostingCache(max);
    const hold = (s: string, phrase: string, rows: TextRow[]) => {
      c.wanted(s, 1, [phrase]);
      c.wanted(s, 1, [phrase]);
      c.put(s, 1, phrase, rows);
    };
    hold("a", '"x"', [row(1)]);
    hold("b", '"x"', [row(2)]);
    assert.equal(c.held.stores, 2);
    c.wanted("a", 1, []); // a searched more recently than b
    hold("c", '"x"', [row(3), row(4)]);
    assert.ok(c.held.size <= max, `size ${c.held.size}`);
    assert.equal(c.match("b", 1, [['"x"']], true, 10), undefined, "b, the least recently searched, was dropped");
    assert.deepEqual(ids(c.match("c", 1, [['"x"']], true, 10)), [4, 3]);
    assert.deepEqual(ids(c.match("a", 1, [['"x"']], true, 10)), [1]);
    hold("a", '"y"', [row(5), row(6), row(7), row(8)]);
    assert.ok(c.held.size <= max, `size ${c.held.size}`);
    assert.equal(c.match("a", 1, [['"y"']], true, 10), undefined, "a alone over the bound: started over");
    const asked = new PostingCache(100);
    for (let i = 0; i < 50; i++) asked.wanted(`s${i}`, 1, ['"x"']);
    assert.ok(
      asked.held.size <= 100 && asked.held.stores < 50,
      `stores searched but holding nothing count too: ${JSON.stringify(asked.held)}`,
    );
  });
});

describe("LexicalRepository on SQLite with held postings", () => {
  let t: TestDatabase;
  /** Statements sent through the cached repository's handle. */
  let statements: string[] = [];
  /** Full-text statements among them since the last `statements.length = 0`. */
  const fts = () => statements.filter((s) => s.includes("product_fts MATCH")).length;
  const vocabulary = ["red", "blue", "linen", "wool", "dress", "coat", "shirt", "boots", "summer", "running", "shoe", "kids"];
  // A small deterministic generator: the same corpus and queries on every run.
  const random = mulberry32(7);
  const next = (n: number) => Math.floor(random() * n);
  const pick = (n: number) => Array.from({ length: n }, () => vocabulary[next(vocabulary.length)]!);
  let cached: LexicalRepository;
  let plain: LexicalRepository;

  before(async () => {
    t = await openTestDatabase("sqlite");
    await createStores(t.database, ["a", "b"]);
    const writer = new LexicalRepository(t.database.db, "sqlite");
    const products = Array.from({ length: 81 }, (_, i) => ({
      storeId: i === 80 ? "a" : i % 5 === 0 ? "b" : "a",
      productId: i === 80 ? "direct" : `p${i}`,
    }));
    await t.database.db
      .insertInto("products")
      .values(products.map(({ storeId, productId }) => productRow(storeId, productId, {})))
      .execute();
    for (const { storeId, productId } of products.slice(0, 80))
      await writer.upsert(storeId, productId, { name: pick(1 + next(3)).join(" "), description: pick(next(4)).join(" ") });
    const recording = recordingStatements(t.database.db);
    statements = recording.statements;
    cached = new LexicalRepository(recording.recorded, "sqlite", { cached: true });
    plain = new LexicalRepository(t.database.db, "sqlite");
  });
  after(async () => t.close());

  const same = async (storeId: string, query: string | Group[], k = 10) => {
    const got = await cached.search(storeId, query, k);
    const want = await plain.search(storeId, query, k);
    assert.deepEqual(got, want, JSON.stringify(query));
  };

  test("a phrase asked once costs no statement more; asked again its rows are read; new queries of held phrases send no full-text statement, with the statements' hits", async () => {
    statements.length = 0;
    await same("a", "red");
    assert.equal(fts(), 1, "first ask: the query's own statement");
    statements.length = 0;
    await same("a", "red");
    assert.equal(fts(), 1, "second ask: the phrase's rows read, the query matched from them");
    for (const w of vocabulary) {
      await cached.search("a", w, 10);
      await cached.search("a", w, 10);
    }
    statements.length = 0;
    const asked = new Set<string>();
    for (let i = 0; i < 150; i++) {
      const q = pick(2 + next(3)).join(" ");
      if (asked.has(q)) continue;
      asked.add(q);
      await same("a", q, 1 + next(20));
    }
    assert.ok(asked.size > 100, `${asked.size} distinct queries`);
    assert.equal(fts(), 0, "every phrase held: no full-text statement");
  });

  test("phrases, prefixes and alternatives of a group are matched as FTS5 matches them", async () => {
    const groups = (spec: [string, boolean?][][]): Group[] =>
      spec.map((alts) => ({
        text: alts[0]![0],
        alternatives: alts.map(([w, prefix]) => ({
          words: w.split(" "),
          weight: 1,
          kind: "exact" as const,
          ...(prefix ? { prefix } : {}),
        })),
      }));
    const queries = [
      groups([[["running shoe"], ["boots"]], [["kids"]]]),
      groups([[["sum", true]], [["red"], ["blue"]]]),
      groups([[["linen dress"]], [["wo", true]]]),
      groups([[["coat"], ["shirt"], ["dress"]]]),
    ];
    for (const q of queries) for (let i = 0; i < 3; i++) await same("a", q, 20);
    statements.length = 0;
    for (const q of queries) await same("a", [...q].reverse(), 20);
    assert.equal(fts(), 0, "held: the groups in another order need no statement");
  });

  test("a change to the store's text, even by SQL that bypasses the services, is seen by the next search", async () => {
    await same("a", "wool coat");
    await sql`INSERT INTO product_text (store_id, product_id, name, brand, category, color, tags, description, other, words)
      VALUES ('a', 'direct', 'wool coat', '', '', '', '', '', '', 'wool coat')`.execute(t.database.db);
    const { hits } = await cached.search("a", "wool coat", 80);
    assert.ok(
      hits.some((h) => h.productId === "direct"),
      "the row written by SQL is found",
    );
    await same("a", "wool coat", 80);
  });

  test("another store's postings never answer: each store's hits are its own", async () => {
    for (const w of vocabulary) for (let i = 0; i < 2; i++) await cached.search("b", w, 10);
    for (const q of ["red dress", "blue linen coat", "summer kids shoe"]) {
      await same("b", q, 40);
      const { hits } = await cached.search("b", q, 40);
      assert.ok(
        hits.every((h) => Number(h.productId.slice(1)) % 5 === 0),
        "only store b's products",
      );
    }
  });

  test("with the database's change clock, the store's version is read once until something is written, here or by another connection (search-history rows aside)", async () => {
    const { recorded, statements: sent } = recordingStatements(t.database.db);
    const versionReads = () => sent.filter((s) => s.includes("product_text_versions")).length;
    const clocked = new LexicalRepository(recorded, "sqlite", {
      cached: true,
      changeClock: () => t.database.changeClock(),
    });
    const queries = ["red coat", "coat red", "red", "coat", "blue coat"];
    const sameAsPlain = async () => {
      for (const q of queries) assert.deepEqual(await clocked.search("a", q, 80), await plain.search("a", q, 80), q);
    };
    const found = async (productId: string) => (await clocked.search("a", "red coat", 80)).hits.some((h) => h.productId === productId);
    for (let i = 0; i < 3; i++) await sameAsPlain(); // held and cached from here
    sent.length = 0;
    await sameAsPlain();
    assert.equal(versionReads(), 0, "nothing written: no version read");

    // A search-history row, appended by every search to an event log that no cache reads.
    await t.database.db.insertInto("search_history").values(historyRow("a", "clock-search")).execute();
    sent.length = 0;
    await sameAsPlain();
    assert.equal(versionReads(), 0, "a search-history row: no version read");

    // A write by SQL on this handle, bypassing the services.
    await t.database.db
      .insertInto("products")
      .values(productRow("a", "clock-1", {}))
      .execute();
    await sql`INSERT INTO product_text (store_id, product_id, name, brand, category, color, tags, description, other, words)
      VALUES ('a', 'clock-1', 'red coat', '', '', '', '', '', '', 'red coat')`.execute(t.database.db);
    sent.length = 0;
    assert.ok(await found("clock-1"), "this handle's write is seen");
    assert.equal(versionReads(), 1, "read again once");
    await sameAsPlain();
    assert.equal(versionReads(), 1, "then kept");

    // A commit by another connection on the same file.
    const other = await t.reopen();
    await sql`UPDATE product_text SET name = 'blue scarf', words = 'blue scarf' WHERE store_id = 'a' AND product_id = 'clock-1'`.execute(
      other.db,
    );
    sent.length = 0;
    assert.equal(await found("clock-1"), false, "another connection's change is seen");
    assert.equal(versionReads(), 1);
    await sameAsPlain();
  });
});
