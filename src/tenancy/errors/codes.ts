// The error codes of the core both APIs share (authentication of a store member, permissions,
// the IP allow-list), registered in the catalogue (src/platform/errors/catalogue.ts).
import { registerErrors, type CatalogueEntry } from "../../platform/errors/catalogue.js";

export const tenancyErrors = registerErrors({
  ambiguous_active_store: {
    status: 401,
    message: "You belong to several stores: send the X-Service-Active-Tenant header naming the store slug.",
  },
  not_a_member: { status: 403, message: "You are not a member of that store." },
  missing_permission: { status: 403, message: "A required permission is missing." },
  // --- security, team, users (API keys, IP allow-list, invites, groups)
  ip_not_allowed: { status: 403, message: "Requests from this address are not allowed for this store." },
} as const satisfies Record<string, CatalogueEntry>);

declare module "../../platform/errors/catalogue.js" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- names this layer's codes (see catalogue.ts)
  interface ErrorCodes extends Record<keyof typeof tenancyErrors, CatalogueEntry> {}
}
