// Public widget keys and the widget's searches (spec: Authentication 3; Widget endpoints).
//
// Keys: `pk_live_` + 192 random bits, shown once at creation and stored as SHA-256 (looked up by
// hash). A key is bound to an allow-list of exact origins (scheme, host, port; see origins.ts) and
// acts on its own store only, for the widget endpoints only: text, image-URL and uploaded-image
// search and feedback. Revoking a key makes its next use 401. Keys are "public" — they sit in
// shop pages — so what protects a store is the origin check (browsers cannot lie about Origin),
// the per-key rate limits, and the narrow set of things a key can do.
//
// Widget searches are the ordinary search modes (history rows with source "widget", so every
// search has a search_id the widget's feedback attributes to); each result also carries the
// product's `image_url` so the widget can show it, and the answer the store's currency (the
// Assistant settings' currency, USD until set) for prices that name none.
//
// Type-ahead suggestions (GET /v1/widget/search/suggestions?q=): the store's popular searches
// that start with what the shopper typed, then the names of products holding every typed word
// (the last as a prefix). Popular searches are the text searches of the last 30 days made by the
// store's shoppers (sources "widget" and "api", not the owner's portal playground) that returned
// results, at least SUGGESTION_MIN_SEARCHES times, the SUGGESTION_POOL most frequent; they are
// computed once per store and cached (storeCached: 30 s), so a keystroke costs a filter in memory
// and one name lookup in the lexical index. The minimum keeps a query that one shopper typed
// (an e-mail, an order number) from being shown to others.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId, randomSecret, sha256 } from "../../platform/ids.js";
import { AccountsRepository } from "../../tenancy/stores/repository.js";
import { planOf, type Plan } from "../../tenancy/plans.js";
import { ProductsRepository } from "../products/repository.js";
import type { WidgetSearchResponseSchema, WidgetSuggestionsResponse } from "./schemas.js";
import type { Static } from "typebox";
import { SearchService, type Common, type SearchResponse, type TextRanking, type UnderstandMode } from "../query/service.js";
import { canonicalOrigin, originProblem } from "./origins.js";
import { WidgetKeysRepository, type WidgetKeyRow } from "./repository.js";
import { iso } from "../../platform/clock.js";
import { currencyVersion, DEFAULT_STORE_CURRENCY } from "../../tenancy/currency.js";
import type { FeedbackRepository } from "../feedback/repository.js";
import type { LexicalRepository } from "../../lexical/repository.js";
import { storeCached } from "../cache/store-cache.js";
import "../errors/codes.js"; // registers the error codes thrown here

export const WIDGET_KEY_PREFIX = "pk_live_";
export const WIDGET_KEY_MAX_ACTIVE = 20;
/** last_used_at is written at most this often. */
const TOUCH_INTERVAL_MS = 60_000;

export interface WidgetKeyInput {
  name: string;
  allowed_origins: string[];
}

export type WidgetKeyStatus = "active" | "revoked";

export function widgetKeyView(row: WidgetKeyRow) {
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    allowed_origins: JSON.parse(row.allowed_origins) as string[],
    status: row.revoked_at === null ? ("active" as const) : ("revoked" as const),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
  };
}

/** The canonical, de-duplicated allow-list; 400 naming each entry that is not an origin. */
export function normaliseOrigins(origins: readonly string[]): string[] {
  const errors: { field: string; message: string }[] = [];
  const out: string[] = [];
  origins.forEach((value, i) => {
    const origin = canonicalOrigin(value);
    if (origin === null) errors.push({ field: `allowed_origins.${i}`, message: originProblem(value) });
    else if (!out.includes(origin)) out.push(origin);
  });
  if (errors.length > 0) {
    throw new AppError("validation_failed", `Invalid request: ${errors.map((e) => e.message).join("; ")}.`, { errors });
  }
  return out;
}

/** What a valid key resolves to. */
export interface WidgetCaller {
  keyId: string;
  store: { id: string; slug: string; name: string; plan: Plan };
  /** The request's canonical origin (on the key's allow-list). */
  origin: string;
}

/** The outcome of checking a request's key and Origin. */
export type WidgetCheck =
  | { ok: true; caller: WidgetCaller }
  /** `corsOrigin`: the request's origin when the key (even revoked) lists it, so the browser may read the error. */
  | { ok: false; error: AppError; corsOrigin: string | null };

export class WidgetKeysService {
  private readonly repo: WidgetKeysRepository;
  private readonly accounts: AccountsRepository;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: WidgetKeysRepository; accounts: AccountsRepository },
  ) {
    this.repo = deps.repo;
    this.accounts = deps.accounts;
  }

  async create(storeId: string, actorUserId: string | null, input: WidgetKeyInput) {
    const origins = normaliseOrigins(input.allowed_origins);
    if ((await this.repo.countActive(storeId)) >= WIDGET_KEY_MAX_ACTIVE) {
      throw new AppError("unprocessable", `A store may have at most ${WIDGET_KEY_MAX_ACTIVE} active widget keys; revoke one first.`, {
        limit: WIDGET_KEY_MAX_ACTIVE,
      });
    }
    const key = randomSecret(WIDGET_KEY_PREFIX, 24);
    const now = this.ctx.clock.now();
    const row: Omit<WidgetKeyRow, "store_id"> = {
      id: prefixedId("wk"),
      name: input.name.trim(),
      key_hash: sha256(key),
      key_prefix: key.slice(0, WIDGET_KEY_PREFIX.length + 6),
      allowed_origins: JSON.stringify(origins),
      created_by: actorUserId,
      created_at: now,
      updated_at: now,
      last_used_at: null,
      revoked_at: null,
    };
    await this.repo.create(storeId, row);
    return { ...widgetKeyView({ ...row, store_id: storeId }), key };
  }

  async list(storeId: string) {
    return (await this.repo.list(storeId)).map(widgetKeyView);
  }

  private async existing(storeId: string, keyId: string): Promise<WidgetKeyRow> {
    const row = await this.repo.find(storeId, keyId);
    if (!row) throw new AppError("not_found", `No widget key ${keyId} in this store.`);
    return row;
  }

  async update(storeId: string, keyId: string, input: Partial<WidgetKeyInput>) {
    const row = await this.existing(storeId, keyId);
    if (row.revoked_at !== null) throw new AppError("conflict", "The widget key is revoked and can no longer be changed.");
    await this.repo.update(storeId, keyId, {
      ...(input.name !== undefined ? { name: input.name.trim() } : {}),
      ...(input.allowed_origins !== undefined ? { allowed_origins: JSON.stringify(normaliseOrigins(input.allowed_origins)) } : {}),
      updated_at: this.ctx.clock.now(),
    });
    return widgetKeyView(await this.existing(storeId, keyId));
  }

  /** Revokes the key; revoking again is harmless and answers its current state. */
  async revoke(storeId: string, keyId: string) {
    await this.existing(storeId, keyId);
    await this.repo.revoke(storeId, keyId, this.ctx.clock.now());
    return widgetKeyView(await this.existing(storeId, keyId));
  }

  /**
   * Checks a widget request: the key (401 when missing, unknown or revoked, or its store is not
   * active), then the Origin (403 origin_not_allowed when absent or not on the key's list).
   */
  async check(key: string | undefined, originHeader: string | undefined): Promise<WidgetCheck> {
    const deny = (error: AppError, corsOrigin: string | null = null): WidgetCheck => ({ ok: false, error, corsOrigin });
    if (!key) {
      return deny(new AppError("unauthorized", "The X-Service-Key header with a public widget key (pk_live_…) is required."));
    }
    const row = key.startsWith(WIDGET_KEY_PREFIX) && key.length <= 200 ? await this.repo.findByHash(sha256(key)) : undefined;
    const origin = canonicalOrigin(originHeader);
    const listed = row !== undefined && origin !== null && (JSON.parse(row.allowed_origins) as string[]).includes(origin);
    const corsOrigin = listed ? origin : null;
    if (!row || row.revoked_at !== null) {
      return deny(new AppError("unauthorized", "The widget key is invalid or has been revoked."), corsOrigin);
    }
    const store = await this.accounts.findStore(row.store_id);
    if (!store || store.status !== "active") return deny(new AppError("unauthorized", "The widget key's store is not active."), corsOrigin);
    if (originHeader === undefined) {
      return deny(
        new AppError(
          "origin_not_allowed",
          "Widget calls need the browser's Origin header; pages without an origin (file:, blank pages) cannot use the widget.",
          {
            origin: null,
          },
        ),
      );
    }
    if (!listed) {
      return deny(new AppError("origin_not_allowed", undefined, { origin: originHeader }));
    }
    const now = this.ctx.clock.now();
    if (row.last_used_at === null || now - row.last_used_at >= TOUCH_INTERVAL_MS) await this.repo.touch(store.id, row.id, now);
    return {
      ok: true,
      caller: { keyId: row.id, origin, store: { id: store.id, slug: store.slug, name: store.name, plan: planOf(store.plan) } },
    };
  }
}

/** A search result as the widget gets it: the search response item plus the product's image URL. */
export type WidgetSearchResponse = Static<typeof WidgetSearchResponseSchema>;
export type WidgetSuggestions = Static<typeof WidgetSuggestionsResponse>;

/** A query becomes a public suggestion once the store's shoppers searched it this often (see the header). */
export const SUGGESTION_MIN_SEARCHES = 3;
/** The popular searches a store's suggestions are drawn from. */
const SUGGESTION_POOL = 1000;
const SUGGESTION_DAYS = 30;
/** Products whose names are looked up per keystroke (the best few are suggested). */
const NAME_CANDIDATES = 50;
const DAY_MS = 24 * 3600 * 1000;

/** Lower case, runs of spaces as one, no leading space (a trailing one says the last word is whole). */
const typedText = (text: string) => text.toLowerCase().replace(/\s+/g, " ").replace(/^ /, "");

/**
 * Names ranked for type-ahead: a name starting with the typed text first, then one with a word
 * starting with the typed text's first word, then the rest; shorter names first, then alphabetical.
 */
function rankNames(names: readonly { text: string; product_id: string }[], typed: string) {
  const whole = typed.trim();
  const first = whole.split(" ")[0] ?? "";
  const tier = (name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith(whole)) return 0;
    return lower.split(/[^\p{L}\p{N}]+/u).some((w) => w.startsWith(first)) ? 1 : 2;
  };
  return names
    .map((n) => ({ ...n, tier: tier(n.text) }))
    .sort((a, b) => a.tier - b.tier || a.text.length - b.text.length || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
}

export class WidgetSearchService {
  private readonly search: SearchService;
  private readonly products: ProductsRepository;
  private readonly lexical: LexicalRepository;
  private readonly feedback: FeedbackRepository;
  private readonly keys: WidgetKeysRepository;

  constructor(
    private readonly ctx: AppContext,
    deps: {
      search: SearchService;
      products: ProductsRepository;
      lexical: LexicalRepository;
      feedback: FeedbackRepository;
      widgetKeys: WidgetKeysRepository;
    },
  ) {
    this.search = deps.search;
    this.products = deps.products;
    this.lexical = deps.lexical;
    this.feedback = deps.feedback;
    this.keys = deps.widgetKeys;
  }

  private async withImages(storeId: string, response: SearchResponse): Promise<WidgetSearchResponse> {
    const [rows, currency] = await Promise.all([
      this.products.findMany(
        storeId,
        response.results.map((r) => r.product_id),
      ),
      // Cached per store; a settings change through this process shows at once, another's within 30 s.
      storeCached(this.ctx, "store-currency", storeId, () => this.keys.storeCurrency(storeId), currencyVersion(storeId)),
    ]);
    const images = new Map(rows.map((r) => [r.product_id, r.image_url]));
    return {
      ...response,
      results: response.results.map((r) => ({ ...r, image_url: images.get(r.product_id) ?? null })),
      currency: currency ?? DEFAULT_STORE_CURRENCY,
    };
  }

  /** The store's popular searches, most frequent first (see the header; cached per store). */
  private popularQueries(storeId: string): Promise<string[]> {
    return storeCached(this.ctx, "widget-popular-queries", storeId, async () => {
      const rows = await this.feedback.queryCounts(storeId, this.ctx.clock.now() - SUGGESTION_DAYS * DAY_MS, SUGGESTION_POOL, {
        withResultsOnly: true,
        sources: ["api", "widget"],
        minSearches: SUGGESTION_MIN_SEARCHES,
      });
      return rows.map((r) => typedText(r.query).trim());
    });
  }

  /**
   * Type-ahead for `typed` (see the header): popular searches starting with it, then product
   * names; names take up to half of `limit` when there are enough of both. Product names are
   * looked up once the last word has two characters.
   */
  async suggestions(storeId: string, typed: string, limit: number): Promise<WidgetSuggestions> {
    const query = typedText(typed);
    if (query.trim() === "") return { query, suggestions: [] };
    const lastWord = query.trim().split(" ").pop() ?? "";
    const [popular, ids] = await Promise.all([
      this.popularQueries(storeId),
      lastWord.length >= 2 ? this.lexical.nameMatches(storeId, query, NAME_CANDIDATES) : Promise.resolve([]),
    ]);
    const queries = popular.filter((q) => q.startsWith(query) && q !== "").slice(0, limit);
    const rows = ids.length > 0 ? await this.products.findMany(storeId, ids) : [];
    const names = rankNames(
      rows
        .filter((r) => typeof r.name === "string" && r.name.trim() !== "")
        .map((r) => ({ text: r.name!.trim(), product_id: r.product_id })),
      query,
    );
    const seen = new Set<string>();
    const out: WidgetSuggestions["suggestions"] = [];
    const nameShare = Math.min(names.length, Math.floor(limit / 2));
    for (const q of queries.slice(0, limit - nameShare)) {
      if (seen.has(q)) continue;
      seen.add(q);
      out.push({ kind: "query", text: q });
    }
    for (const n of names) {
      if (out.length >= limit) break;
      const key = n.text.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ kind: "product", text: n.text, product_id: n.product_id });
    }
    return { query, suggestions: out };
  }

  async text(storeId: string, query: string, common: Common, options: TextRanking & { understand?: UnderstandMode } = {}) {
    return this.withImages(storeId, await this.search.text(storeId, query, common, "widget", options));
  }

  async url(storeId: string, imageUrl: string, common: Common) {
    return this.withImages(storeId, await this.search.url(storeId, imageUrl, common, "widget"));
  }

  async upload(storeId: string, file: Buffer, common: Common) {
    return this.withImages(storeId, await this.search.upload(storeId, file, common, "widget"));
  }
}
