// Versioned store policies. storeId is the first argument of every method.
import type { Kysely, Selectable } from "kysely";
import type { AssistantPolicyVersionsTable, Schema } from "../../db/schema.js";

export type PolicyVersionRow = Selectable<AssistantPolicyVersionsTable>;

export class PoliciesRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  /** The versions of one concept, newest first. */
  private newestFirst(storeId: string, conceptId: string) {
    return this.db
      .selectFrom("assistant_policy_versions")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("concept_id", "=", conceptId)
      .orderBy("version", "desc");
  }

  latest(storeId: string, conceptId: string): Promise<PolicyVersionRow | undefined> {
    return this.newestFirst(storeId, conceptId).limit(1).executeTakeFirst();
  }

  /** Inserts a version; false when that version number was taken meanwhile (a concurrent PUT). */
  async insert(storeId: string, row: Omit<PolicyVersionRow, "store_id">): Promise<boolean> {
    const res = await this.db
      .insertInto("assistant_policy_versions")
      .values({ ...row, store_id: storeId })
      .onConflict((oc) => oc.columns(["store_id", "concept_id", "version"]).doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /**
   * (concept_id, newest version) of every concept of the store: a cheap fingerprint of what the
   * knowledge engine answers from (every change, publishing included, adds a version).
   */
  async newestVersions(storeId: string): Promise<Array<{ concept_id: string; version: number }>> {
    const rows = await this.db
      .selectFrom("assistant_policy_versions")
      .select(["concept_id", (eb) => eb.fn.max("version").as("version")])
      .where("store_id", "=", storeId)
      .groupBy("concept_id")
      .orderBy("concept_id")
      .execute();
    return rows.map((r) => ({ concept_id: r.concept_id, version: r.version }));
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

  /** Every version of one concept, newest first (the portal's version history). */
  versions(storeId: string, conceptId: string): Promise<PolicyVersionRow[]> {
    return this.newestFirst(storeId, conceptId).execute();
  }
}
