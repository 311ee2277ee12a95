// Queries on `product_vectors` shared by both adapters. The only dialect difference is the
// embedding encoding: float32 little-endian blob on SQLite, pgvector `vector` on PostgreSQL
// (written from and read as its text form). storeId is the first argument of every method.
import { sql, type RawBuilder } from "kysely";
import type { Database, Executor } from "../platform/db/index.js";
import { fromBlob, fromPgVector, normalized, toBlob, toPgVector } from "./math.js";
import type { ModelCount, VectorUpsert } from "./types.js";

export interface StoredVectorRow {
  store_id: string;
  vector_id: string;
  product_id: string;
  dim: number;
  embedding: Uint8Array;
}

export interface StoredAttributesRow {
  store_id: string;
  product_id: string;
  category: string | null;
  price: number | null;
  color_name: string | null;
  dominant_colors: string;
  metadata: string;
}

const REMOVE_CHUNK = 500;

export class VectorRepository {
  constructor(private readonly database: Database) {}

  private get pg(): boolean {
    return this.database.dialect === "postgres";
  }

  private encode(unit: Float32Array): Buffer | RawBuilder<string> {
    return this.pg ? sql<string>`${toPgVector(unit)}::vector` : toBlob(unit);
  }

  /** Inserts the product's vector, normalised, or replaces it (one vector per product). */
  async upsert(tx: Executor, storeId: string, item: VectorUpsert, at: number): Promise<void> {
    const unit = normalized(item.vector);
    await tx
      .insertInto("product_vectors")
      .values({
        store_id: storeId,
        vector_id: item.vectorId,
        product_id: item.productId,
        model: item.model,
        dim: unit.length,
        embedding: this.encode(unit),
        created_at: at,
      })
      .onConflict((oc) =>
        oc.columns(["store_id", "product_id"]).doUpdateSet((eb) => ({
          vector_id: eb.ref("excluded.vector_id"),
          model: eb.ref("excluded.model"),
          dim: eb.ref("excluded.dim"),
          embedding: eb.ref("excluded.embedding"),
          created_at: eb.ref("excluded.created_at"),
        })),
      )
      .execute();
  }

  async remove(tx: Executor, storeId: string, productIds: readonly string[]): Promise<void> {
    for (let i = 0; i < productIds.length; i += REMOVE_CHUNK) {
      const chunk = productIds.slice(i, i + REMOVE_CHUNK);
      await tx.deleteFrom("product_vectors").where("store_id", "=", storeId).where("product_id", "in", chunk).execute();
    }
  }

  async get(storeId: string, productId: string): Promise<Float32Array | undefined> {
    if (this.pg) {
      const row = await this.database.db
        .selectFrom("product_vectors")
        .select(sql<string>`embedding::text`.as("embedding"))
        .where("store_id", "=", storeId)
        .where("product_id", "=", productId)
        .executeTakeFirst();
      return row ? fromPgVector(row.embedding) : undefined;
    }
    const row = await this.database.db
      .selectFrom("product_vectors")
      .select("embedding")
      .where("store_id", "=", storeId)
      .where("product_id", "=", productId)
      .executeTakeFirst();
    return row ? fromBlob(row.embedding as Buffer) : undefined;
  }

  async count(storeId: string, dim?: number): Promise<number> {
    let query = this.database.db
      .selectFrom("product_vectors")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("store_id", "=", storeId);
    if (dim !== undefined) query = query.where("dim", "=", dim);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Vectors of a dimension across all stores (PostgreSQL plan choice). */
  async countDim(dim: number): Promise<number> {
    const row = await this.database.db
      .selectFrom("product_vectors")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("dim", "=", dim)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async countByModel(storeId: string): Promise<ModelCount[]> {
    const rows = await this.database.db
      .selectFrom("product_vectors")
      .select(["model", "dim", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("store_id", "=", storeId)
      .groupBy(["model", "dim"])
      .orderBy("model")
      .orderBy("dim")
      .execute();
    return rows.map((r) => ({ model: r.model, dim: Number(r.dim), count: Number(r.n) }));
  }

  /** Vectors per store and dimension across all stores (start-up sizes its groups with it). */
  async groupCounts(): Promise<{ storeId: string; dim: number; count: number }[]> {
    const rows = await this.database.db
      .selectFrom("product_vectors")
      .select(["store_id", "dim", (eb) => eb.fn.countAll<number | string>().as("n")])
      .groupBy(["store_id", "dim"])
      .execute();
    return rows.map((r) => ({ storeId: r.store_id, dim: Number(r.dim), count: Number(r.n) }));
  }

  /** Dimensions in use across all stores. */
  async dims(): Promise<number[]> {
    const rows = await this.database.db.selectFrom("product_vectors").select("dim").distinct().execute();
    return rows.map((r) => Number(r.dim)).sort((a, b) => a - b);
  }

  /** The stored rows of some products (SQLite: raw blobs). */
  async rows(storeId: string, productIds: readonly string[]): Promise<StoredVectorRow[]> {
    const out: StoredVectorRow[] = [];
    for (let i = 0; i < productIds.length; i += REMOVE_CHUNK) {
      const rows = await this.database.db
        .selectFrom("product_vectors")
        .select(["store_id", "vector_id", "product_id", "dim", "embedding"])
        .where("store_id", "=", storeId)
        .where("product_id", "in", productIds.slice(i, i + REMOVE_CHUNK))
        .execute();
      for (const r of rows) out.push({ ...r, dim: Number(r.dim), embedding: r.embedding as Buffer });
    }
    return out;
  }

  /** The filterable fields of some products. */
  async attributesOf(storeId: string, productIds: readonly string[]): Promise<StoredAttributesRow[]> {
    const out: StoredAttributesRow[] = [];
    for (let i = 0; i < productIds.length; i += REMOVE_CHUNK) {
      const rows = await this.database.db
        .selectFrom("products")
        .select(["store_id", "product_id", "category", "price", "color_name", "dominant_colors", "metadata"])
        .where("store_id", "=", storeId)
        .where("product_id", "in", productIds.slice(i, i + REMOVE_CHUNK))
        .execute();
      out.push(...rows);
    }
    return out;
  }

  /** Start-up load of the filterable product fields, in (store, product) order, `limit` rows after `after`. */
  async attributesPage(after: { storeId: string; productId: string } | null, limit: number): Promise<StoredAttributesRow[]> {
    let query = this.database.db
      .selectFrom("products")
      .select(["store_id", "product_id", "category", "price", "color_name", "dominant_colors", "metadata"])
      .orderBy("store_id")
      .orderBy("product_id")
      .limit(limit);
    if (after) {
      // A row value, so that the engine seeks in the primary key: the equivalent OR of comparisons
      // made SQLite scan the key from the start for every page (quadratic; ~50 s at 1M products).
      query = query.where((eb) => eb(eb.refTuple("store_id", "product_id"), ">", eb.tuple(after.storeId, after.productId)));
    }
    return query.execute();
  }

  /** SQLite start-up load: every vector in primary-key order, `limit` rows after `after`. */
  async page(after: { storeId: string; vectorId: string } | null, limit: number): Promise<StoredVectorRow[]> {
    let query = this.database.db
      .selectFrom("product_vectors")
      .select(["store_id", "vector_id", "product_id", "dim", "embedding"])
      .orderBy("store_id")
      .orderBy("vector_id")
      .limit(limit);
    if (after) {
      query = query.where((eb) => eb(eb.refTuple("store_id", "vector_id"), ">", eb.tuple(after.storeId, after.vectorId))); // seeks (see attributesPage)
    }
    const rows = await query.execute();
    return rows.map((r) => ({ ...r, dim: Number(r.dim), embedding: r.embedding as Buffer }));
  }
}
