// The spec's catalogue search rules, applied the same way over every connector:
//   1. results come only from the published catalogue (the connectors match published products only);
//   2. price and availability are read live for the first ten products returned
//      (LIVE_READ_LIMIT); later products carry price_state/availability_state "not_requested"
//      and no price;
//   3. `warnings` contains "price_and_availability_not_verified_live" when any returned product
//      was not read live (not requested, or its read failed);
//   4. price bounds apply only to live prices in the store currency: with a bound, candidates are
//      read live in rank order (only as many as still needed, at most MAX_PRICE_CHECKS) and a
//      product is admitted only on its live price; one whose price could not be read (or is in
//      another currency) is excluded and counted in excluded_without_live_price, one outside the
//      bounds in excluded_outside_range. So with a bound at most ten products come back, all live;
//   5. `price_filter` is present only when `limit` was given.
// `live_facts` lists every successful read (price and availability separately).
import type { CatalogConnector, Candidate, LiveRead } from "./connector.js";
import type { CatalogQuery, CatalogSearchResult, LiveFact, PriceFilter, ProductCard } from "./types.js";
import { iso } from "../../platform/clock.js";

export const LIVE_READ_LIMIT = 10;
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** Candidates looked at when price bounds are given. */
export const MATCH_DEPTH_WITH_BOUNDS = 100;
/** Live reads at most per search with price bounds. */
export const MAX_PRICE_CHECKS = 50;
export const NOT_VERIFIED_LIVE = "price_and_availability_not_verified_live";

function card(c: Candidate, read: LiveRead | undefined, requested: boolean): ProductCard {
  const base = { product_id: c.product_id, title: c.title, image_url: c.image_url, url: c.url };
  if (!requested) return { ...base, price_state: "not_requested", price: null, availability_state: "not_requested", availability: null };
  return {
    ...base,
    price_state: read?.price ? "live" : "unavailable",
    price: read?.price ?? null,
    availability_state: read?.availability ? "live" : "unavailable",
    availability: read?.availability ?? null,
  };
}

function factsOf(source: string, c: Candidate, read: LiveRead | undefined): LiveFact[] {
  if (!read) return [];
  const at = iso(read.read_at);
  const out: LiveFact[] = [];
  if (read.price) out.push({ source, product_id: c.product_id, field: "price", value: read.price, read_at: at });
  if (read.availability) out.push({ source, product_id: c.product_id, field: "availability", value: read.availability, read_at: at });
  return out;
}

export async function searchWithRules(connector: CatalogConnector, currency: string, query: CatalogQuery): Promise<CatalogSearchResult> {
  const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const min = query.price_min_minor;
  const max = query.price_max_minor;
  const bounded = min !== undefined || max !== undefined;
  const products: ProductCard[] = [];
  const facts: LiveFact[] = [];
  let checked = 0;
  let outside = 0;
  let without = 0;

  if (!bounded) {
    const page = (await connector.match(query, limit)).slice(0, limit);
    const live = page.slice(0, LIVE_READ_LIMIT);
    const reads = live.length > 0 ? await connector.readLive(live) : new Map<string, LiveRead>();
    checked = live.length;
    page.forEach((c, i) => {
      const requested = i < LIVE_READ_LIMIT;
      const read = requested ? reads.get(c.product_id) : undefined;
      products.push(card(c, read, requested));
      facts.push(...factsOf(connector.source, c, read));
    });
  } else {
    const wanted = Math.min(limit, LIVE_READ_LIMIT);
    const candidates = await connector.match(query, MATCH_DEPTH_WITH_BOUNDS);
    let next = 0;
    while (products.length < wanted && next < candidates.length && checked < MAX_PRICE_CHECKS) {
      const batch = candidates.slice(next, next + Math.min(wanted - products.length, MAX_PRICE_CHECKS - checked));
      next += batch.length;
      checked += batch.length;
      const reads = await connector.readLive(batch);
      for (const c of batch) {
        const read = reads.get(c.product_id);
        facts.push(...factsOf(connector.source, c, read));
        const price = read?.price;
        if (!price || price.currency !== currency) {
          without += 1;
        } else if ((min !== undefined && price.amount_minor < min) || (max !== undefined && price.amount_minor > max)) {
          outside += 1;
        } else {
          products.push(card(c, read, true));
        }
      }
    }
  }

  const warnings = products.some((p) => p.price_state !== "live" || p.availability_state !== "live") ? [NOT_VERIFIED_LIVE] : [];
  const result: CatalogSearchResult = { products, warnings, live_facts: facts, source: connector.source };
  if (query.limit !== undefined) {
    const filter: PriceFilter = {
      min_minor: min ?? null,
      max_minor: max ?? null,
      currency,
      checked,
      excluded_outside_range: outside,
      excluded_without_live_price: without,
    };
    result.price_filter = filter;
  }
  return result;
}
