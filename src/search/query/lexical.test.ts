import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createTestApp, describeEachDialect, openSearchApp, type SearchInstance } from "../../../test/support/harness.js";
import { createTestStorage, recordingStatements, testConfig, type TestStorage } from "../../../test/support/database.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { solidImage, startImageHost, type ImageHost } from "../../../test/support/servers.js";
import { createWorkers } from "../workers.js";
import { LexicalRepository, lexicalLimits } from "../../lexical/repository.js";
import { noteTextChange } from "../../lexical/changes.js";
import { words } from "../../lexical/query.js";
import { ProductsRepository } from "../products/repository.js";
import { SearchRepository } from "./repository.js";
import { isDeferred } from "../../vectors/candidates.js";

// Colours chosen so that visual evidence alone (the test model knows only colours) cannot tell
// the products apart by the words searched.
const CATALOGUE = [
  {
    id: "p-dress",
    hex: "#2040c0",
    meta: { name: "Summer Dress", category: "Dresses", brand: "Acme", color_name: "Blue", price: 80, tags: ["linen"], sku: "SKU-778812" },
  },
  {
    id: "p-jeans",
    hex: "#2244bb",
    meta: {
      name: "Slim Jeans",
      category: "Jeans",
      brand: "Denimco",
      color_name: "Blue",
      price: 45,
      description: "Stretch denim, five pockets",
    },
  },
  { id: "p-watch", hex: "#2142c4", meta: { name: "Chronograph", category: "Watches", brand: "Rolex", color_name: "Blue", price: 900 } },
  { id: "p-shirt", hex: "#c02020", meta: { name: "Oxford Shirt", category: "Shirts", brand: "Acme", color_name: "Red", price: 30 } },
];

/**
 * Migration 0034 undone (0003's and 0020's brand and category indexes again, without the product
 * id), for a test that runs the migrations from an earlier one again.
 */
const UNDO_0034 = [
  "DROP INDEX products_store_brand_lower_id_idx",
  "DROP INDEX products_store_category_lower_id_idx",
  "CREATE INDEX products_store_brand_lower_idx ON products (store_id, lower(brand))",
  "CREATE INDEX products_store_category_lower_idx ON products (store_id, lower(category))",
];

describeEachDialect("search: lexical index and fused ranking", (dialect) => {
  let storage: TestStorage;
  let app: SearchInstance;
  let host: ImageHost;
  let store: RegisteredStore;
  let other: RegisteredStore;
  let token: string;
  let otherToken: string;
  const url: Record<string, string> = {};

  const open = async () => openSearchApp(await testConfig(storage, { model: true }), storage.pgSchema);
  const post = (path: string, payload: unknown, tok = token) =>
    app.search.inject({ method: "POST", url: path, headers: bearer(tok), payload: payload as object });
  const text = (query: string, extra: Record<string, unknown> = {}, tok = token) =>
    post("/v1/search/text", { query, limit: 10, ...extra }, tok);
  const ids = (res: { json(): any }) => res.json().results.map((r: { product_id: string }) => r.product_id) as string[];
  const lexicalIds = async (query: string, tok = token) => {
    const res = await text(query, { semantic_weight: 0 }, tok);
    assert.equal(res.statusCode, 200, res.body);
    return ids(res);
  };

  /** The app's database, recording the SQL text of each statement built through it. */
  const recording = () => recordingStatements(app.ctx.database.db);

  /** Runs `check` while the second store holds one more product (its image: p-shirt's), deleted afterwards. */
  const withOtherProduct = async (productId: string, metadata: Record<string, unknown>, check: () => Promise<void>) => {
    const created = await post("/v1/products", { product_id: productId, image_url: url["p-shirt"], metadata }, otherToken);
    assert.equal(created.statusCode, 201, created.body);
    try {
      await check();
    } finally {
      await app.search.inject({ method: "DELETE", url: `/v1/products/${productId}`, headers: bearer(otherToken) });
    }
  };

  before(async () => {
    storage = createTestStorage(dialect, "shopsight-lexical");
    app = await open();
    host = await startImageHost();
    const t = { search: app.search, ctx: app.ctx, config: app.ctx.config } as Parameters<typeof registerStore>[0];
    store = await registerStore(t);
    other = await registerStore(t, { name: "Other", email: "other-lexical@example.com" });
    token = await machineToken(app.search, store);
    otherToken = await machineToken(app.search, other);
    for (const [i, p] of CATALOGUE.entries()) {
      url[p.id] = host.put(`/${p.id}.png`, await solidImage(p.hex, { seed: i + 1 }));
      const res = await post("/v1/products", { product_id: p.id, image_url: url[p.id], metadata: p.meta });
      assert.equal(res.statusCode, 201, res.body);
    }
    // The second store has a product whose text matches the same words.
    const res = await post(
      "/v1/products",
      { product_id: "o-dress", image_url: url["p-dress"], metadata: { name: "Rolex Summer Dress Jeans" } },
      otherToken,
    );
    assert.equal(res.statusCode, 201, res.body);
  });
  after(async () => {
    await host.close();
    await app.close();
    await storage.remove();
  });

  test("semantic_weight 0 finds products by name, brand, category, tags, description and other metadata", async () => {
    assert.deepEqual(await lexicalIds("chronograph"), ["p-watch"]);
    assert.deepEqual(await lexicalIds("rolex"), ["p-watch"]);
    assert.deepEqual(await lexicalIds("linen"), ["p-dress"]);
    assert.deepEqual(await lexicalIds("pockets"), ["p-jeans"]);
    assert.deepEqual(await lexicalIds("SKU-778812"), ["p-dress"]);
    assert.deepEqual((await lexicalIds("acme")).sort(), ["p-dress", "p-shirt"]);
    assert.deepEqual(await lexicalIds("nothing like this"), []);
    const filtered = await text("acme", { semantic_weight: 0, category: "shirts" });
    assert.deepEqual(ids(filtered), ["p-shirt"], "pre-filters restrict lexical hits");
  });

  test("stemming, prefixes and typos", async () => {
    assert.deepEqual(await lexicalIds("dress"), ["p-dress"], "dress ~ Dresses");
    assert.deepEqual(await lexicalIds("watch"), ["p-watch"], "watch ~ Watches");
    assert.deepEqual(await lexicalIds("chrono"), ["p-watch"], "prefix of the last word");
    assert.deepEqual((await lexicalIds("chronogrph"))[0], "p-watch", "a typo finds the store's nearest word");
  });

  test("every word first; any word only when fewer than asked hold them all", async () => {
    const res = await post(
      "/v1/products",
      { product_id: "o-summertime", image_url: url["p-shirt"], metadata: { name: "Summertime Tote" } },
      otherToken,
    );
    assert.equal(res.statusCode, 201, res.body);
    try {
      const repo = new LexicalRepository(app.ctx.database.db, app.ctx.database.dialect);
      const enoughOne = await repo.search(store.clientId, "acme summer", 100, undefined, 1);
      assert.deepEqual(
        enoughOne.hits.map((h) => h.productId),
        ["p-dress"],
        "enough = 1 (beside visual evidence): no OR pass",
      );
      const enoughPage = await repo.search(store.clientId, "acme summer", 100, undefined, 10);
      assert.deepEqual(enoughPage.hits.map((h) => h.productId).sort(), ["p-dress", "p-shirt"], "too few for the page: any word");
      assert.deepEqual([enoughOne.partial, enoughPage.partial], [false, false], "some product holds every word");
      assert.deepEqual(enoughPage.hits[0]!.productId, "p-dress", "the product holding both words first (coverage)");
      const split = await repo.search(store.clientId, "rolex oxford", 10);
      assert.deepEqual(split.hits.map((h) => h.productId).sort(), ["p-shirt", "p-watch"]);
      assert.equal(split.partial, true, "each word in another product: a partial match");
    } finally {
      const del = await app.search.inject({ method: "DELETE", url: "/v1/products/o-summertime", headers: bearer(otherToken) });
      assert.equal(del.statusCode, 204, del.body);
    }
  });

  test("bounded scoring: past lexicalLimits.scoredMax matches only that many are scored, with their exact scores; below it the full ranking", async () => {
    const repo = new LexicalRepository(app.ctx.database.db, app.ctx.database.dialect); // uncached
    const full = await repo.search(store.clientId, "blue", 3);
    assert.deepEqual(full.hits.map((h) => h.productId).sort(), ["p-dress", "p-jeans", "p-watch"]);
    const scores = full.hits.map((h) => h.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
      "best first",
    );
    const saved = lexicalLimits.scoredMax;
    try {
      lexicalLimits.scoredMax = 2;
      const bounded = await repo.search(store.clientId, "blue", 2);
      assert.equal(bounded.hits.length, 2, "three products match; two are scored");
      for (const h of bounded.hits)
        assert.equal(
          h.score,
          full.hits.find((f) => f.productId === h.productId)!.score,
          "a product's score does not depend on the others scored",
        );
      assert.deepEqual(
        bounded.hits.map((h) => h.score),
        [...bounded.hits.map((h) => h.score)].sort((a, b) => b - a),
      );
      if (dialect === "sqlite")
        assert.deepEqual(bounded.hits.map((h) => h.productId).sort(), ["p-jeans", "p-watch"], "SQLite scores the newest");
      lexicalLimits.scoredMax = 1;
      assert.equal((await repo.search(store.clientId, "blue", 3)).hits.length, 3, "never fewer scored than the depth asked for");
      lexicalLimits.scoredMax = 3;
      assert.deepEqual(await repo.search(store.clientId, "blue", 3), full, "as many matches as scored: the full ranking");
    } finally {
      lexicalLimits.scoredMax = saved;
    }
  });

  test("a product holding every word stays in the ranking when the any-word pass scores only others (withAll)", async () => {
    // "blue acme": only p-dress holds both words, fewer than the 2 asked for, so the any-word pass
    // runs; it matches four products and, bounded to 2 scored, SQLite scores the two newest
    // (p-dress is the oldest): the all-word hit comes back only by being merged in, with its score.
    const repo = new LexicalRepository(app.ctx.database.db, app.ctx.database.dialect); // uncached
    const saved = lexicalLimits.scoredMax;
    try {
      lexicalLimits.scoredMax = 1;
      const { hits, partial } = await repo.search(store.clientId, "blue acme", 2);
      assert.equal(partial, false, "a product holds every word");
      assert.equal(hits.length, 2);
      assert.ok(
        hits.some((h) => h.productId === "p-dress"),
        JSON.stringify(hits),
      );
      assert.equal(hits[0]!.productId, "p-dress", "the product holding both words first (coverage)");
      for (const h of hits) assert.ok(["p-dress", "p-jeans", "p-watch", "p-shirt"].includes(h.productId), JSON.stringify(hits));
    } finally {
      lexicalLimits.scoredMax = saved;
    }
  });

  test("words joined by punctuation (SKU-1002, 10.5, acme.com, v1.2.3, 1/2) are found as the query's words; migration 0033 rewrites rows indexed otherwise", async () => {
    // PostgreSQL's own parser reads "SKU-1002" as 'sku' and '-1002' and keeps "10.5", "acme.com",
    // "v1.2.3" and "1/2" whole; the query's words split them. Scoring one match only: were the
    // every-word query to match nothing, the any-word query would score some other product first.
    const named: Record<string, string> = {
      "p-scarf-1001": "Scarf SKU-1001",
      "p-scarf-1002": "Scarf SKU-1002",
      "p-boot-10": "Boot size 10, pack of 2",
      "p-boot-105": "Boot size 10.5",
      "p-mug": "Mug from acme.com",
      "p-cable": "Cable v1.2.3",
      "p-pipe": "Pipe 1/2 inch",
    };
    const expected: [string, string][] = [
      ["sku 1002", "p-scarf-1002"],
      ["SKU-1002", "p-scarf-1002"],
      ["scarf sku-1002", "p-scarf-1002"],
      ["boot size 10.5", "p-boot-105"],
      ["acme.com", "p-mug"],
      ["cable v1.2.3", "p-cable"],
      ["1/2 pipe", "p-pipe"],
    ];
    const saved = { ...lexicalLimits };
    const found = async () => {
      const repo = new LexicalRepository(app.ctx.database.db, app.ctx.database.dialect); // uncached
      const out: Record<string, string[]> = {};
      for (const [query] of expected) out[query] = (await repo.search(store.clientId, query, 1, undefined, 1)).hits.map((h) => h.productId);
      return out;
    };
    const wanted = Object.fromEntries(expected.map(([q, id]) => [q, [id]]));
    try {
      for (const [id, name] of Object.entries(named)) {
        const res = await post("/v1/products", { product_id: id, image_url: url["p-shirt"], metadata: { name } });
        assert.equal(res.statusCode, 201, res.body);
      }
      lexicalLimits.scoredMax = 1;
      assert.deepEqual(await found(), wanted);
      const repo = new LexicalRepository(app.ctx.database.db, app.ctx.database.dialect);
      assert.deepEqual(
        (await repo.nameMatches(store.clientId, "scarf sku-100", 8)).sort(),
        ["p-scarf-1001", "p-scarf-1002"],
        "a number being typed",
      );
      assert.deepEqual(await repo.nameMatches(store.clientId, "scarf sku-1001", 8), ["p-scarf-1001"]);
      if (dialect === "postgres") {
        // Rows as versions before 0033 wrote them (the parser's reading of the raw name) miss;
        // starting again with 0033 (and 0034 after it) to apply rewrites them.
        await sql`UPDATE product_text SET document = setweight(to_tsvector('english', words), 'A')
          WHERE store_id = ${store.clientId} AND product_id = ANY(${Object.keys(named)}::text[])`.execute(app.ctx.database.db);
        const holds = async (query: string, id: string) =>
          (
            await sql<{ one: number }>`SELECT 1 AS one FROM product_text WHERE store_id = ${store.clientId} AND product_id = ${id}
              AND document @@ to_tsquery('english', ${words(query).join(" & ")})`.execute(app.ctx.database.db)
          ).rows.length > 0;
        for (const [query, id] of expected) assert.equal(await holds(query, id), false, `${query}: missed as indexed before 0033`);
        for (const statement of UNDO_0034) await sql.raw(statement).execute(app.ctx.database.db);
        await app.ctx.database.db
          .deleteFrom("kysely_migration" as any)
          .where("name", ">=", "0033_lexical_words")
          .execute();
        await app.close();
        app = await open();
        for (const [query, id] of expected) assert.equal(await holds(query, id), true, `${query}: rewritten by 0033`);
        assert.deepEqual(await found(), wanted, "rewritten by 0033");
      }
    } finally {
      Object.assign(lexicalLimits, saved);
      for (const id of Object.keys(named)) await app.search.inject({ method: "DELETE", url: `/v1/products/${id}`, headers: bearer(token) });
    }
  });

  test("PostgreSQL leaves words most products hold out of the index condition, with the same matches; SQLite is unaffected", async () => {
    const db = app.ctx.database.db;
    const postgres = dialect === "postgres";
    // The share of the most frequent lexeme: at it, that lexeme is left out and the others kept.
    let top = 0.5;
    if (postgres) {
      await sql`ANALYZE product_text`.execute(db);
      const found = await sql<{ top: number | null }>`
        SELECT max(f) AS top FROM pg_stats, unnest(most_common_elem_freqs::text::real[]) AS f
        WHERE schemaname = current_schema() AND tablename = 'product_text' AND attname = 'document'`.execute(db);
      assert.ok(found.rows[0]?.top, "ANALYZE gathered the lexemes' frequencies");
      top = found.rows[0].top;
    }
    // Each statement's text, to tell the every-word query with an index condition of its own.
    const { recorded, statements } = recording();
    const repo = new LexicalRepository(recorded, app.ctx.database.dialect); // uncached
    const queries = [
      "blue",
      "summer dress",
      "acme blue",
      "blue acme linen",
      "oxford shirt",
      "rolex chronograph",
      "denim pockets",
      "chrono",
      "SKU-778812",
    ];
    const rankings = async () => {
      const out: unknown[] = [];
      for (const q of queries) out.push(await repo.search(store.clientId, q, 10, undefined, 1));
      return out;
    };
    const rewritten = () => statements.filter((s) => s.includes("ts_rewrite")).length;
    const saved = { ...lexicalLimits };
    try {
      lexicalLimits.commonLexemesTtlMs = 0; // the statistics read again on every search
      lexicalLimits.commonLexemeShare = 2; // no lexeme is that common
      const whole = await rankings();
      assert.equal(rewritten(), 0, "no lexeme left out");
      statements.length = 0;
      lexicalLimits.commonLexemeShare = top;
      assert.deepEqual(await rankings(), whole, "the same hits, scores and coverage");
      if (postgres) assert.ok(rewritten() >= queries.length - 2, statements.join("\n"));
      else assert.ok(!statements.some((s) => s.includes("pg_stats") || s.includes("ts_rewrite")), statements.join("\n"));
    } finally {
      Object.assign(lexicalLimits, saved);
    }
  });

  test("a filter left in the database is checked by the lexical statement itself, with the hits of the filter in hand", async () => {
    const db = app.ctx.database.db;
    const { recorded, statements } = recording();
    const repo = new LexicalRepository(recorded, app.ctx.database.dialect); // uncached
    const filters = { price_max: 100 }; // p-dress, p-jeans, p-shirt
    const inHand = new Set(
      (await new SearchRepository(db, app.ctx.database.dialect).filteredRows(store.clientId, filters, false)).map((r) => r.product_id),
    );
    assert.deepEqual([...inHand].sort(), ["p-dress", "p-jeans", "p-shirt"]);
    /** A filter of this search left in the database (listing limit 0) on PostgreSQL; its ids in hand on SQLite. */
    const fresh = () => new SearchRepository(recorded, app.ctx.database.dialect, 0).candidates(store.clientId, filters);
    // The keep() statement of a filter left in the database (search/repository.ts kept()).
    const keeps = () => statements.filter((sql) => sql.includes("= ANY(")).length;
    for (const [query, k] of [
      ["blue", 100], // depth 1,000: every row the statement returns is checked, so the statement checks them
      ["blue acme linen", 100], // the every-word pass and the any-word pass
      ["blue", 10], // depth 100 of up to 1,000 rows: the best 100 are checked afterwards
    ] as const) {
      const candidates = await fresh();
      assert.equal(isDeferred(candidates), dialect === "postgres");
      statements.length = 0;
      const found = await repo.search(store.clientId, query, k, candidates);
      if (dialect === "postgres") assert.equal(keeps(), k === 100 ? 0 : 1, `${query}, ${k}: ${statements.join("\n")}`);
      assert.ok(found.hits.length > 0, query);
      assert.deepEqual(found, await repo.search(store.clientId, query, k, inHand), `${query}, ${k}: the hits of the filter in hand`);
    }
  });

  test("a store's lexical hits never include another store's products", async () => {
    for (const q of ["rolex", "summer dress", "jeans", "dres"]) {
      const mine = await lexicalIds(q);
      assert.ok(!mine.includes("o-dress"), q);
      const theirs = await lexicalIds(q, otherToken);
      assert.deepEqual(theirs, ["o-dress"], q);
    }
    const fused = await text("rolex summer dress", {}, otherToken);
    assert.deepEqual(ids(fused), ["o-dress"]);
  });

  test("semantic_weight extremes: 1 is the visual ranking with cosine scores, 0 only lexical matches; words beat colours in between", async () => {
    const visual = await text("blue", { semantic_weight: 1 });
    assert.equal(visual.statusCode, 200, visual.body);
    assert.equal(ids(visual).length, 4, "pure visual ranks every product");
    assert.equal(ids(visual)[3], "p-shirt", "the red product last");
    assert.deepEqual(await lexicalIds("slim jeans"), ["p-jeans"]);
    for (const method of ["blend", "rrf"]) {
      const fused = await text("blue watch", { semantic_weight: 0.3, fusion_method: method });
      assert.equal(fused.statusCode, 200, fused.body);
      assert.equal(ids(fused)[0], "p-watch", method);
      for (const r of fused.json().results) assert.ok(r.similarity_score >= 0 && r.similarity_score <= 1);
      const scores = fused.json().results.map((r: { similarity_score: number }) => r.similarity_score);
      assert.deepEqual(
        scores,
        [...scores].sort((a, b) => b - a),
      );
    }
    const strict = await text("blue watch", { semantic_weight: 0.5, threshold: 0.99 });
    assert.ok(strict.json().results.every((r: { similarity_score: number }) => r.similarity_score >= 0.99));
    assert.equal((await text("x", { semantic_weight: 2 })).statusCode, 400);
    assert.equal((await text("x", { fusion_method: "max" })).statusCode, 400);
  });

  test("hybrid and fusion take the lexical side of their query into account", async () => {
    const hybrid = await post("/v1/search/hybrid", { query: "rolex", semantic_weight: 0, limit: 4 });
    assert.equal(hybrid.statusCode, 200, hybrid.body);
    assert.equal(ids(hybrid)[0], "p-watch");
    const fusion = await post("/v1/search/fusion", {
      image_url: url["p-dress"],
      query: "slim jeans",
      image_weight: 0.2,
      semantic_weight: 0,
      limit: 4,
    });
    assert.equal(fusion.statusCode, 200, fusion.body);
    assert.equal(ids(fusion)[0], "p-jeans");
  });

  test("query understanding: on by default (prices filter, colours and categories boost, echoed), off when asked", async () => {
    for (const off of [false, "off"]) {
      const plain = await text("blue jeans under 50", { understand: off });
      assert.equal(plain.statusCode, 200, plain.body);
      assert.equal(plain.json().query_understanding, undefined, String(off));
    }
    const byDefault = await text("blue jeans under 50");
    assert.equal(byDefault.json().query_understanding?.price_max, 50, "on by default");
    const res = await text("blue jeans under 50", { understand: true });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body.query_understanding, {
      colors: ["blue"],
      categories: ["Jeans"],
      price_min: null,
      price_max: 50,
      applied_as: "boost",
      remaining_text: "blue jeans",
    });
    assert.deepEqual(ids(res).sort(), ["p-jeans", "p-shirt"], "only products up to 50");
    assert.equal(ids(res)[0], "p-jeans");
    const de = await text("blaue Uhr ab 100 €", { understand: "filter" });
    assert.equal(de.json().query_understanding.price_min, 100);
    assert.deepEqual(de.json().query_understanding.colors, ["blue"]);
    assert.deepEqual(ids(de), ["p-watch"]);
    const filtered = await text("dresses", { understand: "filter" });
    assert.deepEqual(filtered.json().query_understanding.categories, ["Dresses"]);
    assert.deepEqual(ids(filtered), ["p-dress"], "the category became a filter");
  });

  test("query understanding leaves a price phrase that a product name holds ('Air Max 1') as words", async () => {
    const res = await post("/v1/products", {
      product_id: "p-max",
      image_url: url["p-shirt"],
      metadata: { name: "Nike Air Max 1", category: "Shoes", brand: "Nike", color_name: "Red", price: 120 },
    });
    assert.equal(res.statusCode, 201, res.body);
    try {
      const named = await text("nike air max 1");
      assert.equal(named.statusCode, 200, named.body);
      assert.equal(named.json().query_understanding?.price_max ?? null, null, "'max 1' is the product's name, not a price");
      assert.equal(ids(named)[0], "p-max");
      const priced = await text("nike air max 1 under 100");
      assert.equal(priced.json().query_understanding.price_max, 100, "a phrase no name holds is still a price");
      assert.ok(!ids(priced).includes("p-max"), "the price still filters");
      const other = await text("shirt max 50");
      assert.equal(other.json().query_understanding.price_max, 50, "'max 50' is in no name");
      // Another store's names never keep this store's price phrase as words.
      const theirs = await text("summer dress max 1", {}, otherToken);
      assert.equal(theirs.json().query_understanding.price_max, 1);
    } finally {
      assert.equal((await app.search.inject({ method: "DELETE", url: "/v1/products/p-max", headers: bearer(token) })).statusCode, 204);
    }
  });

  test("typo tolerance by word length from the store's own words, with did_you_mean; never another store's words", async () => {
    const typo = await text("jeens", { semantic_weight: 0 });
    assert.equal(typo.statusCode, 200, typo.body);
    assert.deepEqual(ids(typo), ["p-jeans"], "one letter wrong in five: distance 1 is within the budget");
    assert.equal(typo.json().did_you_mean, "jeans");
    const exact = await text("jeans", { semantic_weight: 0 });
    assert.equal(exact.json().did_you_mean, undefined, "no correction when the word is found");
    assert.deepEqual(ids(await text("jens", { semantic_weight: 0 })), ["p-jeans"], "a missing letter (4 letters: budget 1)");
    assert.deepEqual(ids(await text("jeasn", { semantic_weight: 0 })), ["p-jeans"], "two letters swapped count as one edit");
    assert.deepEqual(ids(await text("chronogrhap", { semantic_weight: 0 })), ["p-watch"], "11 letters: two edits allowed");
    assert.deepEqual(ids(await text("jxxns", { semantic_weight: 0 })), [], "two edits in five letters: beyond the budget");
    await withOtherProduct("o-zanzibar", { name: "Zanzibar Tote" }, async () => {
      assert.deepEqual(
        ids(await text("zanzibr", { semantic_weight: 0 }, otherToken)),
        ["o-zanzibar"],
        "the other store finds its own word",
      );
      const here = await text("zanzibr", { semantic_weight: 0 });
      assert.deepEqual(ids(here), [], "another store's word is never a correction here");
      assert.equal(here.json().did_you_mean, undefined);
    });
  });

  test("a cached ranking is recomputed after a write to the store's text", async () => {
    // The same words before and after: the ranking cache (src/lexical/cache.ts) keeps the ranking
    // at the second ask and answers the third.
    for (let ask = 0; ask < 3; ask++) assert.deepEqual(ids(await text("dress", { semantic_weight: 0 }, otherToken)), ["o-dress"]);
    await withOtherProduct("o-dress2", { name: "Evening Dress" }, async () => {
      assert.deepEqual(ids(await text("dress", { semantic_weight: 0 }, otherToken)).sort(), ["o-dress", "o-dress2"]);
    });
    assert.deepEqual(ids(await text("dress", { semantic_weight: 0 }, otherToken)), ["o-dress"], "and after a delete");
  });

  test("a brand's short forms find it, in its own store only (acronyms.ts)", async () => {
    await withOtherProduct("o-polo", { name: "Striped Tee", brand: "U.S. Polo Assn.", category: "Tshirts" }, async () => {
      for (const q of ["uspa tee", "us polo tee", "US Polo striped"]) {
        assert.deepEqual(ids(await text(q, { semantic_weight: 0 }, otherToken)), ["o-polo"], q);
      }
      assert.deepEqual(ids(await text("uspa", { semantic_weight: 0 })), [], "another store's brand gives no short form here");
    });
  });

  test("built-in synonyms: gender words, apparel words and colour families", async () => {
    assert.deepEqual(ids(await text("kleid", { semantic_weight: 0 })), ["p-dress"], "German kleid → dress (multi-way)");
    const cobalt = await text("cobalt", { semantic_weight: 0 });
    assert.ok(ids(cobalt).includes("p-jeans"), `cobalt is a blue: ${cobalt.body}`);
    const plain = await text("dress", { semantic_weight: 0 });
    const synonym = await text("kleid", { semantic_weight: 0 });
    assert.ok(synonym.json().results[0].similarity_score < plain.json().results[0].similarity_score, "a synonym counts less than the word");
  });

  test("word coverage orders results; a word that matches nothing does not turn the ranking over; nonsense finds nothing", async () => {
    // "acme summer dress": p-dress holds all three words, p-shirt only acme.
    const covered = await text("acme summer dress for the weekend");
    assert.equal(covered.statusCode, 200, covered.body);
    assert.equal(ids(covered)[0], "p-dress", "the product holding every word that exists here comes first");
    const scores = covered.json().results.map((r: { similarity_score: number }) => r.similarity_score) as number[];
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
    const none = await text("qwxz zzyqv", { semantic_weight: 0 });
    assert.equal(none.statusCode, 200, none.body);
    assert.equal(none.json().count, 0, "no word of the query exists in the store: no results");
  });

  test("a query for a kind of product the store does not sell finds nothing; a kind it sells is found", async () => {
    for (const query of ["anti dandruff shampoo", "diamond engagement ring", "bicycle helmet for kids"]) {
      const res = await text(query);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().count, 0, `${query}: no evidence in this store`);
    }
    // Its head is a store word (a dress), whatever else it names.
    assert.ok(ids(await text("summer dress for a wedding")).includes("p-dress"));
    // Another store's text does not decide for this one: o-dress's store has no shampoo either.
    assert.equal((await text("anti dandruff shampoo", {}, otherToken)).json().count, 0);
  });

  test("words the store lacks before a head noun naming one of its categories do not count against the word share", async () => {
    // "cocktail party dress": only "dress" is a word of this store, one of three; it is the head
    // and a word of the category Dresses, so the dress has the evidence of the whole query.
    assert.deepEqual(await lexicalIds("cocktail party dress"), ["p-dress"]);
    // The same words around a head that names no category ("linen" is a tag) are no evidence.
    assert.deepEqual(await lexicalIds("cocktail party linen"), []);
    // After a preposition a word the store lacks still counts: one of three words is too few.
    assert.deepEqual(await lexicalIds("dress for cocktail parties"), [], "dress, cocktail, parties: a third");
  });

  test("a page of products holding the query's words is ranked without a nearest-neighbour search; a short one asks the vector index", async () => {
    const vectors = app.ctx.vectors;
    const original = vectors.search.bind(vectors);
    const calls: { k: number; listed: boolean; also: number }[] = [];
    vectors.search = (storeId, query, options) => {
      calls.push({ k: options.k, listed: options.candidates instanceof Set, also: options.also?.size ?? 0 });
      return original(storeId, query, options);
    };
    try {
      // Two products hold "acme" (p-dress and p-shirt): a page of one is full of them.
      const full = await text("acme", { limit: 1 });
      assert.equal(full.statusCode, 200, full.body);
      assert.equal(full.json().count, 1);
      assert.ok(["p-dress", "p-shirt"].includes(ids(full)[0]!), "a product holding the word");
      assert.deepEqual(
        calls,
        [{ k: 0, listed: false, also: 2 }],
        "no nearest-neighbour search: one call for the two hits' own similarities, read by id",
      );
      calls.length = 0;
      // A page of ten is not: products matching no word may fill it, from the visual side.
      const short = await text("acme", { limit: 10 });
      assert.equal(short.statusCode, 200, short.body);
      assert.equal(calls.length, 1, "one call to the vector index");
      assert.equal(calls[0]!.k, 10, "a page of the nearest products that are not hits (the hits are asked apart)");
      assert.ok(!calls[0]!.listed);
      assert.equal(calls[0]!.also, 2, "the hits' similarities asked with it");
      assert.deepEqual(ids(short).slice(0, 2).sort(), ["p-dress", "p-shirt"], "the products holding the word first");
      calls.length = 0;
      // A category understood in the query boosts its products, which may lift one matching no
      // word over others: five pages of the nearest products that are not hits, not the fused
      // depth of 100.
      const boosted = await text("acme shirts", { limit: 4 });
      assert.equal(boosted.statusCode, 200, boosted.body);
      assert.deepEqual(boosted.json().query_understanding.categories, ["Shirts"], "the category understood");
      assert.equal(calls.length, 1, "one call to the vector index");
      assert.ok(calls[0]!.also > 0, "the hits' similarities asked with it");
      assert.equal(calls[0]!.k, 5 * 4, "five pages deep");
      assert.equal(ids(boosted)[0], "p-shirt", "the product holding both words first");
    } finally {
      vectors.search = original;
    }
  });

  test("with rrf or blend fusion, lexical hits the visual search did not return get their similarity by id in a second call", async () => {
    // This store is smaller than the fused depth (100), so the visual search returns every product;
    // in a larger one a hit may be past it. The vector index is made to leave the hits out.
    const vectors = app.ctx.vectors;
    const original = vectors.search.bind(vectors);
    const calls: { k: number; also: string[] }[] = [];
    vectors.search = async (storeId, query, options) => {
      calls.push({ k: options.k, also: [...(options.also ?? [])].sort() });
      const answer = await original(storeId, query, options);
      return options.k > 0 ? answer.filter((m) => m.productId !== "p-dress" && m.productId !== "p-shirt") : answer;
    };
    try {
      for (const method of ["rrf", "blend"]) {
        calls.length = 0;
        const res = await text("acme", { semantic_weight: 0.5, fusion_method: method });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(
          calls,
          [
            { k: 100, also: [] },
            { k: 0, also: ["p-dress", "p-shirt"] },
          ],
          `${method}: the nearest products, then the two hits by id`,
        );
        assert.ok(ids(res).includes("p-dress") && ids(res).includes("p-shirt"), method);
      }
    } finally {
      vectors.search = original;
    }
  });

  test("re-ranking and the page read each product's row once; on PostgreSQL a few hits' rows are read beside the embedding", async () => {
    const read: string[][] = [];
    const findMany = ProductsRepository.prototype.findMany;
    ProductsRepository.prototype.findMany = function (this: ProductsRepository, storeId, productIds) {
      read.push([...productIds].sort());
      return findMany.call(this, storeId, productIds);
    };
    const vectors = app.ctx.vectors;
    const search = vectors.search.bind(vectors);
    /** Rows read before the visual search answered (the calls to findMany by then). */
    let readBeforeVisual = -1;
    vectors.search = async (storeId, query, options) => {
      const answer = await search(storeId, query, options);
      readBeforeVisual = read.length;
      return answer;
    };
    try {
      // A category understood in the query boosts its products: re-ranking reads the rows.
      const boosted = await text("acme shirts", { limit: 4 });
      assert.equal(boosted.statusCode, 200, boosted.body);
      assert.equal(ids(boosted)[0], "p-shirt", "the product holding both words first");
      const all = read.flat();
      assert.equal(new Set(all).size, all.length, `no row read twice: ${JSON.stringify(read)}`);
      if (dialect === "postgres") {
        assert.deepEqual(read[0], ["p-shirt"], "the hit's row first (the one product holding both words)");
        assert.equal(readBeforeVisual, 1, "read before the visual search, beside the embedding");
      } else {
        // One connection: the rows come from the embedded index's memory or after the visual search.
        assert.equal(readBeforeVisual, 0);
      }
      const other = await text("acme shirts", { limit: 4 }, otherToken);
      assert.equal(other.statusCode, 200, other.body);
      assert.ok(!ids(other).some((id) => id.startsWith("p-")), "never the first store's products");
    } finally {
      ProductsRepository.prototype.findMany = findMany;
      vectors.search = search;
    }
  });

  test("the cached category vocabulary follows product writes and deletes, per store", async () => {
    const categoriesOf = async (query: string, tok = token) => {
      const res = await text(query, { understand: true }, tok);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().query_understanding.categories as string[];
    };
    assert.deepEqual(await categoriesOf("ponchos"), [], "cached before the product exists");
    const created = await post("/v1/products", {
      product_id: "p-poncho",
      image_url: url["p-shirt"],
      metadata: { name: "Rain cape", category: "Ponchos" },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual(await categoriesOf("ponchos"), ["Ponchos"], "seen right after the write");
    assert.deepEqual(await categoriesOf("ponchos", otherToken), [], "never another store's category");
    const renamed = await app.search.inject({
      method: "PUT",
      url: "/v1/products/p-poncho",
      headers: bearer(token),
      payload: { metadata: { name: "Rain cape", category: "Capes" } },
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.deepEqual(await categoriesOf("ponchos capes"), ["Capes"], "seen right after the update");
    const del = await app.search.inject({ method: "DELETE", url: "/v1/products/p-poncho", headers: bearer(token) });
    assert.equal(del.statusCode, 204);
    assert.deepEqual(await categoriesOf("capes"), [], "gone right after the delete");
  });

  test("GET /v1/search/model and the X-Shopsight-Model header name the test model", async () => {
    const res = await app.search.inject({ method: "GET", url: "/v1/search/model", headers: bearer(token) });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      model_id: "shopsight-tiny-test-model",
      dimensions: app.ctx.model!.fingerprint.dim,
      is_test_model: true,
      status: "ready",
      duplicate_detection: false,
      default_semantic_weight: 0.2,
      default_fusion_method: "coverage",
      visual_min_score: 0,
      reindex: { stale_products: 0, job: null },
    });
    assert.equal(res.headers["x-shopsight-model"], "shopsight-tiny-test-model");
    assert.equal((await text("blue")).headers["x-shopsight-model"], "shopsight-tiny-test-model");
    assert.equal((await app.search.inject({ method: "GET", url: "/v1/search/model" })).statusCode, 401);
  });

  test("with the test model, only identical images are reported as duplicates", async () => {
    const hook = await post("/v1/search/webhooks", {
      url: `${host.url}/hook`,
      events: ["product.duplicate_detected"],
      secret: "s".repeat(32),
    });
    assert.equal(hook.statusCode, 201, hook.body);
    // A product with a near-identical colour (cosine > 0.95 with the test model) but another image.
    const near = host.put("/near.png", await solidImage("#2141c2", { seed: 99 }));
    const res = await post("/v1/products", { product_id: "p-near", image_url: near, metadata: { name: "Near" } });
    assert.equal(res.statusCode, 201, res.body);
    const [v] = await app.ctx.images.embed([(await app.ctx.images.fromUrl(near)).decoded]);
    const matches = await app.ctx.vectors.search(store.clientId, v!, { k: 2 });
    assert.ok(
      matches.some((m) => m.productId !== "p-near" && m.score > 0.95),
      "the test model calls them near-duplicates",
    );
    const dupes = await duplicateEvents(app, store.clientId);
    assert.equal(dupes.filter((d) => d.new_product_id === "p-near").length, 0);
    assert.equal((await post("/v1/products", { product_id: "p-same", image_url: url["p-watch"] })).statusCode, 201);
    const same = (await duplicateEvents(app, store.clientId)).filter((d) => d.new_product_id === "p-same");
    assert.deepEqual(
      same.map((d) => [d.existing_product_id, d.similarity_score]),
      [["p-watch", 1]],
    );
    for (const id of ["p-near", "p-same"]) await app.search.inject({ method: "DELETE", url: `/v1/products/${id}`, headers: bearer(token) });
  });

  test("kept in step on update, delete, bulk and across a restart; reindex rebuilds it", async () => {
    const put = await app.search.inject({
      method: "PUT",
      url: "/v1/products/p-shirt",
      headers: bearer(token),
      payload: { metadata: { name: "Flannel Overshirt", category: "Shirts", price: 30 } },
    });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(await lexicalIds("oxford"), []);
    assert.deepEqual(await lexicalIds("flannel"), ["p-shirt"]);

    const del = await app.search.inject({ method: "DELETE", url: "/v1/products/p-shirt", headers: bearer(token) });
    assert.equal(del.statusCode, 204);
    assert.deepEqual(await lexicalIds("flannel"), []);

    const bulk = await post("/v1/products/bulk", {
      products: [
        { product_id: "b-1", image_url: url["p-shirt"], metadata: { name: "Bulk Parka" } },
        { product_id: "b-2", image_url: url["p-dress"], metadata: { name: "Bulk Anorak" } },
      ],
    });
    assert.equal(bulk.statusCode, 202, bulk.body);
    const workers = createWorkers(app.ctx, app.services, { random: () => 0.5 });
    await workers.drain();
    await workers.stop();
    assert.deepEqual((await lexicalIds("bulk")).sort(), ["b-1", "b-2"]);

    await app.close();
    app = await open();
    assert.deepEqual(await lexicalIds("anorak"), ["b-2"], "after a restart");

    await app.ctx.database.db
      .deleteFrom("product_text" as any)
      .where("store_id", "=", store.clientId)
      .execute();
    // SQLite's triggers version every change; on PostgreSQL a change made outside this process
    // shows once cached rankings are TEXT_CACHE_TTL_MS old (src/lexical/cache.ts): announce it.
    if (dialect === "postgres") noteTextChange(store.clientId);
    assert.deepEqual(await lexicalIds("anorak"), []);
    const report = await app.services.reindexer.store(store.clientId);
    assert.equal(report.lexical, 5);
    assert.deepEqual(await lexicalIds("anorak"), ["b-2"], "rebuilt by the reindex");
    assert.deepEqual(await lexicalIds("rolex", otherToken), ["o-dress"], "the other store untouched");
  });

  test("the migration indexes the products that existed before it", async () => {
    // Back to a database without the lexical index (as before migration 0018: it and every later
    // migration undone — a later migration's objects belong in the drop list), then start again.
    const db = app.ctx.database.db;
    const drop =
      dialect === "sqlite"
        ? ["DROP TABLE product_text_versions", "DROP TABLE product_fts", "DROP TABLE product_text"]
        : [
            "DROP TABLE product_text",
            // 0021 (PostgreSQL only): the filter indexes' tables, and their triggers with their function.
            "DROP TABLE product_vector_copies",
            "DROP TABLE vector_filter_indexes",
            "DROP FUNCTION product_vector_copies_on_change() CASCADE",
            "DROP FUNCTION product_vector_copies_sync(text, text)",
            "DROP FUNCTION product_vector_copies_fill(integer)",
            "DROP FUNCTION product_vector_copies_stale(integer)",
            "DROP FUNCTION product_vector_copies_members(integer)",
            // 0022, 0031 and 0032: the nearest-copies function (its registry columns went with the table).
            "DROP FUNCTION product_vector_copies_nearest(text, integer, integer[], halfvec, integer, text[])",
          ];
    // 0023: the vocabulary and the store synonyms.
    drop.push("DROP TABLE product_terms", "DROP TABLE search_synonyms");
    // 0025: the jobs' claim times.
    drop.push("DROP INDEX jobs_store_claimed_idx", "ALTER TABLE jobs DROP COLUMN claimed_at");
    // 0026: the products' stated availability.
    drop.push("ALTER TABLE products DROP COLUMN availability", "ALTER TABLE products DROP COLUMN stock_quantity");
    // 0028: what a bulk job does.
    drop.push("ALTER TABLE bulk_jobs DROP COLUMN action");
    // 0027: merchandising rules and their hit counts.
    drop.push("DROP TABLE search_rule_hits", "DROP TABLE search_rules");
    // 0029: the assistant's per-store vocabulary.
    drop.push("DROP TABLE assistant_vocabulary");
    // 0034, then 0020's brand index.
    drop.push(...UNDO_0034, "DROP INDEX products_store_brand_lower_idx");
    for (const statement of drop) await sql.raw(statement).execute(db);
    await db
      .deleteFrom("kysely_migration" as any)
      .where("name", ">=", "0018")
      .execute();
    await app.close();
    app = await open();
    assert.deepEqual(await lexicalIds("anorak"), ["b-2"]);
    assert.deepEqual(await lexicalIds("rolex", otherToken), ["o-dress"]);
  });
});

async function duplicateEvents(app: SearchInstance, storeId: string): Promise<Record<string, any>[]> {
  const rows = await app.ctx.database.db
    .selectFrom("webhook_deliveries")
    .select(["event", "body"])
    .where("store_id", "=", storeId)
    .execute();
  return rows.filter((r) => r.event === "product.duplicate_detected").map((r) => JSON.parse(r.body).data as Record<string, any>);
}

describeEachDialect("search: without a model", (dialect) => {
  test("GET /v1/search/model says disabled, and text search answers from the lexical index alone", async () => {
    const t = await createTestApp({ dialect });
    try {
      const store = await registerStore(t);
      const token = await machineToken(t.search, store);
      const res = await t.search.inject({ method: "GET", url: "/v1/search/model", headers: bearer(token) });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        { ...(res.json() as object), model_id: undefined },
        {
          model_id: undefined,
          dimensions: 0,
          is_test_model: false,
          status: "disabled",
          duplicate_detection: false,
          default_semantic_weight: 0,
          default_fusion_method: "coverage",
          visual_min_score: 0,
          reindex: { stale_products: 0, job: null },
        },
      );
      const search = await t.search.inject({
        method: "POST",
        url: "/v1/search/text",
        headers: bearer(token),
        payload: { query: "red dress" },
      });
      assert.equal(search.statusCode, 200, search.body);
      assert.equal(search.json().count, 0);
      const visual = await t.search.inject({
        method: "POST",
        url: "/v1/search/text",
        headers: bearer(token),
        payload: { query: "red dress", semantic_weight: 1 },
      });
      assert.equal(visual.statusCode, 503, visual.body);
      assert.equal(visual.json().error, "model_unavailable");
    } finally {
      await t.close();
    }
  });
});
