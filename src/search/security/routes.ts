// /v1/security/* (spec: Security (Bearer)): 2FA per user, client-secret rotation, scoped API
// keys, the IP allow-list and the security overview per store.
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { bearerSecurity } from "../../platform/http/schemas.js";
import { searchErrors } from "../http/schemas.js";
import { actorUserIdOf, requireRole, storeOf, userIdOf } from "../../tenancy/authenticate.js";
import { API_KEY_SCOPE_AREAS, storeRoute } from "../../tenancy/permissions.js";
import { API_KEY_DEFAULT_DAYS, API_KEY_MAX_DAYS } from "./api-keys.js";
import { FAILED_LOGIN_WINDOW_HOURS } from "./overview.js";
import type { AccountsService } from "../accounts/service.js";
import type { ApiKeysService } from "./api-keys.js";
import type { IpAllowlistService } from "./ip-allowlist.js";
import type { SecurityOverviewService } from "./overview.js";
import type { TwoFactorService } from "./service.js";

const TotpBody = Type.Object(
  { totp_code: Type.String({ pattern: "^[0-9]{6}$", description: "6-digit code from the authenticator app" }) },
  { additionalProperties: false },
);
const TwoFactorState = Type.Object({ enabled: Type.Boolean() });
const tags = ["security"];
const DateTime = Type.String({ format: "date-time" });
const NullableDate = Type.Union([DateTime, Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);

/** `{area: [action, …]}` with the areas and actions an API key may carry. */
const ScopesInput = Type.Object(
  Object.fromEntries(
    Object.entries(API_KEY_SCOPE_AREAS).map(([area, actions]) => [
      area,
      Type.Optional(Type.Array(Type.Union(actions.map((a) => Type.Literal(a))), { minItems: 1, uniqueItems: true })),
    ]),
  ),
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Area → actions, e.g. {"products": ["read", "write"], "search": ["execute"]}; each pair is the permission area:action',
  },
);
const ScopesOutput = Type.Record(Type.String(), Type.Array(Type.String()));

const ApiKeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: "The first characters of the key, to recognise it" }),
  scopes: ScopesOutput,
  status: Type.Union([Type.Literal("active"), Type.Literal("expired"), Type.Literal("revoked")]),
  created_at: DateTime,
  expires_at: DateTime,
  last_used_at: NullableDate,
  revoked_at: NullableDate,
  created_by: Type.Union(
    [
      Type.Object({
        user_id: Type.String(),
        email: Type.Union([Type.String(), Type.Null()], { description: "null when the user account no longer exists" }),
        name: Type.Union([Type.String(), Type.Null()]),
      }),
      Type.Null(),
    ],
    {
      description:
        "The user who created the key; null when it was created with the store's machine grant. Removing a member from the store revokes the keys they created.",
    },
  ),
});

const AllowlistEntry = Type.Object({
  id: Type.String(),
  ip_address: Type.String({ description: "Canonical address or network/prefix" }),
  description: Type.String(),
  created_at: DateTime,
});

const Overview = Type.Object({
  client_id: Type.String({ format: "uuid" }),
  slug: Type.String(),
  two_factor: Type.Object({
    enabled_count: Type.Integer(),
    member_count: Type.Integer(),
    users: Type.Array(
      Type.Object({
        user_id: Type.String(),
        email: Type.String(),
        full_name: Type.String(),
        role: Type.String(),
        enabled: Type.Boolean(),
      }),
    ),
  }),
  api_keys: Type.Array(ApiKeyView, { description: "Active keys (neither revoked nor expired); never the secret" }),
  ip_whitelist: Type.Object({
    enforced: Type.Boolean({ description: "true when the list is non-empty" }),
    entries: Type.Array(AllowlistEntry),
  }),
  failed_logins: Type.Object({
    window_hours: Type.Integer(),
    count: Type.Integer(),
    recent: Type.Array(
      Type.Object({
        at: DateTime,
        kind: Type.Union([Type.Literal("machine_grant"), Type.Literal("user_login")]),
        identity: NullableString,
        user_id: NullableString,
        ip: NullableString,
      }),
    ),
  }),
  last_secret_rotation: NullableDate,
});

const KeyParams = Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
const EntryParams = Type.Object({ entry_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

export async function securityRoutes(
  app: App,
  {
    twoFactor,
    accounts,
    apiKeys,
    ipAllowlist: allowlist,
    securityOverview: overview,
  }: {
    accounts: AccountsService;
    apiKeys: ApiKeysService;
    ipAllowlist: IpAllowlistService;
    securityOverview: SecurityOverviewService;
    twoFactor: TwoFactorService;
  },
) {
  app.post(
    "/v1/security/2fa/setup",
    {
      config: { auth: "user" },
      schema: {
        tags: ["security"],
        summary: "Start 2FA setup: a new secret and a QR code (data: URL) of its otpauth:// link",
        security: bearerSecurity,
        response: {
          200: Type.Object({ secret: Type.String(), otpauth_url: Type.String(), qr_code_url: Type.String() }),
          ...searchErrors(400, 401, 403),
        },
      },
    },
    async (request) => twoFactor.setup(userIdOf(request)),
  );

  app.post(
    "/v1/security/2fa/enable",
    {
      config: { auth: "user" },
      schema: {
        tags: ["security"],
        summary: "Enable 2FA with a code from the secret returned by setup",
        security: bearerSecurity,
        body: TotpBody,
        response: { 200: TwoFactorState, ...searchErrors(400, 401, 403) },
      },
    },
    async (request) => twoFactor.enable(userIdOf(request), request.body.totp_code),
  );

  app.post(
    "/v1/security/2fa/disable",
    {
      config: { auth: "user" },
      schema: {
        tags: ["security"],
        summary: "Disable 2FA; needs a current code",
        security: bearerSecurity,
        body: TotpBody,
        response: { 200: TwoFactorState, ...searchErrors(400, 401, 403) },
      },
    },
    async (request) => twoFactor.disable(userIdOf(request), request.body.totp_code),
  );

  app.get(
    "/v1/security/2fa/status",
    {
      config: { auth: "user" },
      schema: {
        tags: ["security"],
        summary: "Whether 2FA is enabled for the signed-in user",
        security: bearerSecurity,
        response: {
          200: Type.Object({ enabled: Type.Boolean(), pending_setup: Type.Boolean() }),
          ...searchErrors(401, 403),
        },
      },
    },
    async (request) => twoFactor.status(userIdOf(request)),
  );

  app.post(
    "/v1/security/client-secret/rotate",
    storeRoute(requireRole("owner", "admin"), {
      tags: ["security"],
      summary:
        "Generate a new client secret (shown once); the old one stops working at once, and so does every machine token issued before the rotation",
      response: {
        200: Type.Object({
          client_id: Type.String({ format: "uuid" }),
          client_secret: Type.String(),
          rotated_at: Type.String({ format: "date-time" }),
        }),
        ...searchErrors(401, 403),
      },
    }),
    async (request) => {
      const store = storeOf(request);
      return accounts.rotateClientSecret(store.id, actorUserIdOf(request), request.ip);
    },
  );

  // --- scoped API keys
  app.post(
    "/v1/security/api-keys",
    storeRoute("security:write", {
      tags,
      summary: "Create a scoped API key; the secret `key` (sk_live_…) is returned this once",
      description:
        "Use it as `Authorization: Bearer sk_live_…` on /v1/* calls; it may do only what its scopes allow (403 missing_permission naming the scope otherwise). A user may grant only permissions it holds. security:write and team:write are never API-key scopes.",
      body: Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 100 }),
          scopes: ScopesInput,
          expires_in_days: Type.Optional(
            Type.Integer({ minimum: 1, maximum: API_KEY_MAX_DAYS, description: `Default ${API_KEY_DEFAULT_DAYS}` }),
          ),
        },
        { additionalProperties: false },
      ),
      response: {
        201: Type.Object({ ...ApiKeyView.properties, key: Type.String({ description: "The secret, shown this once" }) }),
        ...searchErrors(400, 401, 403, 422),
      },
    }),
    async (request, reply) => {
      const store = storeOf(request);
      const created = await apiKeys.create(store.id, { userId: actorUserIdOf(request), grant: store.permissions }, request.body);
      return reply.status(201).send(created);
    },
  );

  app.get(
    "/v1/security/api-keys",
    storeRoute("security:read", {
      tags,
      summary: "The store's API keys, newest first, with their status (never the secret)",
      response: { 200: Type.Array(ApiKeyView), ...searchErrors(401, 403) },
    }),
    async (request) => apiKeys.list(storeOf(request).id),
  );

  app.delete(
    "/v1/security/api-keys/:key_id",
    storeRoute("security:write", {
      tags,
      summary: "Revoke an API key; its next use is 401",
      params: KeyParams,
      response: { 200: ApiKeyView, ...searchErrors(401, 403, 404) },
    }),
    async (request) => apiKeys.revoke(storeOf(request).id, request.params.key_id),
  );

  // --- IP allow-list
  app.post(
    "/v1/security/ip-whitelist",
    storeRoute("security:write", {
      tags,
      summary: "Add an address or CIDR range to the IP allow-list",
      description:
        "While the list is non-empty, machine grants (/oauth/token and their tokens) and API keys of the store are refused from other client addresses with 403 ip_not_allowed. User logins are not restricted.",
      body: Type.Object(
        {
          ip_address: Type.String({
            minLength: 2,
            maxLength: 64,
            description: "IPv4 or IPv6 address, or CIDR range such as 203.0.113.0/24",
          }),
          description: Type.Optional(Type.String({ maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
      response: { 201: AllowlistEntry, ...searchErrors(400, 401, 403, 409, 422) },
    }),
    async (request, reply) => reply.status(201).send(await allowlist.add(storeOf(request).id, actorUserIdOf(request), request.body)),
  );

  app.get(
    "/v1/security/ip-whitelist",
    storeRoute("security:read", {
      tags,
      summary: "The store's IP allow-list (empty: no restriction)",
      response: { 200: Type.Array(AllowlistEntry), ...searchErrors(401, 403) },
    }),
    async (request) => allowlist.list(storeOf(request).id),
  );

  app.delete(
    "/v1/security/ip-whitelist/:entry_id",
    storeRoute("security:write", {
      tags,
      summary: "Remove an entry from the IP allow-list",
      params: EntryParams,
      response: { 200: Type.Object({ deleted: Type.Literal(true), id: Type.String() }), ...searchErrors(401, 403, 404) },
    }),
    async (request) => allowlist.remove(storeOf(request).id, request.params.entry_id),
  );

  // --- overview
  app.get(
    "/v1/security/overview",
    storeRoute("security:read", {
      tags,
      summary: `2FA per member, active API keys, the IP allow-list, failed logins of the last ${FAILED_LOGIN_WINDOW_HOURS} hours and the last secret rotation`,
      response: { 200: Overview, ...searchErrors(401, 403) },
    }),
    async (request) => overview.overview(storeOf(request).id),
  );
}
