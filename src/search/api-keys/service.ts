// Scoped API keys (spec: Security records; issue 7).
//   create → `sk_live_` + 256 random bits, shown once, stored as SHA-256; scopes {area: [action]}
//            map to permission names; a user may only grant scopes it holds itself;
//   list   → every key of the store with its status, never the secret;
//   revoke → the key stops working at once (401 on its next use).
// Presented as `Authorization: Bearer sk_live_…` on /v1/* calls (see src/tenancy/authenticate.ts).
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId, randomSecret, sha256 } from "../../platform/ids.js";
import { API_KEY_PREFIX } from "../../tenancy/authenticate.js";
import {
  firstMissing,
  missingPermission,
  permissionsToScopes,
  scopesToPermissions,
  type Grant,
  type ScopesInput,
} from "../../tenancy/permissions.js";
import { SecurityRepository, type ApiKeyRow, type ApiKeyWithCreator } from "../../tenancy/security/repository.js";
import { iso } from "../../platform/clock.js";

const DAY_MS = 86_400_000;
export const API_KEY_DEFAULT_DAYS = 90;
export const API_KEY_MAX_DAYS = 365;
export const API_KEY_MAX_ACTIVE = 50;

export interface CreateApiKeyInput {
  name: string;
  scopes: ScopesInput;
  expires_in_days?: number | undefined;
}

export interface Actor {
  userId: string | null;
  grant: Grant;
}

export type ApiKeyStatus = "active" | "expired" | "revoked";

export function apiKeyView(row: ApiKeyWithCreator, now: number) {
  const status: ApiKeyStatus = row.revoked_at !== null ? "revoked" : row.expires_at <= now ? "expired" : "active";
  return {
    id: row.id,
    name: row.name,
    prefix: row.key_prefix,
    scopes: permissionsToScopes(JSON.parse(row.scopes) as string[]),
    status,
    created_at: iso(row.created_at),
    expires_at: iso(row.expires_at),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
    created_by: row.created_by === null ? null : { user_id: row.created_by, email: row.creator_email, name: row.creator_name },
  };
}

export class ApiKeysService {
  private readonly repo: SecurityRepository;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: SecurityRepository },
  ) {
    this.repo = deps.repo;
  }

  async create(storeId: string, actor: Actor, input: CreateApiKeyInput) {
    const permissions = scopesToPermissions(input.scopes);
    if (permissions.length === 0) {
      throw new AppError("validation_failed", "An API key needs at least one scope.", {
        errors: [{ field: "scopes", message: "must grant at least one action" }],
      });
    }
    // Nobody hands out more than they hold.
    const missing = firstMissing(actor.grant, permissions);
    if (missing) throw missingPermission(missing, false);
    const now = this.ctx.clock.now();
    if ((await this.repo.listActiveApiKeys(storeId, now)).length >= API_KEY_MAX_ACTIVE) {
      throw new AppError("unprocessable", `A store may have at most ${API_KEY_MAX_ACTIVE} active API keys; revoke one first.`);
    }
    const key = randomSecret(API_KEY_PREFIX, 32);
    const row: Omit<ApiKeyRow, "store_id"> = {
      id: prefixedId("key"),
      name: input.name.trim(),
      key_hash: sha256(key),
      key_prefix: key.slice(0, API_KEY_PREFIX.length + 8),
      scopes: JSON.stringify(permissions),
      created_by: actor.userId,
      created_at: now,
      expires_at: now + (input.expires_in_days ?? API_KEY_DEFAULT_DAYS) * DAY_MS,
      last_used_at: null,
      revoked_at: null,
    };
    await this.repo.createApiKey(storeId, row);
    const created = await this.repo.findApiKey(storeId, row.id);
    return { ...apiKeyView(created ?? { ...row, store_id: storeId, creator_email: null, creator_name: null }, now), key };
  }

  async list(storeId: string) {
    const now = this.ctx.clock.now();
    return (await this.repo.listApiKeys(storeId)).map((r) => apiKeyView(r, now));
  }

  /** Revokes the key; revoking a revoked key again is harmless and answers its current state. */
  async revoke(storeId: string, keyId: string) {
    const now = this.ctx.clock.now();
    await this.repo.revokeApiKey(storeId, keyId, now);
    const row = await this.repo.findApiKey(storeId, keyId);
    if (!row) throw new AppError("not_found", `No API key ${keyId} in this store.`);
    return apiKeyView(row, now);
  }
}
