// A store's merchandising rules and their hit counts (migration 0027). `storeId` first on every
// method (addHits takes rows that each name their store).
import { sql } from "kysely";
import type { Executor } from "../../platform/db/types.js";
import type { RuleCondition, RuleMatch, RulePin } from "./apply.js";

/** A rule's stored fields. */
export interface RuleFields {
  match: RuleMatch;
  query: string;
  pins: RulePin[];
  hide: string[];
  boost: RuleCondition[];
  bury: RuleCondition[];
  enabled: boolean;
  description: string | null;
}

export interface RuleRow extends RuleFields {
  id: string;
  created_at: number;
  updated_at: number;
}

export interface RuleHitIncrement {
  storeId: string;
  ruleId: string;
  /** Days since 1970-01-01 (UTC). */
  day: number;
  hits: number;
}

/** A JSON column: text on SQLite, parsed already on PostgreSQL (jsonb). */
const json = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);

const parse = (r: {
  id: string;
  match: RuleMatch;
  query: string;
  pins: unknown;
  hide: unknown;
  boost: unknown;
  bury: unknown;
  enabled: number | boolean;
  description: string | null;
  created_at: number | string;
  updated_at: number | string;
}): RuleRow => ({
  id: r.id,
  match: r.match,
  query: r.query,
  pins: json(r.pins) as RulePin[],
  hide: json(r.hide) as string[],
  boost: json(r.boost) as RuleCondition[],
  bury: json(r.bury) as RuleCondition[],
  enabled: Number(r.enabled) === 1,
  description: r.description,
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
});

const columns = (f: RuleFields) => ({
  match: f.match,
  query: f.query,
  pins: JSON.stringify(f.pins),
  hide: JSON.stringify(f.hide),
  boost: JSON.stringify(f.boost),
  bury: JSON.stringify(f.bury),
  enabled: f.enabled ? 1 : 0,
  description: f.description,
});

/** Rows per upsert statement (4 columns: well under SQLite's bound-parameter limit). */
const HITS_PER_STATEMENT = 200;

export class RulesRepository {
  constructor(private readonly db: Executor) {}

  with(db: Executor): RulesRepository {
    return new RulesRepository(db);
  }

  /** The store's rules, oldest first. */
  async list(storeId: string): Promise<RuleRow[]> {
    const rows = await this.db
      .selectFrom("search_rules")
      .selectAll()
      .where("store_id", "=", storeId)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map(parse);
  }

  async find(storeId: string, id: string): Promise<RuleRow | undefined> {
    const row = await this.db
      .selectFrom("search_rules")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row ? parse(row) : undefined;
  }

  /** The store's rule with this condition, if any. */
  async findByCondition(storeId: string, match: RuleMatch, query: string): Promise<RuleRow | undefined> {
    const row = await this.db
      .selectFrom("search_rules")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("match", "=", match)
      .where("query", "=", query)
      .executeTakeFirst();
    return row ? parse(row) : undefined;
  }

  async count(storeId: string): Promise<number> {
    const row = await this.db
      .selectFrom("search_rules")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("store_id", "=", storeId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insert(storeId: string, row: RuleRow): Promise<void> {
    await this.db
      .insertInto("search_rules")
      .values({ id: row.id, store_id: storeId, created_at: row.created_at, updated_at: row.updated_at, ...columns(row) })
      .execute();
  }

  /** Replaces a rule's fields; false when the store has no such rule. */
  async update(storeId: string, id: string, fields: RuleFields, updatedAt: number): Promise<boolean> {
    const res = await this.db
      .updateTable("search_rules")
      .set({ ...columns(fields), updated_at: updatedAt })
      .where("store_id", "=", storeId)
      .where("id", "=", id)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async delete(storeId: string, id: string): Promise<boolean> {
    const res = await this.db.deleteFrom("search_rules").where("store_id", "=", storeId).where("id", "=", id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** Hits per rule of the store on UTC days from `fromDay` on (every day without it). */
  async hits(storeId: string, fromDay?: number): Promise<Map<string, number>> {
    let q = this.db
      .selectFrom("search_rule_hits")
      .select(["rule_id", (eb) => eb.fn.sum<string | number>("hits").as("hits")])
      .where("store_id", "=", storeId);
    if (fromDay !== undefined) q = q.where("day", ">=", fromDay);
    const rows = await q.groupBy("rule_id").execute();
    return new Map(rows.map((r) => [r.rule_id, Number(r.hits)]));
  }

  /**
   * Adds hit counts (one statement per HITS_PER_STATEMENT rows; `hits = hits + n`). Fails as a
   * whole when one names a rule deleted meanwhile: addHitsOneByOne then keeps the others.
   */
  async addHits(increments: readonly RuleHitIncrement[]): Promise<void> {
    for (let i = 0; i < increments.length; i += HITS_PER_STATEMENT) {
      await this.upsert(increments.slice(i, i + HITS_PER_STATEMENT));
    }
  }

  /** addHits row by row; the number of rows that could not be written (rule or store gone). */
  async addHitsOneByOne(increments: readonly RuleHitIncrement[]): Promise<number> {
    let lost = 0;
    for (const inc of increments) {
      try {
        await this.upsert([inc]);
      } catch {
        lost++;
      }
    }
    return lost;
  }

  private async upsert(increments: readonly RuleHitIncrement[]): Promise<void> {
    await this.db
      .insertInto("search_rule_hits")
      .values(increments.map((i) => ({ rule_id: i.ruleId, store_id: i.storeId, day: i.day, hits: i.hits })))
      .onConflict((oc) => oc.columns(["rule_id", "day"]).doUpdateSet({ hits: sql<number>`search_rule_hits.hits + excluded.hits` }))
      .execute();
  }
}
