// Filter indexes (PostgreSQL only; src/vectors/filter-indexes.ts): a compact copy of the vectors
// of one category or brand of a store that holds many products, so a search filtered on it scans
// those copies, side by side in one primary-key range, instead of looking each product's row up
// in `product_vectors` (bench:scale, a million products: a 1 % brand 92–135 ms that way).
//
// The category and brand live in `products`; a value's copies (half precision, ~1 KB at 512-d)
// live in `product_vector_copies` under the registry row of the value. Copies leave
// `product_vectors` and its HNSW index untouched (denormalising the fields into it would rewrite
// every row, and each rewritten row is a new entry in its graph).
//
// Triggers keep the copies of registered values in step within the writing transaction: a vector
// written, replaced or removed, a product added or its category or brand changed (only when they
// change: an upsert that rewrites the same values costs nothing). For a store without registered
// values a trigger costs one index probe. A registry row being deleted is skipped (SKIP LOCKED),
// so a write never waits on, or fails against, a refresh dropping it.
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
    // Copies every product of a registered value (the refresh, for a new value:
    // filter-indexes.ts). DO NOTHING: a copy a trigger wrote meanwhile is as new as this snapshot.
    await sql`CREATE FUNCTION product_vector_copies_fill(p_index integer) RETURNS void
      LANGUAGE sql SET search_path FROM CURRENT AS $fn$
        INSERT INTO product_vector_copies (index_id, store_id, product_id, vector_id, embedding)
          SELECT f.id, v.store_id, v.product_id, v.vector_id, v.embedding::halfvec
          FROM vector_filter_indexes f
          JOIN products p ON p.store_id = f.store_id
            AND ((f.field = 'category' AND lower(p.category) = f.value) OR (f.field = 'brand' AND lower(p.brand) = f.value))
          JOIN product_vectors v ON v.store_id = p.store_id AND v.product_id = p.product_id AND v.dim = f.dim
          WHERE f.id = p_index
        ON CONFLICT (index_id, product_id) DO NOTHING
      $fn$`.execute(db);
    // Re-copies one product's vector into every registered filter index its fields now match, by
    // the same rule.
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
          FOR KEY SHARE OF f SKIP LOCKED
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
      AFTER INSERT OR DELETE ON product_vectors
      FOR EACH ROW EXECUTE FUNCTION product_vector_copies_on_change()`.execute(db);
    await sql`CREATE TRIGGER product_vector_copies_vectors_changed
      AFTER UPDATE OF embedding, dim, vector_id ON product_vectors
      FOR EACH ROW WHEN (OLD.embedding IS DISTINCT FROM NEW.embedding OR OLD.dim <> NEW.dim OR OLD.vector_id <> NEW.vector_id)
      EXECUTE FUNCTION product_vector_copies_on_change()`.execute(db);
    await sql`CREATE TRIGGER product_vector_copies_products
      AFTER INSERT ON products
      FOR EACH ROW EXECUTE FUNCTION product_vector_copies_on_change()`.execute(db);
    await sql`CREATE TRIGGER product_vector_copies_products_changed
      AFTER UPDATE OF category, brand ON products
      FOR EACH ROW WHEN (lower(OLD.category) IS DISTINCT FROM lower(NEW.category) OR lower(OLD.brand) IS DISTINCT FROM lower(NEW.brand))
      EXECUTE FUNCTION product_vector_copies_on_change()`.execute(db);
  },
});

export default migration;
