// Products and their stored images; every method is scoped by `storeId` first.
import { sql, type Selectable } from "kysely";
import type { Dialect, Executor } from "../../platform/db/index.js";
import type { ProductImagesTable, ProductsTable } from "../../db/schema.js";

export type ProductRow = Selectable<ProductsTable>;
export type ProductImageRow = Selectable<ProductImagesTable>;

export interface ListFilter {
  category?: string | undefined;
  brand?: string | undefined;
}

export interface Cursor {
  createdAt: number;
  productId: string;
}

export class ProductsRepository {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
  ) {}

  with(db: Executor): ProductsRepository {
    return new ProductsRepository(db, this.dialect);
  }

  find(storeId: string, productId: string): Promise<ProductRow | undefined> {
    return this.db
      .selectFrom("products")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("product_id", "=", productId)
      .executeTakeFirst();
  }

  findMany(storeId: string, productIds: readonly string[]): Promise<ProductRow[]> {
    if (productIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom("products")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("product_id", "in", [...productIds])
      .execute();
  }

  async count(storeId: string, filter: ListFilter = {}): Promise<number> {
    let q = this.db
      .selectFrom("products")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("store_id", "=", storeId);
    if (filter.category !== undefined) q = q.where("category", "=", filter.category);
    if (filter.brand !== undefined) q = q.where("brand", "=", filter.brand);
    const row = await q.executeTakeFirst();
    return row?.n ?? 0;
  }

  list(storeId: string, limit: number, after: Cursor | undefined, filter: ListFilter = {}): Promise<ProductRow[]> {
    let q = this.db.selectFrom("products").selectAll().where("store_id", "=", storeId);
    if (filter.category !== undefined) q = q.where("category", "=", filter.category);
    if (filter.brand !== undefined) q = q.where("brand", "=", filter.brand);
    if (after) {
      q = q.where((eb) =>
        eb.or([
          eb("created_at", ">", after.createdAt),
          eb.and([eb("created_at", "=", after.createdAt), eb("product_id", ">", after.productId)]),
        ]),
      );
    }
    return q.orderBy("created_at").orderBy("product_id").limit(limit).execute();
  }

  /** Serialises product writes of one store on PostgreSQL (plan limit checks); a no-op on SQLite, whose writers are serial. */
  async lockStore(storeId: string): Promise<void> {
    if (this.dialect === "postgres") {
      await sql`SELECT id FROM stores WHERE id = ${storeId} FOR UPDATE`.execute(this.db);
    }
  }

  async upsert(storeId: string, row: Omit<ProductRow, "store_id">): Promise<void> {
    const { product_id, created_at, ...rest } = row;
    await this.db
      .insertInto("products")
      .values({ store_id: storeId, product_id, created_at, ...rest })
      .onConflict((oc) => oc.columns(["store_id", "product_id"]).doUpdateSet(rest))
      .execute();
  }

  async delete(storeId: string, productId: string): Promise<boolean> {
    const res = await this.db.deleteFrom("products").where("store_id", "=", storeId).where("product_id", "=", productId).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  // --- images (content-addressed per store)
  async putImage(storeId: string, img: Omit<ProductImageRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("product_images")
      .values({ store_id: storeId, ...img })
      .onConflict((oc) => oc.columns(["store_id", "sha256"]).doNothing())
      .execute();
  }

  getImage(storeId: string, sha256: string): Promise<ProductImageRow | undefined> {
    return this.db.selectFrom("product_images").selectAll().where("store_id", "=", storeId).where("sha256", "=", sha256).executeTakeFirst();
  }

  /** Another product of the store with this image, if any (identical-image duplicates). */
  findByImage(storeId: string, sha256: string, exceptProductId: string): Promise<ProductRow | undefined> {
    return this.db
      .selectFrom("products")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("image_sha256", "=", sha256)
      .where("product_id", "!=", exceptProductId)
      .orderBy("product_id")
      .limit(1)
      .executeTakeFirst();
  }

  /** Deletes the image unless another product of the store still uses it. */
  async dropImageIfUnused(storeId: string, sha256: string): Promise<void> {
    const used = await this.db
      .selectFrom("products")
      .select("product_id")
      .where("store_id", "=", storeId)
      .where("image_sha256", "=", sha256)
      .limit(1)
      .executeTakeFirst();
    if (!used) await this.db.deleteFrom("product_images").where("store_id", "=", storeId).where("sha256", "=", sha256).execute();
  }

  /** Product ids, image hashes, vector ids and model keys of a store, for reindexing. */
  embeddingsOfStore(storeId: string): Promise<{ product_id: string; image_sha256: string; vector_id: string; model: string }[]> {
    return this.db
      .selectFrom("products")
      .select(["product_id", "image_sha256", "vector_id", "model"])
      .where("store_id", "=", storeId)
      .orderBy("product_id")
      .execute();
  }

  /** The store's product ids, in order. */
  async idsOfStore(storeId: string): Promise<string[]> {
    const rows = await this.db.selectFrom("products").select("product_id").where("store_id", "=", storeId).orderBy("product_id").execute();
    return rows.map((r) => r.product_id);
  }

  /** Product ids and metadata of those of `productIds` the store holds (rebuilding the lexical index). */
  metadataOfStore(storeId: string, productIds: readonly string[]): Promise<{ product_id: string; metadata: string }[]> {
    if (productIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom("products")
      .select(["product_id", "metadata"])
      .where("store_id", "=", storeId)
      .where("product_id", "in", productIds)
      .orderBy("product_id")
      .execute();
  }

  /** Sets the product's model when it still has the image and vector id read before (a reindex); false when it changed or is gone. */
  async setModelIfUnchanged(
    storeId: string,
    read: { product_id: string; image_sha256: string; vector_id: string },
    model: string,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable("products")
      .set({ model })
      .where("store_id", "=", storeId)
      .where("product_id", "=", read.product_id)
      .where("image_sha256", "=", read.image_sha256)
      .where("vector_id", "=", read.vector_id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** How many of the store's products are embedded by another model than `model`. */
  async countStale(storeId: string, model: string): Promise<number> {
    const row = await this.db
      .selectFrom("products")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("store_id", "=", storeId)
      .where("model", "!=", model)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Marks every product of the store as embedded by no known model (a reindex of all of them). */
  async markStale(storeId: string): Promise<void> {
    await this.db.updateTable("products").set({ model: "" }).where("store_id", "=", storeId).execute();
  }

  /** Across stores (operator command): how many products each store has embedded by another model. */
  async staleByStore(model: string): Promise<{ store_id: string; count: number }[]> {
    const rows = await this.db
      .selectFrom("products")
      .select(["store_id", (eb) => eb.fn.countAll<number>().as("n")])
      .where("model", "!=", model)
      .groupBy("store_id")
      .execute();
    return rows.map((r) => ({ store_id: r.store_id, count: r.n }));
  }
}
