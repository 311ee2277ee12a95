// The error catalogue: every error a client can see, with its HTTP status, stable code and
// default message. Services throw `AppError` with a code from here; each API's error handler
// presents it in that API's shape (Search: {error, message, details}; Assistant: problem details
// with an upper-case `code`). `reportable` marks errors worth logging at error level.

export interface CatalogueEntry {
  status: number;
  message: string;
  reportable?: boolean;
  /** The Assistant API's code where it differs from the upper-cased Search code. */
  assistantCode?: string;
}

export const catalogue = {
  // --- request shape
  validation_failed: { status: 400, message: "The request is invalid." },
  unsupported_media_type: { status: 415, message: "This content type is not accepted here; send application/json." },
  payload_too_large: { status: 413, message: "The request body is too large." },
  uri_too_long: { status: 414, message: "A path segment is longer than 100 characters; ids and slugs are shorter." },
  request_timeout: {
    status: 408,
    message:
      "The request did not arrive in time: the server waits HTTP_REQUEST_TIMEOUT_MS for a whole request (headers and body). Send the body at once; for large imports send smaller batches.",
  },
  headers_too_large: { status: 431, message: "The request headers are too large; send fewer or shorter headers." },
  not_found: { status: 404, message: "No such resource." },
  route_not_found: { status: 404, message: "No such route.", assistantCode: "NOT_FOUND" },
  method_not_allowed: { status: 405, message: "Method not allowed." },
  conflict: { status: 409, message: "The resource already exists." },
  gone: { status: 410, message: "This endpoint has been replaced." },
  unprocessable: { status: 422, message: "The request cannot be processed as given." },

  // --- authentication (spec: Errors)
  unauthorized: { status: 401, message: "Invalid credentials.", assistantCode: "UNAUTHENTICATED" },
  token_expired: { status: 401, message: "The access token has expired." },
  requires_2fa: { status: 401, message: "Two-factor authentication code required." },
  invalid_2fa: { status: 401, message: "The two-factor authentication code did not verify." },
  ambiguous_active_store: {
    status: 401,
    message: "You belong to several stores: send the X-Service-Active-Tenant header naming the store slug.",
  },
  account_inactive: { status: 403, message: "The account has not been verified yet." },
  forbidden: { status: 403, message: "You may not do that." },
  not_a_member: { status: 403, message: "You are not a member of that store." },
  missing_permission: { status: 403, message: "A required permission is missing." },
  invalid_verification_token: { status: 400, message: "The verification link is invalid or has already been used." },
  invalid_totp_setup: { status: 400, message: "Two-factor authentication is not in a state that allows this." },

  // --- limits
  rate_limit_exceeded: { status: 429, message: "Rate limit exceeded.", assistantCode: "RATE_LIMITED" },
  too_many_requests: { status: 429, message: "Too many attempts; try again later." },
  queue_limit_reached: {
    status: 429,
    message: "The store has as many bulk items waiting as its plan allows; wait for its jobs to finish or upgrade the plan.",
  },

  // --- images and outbound fetches (src/platform/outbound, src/embeddings)
  invalid_url: { status: 400, message: "The URL is not a valid http(s) URL." },
  address_not_allowed: { status: 400, message: "The URL resolves to an address that may not be fetched." },
  image_unreachable: { status: 422, message: "The image could not be downloaded." },
  image_timeout: { status: 422, message: "Downloading the image took too long." },
  image_too_large: { status: 413, message: "The image is too large." },
  unsupported_image: { status: 415, message: "The file is not a supported image (JPEG, PNG, WebP, GIF, AVIF or TIFF)." },
  invalid_region: { status: 400, message: "The crop region does not fit the image." },
  model_unavailable: { status: 503, message: "The embedding model is not loaded.", reportable: true },

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

  // --- security, team, users (API keys, IP allow-list, invites, groups)
  ip_not_allowed: { status: 403, message: "Requests from this address are not allowed for this store." },
  invalid_invite: { status: 404, message: "The invite link is invalid." },
  invite_expired: { status: 410, message: "The invite has expired; ask for a new one." },
  invite_cancelled: { status: 410, message: "The invite was cancelled; ask for a new one." },
  invite_already_used: { status: 409, message: "The invite has already been accepted." },
  last_owner: { status: 409, message: "A store needs at least one owner." },

  // --- feedback and widget (src/search/feedback, src/search/widget)
  purchase_fields_only: { status: 422, message: "order_value and currency are only accepted when action is purchase." },
  origin_not_allowed: { status: 403, message: "This origin is not allowed to use the widget key." },

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

  // --- dependencies
  service_unavailable: { status: 503, message: "A dependency is unavailable; try again shortly.", reportable: true },
  internal_error: { status: 500, message: "Something went wrong on our side.", reportable: true },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof catalogue;

export class AppError extends Error {
  override name = "AppError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string>;

  /** `options.cause`: what went wrong inside, for the log only (never in the response). */
  constructor(
    code: ErrorCode,
    message?: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
    options?: { cause?: unknown },
  ) {
    const entry: CatalogueEntry = catalogue[code];
    super(message ?? entry.message, options);
    this.code = code;
    this.status = entry.status;
    this.details = details;
    this.headers = headers;
  }

  get reportable(): boolean {
    return (catalogue[this.code] as CatalogueEntry).reportable === true;
  }

  get assistantCode(): string {
    return (catalogue[this.code] as CatalogueEntry).assistantCode ?? this.code.toUpperCase();
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/** The message of a thrown value, whatever was thrown. */
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
