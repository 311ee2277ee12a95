// The products a filtered search is restricted to.
//
// Usually a set of product ids in hand: the embedded index computes it in memory, PostgreSQL lists
// it by SQL. Listing costs about 1 ms per thousand ids (a 50 % price window at a million products:
// ~0.6 s, more than the rest of the search), so on PostgreSQL a filter found to keep more than a
// few thousand products stays in the database instead (search/repository.ts, LISTED_MAX): a
// subquery the statements that need the whole set embed (exact scans), and a membership check for
// the few ids an HNSW round or a lexical ranking returns (the lexical statement checks its own rows
// by embedding the subquery, and hands its verdicts in: learn()).
import type { Expression } from "kysely";

/**
 * What a filter requires of one field: to equal one of `values` (compared ignoring case), e.g.
 * `category = x` or `brand IN (a, b)`. A filter index may serve it (filter-indexes.ts).
 */
export interface VectorScope {
  readonly field: "category" | "brand";
  readonly values: readonly string[];
  /** The filter is this and nothing else (no price, no other field): every product of these values passes. */
  readonly whole: boolean;
}

export interface DeferredCandidates {
  readonly deferred: true;
  /** How many products pass: the planner's estimate, or a count when the estimate is implausibly low (search/repository.ts). */
  readonly size: number;
  /** `SELECT product_id FROM products WHERE store_id = … AND <filter>`, to embed in a statement on the same database. */
  readonly subquery: Expression<unknown>;
  /** Which of `ids` pass the filter (one round trip). */
  keep(ids: readonly string[]): Promise<ReadonlySet<string>>;
  /**
   * Verdicts a statement of another stage found itself (by embedding `subquery`), as keep()'s
   * answers from now on: absent when the filter does not remember verdicts.
   */
  learn?(verdicts: ReadonlyMap<string, boolean>): void;
  /** The fields the filter pins to a few values, any of which a filter index may serve (none: no scope). */
  readonly scopes?: readonly VectorScope[];
}

export type Candidates = ReadonlySet<string> | DeferredCandidates;

export function isDeferred(c: Candidates): c is DeferredCandidates {
  return (c as Partial<DeferredCandidates>).deferred === true;
}

/** The candidates among `ids`, as a set to test them with: the set itself when in hand, else asked of the database. */
export async function passing(c: Candidates, ids: readonly string[]): Promise<ReadonlySet<string>> {
  return isDeferred(c) ? (ids.length === 0 ? new Set() : c.keep(ids)) : c;
}

/**
 * The same candidates, remembering each verdict of keep() and those learnt: a search asks about
 * overlapping ids several times (HNSW rounds growing deeper, the lexical passes, both stages), and
 * the database once per id. search/repository.ts hands out its deferred filters wrapped in it.
 */
export function remembering(c: DeferredCandidates): DeferredCandidates {
  const known = new Map<string, boolean>();
  return {
    ...c,
    learn: (verdicts) => {
      for (const [id, passes] of verdicts) known.set(id, passes);
    },
    keep: async (ids) => {
      const unknown = [...new Set(ids.filter((id) => !known.has(id)))];
      if (unknown.length > 0) {
        const kept = await c.keep(unknown);
        for (const id of unknown) known.set(id, kept.has(id));
      }
      return new Set(ids.filter((id) => known.get(id)));
    },
  };
}
