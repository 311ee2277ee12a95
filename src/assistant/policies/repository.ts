// Versioned store policies. storeId is the first argument of every method.
import type { Kysely, Selectable } from "kysely";
import type { AssistantPolicyVersionsTable, Schema } from "../../platform/db/schema.js";

export type PolicyVersionRow = Selectable<AssistantPolicyVersionsTable>;

export class PoliciesRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  latest(storeId: string, conceptId: string): Promise<PolicyVersionRow | undefined> {
    return this.db
      .selectFrom("assistant_policy_versions")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("concept_id", "=", conceptId)
      .orderBy("version", "desc")
      .limit(1)
      .executeTakeFirst();
  }

  async insert(storeId: string, row: Omit<PolicyVersionRow, "store_id">): Promise<void> {
    await this.db.insertInto("assistant_policy_versions").values({ ...row, store_id: storeId }).execute();
  }

  /** The newest version of every concept of the store. */
  async latestAll(storeId: string): Promise<PolicyVersionRow[]> {
    const rows = await this.db
      .selectFrom("assistant_policy_versions")
      .selectAll()
      .where("store_id", "=", storeId)
      .orderBy("concept_id")
      .orderBy("version", "desc")
      .execute();
    const seen = new Set<string>();
    return rows.filter((r) => (seen.has(r.concept_id) ? false : (seen.add(r.concept_id), true)));
  }
}
