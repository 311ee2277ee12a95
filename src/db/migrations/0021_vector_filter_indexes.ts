// Filter indexes (PostgreSQL only; src/vectors/filter-indexes.ts): a compact copy of the vectors
// of one category or brand of a store that holds many products, so a search filtered on it scans
// those copies, side by side in one primary-key range, instead of looking each product's row up
// in `product_vectors` (bench:scale, a million products: a 1 % brand 61–135 ms that way).
//
// The category and brand live in `products`; a value's copies (half precision, ~1 KB at 512-d)
// live in `product_vector_copies` under the registry row of the value. Copies leave
// `product_vectors` and its HNSW index untouched (denormalising the fields into it would rewrite
// every row, and each rewritten row is a new entry in its graph).
//
// A registry row is `live` once its copies are kept by the triggers and `ready` once searches may
// use them. Triggers keep the copies of live values in step within the writing transaction: a
// vector written, replaced or removed, a product added or its category or brand changed (only
// when they change: an upsert that rewrites the same values costs nothing; for a store without
// filter indexes a write costs one index probe). The triggers leave rows that are not live alone,
// so the refresh's bulk copy of a new value never waits on a writer nor a writer on it, and a
// registry row being deleted is skipped (SKIP LOCKED) rather than failing the write on its
// foreign key. The refresh then catches up with what was written during its copy
// (product_vector_copies_stale).
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
      live boolean NOT NULL DEFAULT false,
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
    // The products a registered value holds, with their vectors as copies: the rule of membership
    // (product_vector_copies_sync applies the same rule to one product).
    await sql`CREATE FUNCTION product_vector_copies_members(p_index integer)
      RETURNS TABLE (store_id text, product_id text, vector_id text, embedding halfvec)
      LANGUAGE sql STABLE SET search_path FROM CURRENT AS $fn$
        SELECT v.store_id, v.product_id, v.vector_id, v.embedding::halfvec
        FROM vector_filter_indexes f
        JOIN products p ON p.store_id = f.store_id
          AND ((f.field = 'category' AND lower(p.category) = f.value) OR (f.field = 'brand' AND lower(p.brand) = f.value))
        JOIN product_vectors v ON v.store_id = p.store_id AND v.product_id = p.product_id AND v.dim = f.dim
        WHERE f.id = p_index
      $fn$`.execute(db);
    // The refresh's bulk copy of a value (not live yet: no trigger writes its copies meanwhile).
    await sql`CREATE FUNCTION product_vector_copies_fill(p_index integer) RETURNS void
      LANGUAGE sql SET search_path FROM CURRENT AS $fn$
        INSERT INTO product_vector_copies (index_id, store_id, product_id, vector_id, embedding)
          SELECT p_index, m.store_id, m.product_id, m.vector_id, m.embedding FROM product_vector_copies_members(p_index) m
        ON CONFLICT (index_id, product_id) DO NOTHING
      $fn$`.execute(db);
    // The products whose copy in a value is missing, outdated or no longer belongs there (written
    // while the value was being copied): the refresh re-syncs them once the value is live.
    await sql`CREATE FUNCTION product_vector_copies_stale(p_index integer) RETURNS TABLE (store_id text, product_id text)
      LANGUAGE sql STABLE SET search_path FROM CURRENT AS $fn$
        SELECT m.store_id, m.product_id FROM product_vector_copies_members(p_index) m
        LEFT JOIN product_vector_copies c ON c.index_id = p_index AND c.product_id = m.product_id
        WHERE c.product_id IS NULL OR c.vector_id <> m.vector_id OR c.embedding <> m.embedding
        UNION
        SELECT c.store_id, c.product_id FROM product_vector_copies c
        WHERE c.index_id = p_index
          AND NOT EXISTS (SELECT 1 FROM product_vector_copies_members(p_index) m WHERE m.product_id = c.product_id)
      $fn$`.execute(db);
    // Re-copies one product's vector into every live filter index its fields now match.
    await sql`CREATE FUNCTION product_vector_copies_sync(p_store text, p_product text) RETURNS void
      LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM vector_filter_indexes f WHERE f.store_id = p_store AND f.live) THEN
          RETURN;
        END IF;
        DELETE FROM product_vector_copies c WHERE c.store_id = p_store AND c.product_id = p_product
          AND c.index_id IN (SELECT f.id FROM vector_filter_indexes f WHERE f.store_id = p_store AND f.live);
        INSERT INTO product_vector_copies (index_id, store_id, product_id, vector_id, embedding)
          SELECT f.id, v.store_id, v.product_id, v.vector_id, v.embedding::halfvec
          FROM product_vectors v
          JOIN products p ON p.store_id = v.store_id AND p.product_id = v.product_id
          JOIN vector_filter_indexes f ON f.store_id = v.store_id AND f.dim = v.dim AND f.live
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
          DELETE FROM product_vector_copies c WHERE c.store_id = OLD.store_id AND c.product_id = OLD.product_id
            AND c.index_id IN (SELECT f.id FROM vector_filter_indexes f WHERE f.store_id = OLD.store_id AND f.live);
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
