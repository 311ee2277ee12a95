// A local Shopify-style storefront for tests (plain HTTP on loopback: the tests run with
// OUTBOUND_ALLOW_PRIVATE=true). It serves the documented subset of src/assistant/storefront/shopify.ts,
// records every call, and can be told to go down (503), hang (never answer) or fail single paths.
import http from "node:http";
import { closeServer, listen } from "./servers.js";

export interface FakeVariant {
  id: number;
  sku?: string;
  price: string;
  option1?: string;
  option2?: string;
  inventory_item_id: number;
  /** "shopify" = tracked; null = not tracked (always available). */
  inventory_management?: string | null;
  /** Available units at the (single) location. */
  available?: number;
}

export interface FakeProduct {
  id: number;
  title: string;
  handle: string;
  product_type?: string;
  vendor?: string;
  tags?: string;
  status?: "active" | "draft" | "archived";
  published?: boolean;
  options?: Array<{ name: string; values: string[] }>;
  variants: FakeVariant[];
}

export interface FakeOrder {
  id: number;
  customer_id: string;
  created_at: string;
  total_price: string;
  currency: string;
  financial_status?: string;
  fulfillment_status?: string | null;
  line_items: Array<{ product_id: number; title: string; quantity: number }>;
}

export interface RecordedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  token: string | undefined;
  body: string;
}

export interface StorefrontServer {
  url: string;
  token: string;
  shop: { name: string; currency: string };
  products: FakeProduct[];
  orders: FakeOrder[];
  draftOrders: Map<number, unknown>;
  returns: unknown[];
  calls: RecordedCall[];
  /** Every request answers 503. */
  down: boolean;
  /** Requests are accepted but never answered (the client's deadline runs out). */
  hang: boolean;
  /** Path prefixes (without query) that answer 500. */
  failing: Set<string>;
  /** Calls whose path starts with `prefix` (query ignored). */
  count(prefix: string): number;
  reset(): void;
  close(): Promise<void>;
}

const PAGE_SIZE_DEFAULT = 250;

export async function startStorefront(
  opts: { token?: string; shop?: { name: string; currency: string }; pageSize?: number } = {},
): Promise<StorefrontServer> {
  const pending = new Set<http.ServerResponse>();
  const state: Omit<StorefrontServer, "url" | "count" | "reset" | "close"> = {
    token: opts.token ?? "shpat_test_0123456789abcdef",
    shop: opts.shop ?? { name: "Fake Shop", currency: "USD" },
    products: [],
    orders: [],
    draftOrders: new Map(),
    returns: [],
    calls: [],
    down: false,
    hang: false,
    failing: new Set(),
  };
  let nextId = 9000;
  const pageSize = opts.pageSize ?? PAGE_SIZE_DEFAULT;

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers }).end(text);
  };
  const published = (p: FakeProduct) => (p.status ?? "active") === "active" && p.published !== false;
  const adminProduct = (p: FakeProduct) => ({
    id: p.id,
    title: p.title,
    handle: p.handle,
    product_type: p.product_type ?? "",
    vendor: p.vendor ?? "",
    tags: p.tags ?? "",
    status: p.status ?? "active",
    published_at: p.published === false ? null : "2025-01-01T00:00:00Z",
    options: p.options ?? [],
    variants: p.variants.map((v) => ({
      id: v.id,
      sku: v.sku ?? null,
      option1: v.option1 ?? null,
      option2: v.option2 ?? null,
      price: v.price,
    })),
    image: { src: `https://cdn.example/${p.handle}.jpg` },
  });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://local");
      const body = Buffer.concat(chunks).toString("utf8");
      const token = req.headers["x-shopify-access-token"] as string | undefined;
      state.calls.push({ method: req.method ?? "GET", path: url.pathname, query: url.searchParams, token, body });
      if (state.hang) {
        pending.add(res);
        return;
      }
      if (state.down) return send(res, 503, { errors: "Unavailable" });
      if ([...state.failing].some((p) => url.pathname.startsWith(p))) return send(res, 500, { errors: "Internal" });
      const path = url.pathname;
      const admin = path.startsWith("/admin/api/2024-07/");
      if (admin && token !== state.token) return send(res, 401, { errors: "[API] Invalid API key or access token" });

      // --- public storefront
      if (req.method === "GET" && path === "/products.json") {
        const page = Number(url.searchParams.get("page") ?? "1");
        const limit = Number(url.searchParams.get("limit") ?? "30");
        const list = state.products.filter(published).slice((page - 1) * limit, page * limit);
        return send(res, 200, {
          products: list.map((p) => ({
            ...adminProduct(p),
            tags: (p.tags ?? "")
              .split(",")
              .map((t) => t.trim())
              .filter(Boolean),
          })),
        });
      }
      const js = /^\/products\/([^/]+)\.js$/.exec(path);
      if (req.method === "GET" && js) {
        const p = state.products.find((x) => x.handle === decodeURIComponent(js[1]!) && published(x));
        if (!p) return send(res, 404, { errors: "Not Found" });
        const cents = Math.min(...p.variants.map((v) => Math.round(Number(v.price) * 100)));
        const available = p.variants.some((v) => v.inventory_management === null || (v.available ?? 0) > 0);
        return send(res, 200, { id: p.id, title: p.title, handle: p.handle, price: cents, available });
      }

      // --- admin API
      const a = path.slice("/admin/api/2024-07".length);
      if (req.method === "GET" && a === "/shop.json")
        return send(res, 200, { shop: { name: state.shop.name, currency: state.shop.currency, id: 1 } });
      if (req.method === "GET" && a === "/products.json") {
        let list = state.products;
        if (url.searchParams.get("published_status") === "published") list = list.filter((p) => p.published !== false);
        if (url.searchParams.get("status")) list = list.filter((p) => (p.status ?? "active") === url.searchParams.get("status"));
        const limit = Math.min(Number(url.searchParams.get("limit") ?? "50"), pageSize);
        const offset = Number(url.searchParams.get("page_info") ?? "0");
        const page = list.slice(offset, offset + limit);
        const headers: Record<string, string> = {};
        if (offset + limit < list.length) {
          headers.link = `<${address}/admin/api/2024-07/products.json?limit=${limit}&page_info=${offset + limit}>; rel="next"`;
        }
        return send(res, 200, { products: page.map(adminProduct) }, headers);
      }
      const variants = /^\/products\/(\d+)\/variants\.json$/.exec(a);
      if (req.method === "GET" && variants) {
        const p = state.products.find((x) => String(x.id) === variants[1]);
        if (!p) return send(res, 404, { errors: "Not Found" });
        return send(res, 200, {
          variants: p.variants.map((v) => ({
            id: v.id,
            product_id: p.id,
            sku: v.sku ?? null,
            price: v.price,
            inventory_item_id: v.inventory_item_id,
            inventory_management: v.inventory_management === undefined ? "shopify" : v.inventory_management,
          })),
        });
      }
      if (req.method === "GET" && a === "/inventory_levels.json") {
        const ids = (url.searchParams.get("inventory_item_ids") ?? "").split(",").filter(Boolean);
        const levels = state.products
          .flatMap((p) => p.variants)
          .filter((v) => ids.includes(String(v.inventory_item_id)) && v.inventory_management !== null)
          .map((v) => ({ inventory_item_id: v.inventory_item_id, location_id: 1, available: v.available ?? 0 }));
        return send(res, 200, { inventory_levels: levels });
      }
      if (req.method === "GET" && a === "/orders.json") {
        const customer = url.searchParams.get("customer_id");
        return send(res, 200, {
          orders: state.orders.filter((o) => o.customer_id === customer).map((o) => ({ ...o, customer: { id: o.customer_id } })),
        });
      }
      const order = /^\/orders\/(\d+)\.json$/.exec(a);
      if (req.method === "GET" && order) {
        const o = state.orders.find((x) => String(x.id) === order[1]);
        if (!o) return send(res, 404, { errors: "Not Found" });
        return send(res, 200, {
          order: { ...o, customer: { id: Number.isNaN(Number(o.customer_id)) ? o.customer_id : Number(o.customer_id) } },
        });
      }
      if (req.method === "POST" && a === "/draft_orders.json") {
        const id = nextId++;
        state.draftOrders.set(id, JSON.parse(body));
        return send(res, 201, { draft_order: { id, status: "open" } });
      }
      const draft = /^\/draft_orders\/(\d+)\.json$/.exec(a);
      if (req.method === "PUT" && draft) {
        const id = Number(draft[1]);
        if (!state.draftOrders.has(id)) return send(res, 404, { errors: "Not Found" });
        state.draftOrders.set(id, JSON.parse(body));
        return send(res, 200, { draft_order: { id, status: "open" } });
      }
      if (req.method === "POST" && a === "/returns.json") {
        const id = nextId++;
        state.returns.push({ id, ...(JSON.parse(body) as object) });
        return send(res, 201, { return: { id, status: "requested" } });
      }
      return send(res, 404, { errors: "Not Found" });
    });
  });
  const address = await listen(server);
  const out = state as StorefrontServer;
  out.url = address;
  out.count = (prefix) => state.calls.filter((c) => c.path.startsWith(prefix)).length;
  out.reset = () => {
    state.calls.length = 0;
    state.down = false;
    state.hang = false;
    state.failing.clear();
  };
  out.close = () => {
    for (const r of pending) r.destroy();
    return closeServer(server);
  };
  return out;
}

/** A product with one tracked variant. */
export function fakeProduct(
  id: number,
  title: string,
  price: string,
  extra: Partial<FakeProduct> & { available?: number; sku?: string; color?: string; size?: string } = {},
): FakeProduct {
  const { available, sku, color, size, ...rest } = extra;
  const options = [...(color ? [{ name: "Color", values: [color] }] : []), ...(size ? [{ name: "Size", values: [size] }] : [])];
  return {
    id,
    title,
    handle: title.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
    options,
    variants: [
      {
        id: id * 10,
        price,
        inventory_item_id: id * 100,
        available: available ?? 20,
        ...(sku ? { sku } : {}),
        ...(color ? { option1: color } : {}),
        ...(size ? { [color ? "option2" : "option1"]: size } : {}),
      },
    ],
    ...rest,
  };
}
