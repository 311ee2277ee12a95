// Queries of the embedded catalogue connector: the carts, returns and orders kept for it (0011;
// the products themselves are read through the catalogue port). storeId first on every method.
import type { Selectable } from "kysely";
import type { Dialect, Executor } from "../../platform/db/index.js";
import type { AssistantCartsTable, AssistantOrdersTable, AssistantReturnsTable } from "../../db/schema.js";
import { prefixedId } from "../../platform/ids.js";

export type CartRow = Selectable<AssistantCartsTable>;
export type ReturnRow = Selectable<AssistantReturnsTable>;
export type OrderRow = Selectable<AssistantOrdersTable>;

/** One line of a cart kept for an assistant session (`assistant_carts.lines`, JSON). */
export interface CartLine {
  product_id: string;
  variant_id: string | null;
  quantity: number;
}

/** The lines of a cart row (none without a cart). */
export function cartLines(cart: CartRow | undefined): CartLine[] {
  return cart ? (JSON.parse(cart.lines) as CartLine[]) : [];
}

/** The counts an add_to_cart result reports. */
export function cartCounts(lines: readonly CartLine[]): { line_count: number; item_count: number } {
  return { line_count: lines.length, item_count: lines.reduce((n, l) => n + l.quantity, 0) };
}

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

  /**
   * Writes a session's cart lines: updates `existing` (the row findCart gave) or inserts a new
   * cart. Returns the cart's id.
   */
  async saveCart(
    storeId: string,
    existing: CartRow | undefined,
    cart: { sessionId: string; source: string; externalId: string | null; lines: CartLine[]; now: number },
  ): Promise<string> {
    const lines = JSON.stringify(cart.lines);
    if (existing) {
      await this.db
        .updateTable("assistant_carts")
        .set({ lines, external_id: cart.externalId, updated_at: cart.now })
        .where("store_id", "=", storeId)
        .where("id", "=", existing.id)
        .execute();
      return existing.id;
    }
    const id = prefixedId("cart");
    await this.db
      .insertInto("assistant_carts")
      .values({
        id,
        store_id: storeId,
        session_id: cart.sessionId,
        source: cart.source,
        external_id: cart.externalId,
        lines,
        created_at: cart.now,
        updated_at: cart.now,
      })
      .execute();
    return id;
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
