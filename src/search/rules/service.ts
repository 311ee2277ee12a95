// A store's merchandising rules (issue 38, item 4): for a query condition (`exact` or `contains`
// on the normalised query text), pin products to positions, hide products, and boost or bury
// results meeting a metadata condition. What a rule does to a ranking is in ./apply.ts; the
// searches that apply rules (text, hybrid, fusion and filtered searches with a query; the
// widget's text search; the assistant's catalogue search) ask matching() for the store's rules
// that a query meets and count the applying ones with recordHits().
//
// Hot path: a store's enabled rules are held in memory, indexed for matching (StoreRules), and
// rebuilt after a change made through this process (at once) or STORE_CACHE_TTL_MS after they
// were read (changes by other processes; storeCached). A store without rules costs one map lookup a search.
//
// Hit counts: each search a rule applies to counts one hit for it, on the UTC day of the search.
// Counts add up in memory and are written after the reply (setImmediate), many per statement
// (`hits = hits + n`), and on close; readers (the rule list, analytics) flush first. A count for a
// rule deleted meanwhile is dropped.
import type { AppContext } from "../../context/context.js";
import { iso } from "../../platform/clock.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId } from "../../platform/ids.js";
import { queryText, StoreRules, type Merchandising, type RuleCondition, type RuleMatch, type RulePin } from "./apply.js";
import type { RuleFields, RuleHitIncrement, RuleRow, RulesRepository } from "./repository.js";
import { RULE_MAX_QUERY_WORDS, RULES_MAX_PER_STORE } from "./schemas.js";
import { storeCached } from "../cache/store-cache.js";

const DAY_MS = 86_400_000;

export interface RuleInput {
  match: RuleMatch;
  query: string;
  pins?: RulePin[] | undefined;
  hide?: string[] | undefined;
  boost?: RuleCondition[] | undefined;
  bury?: RuleCondition[] | undefined;
  enabled?: boolean | undefined;
  description?: string | null | undefined;
}

const invalid = (field: string, message: string) =>
  new AppError("validation_failed", `${field} ${message}.`, { errors: [{ field, message }] });

const conditionKey = (c: RuleCondition) => `${c.field}\u0000${typeof c.value}\u0000${String(c.value).toLowerCase()}`;

/** The conditions as stored (repeats dropped), or an error naming one also on the other side. */
function conditions(field: "boost" | "bury", list: readonly RuleCondition[], other: ReadonlySet<string>): RuleCondition[] {
  const seen = new Set<string>();
  const out: RuleCondition[] = [];
  for (const [i, c] of list.entries()) {
    const key = conditionKey(c);
    if (other.has(key)) throw invalid(`${field}.${i}`, `is also a boost condition (${c.field} = ${String(c.value)}); keep it on one side`);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field: c.field, value: typeof c.value === "string" ? c.value.trim() : c.value });
  }
  return out;
}

/** The rule as stored, checked: every message names the field and the fix. */
export function normaliseRule(input: RuleInput): RuleFields {
  const query = queryText(input.query);
  if (query === "") throw invalid("query", 'has no letters or digits; give the words shoppers type, e.g. "summer dress"');
  if (query.split(" ").length > RULE_MAX_QUERY_WORDS) throw invalid("query", `has more than ${RULE_MAX_QUERY_WORDS} words`);

  const pins: RulePin[] = [];
  const positions = new Map<number, string>();
  for (const [i, p] of (input.pins ?? []).entries()) {
    if (pins.some((x) => x.product_id === p.product_id)) {
      throw invalid(`pins.${i}.product_id`, `pins "${p.product_id}" a second time; a product takes one position`);
    }
    const taken = positions.get(p.position);
    if (taken !== undefined) throw invalid(`pins.${i}.position`, `${p.position} is already given to "${taken}"; choose another position`);
    positions.set(p.position, p.product_id);
    pins.push({ product_id: p.product_id, position: p.position });
  }
  pins.sort((a, b) => a.position - b.position);

  const hide: string[] = [];
  for (const [i, id] of (input.hide ?? []).entries()) {
    if (positions.size > 0 && pins.some((p) => p.product_id === id)) {
      throw invalid(`hide.${i}`, `"${id}" is also pinned; a product is either pinned or hidden`);
    }
    if (!hide.includes(id)) hide.push(id);
  }

  const boost = conditions("boost", input.boost ?? [], new Set());
  const bury = conditions("bury", input.bury ?? [], new Set(boost.map(conditionKey)));
  if (pins.length + hide.length + boost.length + bury.length === 0) {
    throw invalid(
      "pins",
      "and hide, boost and bury are all empty; give at least one product to pin or hide, or a condition to boost or bury",
    );
  }
  const description = input.description?.trim() || null;
  return { match: input.match, query, pins, hide, boost, bury, enabled: input.enabled ?? true, description };
}

export function ruleView(row: RuleRow, hits: number) {
  return {
    id: row.id,
    match: row.match,
    query: row.query,
    pins: row.pins,
    hide: row.hide,
    boost: row.boost,
    bury: row.bury,
    enabled: row.enabled,
    description: row.description,
    hits,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Per-store change counters of the rules (changes made through this process). */
const versions = new Map<string, number>();
const noteRulesChange = (storeId: string) => versions.set(storeId, (versions.get(storeId) ?? 0) + 1);

export class RulesService {
  private readonly repo: RulesRepository;
  private pending = new Map<string, RuleHitIncrement>();
  private scheduled = false;
  /** The write in progress (writes run one at a time, in order). */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: RulesRepository },
  ) {
    this.repo = deps.repo;
  }

  // --- the rules of the store (routes) ---------------------------------------------------------

  async list(storeId: string) {
    await this.flushHits();
    const [rows, hits] = await Promise.all([this.repo.list(storeId), this.repo.hits(storeId)]);
    return rows.map((r) => ruleView(r, hits.get(r.id) ?? 0));
  }

  async create(storeId: string, input: RuleInput) {
    const fields = normaliseRule(input);
    await this.checkUnique(storeId, fields);
    if ((await this.repo.count(storeId)) >= RULES_MAX_PER_STORE) {
      throw new AppError(
        "unprocessable",
        `A store holds at most ${RULES_MAX_PER_STORE} merchandising rules; delete unused ones or use a contains rule for several queries.`,
      );
    }
    const now = this.ctx.clock.now();
    const row: RuleRow = { id: prefixedId("rule"), created_at: now, updated_at: now, ...fields };
    await this.repo.insert(storeId, row);
    noteRulesChange(storeId);
    return ruleView(row, 0);
  }

  async replace(storeId: string, id: string, input: RuleInput) {
    const fields = normaliseRule(input);
    const row = await this.repo.find(storeId, id);
    if (!row) throw this.notFound(id);
    await this.checkUnique(storeId, fields, id);
    const now = this.ctx.clock.now();
    await this.repo.update(storeId, id, fields, now);
    noteRulesChange(storeId);
    await this.flushHits();
    const hits = await this.repo.hits(storeId);
    return ruleView({ ...row, ...fields, updated_at: now }, hits.get(id) ?? 0);
  }

  async remove(storeId: string, id: string) {
    if (!(await this.repo.delete(storeId, id))) throw this.notFound(id);
    noteRulesChange(storeId);
    return { deleted: true as const, id };
  }

  /** Every rule of the store with the searches it applied to on the UTC days from `from` (epoch ms) on, most first. */
  async hitsSince(storeId: string, from: number) {
    await this.flushHits();
    const [rows, hits] = await Promise.all([this.repo.list(storeId), this.repo.hits(storeId, Math.floor(from / DAY_MS))]);
    return rows
      .map((r) => ({ id: r.id, match: r.match, query: r.query, enabled: r.enabled, hits: hits.get(r.id) ?? 0 }))
      .sort((a, b) => b.hits - a.hits || (a.query < b.query ? -1 : a.query > b.query ? 1 : a.match < b.match ? -1 : 1));
  }

  // --- searches (hot path) ---------------------------------------------------------------------

  /** What the store's enabled rules that `text` meets do together; null when none applies. */
  async matching(storeId: string, text: string): Promise<Merchandising | null> {
    return (await this.rulesOf(storeId)).merchandising(text);
  }

  /** Counts one hit for each of `ruleIds` (rules that applied to one search), written soon after. */
  recordHits(storeId: string, ruleIds: readonly string[]): void {
    const day = Math.floor(this.ctx.clock.now() / DAY_MS);
    for (const ruleId of ruleIds) {
      const key = `${ruleId}\u0000${day}`;
      const inc = this.pending.get(key);
      if (inc) inc.hits++;
      else this.pending.set(key, { storeId, ruleId, day, hits: 1 });
    }
    if (this.scheduled || this.pending.size === 0) return;
    this.scheduled = true;
    setImmediate(() => void this.flushHits());
  }

  /** Writes every hit counted so far; resolves once they are stored. */
  flushHits(): Promise<void> {
    this.scheduled = false;
    if (this.pending.size === 0) return this.writing;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.writing = this.writing.then(async () => {
      try {
        await this.repo.addHits(batch);
      } catch {
        // A rule (or its store) deleted meanwhile fails the statement: keep the others.
        await this.repo.addHitsOneByOne(batch);
      }
    });
    return this.writing;
  }

  private rulesOf(storeId: string): Promise<StoreRules> {
    const read = () => this.repo.list(storeId).then((rows) => new StoreRules(rows.filter((r) => r.enabled)));
    return storeCached(this.ctx, "rules", storeId, read, versions.get(storeId) ?? 0);
  }

  private async checkUnique(storeId: string, fields: RuleFields, except?: string): Promise<void> {
    const same = await this.repo.findByCondition(storeId, fields.match, fields.query);
    if (same && same.id !== except) {
      throw new AppError(
        "conflict",
        `The store already has a rule for ${fields.match} "${fields.query}" (${same.id}); change that one with PUT /v1/search/rules/${same.id}.`,
        { id: same.id },
      );
    }
  }

  private notFound(id: string): AppError {
    return new AppError("not_found", `No merchandising rule ${id} in this store; GET /v1/search/rules lists them.`);
  }
}
