// The portal's only way to the service: the public Search API, same origin, with the user's
// bearer token. The token lives in memory and sessionStorage (gone when the tab closes); no
// secret is ever stored. A token is refreshed 60 s before it expires, and once on a 401
// token_expired with the request retried (spec: Limits), one refresh in flight at a time.
import type { Item, SearchOk } from "./api-types";

export type Membership = Item<LoginResponse["memberships"]>;

export interface Session {
  access_token: string;
  expires_at: number;
  user_id: string;
  user_name: string;
  email: string;
  is_super_admin: boolean;
  memberships: Membership[];
  redirect: string;
}

export type LoginResponse = SearchOk<"/oauth/login", "post">;

/** An error answer of the API (`{error, message, details}`), or a network failure (`network_error`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly requestId: string | null = null,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

const KEY = "shopsight.portal.session";
let session: Session | null = load();
const listeners = new Set<() => void>();
let refreshing: Promise<void> | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;

function load(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    const s = raw ? (JSON.parse(raw) as Session) : null;
    // A token more than 5 minutes past expiry cannot be refreshed any more.
    return s && s.expires_at + 5 * 60_000 > Date.now() ? s : null;
  } catch {
    return null;
  }
}

function save(next: Session | null) {
  session = next;
  if (next) sessionStorage.setItem(KEY, JSON.stringify(next));
  else sessionStorage.removeItem(KEY);
  schedule();
  for (const l of listeners) l();
}

function schedule() {
  clearTimeout(timer);
  if (!session) return;
  const wait = Math.max(5_000, session.expires_at - Date.now() - 60_000);
  timer = setTimeout(() => void refresh().catch(() => {}), Math.min(wait, 2_147_000_000));
}
schedule();

export const getSession = (): Session | null => session;
export function onSession(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
export function signOut() {
  save(null);
}

async function parseError(res: Response): Promise<ApiError> {
  let body: { error?: string; message?: string; details?: Record<string, unknown> } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // not JSON
  }
  const retry = Number(res.headers.get("retry-after"));
  return new ApiError(
    res.status,
    body.error ?? `http_${res.status}`,
    body.message ?? res.statusText,
    body.details ?? {},
    res.headers.get("x-request-id"),
    Number.isFinite(retry) && retry > 0 ? retry : null,
  );
}

async function send(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(path, init);
  } catch {
    throw new ApiError(0, "network_error", "The service could not be reached.");
  }
}

export async function login(email: string, password: string, totp_code?: string): Promise<Session> {
  const res = await send("/oauth/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password, ...(totp_code ? { totp_code } : {}) }),
  });
  if (!res.ok) throw await parseError(res);
  const body = (await res.json()) as LoginResponse;
  const next: Session = {
    access_token: body.access_token,
    expires_at: Date.now() + body.expires_in * 1000,
    user_id: body.user_id,
    user_name: body.user_name,
    email,
    is_super_admin: body.is_super_admin,
    memberships: body.memberships,
    redirect: body.redirect,
  };
  save(next);
  return next;
}

export function refresh(): Promise<void> {
  refreshing ??= (async () => {
    const current = session;
    if (!current) throw new ApiError(401, "unauthorized", "Not signed in.");
    const res = await send("/oauth/refresh", { method: "POST", headers: { authorization: `Bearer ${current.access_token}` } });
    if (!res.ok) {
      const e = await parseError(res);
      if (res.status === 401) save(null);
      throw e;
    }
    const body = (await res.json()) as { access_token: string; expires_in: number };
    save({ ...current, access_token: body.access_token, expires_at: Date.now() + body.expires_in * 1000 });
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

export interface CallOptions {
  method?: string;
  /** JSON body. */
  body?: unknown;
  /** Multipart body (image upload). */
  form?: FormData;
  /** Store slug sent as X-Service-Active-Tenant. */
  store?: string;
  query?: Record<string, string | number | undefined | null>;
  /** Send without a token (invite acceptance for new users). */
  anonymous?: boolean;
}

/** Calls the API and returns the parsed JSON (null for 204); throws ApiError. */
export async function api<T = unknown>(path: string, options: CallOptions = {}): Promise<T> {
  let url = path;
  if (options.query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(options.query)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
    const s = q.toString();
    if (s) url += `?${s}`;
  }
  const attempt = async (): Promise<Response> => {
    const headers: Record<string, string> = { accept: "application/json" };
    if (!options.anonymous && session) headers.authorization = `Bearer ${session.access_token}`;
    if (options.store) headers["x-service-active-tenant"] = options.store;
    let body: BodyInit | undefined;
    if (options.form) body = options.form;
    else if (options.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.body);
    }
    return send(url, { method: options.method ?? (body ? "POST" : "GET"), headers, ...(body ? { body } : {}) });
  };
  let res = await attempt();
  if (res.status === 401 && !options.anonymous && session) {
    const e = await parseError(res.clone());
    if (e.code === "token_expired") {
      await refresh();
      res = await attempt();
    }
  }
  if (!res.ok) {
    const e = await parseError(res);
    if (res.status === 401 && (e.code === "unauthorized" || e.code === "token_expired") && !options.anonymous) save(null);
    throw e;
  }
  if (res.status === 204) return null as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : null) as T;
}

/** Addresses the Search API announces at `GET /` (the Assistant API's address among them). */
export type ServiceLinks = SearchOk<"/">;
let links: Promise<ServiceLinks> | null = null;
export function serviceLinks(): Promise<ServiceLinks> {
  links ??= api<ServiceLinks>("/", { anonymous: true }).catch((e: unknown) => {
    links = null;
    throw e;
  });
  return links;
}

/**
 * A network failure calling the Assistant API from a page opened at another origin than the
 * portal's configured one is, in practice, the browser refusing the answer: the Assistant API
 * allows only the portal's origin (PUBLIC_BASE_URL). Say that instead of "can't be reached".
 */
function originRefusal(error: unknown, links: ServiceLinks): unknown {
  const configured = new URL(links.portal).origin;
  if (!(error instanceof ApiError) || error.code !== "network_error" || configured === window.location.origin) return error;
  return new ApiError(0, "portal_origin_not_allowed", "The Assistant API did not allow this page's origin.", {
    here: window.location.origin,
    configured,
  });
}

/**
 * Calls the Assistant API's admin routes (/v1/admin/*) with the user's bearer token and the
 * store as X-Service-Active-Tenant. The Assistant API answers problem details
 * (`{code, title, detail, correlation_id}`), turned into the same ApiError as Search API errors.
 */
export async function assistantApi<T = unknown>(path: string, options: { method?: string; body?: unknown; store: string }): Promise<T> {
  const links = await serviceLinks();
  const base = links.assistant_api;
  const attempt = () => {
    const headers: Record<string, string> = { "x-service-active-tenant": options.store, accept: "application/json" };
    if (session) headers.authorization = `Bearer ${session.access_token}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    return send(`${base}${path}`, {
      method: options.method ?? (options.body !== undefined ? "POST" : "GET"),
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  };
  let res = await attempt().catch((e: unknown) => {
    throw originRefusal(e, links);
  });
  if (res.status === 401 && session) {
    await refresh().catch(() => {});
    res = await attempt();
  }
  if (!res.ok) {
    let body: { code?: string; detail?: string; title?: string; correlation_id?: string; details?: Record<string, unknown> } = {};
    try {
      body = (await res.json()) as typeof body;
    } catch {
      // not JSON
    }
    throw new ApiError(
      res.status,
      (body.code ?? `http_${res.status}`).toLowerCase(),
      body.detail ?? body.title ?? res.statusText,
      body.details ?? {},
      body.correlation_id ?? null,
    );
  }
  if (res.status === 204) return null as T;
  return (await res.json()) as T;
}

/** Fetches a protected image (bearer token) and returns an object URL for an <img>, or null. */
export async function imageUrl(path: string, store: string): Promise<string | null> {
  const headers: Record<string, string> = { "x-service-active-tenant": store };
  if (session) headers.authorization = `Bearer ${session.access_token}`;
  try {
    const res = await fetch(path, { headers });
    if (!res.ok) return null;
    return URL.createObjectURL(await res.blob());
  } catch {
    return null;
  }
}
