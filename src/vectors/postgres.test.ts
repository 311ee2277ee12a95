// The PostgreSQL adapter's judgement of filtered HNSW searches: a filter that follows the vectors
// and excludes the query's neighbourhood is answered exactly over the candidates (HNSW ranks the
// far remainder of the store badly), one that keeps the neighbourhood stays on HNSW.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEnv } from "../../test/support/env.js";
import type { Database } from "../platform/db/index.js";
import { createVectorIndex, resolveOptions } from "./index.js";
import { annQuery, beyondGraphWalk, excludesNeighbourhood, PostgresVectorIndex } from "./postgres.js";
import { normalized } from "./math.js";
import { clusteredVectors, exactTopK, queriesLike, recall } from "./synthetic.js";
import { openTestDatabase, type TestDatabase } from "./test-support.js";
import { createStores } from "../../test/support/database.js";
import { sql, type SqlBool } from "kysely";
import type { DeferredCandidates } from "./candidates.js";

const pid = (i: number) => `p${String(i).padStart(5, "0")}`;
const row = (product_id: string, distance: number) => ({ product_id, vector_id: `v-${product_id}`, distance });

test("excludesNeighbourhood: true only when none of the query's ⌈k / s⌉ nearest rows is a candidate", () => {
  // 40 rows at distances 0.00 … 0.39, listed out of order (relaxed-order scans return them so).
  const rows = Array.from({ length: 40 }, (_, i) => row(pid(i), i / 100)).reverse();
  const far = new Set([pid(25), pid(30)]);
  // k = 5 at s = 0.25: the nearest 20 rows would hold about 5 hits; they hold none.
  assert.equal(excludesNeighbourhood(rows, far, 5, 0.25), true);
  assert.equal(excludesNeighbourhood(rows, new Set([...far, pid(19)]), 5, 0.25), false, "one hit among the nearest 20");
  // k = 2: about 2 hits expected, too few to judge.
  assert.equal(excludesNeighbourhood(rows, far, 2, 0.25), false);
  // Fewer rows than ⌈k / s⌉: the expectation shrinks with them (10 rows × 0.25 < 4).
  assert.equal(excludesNeighbourhood(rows.slice(30), far, 5, 0.25), false);
});

test("efSearch: the default depth follows the index's size (100 at 250,000 vectors, at least 40); a configured one stays", () => {
  const unused = {} as Database; // efSearch touches no database
  const byDefault = new PostgresVectorIndex(unused, resolveOptions({}, "postgres"));
  assert.equal(byDefault.efSearch(10, 0), 40, "the floor");
  assert.equal(byDefault.efSearch(10, 50_000), 40, "100 × 0.2^0.8 = 28 → the floor");
  assert.equal(byDefault.efSearch(10, 100_000), 49, "100 × 0.4^0.8, rounded up");
  assert.equal(byDefault.efSearch(10, 250_000), 100);
  assert.equal(byDefault.efSearch(10, 250_001), 101, "grows at once past the reference size (rounded up)");
  assert.equal(byDefault.efSearch(10, 1_000_000), 304, "100 × 4^0.8, rounded up");
  assert.equal(byDefault.efSearch(10, 4_000_000), 919);
  assert.equal(byDefault.efSearch(300, 20_000), 300, "never below the rows asked for");
  assert.equal(byDefault.efSearch(10, 200_000_000), 1_000, "pgvector's ceiling");
  const configured = new PostgresVectorIndex(unused, resolveOptions({ hnsw: { expansionSearch: 150 } }, "postgres"));
  assert.equal(configured.efSearch(10, 1_000_000), 150);
  assert.equal(configured.efSearch(2_000, 1_000_000), 1_000);
});

test("beyondGraphWalk: a round deeper than ef_search's ceiling goes exact while its candidates cost less", () => {
  const ann = (wanted: number) => ({ kind: "ann" as const, wanted });
  const ratio = resolveOptions({}, "postgres").annCostRatio;
  // A 1 % filter at a million products: 2,000 rows wanted, 10,000 candidates.
  assert.deepEqual(beyondGraphWalk(ann(2_000), 10_000, ratio), { kind: "exact" });
  // The same at ten million products: 100,000 candidates cost more than the deep round.
  assert.deepEqual(beyondGraphWalk(ann(2_000), 100_000, ratio), ann(2_000));
  // Within one graph walk nothing changes, however few the candidates.
  assert.deepEqual(beyondGraphWalk(ann(1_000), 3_000, ratio), ann(1_000));
  assert.deepEqual(beyondGraphWalk({ kind: "exact" }, 50, ratio), { kind: "exact" });
  // annCostRatio 0 (tests forcing HNSW) keeps HNSW.
  assert.deepEqual(beyondGraphWalk(ann(2_000), 10_000, 0), ann(2_000));
});

const skip = !testEnv.databaseUrl;
if (skip && testEnv.ci) throw new Error("CI run without TEST_DATABASE_URL: the PostgreSQL vector tests cannot run");

describe(
  "PostgreSQL filtered search against the query's neighbourhood [postgres]",
  { skip: skip ? "TEST_DATABASE_URL not set" : false },
  () => {
    let t: TestDatabase;
    let index: PostgresVectorIndex;
    // 3,000 vectors in 10 clusters of ~300: a filter on one cluster keeps ~10 % of the store, and the
    // query's ⌈k / s⌉ ≈ 100 nearest rows lie inside its own cluster.
    const data = clusteredVectors({ count: 3_000, dim: 32, clusters: 10, seed: 21 });

    before(async () => {
      t = await openTestDatabase("postgres");
      await createStores(t.database, ["near"]);
      // No exact budget and HNSW deemed free: the cost model takes HNSW for any filter, so the
      // first round's judgement is what decides.
      index = createVectorIndex(t.database, { bruteForceThreshold: 500, exactBudget: 0, annCostRatio: 0 }) as PostgresVectorIndex;
      await index.init();
      for (let start = 0; start < data.count; start += 500) {
        const upserted: { vectorId: string; productId: string; model: string; vector: Float32Array }[] = [];
        await t.database.transaction(async (tx) => {
          for (let i = start; i < start + 500; i++) {
            const item = { vectorId: `v${i}`, productId: pid(i), model: "m@32", vector: data.row(i) };
            await index.upsert(tx, "near", item);
            upserted.push(item);
          }
        });
        index.afterCommit("near", { upserted });
      }
      await index.settled();
    });

    after(async () => {
      await index?.close();
      await t?.close();
    });

    test("a cluster filter away from the query is scanned exactly (recall 1); on the query's cluster it stays on HNSW", async (ctx) => {
      const queries = queriesLike(data, 20, 22);
      const nearestCluster = (q: Float32Array) => data.cluster[Number(exactTopK(data, q, 1)[0])]!;
      let away = 0;
      let own = 0;
      for (const query of queries) {
        const c = nearestCluster(query);
        for (const target of [(c + 3) % 10, c]) {
          const keep = (r: number) => data.cluster[r] === target;
          const candidates = new Set(
            Array.from({ length: data.count }, (_, r) => r)
              .filter(keep)
              .map(pid),
          );
          const found = await index.search("near", query, { k: 10, candidates });
          const score = recall(
            found.map((m) => m.productId),
            exactTopK(data, query, 10, keep).map(pid),
          );
          if (target === c) {
            assert.equal(index.lastPath, "hnsw-filtered", "the filter keeps the neighbourhood");
            own += score;
          } else {
            assert.equal(index.lastPath, "exact-candidates", "the filter excludes the neighbourhood");
            assert.equal(score, 1);
            away += score;
          }
        }
      }
      ctx.diagnostic(
        `recall@10: filter away ${(away / queries.length).toFixed(3)} (exact), on the query's cluster ${(own / queries.length).toFixed(3)} (hnsw)`,
      );
      assert.ok(own / queries.length >= 0.95);
    });

    test("unfiltered, the store's HNSW function leaves the products apart out as its scan goes: it returns the rows asked for, none of them apart", async () => {
      for (const query of queriesLike(data, 5, 24)) {
        const ranked = exactTopK(data, query, 80).map(pid);
        // The 40 nearest apart: a function that dropped them after its LIMIT would return nothing.
        const apart = new Set(ranked.slice(0, 40));
        const { rows } = await annQuery("near", normalized(query), 5, 100, false, [...apart]).execute(t.database.db);
        assert.equal(rows.length, 5, "the rows asked for");
        assert.ok(
          rows.every((r) => !apart.has(r.product_id) && ranked.includes(r.product_id)),
          "none apart, all among the nearest others",
        );
        const found = await index.search("near", query, { k: 5, also: apart });
        assert.equal(index.lastPath, "hnsw");
        const others = found.filter((m) => !m.also).map((m) => m.productId);
        assert.equal(others.length, 5);
        assert.ok(recall(others, ranked.slice(40, 45)) >= 0.8, `the next five nearest: ${others.join(", ")}`);
        assert.equal(found.filter((m) => m.also).length, 40, "then the products asked for by id");
      }
    });

    test("filtered on HNSW, the rounds count the rows asked for apart from the products asked for by id, and find the next nearest", async () => {
      let total = 0;
      const queries = queriesLike(data, 10, 25);
      for (const query of queries) {
        const target = data.cluster[Number(exactTopK(data, query, 1)[0])]!;
        const keep = (r: number) => data.cluster[r] === target;
        const candidates = new Set(
          Array.from({ length: data.count }, (_, r) => r)
            .filter(keep)
            .map(pid),
        );
        const ranked = exactTopK(data, query, 40, keep).map(pid);
        const apart = new Set(ranked.slice(0, 20));
        const found = await index.search("near", query, { k: 10, candidates, also: apart });
        assert.equal(index.lastPath, "hnsw-filtered");
        const others = found.filter((m) => !m.also).map((m) => m.productId);
        assert.equal(others.length, 10);
        assert.ok(
          others.every((id) => !apart.has(id) && candidates.has(id)),
          "none apart, all passing the filter",
        );
        total += recall(others, ranked.slice(20, 30));
        assert.equal(found.filter((m) => m.also).length, 20);
      }
      assert.ok(total / queries.length >= 0.9, `recall@10 of the next ten ${(total / queries.length).toFixed(3)}`);
    });

    test("candidates left in the database (a subquery) take the same path and find the same products as their ids", async () => {
      const queries = queriesLike(data, 6, 23);
      // As search/repository.ts builds them: a subquery, and keep() asking the database.
      let asked = 0;
      const deferredOf = (ids: ReadonlySet<string>): DeferredCandidates => {
        const subquery = t.database.db
          .selectFrom("product_vectors")
          .select("product_id")
          .where("store_id", "=", "near")
          .where("product_id", "in", [...ids]);
        return {
          deferred: true,
          size: ids.size,
          subquery,
          keep: async (some) => {
            asked++;
            const rows = await subquery.where(sql<SqlBool>`product_id = ANY(${[...some]}::text[])`).execute();
            return new Set(rows.map((r) => r.product_id));
          },
        };
      };
      const paths = new Set<string>();
      for (const query of queries) {
        const c = data.cluster[Number(exactTopK(data, query, 1)[0])]!;
        for (const target of [(c + 3) % 10, c]) {
          const ids = new Set(
            Array.from({ length: data.count }, (_, r) => r)
              .filter((r) => data.cluster[r] === target)
              .map(pid),
          );
          const listed = await index.search("near", query, { k: 10, candidates: ids });
          const listedPath = index.lastPath;
          const deferred = await index.search("near", query, { k: 10, candidates: deferredOf(ids) });
          assert.equal(index.lastPath, listedPath);
          assert.deepEqual(
            deferred.map((m) => m.productId),
            listed.map((m) => m.productId),
          );
          assert.equal(deferred.length, 10);
          paths.add(listedPath);
        }
      }
      assert.deepEqual([...paths].sort(), ["exact-candidates", "hnsw-filtered"], "both the exact scan and HNSW rounds ran");
      assert.ok(asked >= queries.length, `HNSW rounds asked the database which of their rows pass (${asked})`);
    });
  },
);
