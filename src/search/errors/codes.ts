// The Search API's own error codes (accounts and 2FA, bulk limits, billing, invites, team,
// feedback, widget), registered in the catalogue (src/platform/errors/catalogue.ts). Modules
// that throw them import this one, so the codes are known wherever they can be thrown.
import { registerErrors, type CatalogueEntry } from "../../platform/errors/catalogue.js";

export const searchErrorCodes = registerErrors({
  requires_2fa: { status: 401, message: "Two-factor authentication code required." },
  invalid_2fa: { status: 401, message: "The two-factor authentication code did not verify." },
  account_inactive: { status: 403, message: "The account has not been verified yet." },
  invalid_verification_token: { status: 400, message: "The verification link is invalid or has already been used." },
  invalid_totp_setup: { status: 400, message: "Two-factor authentication is not in a state that allows this." },
  queue_limit_reached: {
    status: 429,
    message: "The store has as many bulk items waiting as its plan allows; wait for its jobs to finish or upgrade the plan.",
  },
  // --- products and jobs
  plan_limit_reached: { status: 403, message: "The plan's product limit is reached." },
  // --- billing
  plan_unchanged: { status: 409, message: "The store is already on this plan." },
  billing_disabled: {
    status: 409,
    message:
      "Billing is off on this server (BILLING_MODE=off): plans are not sold here. An operator changes a store's plan with `npm run cli -- plan set --store SLUG --plan NAME`.",
  },
  plan_not_purchasable: { status: 400, message: "Checkout is for the paid plans basic, premium and enterprise." },
  checkout_session_used: { status: 409, message: "This checkout session has already been completed or cancelled." },
  checkout_session_expired: { status: 410, message: "This checkout session has expired; start a new checkout." },
  invalid_signature: { status: 400, message: "The Stripe signature did not verify." },
  stripe_not_configured: { status: 503, message: "Stripe billing is not configured on this server.", reportable: true },
  payment_provider_error: { status: 502, message: "The payment provider could not be reached; try again shortly.", reportable: true },
  invalid_invite: { status: 404, message: "The invite link is invalid." },
  invite_expired: { status: 410, message: "The invite has expired; ask for a new one." },
  invite_cancelled: { status: 410, message: "The invite was cancelled; ask for a new one." },
  invite_already_used: { status: 409, message: "The invite has already been accepted." },
  last_owner: { status: 409, message: "A store needs at least one owner." },
  // --- feedback and widget (src/search/feedback, src/search/widget)
  purchase_fields_only: { status: 422, message: "order_value and currency are only accepted when action is purchase." },
  origin_not_allowed: { status: 403, message: "This origin is not allowed to use the widget key." },
} as const satisfies Record<string, CatalogueEntry>);

declare module "../../platform/errors/catalogue.js" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- names this layer's codes (see catalogue.ts)
  interface ErrorCodes extends Record<keyof typeof searchErrorCodes, CatalogueEntry> {}
}
