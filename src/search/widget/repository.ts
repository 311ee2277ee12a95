// Public widget keys. Every method is addressed by `storeId` first except `findByHash`, which runs
// before the store is known (the key identifies the store, as with API keys).
import type { Selectable } from "kysely";
import type { Executor } from "../../platform/db/index.js";
import type { WidgetKeysTable } from "../../db/schema.js";

export type WidgetKeyRow = Selectable<WidgetKeysTable>;

export class WidgetKeysRepository {
  constructor(private readonly db: Executor) {}

  async create(storeId: string, row: Omit<WidgetKeyRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("widget_keys")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  list(storeId: string): Promise<WidgetKeyRow[]> {
    return this.db
      .selectFrom("widget_keys")
      .selectAll()
      .where("store_id", "=", storeId)
      .orderBy("created_at", "desc")
      .orderBy("id")
      .execute();
  }

  async countActive(storeId: string): Promise<number> {
    const row = await this.db
      .selectFrom("widget_keys")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("store_id", "=", storeId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return row?.n ?? 0;
  }

  find(storeId: string, keyId: string): Promise<WidgetKeyRow | undefined> {
    return this.db.selectFrom("widget_keys").selectAll().where("store_id", "=", storeId).where("id", "=", keyId).executeTakeFirst();
  }

  /** Authentication lookup by the SHA-256 of the presented key. */
  findByHash(keyHash: string): Promise<WidgetKeyRow | undefined> {
    return this.db.selectFrom("widget_keys").selectAll().where("key_hash", "=", keyHash).executeTakeFirst();
  }

  async update(storeId: string, keyId: string, changes: { name?: string; allowed_origins?: string; updated_at: number }): Promise<void> {
    await this.db
      .updateTable("widget_keys")
      .set(changes)
      .where("store_id", "=", storeId)
      .where("id", "=", keyId)
      .where("revoked_at", "is", null)
      .execute();
  }

  /** Revokes the key if it is not revoked yet. */
  async revoke(storeId: string, keyId: string, now: number): Promise<void> {
    await this.db
      .updateTable("widget_keys")
      .set({ revoked_at: now, updated_at: now })
      .where("store_id", "=", storeId)
      .where("id", "=", keyId)
      .where("revoked_at", "is", null)
      .execute();
  }

  async touch(storeId: string, keyId: string, now: number): Promise<void> {
    await this.db.updateTable("widget_keys").set({ last_used_at: now }).where("store_id", "=", storeId).where("id", "=", keyId).execute();
  }

  /**
   * The store's currency as its owner set it (the Assistant settings' `currency`, one row per
   * store, written by the Assistant API), or null when never set. Read here rather than through
   * the Assistant's code: the Search API imports the Assistant only to implement its catalogue port.
   */
  async storeCurrency(storeId: string): Promise<string | null> {
    const row = await this.db.selectFrom("assistant_settings").select("currency").where("store_id", "=", storeId).executeTakeFirst();
    return row?.currency ?? null;
  }
}
