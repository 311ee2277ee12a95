// product_vector_copies_nearest() leaves the products apart out after a value's index scan, not
// among the scan's own conditions (PostgreSQL only; 0031 added them). The function plans its
// statement anew on every call (the value's partial index is named by a literal), and the planner
// tries to prove each of product_vector_copies' partial indexes (a graph or lists per value: 120
// at a million products) from the statement's conditions, expanding an array of up to 100
// elements into as many clauses for each: 100 products apart took planning from 0.23 to 0.62 ms
// per call (EXPLAIN on bench:scale's build 9, a brand's graph). Behind `OFFSET 0` the scan keeps only its value's condition; the
// filter above it reads the scan's rows as they come, so the graph or the lists still walk on past
// the products apart, and the planning costs what it did without them (0.28–0.31 ms).
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    if (types.dialect !== "postgres") return;
    await sql`CREATE OR REPLACE FUNCTION product_vector_copies_nearest(p_store text, p_dim integer, p_ids integer[], p_query halfvec, p_limit integer, p_apart text[] DEFAULT '{}')
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
            RETURN QUERY SELECT s.product_id, s.vector_id, s.distance FROM (
              SELECT c.product_id, c.vector_id, c.embedding <=> p_query AS distance FROM product_vector_copies c
              WHERE c.index_id = f.id ORDER BY 3 LIMIT p_limit + coalesce(cardinality(p_apart), 0)) s
              WHERE NOT (s.product_id = ANY(coalesce(p_apart, '{}'))) ORDER BY s.distance LIMIT p_limit;
          ELSE
            IF f.probes IS NOT NULL THEN
              PERFORM set_config('ivfflat.probes', f.probes::text, true);
            ELSE
              PERFORM set_config('hnsw.ef_search', least(1000, greatest(f.graph_ef, p_limit))::text, true);
            END IF;
            PERFORM set_config('enable_sort', 'off', true);
            RETURN QUERY EXECUTE format(
              'SELECT s.product_id, s.vector_id, s.distance FROM ('
                'SELECT c.product_id, c.vector_id, c.embedding::halfvec(%s) <=> $1 AS distance FROM product_vector_copies c '
                'WHERE c.index_id = %s ORDER BY c.embedding::halfvec(%s) <=> $1 OFFSET 0) s '
              'WHERE s.product_id <> ALL($3) LIMIT $2', p_dim, f.id, p_dim)
              USING p_query, p_limit, coalesce(p_apart, '{}');
          END IF;
        END LOOP;
      END
      $fn$`.execute(db);
  },
});

export default migration;
