// API error codes in words a store owner understands. The API's own message is shown beneath as
// detail, with the request id to quote to support.
import { ApiError } from "./api";

type Details = Record<string, unknown>;
const n = (v: unknown) => (typeof v === "number" || typeof v === "string" ? String(v) : "?");

const SENTENCES: Record<string, (d: Details, e: ApiError) => string> = {
  network_error: () => "The service can't be reached. Check your connection and try again.",
  portal_origin_not_allowed: (d) =>
    `This portal is open at ${n(d.here)}, but the Assistant API accepts the portal's calls only from ${n(d.configured)}, the server's PUBLIC_BASE_URL. Open the portal at ${n(d.configured)}, or set PUBLIC_BASE_URL to ${n(d.here)} and restart the server.`,
  request_timeout: () => "The request took too long to send. Try again on a faster connection, or with fewer items at once.",
  queue_limit_reached: (d) =>
    `The store already has ${n(d.queued)} items waiting to be indexed, and its plan allows ${n(d.max)}. Wait for the running imports to finish, send fewer items, or move to a bigger plan under Billing.`,
  validation_failed: (d) => {
    const errors = Array.isArray(d.errors) ? (d.errors as { field?: string; message?: string }[]) : [];
    const list = errors.map((x) => `${x.field ? `${x.field} ` : ""}${x.message ?? ""}`.trim()).filter(Boolean);
    return list.length > 0
      ? `Some fields need fixing: ${list.join("; ")}.`
      : "Some of what you entered isn't valid. Check the fields and try again.";
  },
  unauthorized: () => "Your session has ended or the sign-in details are wrong. Please sign in again.",
  token_expired: () => "Your session has expired. Please sign in again.",
  requires_2fa: () => "This account uses two-factor authentication: enter the 6-digit code from your authenticator app.",
  invalid_2fa: () => "That code didn't work. Codes change every 30 seconds: enter the newest one from your authenticator app.",
  ambiguous_active_store: () => "You belong to several stores. Choose a store first.",
  not_a_member: () => "You are not a member of this store. Choose one of your stores.",
  account_inactive: () => "This store hasn't been activated yet. Open the link in the verification e-mail first.",
  forbidden: () => "Your role in this store doesn't allow this. Ask a store owner.",
  missing_permission: (d) =>
    `Your role doesn't include the permission “${n(d.missing_permission ?? d.missing_scope)}”. Ask a store owner to grant it.`,
  ip_not_allowed: () => "This store only accepts machine credentials from its allowed IP addresses.",
  too_many_requests: (d, e) => `Too many attempts. Wait ${n(d.retry_after ?? e.retryAfter)} seconds, then try again.`,
  rate_limit_exceeded: (d, e) =>
    `Your plan's requests for this minute are used up${d.limit !== undefined ? ` (${n(d.limit)} a minute)` : ""}. Wait ${n(e.retryAfter ?? 60)} seconds, or move to a bigger plan under Billing.`,
  plan_limit_reached: (d) =>
    `Your plan allows ${n(d.limit)} products and the store has ${n(d.current)}. Upgrade the plan under Billing to add more.`,
  not_found: () => "We couldn't find that. It may have been deleted already.",
  route_not_found: () => "This feature isn't available on this server.",
  conflict: () => "That already exists.",
  payload_too_large: () => "The file or request is too large.",
  unsupported_media_type: () => "That kind of file or request isn't accepted here.",
  invalid_url: () => "That isn't a web address we can fetch. Use a full link starting with https://.",
  address_not_allowed: () => "That address points into a private or local network, which the service is not allowed to fetch from.",
  image_unreachable: () => "We couldn't download the image. Check that the link opens in a browser without signing in.",
  image_timeout: () => "Downloading the image took too long. Try a smaller image or a faster host.",
  image_too_large: () => "The image is too large. Use a smaller one.",
  unsupported_image: () => "That file isn't an image we can read. Use JPEG, PNG, WebP, GIF, AVIF or TIFF.",
  invalid_region: () => "The selected area doesn't fit inside the image.",
  model_unavailable: () => "Image understanding isn't running on this server right now, so indexing and search are paused.",
  service_unavailable: () => "The service is busy or restarting. Try again in a moment.",
  plan_unchanged: () => "The store is already on that plan.",
  plan_not_purchasable: () => "The free plan can't be bought: it's where every store starts.",
  checkout_session_used: () => "That checkout was already completed or cancelled.",
  checkout_session_expired: () => "That checkout expired. Start a new one.",
  stripe_not_configured: () => "Payments aren't set up on this server. Ask the platform administrator.",
  payment_provider_error: () => "The payment provider didn't answer. Try again in a few minutes.",
  invalid_totp_setup: () => "Two-factor authentication isn't in the right state for this. Reload the page and start again.",
  invalid_invite: () => "This invite link isn't valid. Check you copied all of it.",
  invite_expired: () => "This invite has expired. Ask the store owner for a new one.",
  invite_cancelled: () => "This invite was cancelled. Ask the store owner for a new one.",
  invite_already_used: () => "This invite has already been accepted. Sign in instead.",
  last_owner: () => "A store must keep at least one owner. Make someone else owner first.",
  purchase_fields_only: () => "Order value and currency belong to purchases only.",
  origin_not_allowed: () => "That website isn't on the key's list of allowed origins.",
  gone: () => "This feature has moved to a newer version of the API.",
  internal_error: () => "Something went wrong on our side. Try again; if it keeps happening, contact support with the request id.",
};

export interface Explained {
  title: string;
  detail: string | null;
  requestId: string | null;
}

export function explain(error: unknown): Explained {
  if (error instanceof ApiError) {
    const sentence = SENTENCES[error.code];
    const title = sentence
      ? sentence(error.details, error)
      : error.status >= 500
        ? SENTENCES.internal_error!(error.details, error)
        : `The request was refused (${error.status}).`;
    return { title, detail: error.message && error.message !== title ? error.message : null, requestId: error.requestId };
  }
  return {
    title: "Something unexpected happened in the portal.",
    detail: error instanceof Error ? error.message : String(error),
    requestId: null,
  };
}
