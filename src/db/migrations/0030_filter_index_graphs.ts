// Graphs over filter indexes (PostgreSQL only; src/vectors/filter-indexes.ts). A value with too few
// copies for inverted lists is scanned exactly, ~0.6 µs a copy: a brand of 10,000 at a million
// products 6–7 ms of the search. A value of at least VECTOR_FILTER_INDEX_GRAPH_MIN_ROWS copies and
// no lists may get a partial pgvector HNSW index over them instead
// (`product_vector_copies_hnsw_<id>`, WHERE index_id = id), kept only when its recall@10 against
// an exact scan of the copies, measured by the refresh on a sample of the store's own vectors as
// queries, reaches the bar: a graph over a value that follows the clusters of the catalogue (a
// category) wanders for a query far from all of it (docs/benchmarks.md "Inverted lists over large
// filter indexes"), while one over a value spread across them (a brand) holds.
//
// `graph_ef`: the HNSW candidate list a search through the graph keeps (null: no graph).
// `graph_checked`: the copies the value held when its graph last failed the recall check (null:
// none failed); the refresh tries again only once the value has doubled or halved since.
// product_vector_copies_nearest() reads a value through its graph when it has one, with
// ef_search the larger of graph_ef and the copies asked for (a graph returns at most ef_search
// rows), at most pgvector's 1,000; the iterative scan goes on past that.
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    if (types.dialect !== "postgres") return;
    await sql`ALTER TABLE vector_filter_indexes ADD COLUMN graph_ef integer, ADD COLUMN graph_checked integer`.execute(db);
    await sql`CREATE OR REPLACE FUNCTION product_vector_copies_nearest(p_store text, p_dim integer, p_ids integer[], p_query halfvec, p_limit integer)
      RETURNS TABLE (product_id text, vector_id text, distance double precision)
      LANGUAGE plpgsql STABLE
      SET search_path FROM CURRENT
      SET ivfflat.probes = 1
      SET ivfflat.iterative_scan = relaxed_order
      SET hnsw.ef_search = 40
      SET hnsw.iterative_scan = relaxed_order
      SET enable_sort = on
      AS $fn$
      #variable_conflict use_column
      DECLARE
        f record;
      BEGIN
        FOR f IN SELECT id, probes, graph_ef FROM vector_filter_indexes
          WHERE id = ANY(p_ids) AND store_id = p_store AND dim = p_dim AND ready
        LOOP
          IF f.probes IS NULL AND f.graph_ef IS NULL THEN
            PERFORM set_config('enable_sort', 'on', true);
            RETURN QUERY SELECT c.product_id, c.vector_id, c.embedding <=> p_query FROM product_vector_copies c
              WHERE c.index_id = f.id ORDER BY 3 LIMIT p_limit;
          ELSE
            IF f.probes IS NOT NULL THEN
              PERFORM set_config('ivfflat.probes', f.probes::text, true);
            ELSE
              PERFORM set_config('hnsw.ef_search', least(1000, greatest(f.graph_ef, p_limit))::text, true);
            END IF;
            PERFORM set_config('enable_sort', 'off', true);
            RETURN QUERY EXECUTE format(
              'SELECT c.product_id, c.vector_id, c.embedding::halfvec(%s) <=> $1 FROM product_vector_copies c '
              'WHERE c.index_id = %s ORDER BY c.embedding::halfvec(%s) <=> $1 LIMIT $2', p_dim, f.id, p_dim)
              USING p_query, p_limit;
          END IF;
        END LOOP;
      END
      $fn$`.execute(db);
  },
});

export default migration;
