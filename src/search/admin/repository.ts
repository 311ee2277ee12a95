// Platform-wide store queries for super admins (/v1/admin/*). These are the only queries that
// read across stores on purpose, so they have no storeId argument; every caller is gated by
// requireSuperAdmin.
import { sql, type Kysely } from "kysely";
import type { Schema } from "../../db/schema.js";

export interface AdminStoreRow {
  id: string;
  slug: string;
  name: string;
  status: "inactive" | "active";
  plan: string;
  created_at: number;
  products_count: number;
  members_count: number;
}

export interface StorePage {
  rows: AdminStoreRow[];
  total: number;
}

export class AdminRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  /** Stores oldest first, after the keyset (created_at, id) when given; `search` matches slug or name. */
  async listStores(options: { limit: number; after?: { createdAt: number; id: string }; search?: string }): Promise<StorePage> {
    const pattern = options.search ? `%${options.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
    let query = this.db
      .selectFrom("stores")
      .select((eb) => [
        "stores.id",
        "stores.slug",
        "stores.name",
        "stores.status",
        "stores.plan",
        "stores.created_at",
        eb.selectFrom("products").whereRef("products.store_id", "=", "stores.id").select(eb.fn.countAll().as("n")).as("products_count"),
        eb
          .selectFrom("memberships")
          .whereRef("memberships.store_id", "=", "stores.id")
          .select(eb.fn.countAll().as("n"))
          .as("members_count"),
      ]);
    let count = this.db.selectFrom("stores").select((eb) => eb.fn.countAll().as("n"));
    if (pattern) {
      const match = sql<boolean>`(lower(stores.slug) LIKE ${pattern} ESCAPE '\\' OR lower(stores.name) LIKE ${pattern} ESCAPE '\\')`;
      query = query.where(match);
      count = count.where(match);
    }
    if (options.after) {
      const { createdAt, id } = options.after;
      query = query.where((eb) =>
        eb.or([eb("stores.created_at", ">", createdAt), eb.and([eb("stores.created_at", "=", createdAt), eb("stores.id", ">", id)])]),
      );
    }
    const [rows, total] = await Promise.all([
      query.orderBy("stores.created_at").orderBy("stores.id").limit(options.limit).execute(),
      count.executeTakeFirstOrThrow(),
    ]);
    return {
      rows: rows.map((r) => ({
        id: r.id,
        slug: r.slug,
        name: r.name,
        status: r.status,
        plan: r.plan,
        created_at: r.created_at,
        products_count: Number(r.products_count ?? 0),
        members_count: Number(r.members_count ?? 0),
      })),
      total: Number(total.n),
    };
  }

  /** Owner e-mails of the given stores. */
  async ownersOf(storeIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (storeIds.length === 0) return out;
    const rows = await this.db
      .selectFrom("memberships")
      .innerJoin("users", "users.id", "memberships.user_id")
      .select(["memberships.store_id", "users.email"])
      .where("memberships.store_id", "in", storeIds)
      .where("memberships.role", "=", "owner")
      .orderBy("users.email")
      .execute();
    for (const r of rows) out.set(r.store_id, [...(out.get(r.store_id) ?? []), r.email]);
    return out;
  }

  findStoreBySlug(slug: string) {
    return this.db.selectFrom("stores").select(["id", "slug", "name", "plan"]).where("slug", "=", slug).executeTakeFirst();
  }
}
