// HTML of the local hosted checkout (TEST MODE) and of the return page after a Stripe checkout.
// Plain server-rendered pages: no script, every interpolated value escaped.
import type { Plan } from "../../tenancy/plans.js";
import { iso } from "../../platform/clock.js";

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** Headers of every page: no framing (clickjacking of the purchase button), no caching, no referrer (the URL carries the session id). */
export const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

const STYLE = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1f2328}
.banner{background:#fff3cd;border:2px solid #b58100;color:#5c4200;padding:.75rem 1rem;font-weight:700;letter-spacing:.03em}
.card{border:1px solid #d0d7de;border-radius:8px;padding:1rem 1.25rem;margin:1.25rem 0}
.price{font-size:1.6rem;font-weight:700}
form{display:inline-block;margin-right:.75rem}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:6px;border:1px solid #8c959f;cursor:pointer}
button.primary{background:#1f6feb;color:#fff;border-color:#1f6feb}
.muted{color:#57606a;font-size:.9rem}`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>`;
}

const TEST_BANNER = `<div class="banner" role="alert">TEST MODE — local checkout. No payment is taken and no card is charged.</div>`;

const limit = (n: number | null, unit: string) => (n === null ? `unlimited ${unit}` : `${n.toLocaleString("en-US")} ${unit}`);

export function checkoutPage(input: { sessionId: string; storeName: string; plan: Plan; expiresAt: number }): string {
  const { plan } = input;
  const base = `/billing/checkout/${encodeURIComponent(input.sessionId)}`;
  return layout(
    `TEST MODE checkout: ${plan.plan_name} plan`,
    `${TEST_BANNER}
<h1>Upgrade to ${escapeHtml(plan.plan_name)}</h1>
<div class="card">
<p>Store: <strong>${escapeHtml(input.storeName)}</strong></p>
<p class="price">$${plan.price_per_month.toFixed(2)} <span class="muted">per month (USD)</span></p>
<ul><li>${limit(plan.max_products, "products")}</li><li>${limit(plan.requests_per_minute, "requests per minute")}</li></ul>
</div>
<form method="post" action="${base}/complete"><button class="primary" type="submit">Complete purchase</button></form>
<form method="post" action="${base}/cancel"><button type="submit">Cancel</button></form>
<p class="muted">This link works once and expires at ${iso(input.expiresAt)}.</p>`,
  );
}

export function completedPage(storeName: string, plan: Plan): string {
  return layout(
    "TEST MODE checkout: purchase complete",
    `${TEST_BANNER}
<h1>Purchase complete</h1>
<p>Store <strong>${escapeHtml(storeName)}</strong> is now on the <strong>${escapeHtml(plan.plan_name)}</strong> plan.
The new limits apply at once. You can close this page.</p>`,
  );
}

export function cancelledPage(plan: Plan): string {
  return layout(
    "TEST MODE checkout: cancelled",
    `${TEST_BANNER}
<h1>Checkout cancelled</h1>
<p>Nothing changed: the ${escapeHtml(plan.plan_name)} plan was not purchased. You can close this page.</p>`,
  );
}

export function errorPage(status: number, code: string, message: string, testMode: boolean): string {
  return layout(
    "Checkout unavailable",
    `${testMode ? TEST_BANNER : ""}
<h1>This checkout cannot continue</h1>
<p>${escapeHtml(message)}</p>
<p class="muted">Error ${status} (${escapeHtml(code)}). Start a new checkout from your account.</p>`,
  );
}

export function returnPage(result: "success" | "cancel"): string {
  return result === "success"
    ? layout(
        "Payment received",
        `<h1>Thank you</h1><p>Your payment was received. The new plan applies as soon as Stripe confirms it, usually within seconds. You can close this page.</p>`,
      )
    : layout("Checkout cancelled", `<h1>Checkout cancelled</h1><p>Nothing changed. You can close this page.</p>`);
}
