// Queries of the embedded catalogue connector: the carts, returns and orders kept for it (0011;
// the products themselves are read through the catalogue port). storeId first on every method.
import type { Selectable } from "kysely";
import type { Dialect, Executor } from "../../platform/db/index.js";
import type { AssistantCartsTable, AssistantOrdersTable, AssistantReturnsTable } from "../../platform/db/schema.js";

export type CartRow = Selectable<AssistantCartsTable>;
export type ReturnRow = Selectable<AssistantReturnsTable>;
export type OrderRow = Selectable<AssistantOrdersTable>;

export class StorefrontRepository {
  constructor(
    private readonly db: Executor,
    readonly dialect: Dialect,
  ) {}

  /** The same queries inside a transaction. */
  with(db: Executor): StorefrontRepository {
    return new StorefrontRepository(db, this.dialect);
  }

  // --- carts ---------------------------------------------------------------------------------
  findCart(storeId: string, sessionId: string, source: string): Promise<CartRow | undefined> {
    return this.db
      .selectFrom("assistant_carts")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("session_id", "=", sessionId)
      .where("source", "=", source)
      .executeTakeFirst();
  }

  async insertCart(storeId: string, row: Omit<CartRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("assistant_carts")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  async updateCart(storeId: string, id: string, patch: { lines: string; external_id: string | null; updated_at: number }): Promise<void> {
    await this.db.updateTable("assistant_carts").set(patch).where("store_id", "=", storeId).where("id", "=", id).execute();
  }

  // --- returns and orders --------------------------------------------------------------------
  async insertReturn(storeId: string, row: Omit<ReturnRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("assistant_returns")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  ordersOf(storeId: string, customerId: string, limit: number): Promise<OrderRow[]> {
    return this.db
      .selectFrom("assistant_orders")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("customer_id", "=", customerId)
      .orderBy("placed_at", "desc")
      .orderBy("order_id", "desc")
      .limit(limit)
      .execute();
  }

  findOrder(storeId: string, orderId: string): Promise<OrderRow | undefined> {
    return this.db
      .selectFrom("assistant_orders")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("order_id", "=", orderId)
      .executeTakeFirst();
  }

  async upsertOrder(storeId: string, row: Omit<OrderRow, "store_id">): Promise<void> {
    const { customer_id, status, placed_at, total_minor, currency, items, updated_at } = row;
    await this.db
      .insertInto("assistant_orders")
      .values({ ...row, store_id: storeId })
      .onConflict((oc) =>
        oc.columns(["store_id", "order_id"]).doUpdateSet({ customer_id, status, placed_at, total_minor, currency, items, updated_at }),
      )
      .execute();
  }
}
