// Web origins of widget keys (spec: Authentication 3 — "an allow-list of exact origins").
// An origin is scheme + host + port, nothing else: `https://shop.example`, `http://127.0.0.1:8080`.
// Both the stored allow-list and the request's `Origin` header are reduced to the canonical form
// browsers send (lower-case scheme and host, IDN hosts in punycode, default port omitted), then
// compared as strings: `https://shop.example` never matches `http://shop.example`,
// `https://www.shop.example` or `https://shop.example:8443`.

/** The canonical origin of `value`, or null when it is not a plain http(s) origin. */
export function canonicalOrigin(value: string | undefined | null): string | null {
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (text.length === 0 || text.length > 300 || text === "null") return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password || url.search || url.hash) return null;
  // One trailing slash is accepted (`https://shop.example/`); any other path is not an origin.
  if (url.pathname !== "/" && url.pathname !== "") return null;
  if (!url.hostname || url.hostname.includes("*")) return null;
  return url.origin;
}

/** Why `value` is not an accepted origin (for validation messages). */
export function originProblem(value: string): string {
  return `"${value}" is not an origin: give scheme, host and optional port only, e.g. https://shop.example or http://localhost:3000`;
}
