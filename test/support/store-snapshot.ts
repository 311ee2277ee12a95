// One store's rows, serialised byte for byte, for the isolation sweeps: take a snapshot before and
// after another store's requests and compare the strings.
import { sql, type Kysely } from "kysely";
import type { TestApp } from "./harness.js";

/** Every table with a store_id column, sorted (the sweeps assert the tables they expect are there). */
export async function tablesWithStoreId(t: TestApp): Promise<string[]> {
  const db = t.ctx.database.db as unknown as Kysely<any>;
  if (t.ctx.database.dialect === "sqlite") {
    const tables = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(
      db,
    );
    const out: string[] = [];
    for (const { name } of tables.rows) {
      const cols = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${name})`.execute(db);
      if (cols.rows.some((c) => c.name === "store_id")) out.push(name);
    }
    return out.sort();
  }
  const rows = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.columns
    WHERE column_name = 'store_id' AND table_schema = current_schema()`.execute(db);
  return rows.rows.map((r) => r.table_name).sort();
}

/** JSON of a row with binary columns as base64 and bigints as strings. */
const stable = (value: unknown) =>
  JSON.stringify(value, (_k, v) =>
    Buffer.isBuffer(v) || v instanceof Uint8Array ? Buffer.from(v).toString("base64") : typeof v === "bigint" ? String(v) : v,
  );

/**
 * The store's rows in `tables`; with `accounts`, also its row in `stores` and the `users` rows of
 * its members (the Search API's sweep: account routes can change those too).
 */
export async function snapshot(t: TestApp, tables: string[], storeId: string, options: { accounts?: boolean } = {}): Promise<string> {
  const db = t.ctx.database.db as unknown as Kysely<any>;
  const parts: Record<string, string[]> = {};
  for (const table of tables) {
    const rows = await db.selectFrom(table).selectAll().where("store_id", "=", storeId).execute();
    parts[table] = rows.map(stable).sort();
  }
  if (options.accounts) {
    parts.stores = (await db.selectFrom("stores").selectAll().where("id", "=", storeId).execute()).map(stable);
    parts.users = (
      await db
        .selectFrom("users")
        .selectAll()
        .where("id", "in", db.selectFrom("memberships").select("user_id").where("store_id", "=", storeId))
        .execute()
    )
      .map(stable)
      .sort();
  }
  return JSON.stringify(parts);
}

/** What one product left in each table the write path fills, and its outbox events (sorted). */
export async function productRowsOf(t: TestApp, storeId: string, productId: string) {
  const db = t.ctx.database.db;
  const count = async (table: "products" | "product_vectors") =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("store_id", "=", storeId)
          .where("product_id", "=", productId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const { rows } = await sql<{
    n: number | string;
  }>`SELECT count(*) AS n FROM product_text WHERE store_id = ${storeId} AND product_id = ${productId}`.execute(db);
  const events = await db
    .selectFrom("webhook_deliveries")
    .select("event")
    .where("store_id", "=", storeId)
    .where("ordering_key", "=", productId)
    .execute();
  return {
    products: await count("products"),
    vectors: await count("product_vectors"),
    lexical: Number(rows[0]!.n),
    events: events.map((e) => e.event).sort(),
  };
}
