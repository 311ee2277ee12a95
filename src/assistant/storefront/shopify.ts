// A connected Shopify-style storefront, reached only through ctx.fetch (the safe outbound client:
// https only and public addresses only unless OUTBOUND_ALLOW_PRIVATE, size and time limits).
//
// The documented subset of Shopify's REST shapes used (API version 2024-07):
//   With a private token (header X-Shopify-Access-Token):
//     GET  /admin/api/2024-07/shop.json                        token check at connect → {shop: {name, currency}}
//     GET  /admin/api/2024-07/products.json?status=active&published_status=published&limit=250
//          (pages followed through the Link header rel="next", at most 4) → {products: [product]}
//     GET  /admin/api/2024-07/products/{id}/variants.json      live price → {variants: [{id, price: "19.99", inventory_item_id, inventory_management}]}
//     GET  /admin/api/2024-07/inventory_levels.json?inventory_item_ids=…  live stock → {inventory_levels: [{inventory_item_id, available}]}
//     GET  /admin/api/2024-07/orders.json?customer_id=…&status=any&limit=20 → {orders: [order]}
//     GET  /admin/api/2024-07/orders/{id}.json                 ownership check before a return → {order}
//     POST /admin/api/2024-07/draft_orders.json, PUT /admin/api/2024-07/draft_orders/{id}.json   the session's cart
//     POST /admin/api/2024-07/returns.json {return: {order_id, line_items, reason}} → {return: {id, status}}
//          (Shopify exposes return requests through GraphQL only; this REST shape is Shopsight's documented subset)
//   Without a token (public storefront JSON):
//     GET  /products.json?limit=250&page=N                     catalogue (published by definition), at most 4 pages
//     GET  /products/{handle}.js                               live read → {price (minor units ×100), available}
//     orders and actions need a token.
// product: {id, title, handle, product_type, vendor, tags ("a, b" or [..]), status?, published_at?,
//           options: [{name, values}], variants: [{id, sku, option1, option2, option3}], image?: {src}, images?: [{src}]}
// Matching is done here over the listing: q (every word looked up in title, type, vendor, tags,
// handle; ranked by words found), category_id → product_type, color → option "Color"/"Colour",
// size → option "Size", sku → a variant's sku (all ignoring case). Listing prices are never used:
// prices and stock come from the live reads above.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId } from "../../platform/ids.js";
import { isOutboundError, type SafeResponse } from "../../platform/outbound/safe-fetch.js";
import { minorDigits } from "../../tenancy/currency.js";
import {
  decimalToMinor,
  rawIdsOf,
  stockFromQuantity,
  toCardId,
  type Candidate,
  type CatalogConnector,
  type LiveRead,
} from "./connector.js";
import { cartCounts, cartLines, type StorefrontRepository } from "./repository.js";
import {
  StorefrontUnavailable,
  type ActionRequest,
  type ActionResult,
  type CatalogQuery,
  type OrderSummary,
  type StockState,
} from "./types.js";

export const API = "/admin/api/2024-07";
const MAX_PAGES = 4;
const CALL_TIMEOUT_MS = 8000;
const CALL_MAX_BYTES = 8 * 1024 * 1024;

interface ShopifyProduct {
  id: number | string;
  title?: string;
  handle?: string;
  product_type?: string;
  vendor?: string;
  tags?: string | string[];
  status?: string;
  published_at?: string | null;
  options?: Array<{ name?: string; values?: string[] }>;
  variants?: Array<{ id: number | string; sku?: string | null; option1?: string | null; option2?: string | null; option3?: string | null }>;
  image?: { src?: string } | null;
  images?: Array<{ src?: string }>;
}

interface Ref {
  id: string;
  handle: string;
}

export type StorefrontCheck =
  | { ok: true; shop_name: string | null; shop_currency: string | null }
  | { ok: false; reason: "token_rejected" | "unreachable" | "not_a_storefront"; status?: number };

/** Normalised origin of a store URL, or a validation error. */
export function normaliseStoreUrl(raw: string, allowHttp: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("validation_failed", "store_url is not an absolute URL.", {
      errors: [{ field: "store_url", message: "must be an absolute https URL" }],
    });
  }
  if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) {
    throw new AppError("validation_failed", "store_url must be an https URL.", {
      errors: [{ field: "store_url", message: "must be an https URL" }],
    });
  }
  if (url.username || url.password) {
    throw new AppError("validation_failed", "store_url must not carry credentials.", {
      errors: [{ field: "store_url", message: "must not carry credentials" }],
    });
  }
  return url.origin;
}

/** Low-level calls to one storefront. The token is only ever put in a request header. */
export class ShopifyClient {
  readonly source: string;

  constructor(
    private readonly ctx: AppContext,
    readonly storeUrl: string,
    private readonly token: string | null,
  ) {
    this.source = `storefront:${new URL(storeUrl).host}`;
  }

  get hasToken(): boolean {
    return this.token !== null;
  }

  async call(method: string, path: string, body?: unknown): Promise<SafeResponse> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.token) headers["x-shopify-access-token"] = this.token;
    if (body !== undefined) headers["content-type"] = "application/json";
    try {
      return await this.ctx.fetch(`${this.storeUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        timeoutMs: Math.min(this.ctx.config.outbound.timeoutMs, CALL_TIMEOUT_MS),
        maxBytes: Math.min(this.ctx.config.outbound.maxBytes, CALL_MAX_BYTES),
        followRedirects: false,
      });
    } catch (e) {
      const kind = isOutboundError(e) ? e.kind : "error";
      throw new StorefrontUnavailable(this.source, `The storefront could not be reached (${kind}) on ${method} ${path.split("?")[0]}.`);
    }
  }

  /** JSON of a 2xx answer; anything else is the storefront being unavailable. */
  async json(method: string, path: string, body?: unknown): Promise<{ data: unknown; res: SafeResponse }> {
    const res = await this.call(method, path, body);
    if (res.status < 200 || res.status > 299) {
      throw new StorefrontUnavailable(this.source, `The storefront answered ${res.status} on ${method} ${path.split("?")[0]}.`);
    }
    try {
      return { data: JSON.parse(res.body.toString("utf8")) as unknown, res };
    } catch {
      throw new StorefrontUnavailable(this.source, `The storefront sent invalid JSON on ${method} ${path.split("?")[0]}.`);
    }
  }

  /** One read with the given credentials: the shop (with a token) or the public catalogue. */
  async check(): Promise<StorefrontCheck> {
    let res: SafeResponse;
    try {
      res = await this.call("GET", this.token ? `${API}/shop.json` : "/products.json?limit=1");
    } catch {
      return { ok: false, reason: "unreachable" };
    }
    if (res.status === 401 || res.status === 403)
      return { ok: false, reason: this.token ? "token_rejected" : "not_a_storefront", status: res.status };
    if (res.status < 200 || res.status > 299) return { ok: false, reason: "not_a_storefront", status: res.status };
    try {
      const data = JSON.parse(res.body.toString("utf8")) as { shop?: { name?: unknown; currency?: unknown }; products?: unknown };
      if (this.token) {
        if (!data.shop || typeof data.shop !== "object") return { ok: false, reason: "not_a_storefront", status: res.status };
        const currency = typeof data.shop.currency === "string" ? data.shop.currency.toUpperCase() : null;
        return { ok: true, shop_name: typeof data.shop.name === "string" ? data.shop.name : null, shop_currency: currency };
      }
      if (!Array.isArray(data.products)) return { ok: false, reason: "not_a_storefront", status: res.status };
      return { ok: true, shop_name: null, shop_currency: null };
    } catch {
      return { ok: false, reason: "not_a_storefront", status: res.status };
    }
  }
}

function nextLink(link: string | undefined): string | null {
  if (!link) return null;
  for (const part of link.split(",")) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) {
      try {
        const u = new URL(m[1]!, "http://x");
        return `${u.pathname}${u.search}`;
      } catch {
        return null;
      }
    }
  }
  return null;
}

const lower = (s: unknown): string => (typeof s === "string" ? s.toLowerCase() : "");
const words = (q: string): string[] =>
  [
    ...new Set(
      q
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w.length >= 2),
    ),
  ].slice(0, 12);

function optionValues(p: ShopifyProduct, names: string[]): string[] {
  const idx = (p.options ?? []).findIndex((o) => names.includes(lower(o.name)));
  if (idx < 0) return [];
  const fromOption = (p.options![idx]!.values ?? []).map(lower);
  const key = (["option1", "option2", "option3"] as const)[idx];
  const fromVariants = key ? (p.variants ?? []).map((v) => lower(v[key])) : [];
  return [...fromOption, ...fromVariants].filter(Boolean);
}

const tagsOf = (p: ShopifyProduct): string[] =>
  (Array.isArray(p.tags) ? p.tags : (p.tags ?? "").split(",")).map((t) => t.trim().toLowerCase()).filter(Boolean);

export class ShopifyConnector implements CatalogConnector {
  readonly source: string;
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: StorefrontRepository,
    private readonly storeId: string,
    private readonly client: ShopifyClient,
    /** The shop's currency (read at connect time), else the store currency from settings. */
    private readonly currency: string,
  ) {
    this.source = client.source;
  }

  private async listing(): Promise<ShopifyProduct[]> {
    const out: ShopifyProduct[] = [];
    if (this.client.hasToken) {
      let path: string | null = `${API}/products.json?status=active&published_status=published&limit=250`;
      for (let page = 0; path && page < MAX_PAGES; page++) {
        const { data, res } = (await this.client.json("GET", path)) as { data: { products?: ShopifyProduct[] }; res: SafeResponse };
        out.push(...(data.products ?? []));
        path = nextLink(res.headers.link);
      }
      // Rule 1: published only, whatever the storefront sent.
      return out.filter((p) => (p.status === undefined || p.status === "active") && p.published_at !== null);
    }
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { data } = (await this.client.json("GET", `/products.json?limit=250&page=${page}`)) as {
        data: { products?: ShopifyProduct[] };
        res: SafeResponse;
      };
      const got = data.products ?? [];
      out.push(...got);
      if (got.length < 250) break;
    }
    return out;
  }

  async match(query: CatalogQuery, depth: number): Promise<Candidate[]> {
    const products = await this.listing();
    const cats = (query.category_id ?? []).map((c) => c.toLowerCase());
    const colors = (query.color ?? []).map((c) => c.toLowerCase());
    const sizes = (query.size ?? []).map((c) => c.toLowerCase());
    const sku = query.sku?.toLowerCase();
    const terms = query.q ? words(query.q) : [];
    if (query.q && query.q.trim() !== "" && terms.length === 0) return [];
    const scored: Array<{ p: ShopifyProduct; score: number; i: number }> = [];
    products.forEach((p, i) => {
      if (cats.length && !cats.includes(lower(p.product_type))) return;
      if (colors.length && !optionValues(p, ["color", "colour"]).some((v) => colors.includes(v))) return;
      if (sizes.length && !optionValues(p, ["size"]).some((v) => sizes.includes(v))) return;
      if (sku !== undefined && !(p.variants ?? []).some((v) => lower(v.sku) === sku)) return;
      let score = 0;
      if (terms.length) {
        const hay = [p.title, p.product_type, p.vendor, p.handle, ...tagsOf(p)].map(lower).join(" ");
        score = terms.filter((t) => hay.includes(t)).length;
        if (score === 0) return;
      }
      scored.push({ p, score, i });
    });
    scored.sort((a, b) => b.score - a.score || a.i - b.i);
    return scored.slice(0, depth).map(({ p }) => ({
      product_id: toCardId(String(p.id)),
      title: p.title ?? String(p.id),
      image_url: p.image?.src ?? p.images?.[0]?.src ?? null,
      url: p.handle ? `${this.client.storeUrl}/products/${encodeURIComponent(p.handle)}` : null,
      ref: { id: String(p.id), handle: p.handle ?? String(p.id) } satisfies Ref,
    }));
  }

  private money(decimal: unknown): { amount_minor: number; currency: string } | null {
    const text = typeof decimal === "number" ? decimal.toFixed(minorDigits(this.currency)) : decimal;
    if (typeof text !== "string") return null;
    const minor = decimalToMinor(text, minorDigits(this.currency));
    return minor === null ? null : { amount_minor: minor, currency: this.currency };
  }

  async readLive(candidates: Candidate[]): Promise<Map<string, LiveRead>> {
    const out = new Map<string, LiveRead>();
    if (!this.client.hasToken) {
      await Promise.all(
        candidates.map(async (c) => {
          const ref = c.ref as Ref;
          try {
            const { data } = (await this.client.json("GET", `/products/${encodeURIComponent(ref.handle)}.js`)) as {
              data: { price?: unknown; available?: unknown };
              res: SafeResponse;
            };
            const cents = typeof data.price === "number" && Number.isInteger(data.price) && data.price >= 0 ? data.price : null;
            const digits = minorDigits(this.currency);
            const price = cents === null ? null : { amount_minor: Math.round((cents * 10 ** digits) / 100), currency: this.currency };
            const availability =
              typeof data.available === "boolean" ? { state: (data.available ? "in_stock" : "out_of_stock") as StockState } : null;
            out.set(c.product_id, { price, availability, read_at: this.ctx.clock.now() });
          } catch {
            // this product could not be read: price and availability "unavailable"
          }
        }),
      );
      return out;
    }
    type Variant = {
      id: number | string;
      price?: unknown;
      inventory_item_id?: number | string | null;
      inventory_management?: string | null;
    };
    const variantsOf = new Map<string, Variant[]>();
    await Promise.all(
      candidates.map(async (c) => {
        try {
          const { data } = (await this.client.json("GET", `${API}/products/${encodeURIComponent((c.ref as Ref).id)}/variants.json`)) as {
            data: { variants?: Variant[] };
            res: SafeResponse;
          };
          variantsOf.set(c.product_id, data.variants ?? []);
        } catch {
          // not read
        }
      }),
    );
    const items = [...variantsOf.values()]
      .flat()
      .map((v) => v.inventory_item_id)
      .filter((x): x is number | string => x !== null && x !== undefined);
    let levels: Map<string, number> | null = null;
    if (items.length > 0) {
      try {
        const { data } = (await this.client.json(
          "GET",
          `${API}/inventory_levels.json?inventory_item_ids=${items.map((i) => encodeURIComponent(String(i))).join(",")}`,
        )) as { data: { inventory_levels?: Array<{ inventory_item_id: number | string; available: number | null }> }; res: SafeResponse };
        levels = new Map();
        for (const l of data.inventory_levels ?? []) {
          const key = String(l.inventory_item_id);
          levels.set(key, (levels.get(key) ?? 0) + (typeof l.available === "number" ? l.available : 0));
        }
      } catch {
        levels = null; // stock unavailable, prices still live
      }
    }
    const readAt = this.ctx.clock.now();
    for (const c of candidates) {
      const variants = variantsOf.get(c.product_id);
      if (!variants) continue;
      const prices = variants.map((v) => this.money(v.price)).filter((m): m is { amount_minor: number; currency: string } => m !== null);
      const price = prices.length > 0 ? prices.reduce((a, b) => (b.amount_minor < a.amount_minor ? b : a)) : null;
      let availability: LiveRead["availability"] = null;
      const tracked = variants.filter((v) => v.inventory_management);
      if (variants.length > 0 && tracked.length === 0) availability = { state: "in_stock" };
      else if (levels) {
        const known = tracked.filter((v) => levels.has(String(v.inventory_item_id)));
        if (known.length > 0) availability = stockFromQuantity(known.reduce((n, v) => n + levels.get(String(v.inventory_item_id))!, 0));
      }
      out.set(c.product_id, { price, availability, read_at: readAt });
    }
    return out;
  }

  private needToken(what: string): void {
    if (!this.client.hasToken)
      throw new StorefrontUnavailable(
        this.source,
        `${what} needs the storefront's private token (POST /v1/admin/connections/storefront/token).`,
      );
  }

  async orders(customerId: string): Promise<OrderSummary[]> {
    this.needToken("Reading orders");
    type Order = {
      id: number | string;
      created_at?: string;
      cancelled_at?: string | null;
      financial_status?: string | null;
      fulfillment_status?: string | null;
      total_price?: string;
      currency?: string;
      line_items?: Array<{ product_id?: number | string | null; title?: string; quantity?: number }>;
    };
    const { data } = (await this.client.json(
      "GET",
      `${API}/orders.json?customer_id=${encodeURIComponent(customerId)}&status=any&limit=20`,
    )) as { data: { orders?: Order[] }; res: SafeResponse };
    return (data.orders ?? []).map((o) => {
      const currency = (o.currency ?? this.currency).toUpperCase();
      return {
        order_id: String(o.id),
        status: o.cancelled_at ? "cancelled" : (o.fulfillment_status ?? o.financial_status ?? "open"),
        placed_at: o.created_at ? new Date(o.created_at).toISOString() : new Date(0).toISOString(),
        total: { amount_minor: decimalToMinor(o.total_price ?? "0", minorDigits(currency)) ?? 0, currency },
        items: (o.line_items ?? []).map((l) => ({
          product_id: toCardId(String(l.product_id ?? "")),
          title: l.title ?? "",
          quantity: l.quantity ?? 1,
        })),
      };
    });
  }

  async runAction(session: { sessionId: string; customerId: string | null }, action: ActionRequest): Promise<ActionResult> {
    this.needToken("This action");
    return action.name === "add_to_cart" ? this.addToCart(session, action.arguments) : this.startReturn(session, action.arguments);
  }

  private async addToCart(
    session: { sessionId: string; customerId: string | null },
    args: Record<string, string | number>,
  ): Promise<ActionResult> {
    const quantity = args.quantity === undefined ? 1 : Number(args.quantity);
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > 100)
      throw new AppError("validation_failed", "quantity must be an integer from 1 to 100.");
    const cardId = String(args.product_id ?? "");
    const productId = rawIdsOf(cardId).at(-1)!;
    let variantId = args.variant_id === undefined ? null : String(args.variant_id);
    if (variantId === null) {
      const res = await this.client.call("GET", `${API}/products/${encodeURIComponent(productId)}/variants.json`);
      if (res.status === 404) throw new AppError("not_found", "No such product in the storefront.");
      if (res.status < 200 || res.status > 299)
        throw new StorefrontUnavailable(this.source, `The storefront answered ${res.status} reading variants.`);
      const first = (JSON.parse(res.body.toString("utf8")) as { variants?: Array<{ id: number | string }> }).variants?.[0];
      if (!first) throw new AppError("not_found", "The product has no variant to add.");
      variantId = String(first.id);
    }
    const cart = await this.repo.findCart(this.storeId, session.sessionId, this.source);
    const lines = cartLines(cart);
    const same = lines.find((l) => l.variant_id === variantId);
    if (same) same.quantity += quantity;
    else lines.push({ product_id: toCardId(productId), variant_id: variantId, quantity });
    const lineItems = lines.map((l) => ({
      variant_id: Number.isNaN(Number(l.variant_id)) ? l.variant_id : Number(l.variant_id),
      quantity: l.quantity,
    }));
    let externalId = cart?.external_id ?? null;
    if (externalId) {
      await this.client.json("PUT", `${API}/draft_orders/${encodeURIComponent(externalId)}.json`, {
        draft_order: { id: externalId, line_items: lineItems },
      });
    } else {
      const { data } = (await this.client.json("POST", `${API}/draft_orders.json`, {
        draft_order: {
          line_items: lineItems,
          tags: "shopsight-assistant",
          note_attributes: [{ name: "shopsight_session", value: session.sessionId }],
          ...(session.customerId ? { customer: { id: session.customerId } } : {}),
        },
      })) as { data: { draft_order?: { id?: number | string } }; res: SafeResponse };
      externalId = data.draft_order?.id === undefined ? null : String(data.draft_order.id);
    }
    const id = await this.repo.saveCart(this.storeId, cart, {
      sessionId: session.sessionId,
      source: this.source,
      externalId,
      lines,
      now: this.ctx.clock.now(),
    });
    return {
      name: "add_to_cart",
      status: "completed",
      result: {
        cart_id: id,
        external_cart_id: externalId,
        product_id: toCardId(productId),
        variant_id: variantId,
        quantity,
        ...cartCounts(lines),
      },
    };
  }

  private async startReturn(
    session: { sessionId: string; customerId: string | null },
    args: Record<string, string | number>,
  ): Promise<ActionResult> {
    if (!session.customerId) throw new AppError("forbidden", "Returns need a signed-in customer session (POST /v1/sessions/exchange).");
    const orderId = String(args.order_id ?? "");
    const res = await this.client.call("GET", `${API}/orders/${encodeURIComponent(orderId)}.json`);
    if (res.status === 404) throw new AppError("not_found", "No such order for this customer.");
    if (res.status < 200 || res.status > 299)
      throw new StorefrontUnavailable(this.source, `The storefront answered ${res.status} reading the order.`);
    const order = (JSON.parse(res.body.toString("utf8")) as { order?: { customer?: { id?: number | string } | null } }).order;
    if (!order || String(order.customer?.id ?? "") !== session.customerId)
      throw new AppError("not_found", "No such order for this customer.");
    const productId = args.product_id === undefined ? null : rawIdsOf(String(args.product_id)).at(-1)!;
    const quantity = args.quantity === undefined ? null : Number(args.quantity);
    const reason = args.reason === undefined ? null : String(args.reason).slice(0, 500);
    const { data } = (await this.client.json("POST", `${API}/returns.json`, {
      return: {
        order_id: orderId,
        line_items: productId ? [{ product_id: productId, quantity: quantity ?? 1 }] : [],
        ...(reason ? { reason } : {}),
        note: "Requested through the Shopsight assistant",
      },
    })) as { data: { return?: { id?: number | string; status?: string } }; res: SafeResponse };
    const id = prefixedId("ret");
    const status = data.return?.status ?? "requested";
    const externalId = data.return?.id === undefined ? null : String(data.return.id);
    await this.repo.insertReturn(this.storeId, {
      id,
      session_id: session.sessionId,
      customer_id: session.customerId,
      order_id: orderId,
      product_id: productId ? toCardId(productId) : null,
      quantity,
      reason,
      status,
      source: this.source,
      external_id: externalId,
      created_at: this.ctx.clock.now(),
    });
    return {
      name: "start_return",
      status: "completed",
      result: { return_id: id, external_return_id: externalId, order_id: orderId, status },
    };
  }
}
