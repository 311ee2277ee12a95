// The storefront gateway: per store, the connected storefront (when a connection is "connected")
// or the embedded Shopsight catalogue, with the spec's catalogue rules applied on top (rules.ts).
import type { AppContext } from "../../context/context.js";
import type { ConnectionRow, ConnectionsRepository } from "./connections-repository.js";
import type { AssistantSettingsService } from "../settings/service.js";
import type { StorefrontRepository } from "./repository.js";
import type { CatalogPort } from "../../shared/catalog-port.js";
import type { CatalogConnector } from "./connector.js";
import { EmbeddedConnector } from "./embedded.js";
import { searchWithRules } from "./rules.js";
import { ShopifyClient, ShopifyConnector } from "./shopify.js";
import { StorefrontUnavailable, type StorefrontGateway } from "./types.js";

export { StorefrontUnavailable } from "./types.js";
export { EMBEDDED_SOURCE } from "./embedded.js";
export { LIVE_READ_LIMIT, NOT_VERIFIED_LIVE } from "./rules.js";
export type { CatalogPort } from "../../shared/catalog-port.js";

/** AAD binding a connection's token envelope to its store and connection. */
export const tokenAad = (storeId: string, connectionId: string): string => `storefront-token:${storeId}:${connectionId}`;

/** What the gateway is built from (src/assistant/compose.ts). */
export interface StorefrontGatewayDeps {
  /** The store's own products (the embedded default when no storefront is connected). */
  catalog: CatalogPort;
  connections: ConnectionsRepository;
  /** The store currency. */
  settings: AssistantSettingsService;
  /** Carts, orders and returns kept by the connectors. */
  storefront: StorefrontRepository;
}

/** The gateway over the store's connected storefront, else its own catalogue. */
export function createStorefrontGateway(ctx: AppContext, deps: StorefrontGatewayDeps): StorefrontGateway {
  const { catalog, connections, settings, storefront } = deps;

  function shopify(storeId: string, conn: ConnectionRow, currency: string): CatalogConnector {
    let token: string | null = null;
    if (conn.token_ciphertext) {
      try {
        token = ctx.secrets.open(conn.token_ciphertext, tokenAad(storeId, conn.id));
      } catch {
        throw new StorefrontUnavailable(
          `storefront:${new URL(conn.store_url).host}`,
          "The storefront credential cannot be decrypted (was CONNECTOR_ENCRYPTION_KEY changed?).",
        );
      }
    }
    return new ShopifyConnector(ctx, storefront, storeId, new ShopifyClient(ctx, conn.store_url, token), conn.shop_currency ?? currency);
  }

  async function connectorFor(storeId: string): Promise<{ connector: CatalogConnector; currency: string }> {
    let conn: ConnectionRow | undefined;
    let currency: string;
    try {
      [conn, { currency }] = await Promise.all([connections.findActive(storeId), settings.get(storeId)]);
    } catch (e) {
      throw new StorefrontUnavailable("shopsight_catalog", `The store's catalogue settings could not be read: ${(e as Error).message}`);
    }
    const connector = conn ? shopify(storeId, conn, currency) : new EmbeddedConnector(ctx, storefront, catalog, storeId, currency);
    return { connector, currency };
  }

  return {
    async search(storeId, query) {
      const { connector, currency } = await connectorFor(storeId);
      return searchWithRules(connector, currency, query);
    },
    async orders(storeId, customerId) {
      return (await connectorFor(storeId)).connector.orders(customerId);
    },
    async runAction(storeId, session, action) {
      return (await connectorFor(storeId)).connector.runAction(session, action);
    },
  };
}
