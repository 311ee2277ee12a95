// Storefront connections (admin): connect a Shopify-style storefront, with or without its
// private token, switch a connection to a token, list, disconnect.
//
// The private token is checked against the store (GET /admin/api/2024-07/shop.json with it)
// BEFORE anything is kept; a rejected token or an unreadable store keeps nothing. Accepted tokens
// are stored only as an AES-256-GCM envelope (crypto.ts), bound to the store and connection; the
// token is never returned, never logged and never written to the audit trail (which records no
// request bodies). A store has at most one connected storefront: connecting a new one
// disconnects the previous one; disconnecting returns the store to its embedded catalogue.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId } from "../../platform/ids.js";
import { EMBEDDED_SOURCE, tokenAad } from "../storefront/index.js";
import { normaliseStoreUrl, ShopifyClient, type StorefrontCheck } from "../storefront/shopify.js";
import type { ConnectionRow, ConnectionsRepository } from "../storefront/connections-repository.js";
import { iso } from "../../platform/clock.js";
import type { ConnectionView } from "./schemas.js";
import "../errors/codes.js"; // registers the error codes thrown here

export function viewOf(row: ConnectionRow): ConnectionView {
  return {
    connection_id: row.id,
    store_url: row.store_url,
    status: row.status === "connected" ? "connected" : "disconnected",
    auth: row.auth === "token" ? "token" : "none",
    source: `storefront:${new URL(row.store_url).host}`,
    shop_name: row.shop_name,
    shop_currency: row.shop_currency,
    verified_at: iso(row.verified_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    disconnected_at: iso(row.disconnected_at),
  };
}

function refuse(check: Exclude<StorefrontCheck, { ok: true }>): never {
  const details = { reason: check.reason, ...(check.status === undefined ? {} : { storefront_status: check.status }) };
  if (check.reason === "token_rejected") throw new AppError("storefront_token_rejected", undefined, details);
  throw new AppError("storefront_unreachable", undefined, details);
}

export class ConnectionsService {
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: ConnectionsRepository,
  ) {}

  async connect(
    storeId: string,
    input: { store_url: string; private_token?: string | undefined },
    actorUserId: string | null,
  ): Promise<ConnectionView> {
    const storeUrl = normaliseStoreUrl(input.store_url, this.ctx.config.outbound.allowPrivate);
    const token = input.private_token ?? null;
    const check = await new ShopifyClient(this.ctx, storeUrl, token).check();
    if (!check.ok) refuse(check);
    const id = prefixedId("conn");
    const now = this.ctx.clock.now();
    const row: Omit<ConnectionRow, "store_id"> = {
      id,
      store_url: storeUrl,
      status: "connected",
      auth: token ? "token" : "none",
      token_ciphertext: token ? this.ctx.secrets.seal(token, tokenAad(storeId, id)) : null,
      shop_name: check.shop_name,
      shop_currency: check.shop_currency,
      verified_at: now,
      created_by: actorUserId,
      created_at: now,
      updated_at: now,
      disconnected_at: null,
    };
    await this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      await repo.disconnectAll(storeId, now);
      await repo.insert(storeId, row);
    });
    return viewOf({ ...row, store_id: storeId });
  }

  async setToken(storeId: string, connectionId: string, token: string): Promise<ConnectionView> {
    const conn = await this.repo.find(storeId, connectionId);
    if (!conn) throw new AppError("not_found", "No such storefront connection.");
    if (conn.status !== "connected") throw new AppError("conflict", "The connection is disconnected; connect the storefront again.");
    const check = await new ShopifyClient(this.ctx, conn.store_url, token).check();
    if (!check.ok) refuse(check);
    const now = this.ctx.clock.now();
    await this.repo.setCredential(storeId, conn.id, {
      token_ciphertext: this.ctx.secrets.seal(token, tokenAad(storeId, conn.id)),
      auth: "token",
      shop_name: check.shop_name,
      shop_currency: check.shop_currency,
      verified_at: now,
      updated_at: now,
    });
    const updated = await this.repo.find(storeId, conn.id);
    return viewOf(updated!);
  }

  async list(storeId: string): Promise<{ connections: ConnectionView[]; active_source: string }> {
    const rows = await this.repo.list(storeId);
    const views = rows.map(viewOf);
    return { connections: views, active_source: views.find((v) => v.status === "connected")?.source ?? EMBEDDED_SOURCE };
  }

  async disconnect(storeId: string, connectionId: string): Promise<void> {
    const conn = await this.repo.find(storeId, connectionId);
    if (!conn) throw new AppError("not_found", "No such storefront connection.");
    await this.repo.disconnect(storeId, connectionId, this.ctx.clock.now());
  }
}
