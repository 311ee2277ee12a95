// Storefront connections of a store (at most one "connected"). storeId first on every method.
import type { Selectable } from "kysely";
import type { Executor } from "../../platform/db/index.js";
import type { AssistantStorefrontConnectionsTable } from "../../db/schema.js";

export type ConnectionRow = Selectable<AssistantStorefrontConnectionsTable>;

export class ConnectionsRepository {
  constructor(private readonly db: Executor) {}

  with(db: Executor): ConnectionsRepository {
    return new ConnectionsRepository(db);
  }

  findActive(storeId: string): Promise<ConnectionRow | undefined> {
    return this.db
      .selectFrom("assistant_storefront_connections")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("status", "=", "connected")
      .orderBy("created_at", "desc")
      .executeTakeFirst();
  }

  find(storeId: string, id: string): Promise<ConnectionRow | undefined> {
    return this.db
      .selectFrom("assistant_storefront_connections")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("id", "=", id)
      .executeTakeFirst();
  }

  list(storeId: string): Promise<ConnectionRow[]> {
    return this.db
      .selectFrom("assistant_storefront_connections")
      .selectAll()
      .where("store_id", "=", storeId)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
  }

  async insert(storeId: string, row: Omit<ConnectionRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("assistant_storefront_connections")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  /** Marks every connected connection of the store but `exceptId` disconnected. */
  async disconnectAll(storeId: string, at: number, exceptId?: string): Promise<void> {
    let q = this.db
      .updateTable("assistant_storefront_connections")
      .set({ status: "disconnected", disconnected_at: at, updated_at: at })
      .where("store_id", "=", storeId)
      .where("status", "=", "connected");
    if (exceptId) q = q.where("id", "!=", exceptId);
    await q.execute();
  }

  async disconnect(storeId: string, id: string, at: number): Promise<boolean> {
    const res = await this.db
      .updateTable("assistant_storefront_connections")
      .set({ status: "disconnected", disconnected_at: at, updated_at: at })
      .where("store_id", "=", storeId)
      .where("id", "=", id)
      .where("status", "=", "connected")
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async setCredential(
    storeId: string,
    id: string,
    patch: {
      token_ciphertext: string;
      auth: string;
      shop_name: string | null;
      shop_currency: string | null;
      verified_at: number;
      updated_at: number;
    },
  ): Promise<void> {
    await this.db.updateTable("assistant_storefront_connections").set(patch).where("store_id", "=", storeId).where("id", "=", id).execute();
  }
}
