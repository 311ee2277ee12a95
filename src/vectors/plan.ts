// How a filtered search is answered, shared by both adapters: exactly over the candidates, or by
// HNSW with oversampling and filtering — and when an HNSW round comes back short, whether to ask
// again for more or to finish exactly.
//
// Costs are counted in "exact comparisons" (one candidate scored exactly). Measured on the 2-core
// box, 512-d. Embedded (50k vectors): an exact candidate costs ~1–2 µs (id lookup + dot product,
// memory-bound), a usearch search returning k' neighbours ~5–6 µs per neighbour once k' passes ef
// (k' = 200: ~1 ms, 800: ~5 ms, 2,000: ~13 ms) → annCostRatio 5. PostgreSQL (20k vectors): an
// exact candidate ~10 µs (index lookup + row), an HNSW row ~27 µs past a fixed ~5 ms
// (k' = 200: ~12 ms, 2,000: ~60 ms) → annCostRatio 3. HNSW pays off only while
// annCostRatio × k' < candidates.
//
// Short rounds. A filter correlated with the vectors (a category far from the query) can leave
// almost no candidates among the query's nearest neighbours even when it keeps 10% of the store.
// A round's hit rate measures that local selectivity; the next k' is sized from it, and when that
// would cost more than scanning the candidates, the search finishes exactly.

export interface PlanOptions {
  exactBudget: number;
  minAnnSelectivity: number;
  oversample: number;
  annCostRatio: number;
}

export type Plan = { kind: "exact" } | { kind: "ann"; wanted: number };

const EXACT: Plan = { kind: "exact" };
/** HNSW rounds before a filtered search gives up and finishes exactly. */
export const MAX_ROUNDS = 4;

/**
 * First step of a filtered search. `selectivity` is the share of the searched population that
 * passes the filter (candidates / vectors of the store); `dim` the vector size.
 */
export function planFiltered(
  input: { k: number; candidates: number; selectivity: number; dim: number; annReady: boolean },
  o: PlanOptions,
): Plan {
  const { k, candidates, selectivity, dim } = input;
  if (!input.annReady || candidates * dim <= o.exactBudget || selectivity < o.minAnnSelectivity) return EXACT;
  const wanted = Math.ceil((k * o.oversample) / Math.min(1, selectivity));
  return o.annCostRatio * wanted >= candidates ? EXACT : { kind: "ann", wanted };
}

/**
 * After an HNSW round that asked for `wanted`, got `returned` neighbours and `hits` of them passed
 * the filter (fewer than k): the next round, or exact. `exhausted`: the index has nothing more.
 */
export function replanFiltered(
  input: { k: number; candidates: number; wanted: number; returned: number; hits: number; exhausted: boolean; round: number },
  o: PlanOptions,
): Plan {
  if (input.exhausted || input.round + 1 >= MAX_ROUNDS || input.returned === 0) return EXACT;
  const rate = Math.max(input.hits, 0.5) / input.returned;
  const wanted = Math.max(input.wanted * 2, Math.ceil((input.k * o.oversample) / rate));
  return o.annCostRatio * wanted >= input.candidates ? EXACT : { kind: "ann", wanted };
}
