// How merchandising rules change a ranking (pure; no I/O). A rule's condition is met by a query
// whose normalised text (queryText(): lower-case words of letters or digits, one space between)
// equals the rule's query (`exact`) or holds its words as a run of whole words (`contains`:
// "dress" is in "red dress" but not in "dresses"). Every enabled rule whose condition a query
// meets applies, in precedence order: exact rules first, then contains rules with more words
// first, then older first. Together they:
//   hide   — remove the products of every applying rule's `hide` (hiding wins over pinning);
//   boost / bury — reorder the ranking's other results: a result scores +1 for each applying
//          boost condition its metadata meets and −1 for each bury condition; results are ordered
//          by that score, highest first, the ranking's order kept between equal scores (so a
//          boosted result rises above every result that is not boosted, and a buried one sinks
//          below them, without leaving the results);
//   pins   — place products at 1-based positions of the page. A product pinned twice keeps the
//          position of the rule that comes first; two pins on one position take it in precedence
//          order, the second moving to the next free position. A pin beyond the ranking's results
//          moves up to follow them; one beyond the page's limit is not shown.
// A condition {field, value} is met when the metadata value at `field` (dotted for nested keys)
// equals `value` — strings ignoring case — or, for a list (tags), when one element does.
import { phraseOf } from "../../lexical/synonyms/index.js";

export type RuleMatch = "exact" | "contains";
export type ConditionValue = string | number | boolean;

export interface RuleCondition {
  field: string;
  value: ConditionValue;
}

export interface RulePin {
  product_id: string;
  position: number;
}

/** A rule as the hot path holds it. */
export interface ActiveRule {
  id: string;
  match: RuleMatch;
  query: string;
  pins: readonly RulePin[];
  hide: readonly string[];
  boost: readonly RuleCondition[];
  bury: readonly RuleCondition[];
  created_at: number;
}

/** What the rules applying to one query do together. */
export interface Merchandising {
  /** The applying rules, in precedence order. */
  ruleIds: string[];
  hidden: ReadonlySet<string>;
  /** One pin per product, by position and then precedence; hidden products left out. */
  pins: RulePin[];
  boost: RuleCondition[];
  bury: RuleCondition[];
}

/** The text a rule's query and a search's query are compared as. */
export const queryText = (text: string): string => phraseOf(text.normalize("NFC"));

const wordCount = (q: string) => (q === "" ? 0 : q.split(" ").length);

/** A store's enabled rules, indexed for matching queries. */
export class StoreRules {
  private readonly exact = new Map<string, ActiveRule>();
  private readonly contains: ActiveRule[];

  constructor(rules: readonly ActiveRule[]) {
    const older = (a: ActiveRule, b: ActiveRule) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1);
    for (const r of [...rules].sort(older)) if (r.match === "exact" && !this.exact.has(r.query)) this.exact.set(r.query, r);
    this.contains = rules.filter((r) => r.match === "contains").sort((a, b) => wordCount(b.query) - wordCount(a.query) || older(a, b));
  }

  get size(): number {
    return this.exact.size + this.contains.length;
  }

  /** The rules a query meets, in precedence order. */
  matching(text: string): ActiveRule[] {
    if (this.size === 0) return [];
    const q = queryText(text);
    if (q === "") return [];
    const out: ActiveRule[] = [];
    const exact = this.exact.get(q);
    if (exact) out.push(exact);
    const padded = ` ${q} `;
    for (const r of this.contains) if (padded.includes(` ${r.query} `)) out.push(r);
    return out;
  }

  /** What the rules a query meets do together; null when none applies. */
  merchandising(text: string): Merchandising | null {
    const rules = this.matching(text);
    return rules.length === 0 ? null : combine(rules);
  }
}

/** The consequences of `rules` (in precedence order) together. */
export function combine(rules: readonly ActiveRule[]): Merchandising {
  const hidden = new Set(rules.flatMap((r) => r.hide));
  const pinned = new Set<string>();
  const pins: (RulePin & { order: number })[] = [];
  for (const r of rules) {
    for (const p of r.pins) {
      if (hidden.has(p.product_id) || pinned.has(p.product_id)) continue;
      pinned.add(p.product_id);
      pins.push({ product_id: p.product_id, position: p.position, order: pins.length });
    }
  }
  pins.sort((a, b) => a.position - b.position || a.order - b.order);
  return {
    ruleIds: rules.map((r) => r.id),
    hidden,
    pins: pins.map(({ product_id, position }) => ({ product_id, position })),
    boost: rules.flatMap((r) => r.boost),
    bury: rules.flatMap((r) => r.bury),
  };
}

/** The metadata value at a dotted path (undefined when absent). */
function at(metadata: unknown, path: string): unknown {
  let v = metadata;
  for (const key of path.split(".")) {
    if (v === null || typeof v !== "object" || Array.isArray(v) || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

const same = (v: unknown, value: ConditionValue): boolean =>
  typeof value === "string" ? typeof v === "string" && v.toLowerCase() === value.toLowerCase() : v === value;

/** Whether a product's metadata meets a boost or bury condition. */
export function conditionMet(metadata: unknown, c: RuleCondition): boolean {
  const v = at(metadata, c.field);
  return Array.isArray(v) ? v.some((e) => same(e, c.value)) : same(v, c.value);
}

export interface Arranged<T> {
  item: T;
  pinned: boolean;
}

/**
 * The page after the rules: `ranked` (the ranking's results, best first) without hidden
 * products, reordered by boost and bury, with the pinned products at their positions, at most
 * `limit` items. `pinnable` holds each pinned product that may be shown (in the store and passing
 * the request's filters), whether or not the ranking returned it; `metaOf` a result's metadata
 * (needed only when boost or bury conditions apply).
 */
export function arrange<T extends { productId: string }>(
  ranked: readonly T[],
  m: Merchandising,
  options: { limit: number; pinnable: ReadonlyMap<string, T>; metaOf: (productId: string) => unknown },
): Arranged<T>[] {
  const pins = m.pins.filter((p) => options.pinnable.has(p.product_id));
  const pinnedIds = new Set(pins.map((p) => p.product_id));
  let organic = ranked.filter((r) => !m.hidden.has(r.productId) && !pinnedIds.has(r.productId));
  if (m.boost.length > 0 || m.bury.length > 0) {
    const weight = (r: T) => {
      const meta = options.metaOf(r.productId);
      let w = 0;
      for (const c of m.boost) if (conditionMet(meta, c)) w++;
      for (const c of m.bury) if (conditionMet(meta, c)) w--;
      return w;
    };
    organic = organic
      .map((item, i) => ({ item, i, w: weight(item) }))
      .sort((a, b) => b.w - a.w || a.i - b.i)
      .map((x) => x.item);
  }
  const out: Arranged<T>[] = [];
  let o = 0;
  let p = 0;
  while (out.length < options.limit) {
    const pin = pins[p];
    if (pin && (pin.position <= out.length + 1 || o >= organic.length)) {
      out.push({ item: options.pinnable.get(pin.product_id)!, pinned: true });
      p++;
    } else if (o < organic.length) {
      out.push({ item: organic[o++]!, pinned: false });
    } else {
      break;
    }
  }
  return out;
}
