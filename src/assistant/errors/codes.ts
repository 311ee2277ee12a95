// The Assistant API's own error codes (consent confirmations, storefront connection and
// reads), registered in the catalogue (src/platform/errors/catalogue.ts). Modules that throw
// them import this one.
import { registerErrors, type CatalogueEntry } from "../../platform/errors/catalogue.js";

export const assistantErrorCodes = registerErrors({
  // --- assistant chat (src/assistant/chat)
  confirmation_invalid: {
    status: 409,
    message: "The confirmation is stale, expired, already used or not bound to this session; ask again for a fresh preview.",
    assistantCode: "CONFIRMATION_INVALID",
  },
  // --- assistant storefront, connections, catalogue search, exchange (src/assistant/storefront, connections, catalog, exchange)
  storefront_unavailable: {
    status: 503,
    message: "The store's catalogue could not be read right now; try again shortly.",
    reportable: true,
    assistantCode: "STOREFRONT_UNAVAILABLE",
  },
  storefront_token_rejected: {
    status: 422,
    message: "The storefront rejected the private token; nothing was kept.",
    assistantCode: "STOREFRONT_TOKEN_REJECTED",
  },
  storefront_unreachable: {
    status: 422,
    message: "The store URL could not be read as a storefront; nothing was kept.",
    assistantCode: "STOREFRONT_UNREACHABLE",
  },
} as const satisfies Record<string, CatalogueEntry>);

declare module "../../platform/errors/catalogue.js" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- names this layer's codes (see catalogue.ts)
  interface ErrorCodes extends Record<keyof typeof assistantErrorCodes, CatalogueEntry> {}
}
