// Filter indexes (PostgreSQL only; src/vectors/filter-indexes.ts): an HNSW index of its own for
// one category or brand of one store that holds many products, so a search filtered on it walks a
// graph of those products alone instead of the store's whole graph or an exact scan of the
// filter's rows (bench:scale, a million products: a 1 % brand 100–135 ms exact, a category that
// follows the clusters 450–750 ms).
//
// pgvector indexes a value by a partial index, whose predicate may only name columns of the
// indexed table; the category and brand live in `products`. So each chosen value gets
// half-precision copies of its products' vectors in `product_vector_copies` (a 512-d copy is
// ~1 KB), and a partial HNSW index over the copies `WHERE index_id = <id>`. Writing them as copies
// leaves `product_vectors` and its big index untouched: denormalising the fields into it would
// rewrite every row, and every rewritten row is a new entry in its HNSW graph.
//
// Triggers keep the copies of registered values in step within the writing transaction: a vector
// written or removed, a product's category or brand changed. With no value registered for the
// store they cost one index probe. A search still checks every hit against the live filter, so a
// copy can only ever cost recall, never a wrong result.
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    if (types.dialect !== "postgres") return;
    await sql`CREATE TABLE vector_filter_indexes (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      store_id text NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      field text NOT NULL CHECK (field IN ('category', 'brand')),
      value text NOT NULL,
      dim integer NOT NULL,
      ready boolean NOT NULL DEFAULT false,
      rows integer NOT NULL DEFAULT 0,
      created_at bigint NOT NULL,
      UNIQUE (store_id, field, value, dim)
    )`.execute(db);
    await sql`CREATE TABLE product_vector_copies (
      index_id integer NOT NULL REFERENCES vector_filter_indexes(id) ON DELETE CASCADE,
      store_id text NOT NULL,
      product_id text NOT NULL,
      vector_id text NOT NULL,
      embedding halfvec NOT NULL,
      PRIMARY KEY (index_id, product_id)
    )`.execute(db);
    await sql`CREATE INDEX product_vector_copies_product_idx ON product_vector_copies (store_id, product_id)`.execute(db);
    // Re-copies one product's vector into every registered filter index its fields now match.
    await sql`CREATE FUNCTION product_vector_copies_sync(p_store text, p_product text) RETURNS void
      LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM vector_filter_indexes f WHERE f.store_id = p_store) THEN
          RETURN;
        END IF;
        DELETE FROM product_vector_copies c WHERE c.store_id = p_store AND c.product_id = p_product;
        INSERT INTO product_vector_copies (index_id, store_id, product_id, vector_id, embedding)
          SELECT f.id, v.store_id, v.product_id, v.vector_id, v.embedding::halfvec
          FROM product_vectors v
          JOIN products p ON p.store_id = v.store_id AND p.product_id = v.product_id
          JOIN vector_filter_indexes f ON f.store_id = v.store_id AND f.dim = v.dim
            AND ((f.field = 'category' AND f.value = lower(p.category)) OR (f.field = 'brand' AND f.value = lower(p.brand)))
          WHERE v.store_id = p_store AND v.product_id = p_product
        ON CONFLICT (index_id, product_id) DO UPDATE SET vector_id = EXCLUDED.vector_id, embedding = EXCLUDED.embedding;
      END
      $fn$`.execute(db);
    await sql`CREATE FUNCTION product_vector_copies_on_change() RETURNS trigger
      LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          DELETE FROM product_vector_copies c WHERE c.store_id = OLD.store_id AND c.product_id = OLD.product_id;
          RETURN OLD;
        END IF;
        PERFORM product_vector_copies_sync(NEW.store_id, NEW.product_id);
        RETURN NEW;
      END
      $fn$`.execute(db);
    await sql`CREATE TRIGGER product_vector_copies_vectors
      AFTER INSERT OR DELETE OR UPDATE OF embedding, dim, vector_id ON product_vectors
      FOR EACH ROW EXECUTE FUNCTION product_vector_copies_on_change()`.execute(db);
    await sql`CREATE TRIGGER product_vector_copies_products
      AFTER INSERT OR UPDATE OF category, brand ON products
      FOR EACH ROW EXECUTE FUNCTION product_vector_copies_on_change()`.execute(db);
  },
});

export default migration;
