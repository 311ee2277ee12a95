// product_vector_copies_nearest() leaves out products the caller asks for apart (PostgreSQL only;
// src/vectors/postgres.ts nearestCopiesQuery, VectorSearchOptions.also). A text search reads its
// lexical hits' similarities by id and wants, from a filter index, the nearest products that are
// not hits: a page of them, not a page plus every hit (bench:scale, a brand of 10,000 copies at a
// million products: 100 copies checked against the filter and sent back instead of 10). Through a
// value's graph or inverted lists the products apart are left out inside the index scan, which
// pgvector's iterative scan then continues past them; an exact scan reads as many more and drops
// them. The signature of 0030 (five arguments) is dropped: `p_apart` has a default, so a process
// still running the older code calls the new function.
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    if (types.dialect !== "postgres") return;
    await sql`DROP FUNCTION IF EXISTS product_vector_copies_nearest(text, integer, integer[], halfvec, integer)`.execute(db);
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
              'SELECT c.product_id, c.vector_id, c.embedding::halfvec(%s) <=> $1 FROM product_vector_copies c '
              'WHERE c.index_id = %s AND c.product_id <> ALL($3) ORDER BY c.embedding::halfvec(%s) <=> $1 LIMIT $2', p_dim, f.id, p_dim)
              USING p_query, p_limit, coalesce(p_apart, '{}');
          END IF;
        END LOOP;
      END
      $fn$`.execute(db);
  },
});

export default migration;
