// Inverted lists over large filter indexes (PostgreSQL only; src/vectors/filter-indexes.ts). An
// exact scan of a value's copies costs ~0.6 µs per copy: a pair of categories holding 100,000
// products at a million takes 150–200 ms. A value with many copies therefore also gets a partial
// pgvector IVFFlat index over its copies (`product_vector_copies_ivf_<id>`, WHERE index_id = id),
// built by the refresh; the registry records its number of lists and how many of them a search
// probes, and product_vector_copies_nearest() reads a value's nearest copies through it (or
// exactly when it has none).
//
// IVFFlat rather than a graph: a query far from every vector of the value (a category that
// follows the clusters, where the shopper's photo is of something else) still lands in the lists
// whose centres are nearest to it, where a graph over the value wanders (docs/benchmarks.md "Inverted lists over large filter indexes").
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    if (types.dialect !== "postgres") return;
    await sql`ALTER TABLE vector_filter_indexes ADD COLUMN lists integer, ADD COLUMN probes integer`.execute(db);
    // The p_limit copies of each ready value of p_ids (this store and dimension) nearest to the
    // query, with their half-precision distance: through the value's inverted lists when it has
    // them (the cast expression and the literal index id let the planner match the partial index,
    // and sorting is off so that it reads that index rather than sorting a scan, whatever its
    // statistics say; the iterative scan probes further lists when those probed hold fewer than
    // p_limit), else by an exact scan of its copies (the uncast expression matches no such index).
    // Probes and sorting are set for this call only (the SET clauses restore them). STABLE: every
    // statement inside sees the calling statement's snapshot, so the registry it reads is the one
    // the caller checks readiness against.
    await sql`CREATE FUNCTION product_vector_copies_nearest(p_store text, p_dim integer, p_ids integer[], p_query halfvec, p_limit integer)
      RETURNS TABLE (product_id text, vector_id text, distance double precision)
      LANGUAGE plpgsql STABLE
      SET search_path FROM CURRENT
      SET ivfflat.probes = 1
      SET ivfflat.iterative_scan = relaxed_order
      SET enable_sort = on
      AS $fn$
      #variable_conflict use_column
      DECLARE
        f record;
      BEGIN
        FOR f IN SELECT id, probes FROM vector_filter_indexes
          WHERE id = ANY(p_ids) AND store_id = p_store AND dim = p_dim AND ready
        LOOP
          IF f.probes IS NULL THEN
            PERFORM set_config('enable_sort', 'on', true);
            RETURN QUERY SELECT c.product_id, c.vector_id, c.embedding <=> p_query FROM product_vector_copies c
              WHERE c.index_id = f.id ORDER BY 3 LIMIT p_limit;
          ELSE
            PERFORM set_config('ivfflat.probes', f.probes::text, true), set_config('enable_sort', 'off', true);
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
