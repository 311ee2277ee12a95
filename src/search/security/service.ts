// GET /v1/security/overview: one read of the store's security posture — 2FA per member, active
// API keys (never secrets), the IP allow-list, recent failed logins (auth_events "login_failed")
// and the last client-secret rotation (stores.secret_rotated_at).
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { AccountsRepository } from "../../tenancy/stores/repository.js";
import { apiKeyView } from "../api-keys/service.js";
import { allowlistView } from "../ip-allowlist/service.js";
import { SecurityRepository } from "../../tenancy/security/repository.js";
import { ROLES } from "../../tenancy/permissions.js";
import { iso } from "../../platform/clock.js";

/** Failed logins are reported for this window, at most FAILED_LOGINS_SHOWN of them. */
export const FAILED_LOGIN_WINDOW_HOURS = 24 * 7;
export const FAILED_LOGINS_SHOWN = 20;

export class SecurityOverviewService {
  private readonly repo: SecurityRepository;
  private readonly accounts: AccountsRepository;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: SecurityRepository; accounts: AccountsRepository },
  ) {
    this.repo = deps.repo;
    this.accounts = deps.accounts;
  }

  async overview(storeId: string) {
    const now = this.ctx.clock.now();
    const since = now - FAILED_LOGIN_WINDOW_HOURS * 3600_000;
    const store = await this.accounts.findStore(storeId);
    if (!store) throw new AppError("not_found");
    const [members, keys, allowlist, failed, failedCount] = await Promise.all([
      this.repo.membersTwoFactor(storeId),
      this.repo.listActiveApiKeys(storeId, now),
      this.repo.listAllowlist(storeId),
      this.repo.failedLogins(storeId, since, FAILED_LOGINS_SHOWN),
      this.repo.countFailedLogins(storeId, since),
    ]);
    return {
      client_id: store.id,
      slug: store.slug,
      two_factor: {
        enabled_count: members.filter((m) => m.totp_enabled === 1).length,
        member_count: members.length,
        users: [...members]
          .sort((x, y) => ROLES.indexOf(x.role) - ROLES.indexOf(y.role) || x.email.localeCompare(y.email))
          .map((m) => ({
            user_id: m.user_id,
            email: m.email,
            full_name: m.full_name,
            role: m.role,
            enabled: m.totp_enabled === 1,
          })),
      },
      api_keys: keys.map((k) => apiKeyView(k, now)),
      ip_whitelist: {
        enforced: allowlist.length > 0,
        entries: allowlist.map(allowlistView),
      },
      failed_logins: {
        window_hours: FAILED_LOGIN_WINDOW_HOURS,
        count: failedCount,
        recent: failed.map((e) => ({
          at: iso(e.created_at),
          kind: e.store_id === storeId && e.user_id === null ? ("machine_grant" as const) : ("user_login" as const),
          identity: e.identity,
          user_id: e.user_id,
          ip: e.ip,
        })),
      },
      last_secret_rotation: iso(store.secret_rotated_at),
    };
  }
}
