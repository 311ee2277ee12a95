// Token grants (spec: Authentication 1, 2, 4, 5; Limits).
//   machine grant: client_id + client_secret → token with sub = store id, user_type "client";
//   user login: e-mail + password (+ TOTP when enabled) → token with sub = user id;
//   refresh: a valid bearer, or one expired at most 5 minutes ago → new token, old jti revoked.
// Throttles: login 10/min and refresh 30/min per IP; failed attempts 5 per e-mail or 10 per
// client_id within 15 minutes (reset on success) → 429 too_many_requests.
import { authenticator } from "otplib";
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { sha256, safeEqual, uuid } from "../../platform/ids.js";
import { secretAad } from "../../db/sealed-columns.js";
import { verifyPassword } from "../../platform/auth/passwords.js";
import type { AccessClaims, ClaimsInput, IssuedToken } from "../../platform/auth/tokens.js";
import { tooManyRequests, type Limiter } from "../../platform/rate-limit.js";
import { planOf } from "../../tenancy/plans.js";
import { AccountsRepository, type MembershipRow, type StoreRow } from "../../tenancy/stores/repository.js";
import { SecurityRepository } from "../../tenancy/security/repository.js";
import { ipAllowedForStore, ipNotAllowed } from "../../tenancy/security/allowlist.js";
import { issuedBeforeRotation } from "../../tenancy/authenticate.js";
import { iso } from "../../platform/clock.js";
import "../../tenancy/errors/codes.js"; // registers the error codes thrown here
import "../errors/codes.js"; // registers the error codes thrown here

export const REFRESH_GRACE_SECONDS = 300;

const TOTP_STEP_MS = 30_000;

/** The 30 s time-step `code` belongs to for `secret` at the context's clock (one step of drift either way), or null. */
function totpStep(ctx: AppContext, secret: string, code: string): number | null {
  const now = ctx.clock.now();
  const totp = authenticator.clone({ epoch: now, window: 1 });
  try {
    const delta = totp.checkDelta(code, secret);
    return delta === null ? null : Math.floor(now / TOTP_STEP_MS) + delta;
  } catch {
    return null;
  }
}

/**
 * The one TOTP check of login, 2FA enable and 2FA disable: the code must match the user's
 * (sealed) secret and belong to a later time-step than the last code that verified for this
 * user, which it then becomes — so a code verifies at most once, and neither it nor an older
 * neighbouring code can be replayed.
 */
export async function consumeTotp(
  ctx: AppContext,
  repo: AccountsRepository,
  user: { id: string; totp_secret: string | null },
  code: string,
): Promise<boolean> {
  if (!user.totp_secret) return false;
  const step = totpStep(ctx, openTotpSecret(ctx, user.id, user.totp_secret), code);
  return step !== null && (await repo.claimTotpStep(user.id, step));
}

export const sealTotpSecret = (ctx: AppContext, userId: string, secret: string): string => ctx.secrets.seal(secret, secretAad.totp(userId));

const openTotpSecret = (ctx: AppContext, userId: string, sealed: string): string => ctx.secrets.open(sealed, secretAad.totp(userId));

export class AuthService {
  private readonly repo: AccountsRepository;
  private readonly security: SecurityRepository;
  private readonly loginPerIp: Limiter;
  private readonly refreshPerIp: Limiter;
  private readonly failuresPerEmail: Limiter;
  private readonly failuresPerClient: Limiter;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: AccountsRepository; security: SecurityRepository },
  ) {
    this.repo = deps.repo;
    this.security = deps.security;
    this.loginPerIp = ctx.limiters({ name: "login-ip", points: 10, durationSec: 60 });
    this.refreshPerIp = ctx.limiters({ name: "refresh-ip", points: 30, durationSec: 60 });
    this.failuresPerEmail = ctx.limiters({ name: "fail-email", points: 5, durationSec: 900 });
    this.failuresPerClient = ctx.limiters({ name: "fail-client", points: 10, durationSec: 900 });
  }

  // --- machine grant
  async clientCredentials(clientId: string, clientSecret: string, ip: string): Promise<IssuedToken> {
    await this.refuseWhenExhausted(this.failuresPerClient, clientId);
    const store = isUuid(clientId) ? await this.repo.findStore(clientId) : undefined;
    // The IP allow-list is checked before the secret: from an address outside the list the grant
    // is refused whatever secret is sent, so the endpoint is no secret-guessing oracle there.
    if (store && store.status === "active" && !(await ipAllowedForStore(this.security, store.id, ip))) {
      throw ipNotAllowed(ip);
    }
    const ok =
      store !== undefined &&
      store.status === "active" &&
      store.client_secret_hash !== null &&
      safeEqual(store.client_secret_hash, sha256(clientSecret));
    if (!ok) {
      await this.failuresPerClient.consume(clientId);
      if (store) await this.recordFailure(store.id, null, clientId, ip);
      throw new AppError("unauthorized");
    }
    await this.failuresPerClient.reset(clientId);
    return this.ctx.signer.issue(this.clientClaims(store));
  }

  // --- user login
  async login(email: string, password: string, totpCode: string | undefined, ip: string) {
    const ipBudget = await this.loginPerIp.consume(ip);
    if (!ipBudget.allowed) throw tooManyRequests(ipBudget);
    const identity = email.trim().toLowerCase();
    await this.refuseWhenExhausted(this.failuresPerEmail, identity);

    const user = await this.repo.findUserByEmail(identity);
    const passwordOk = await verifyPassword(user?.password_hash, password);
    if (!user || !passwordOk) {
      await this.failuresPerEmail.consume(identity);
      await this.recordFailure(null, user?.id ?? null, identity, ip);
      throw new AppError("unauthorized");
    }
    // The second factor is looked at only once the password verified.
    if (user.totp_enabled === 1 && user.totp_secret) {
      if (!totpCode) throw new AppError("requires_2fa", undefined, { requires_2fa: true });
      if (!(await consumeTotp(this.ctx, this.repo, user, totpCode))) {
        await this.failuresPerEmail.consume(identity);
        await this.recordFailure(null, user.id, identity, ip);
        throw new AppError("invalid_2fa");
      }
    }
    await this.failuresPerEmail.reset(identity);

    const all = await this.repo.membershipsOfUser(user.id);
    const memberships = all.filter((m) => m.status === "active");
    const isSuperAdmin = user.is_super_admin === 1;
    if (memberships.length === 0 && !isSuperAdmin) {
      // Only a store still waiting for its e-mail verification calls for verifying; a user
      // removed from every store has nothing to verify.
      if (all.length > 0) throw new AppError("account_inactive", "Verify your e-mail address before signing in.");
      throw new AppError("not_a_member", "No active store membership: ask a store owner to invite you again.");
    }
    const now = this.ctx.clock.now();
    const only = memberships.length === 1 ? memberships[0] : undefined;
    if (only) await this.repo.touchMembership(only.client_id, user.id, now);
    const token = await this.ctx.signer.issue(this.userClaims(user.id, isSuperAdmin, memberships));
    const redirect = isSuperAdmin ? "/admin" : only ? `/${only.slug}/portal` : "/portal/select-store";
    return {
      access_token: token.access_token,
      token_type: token.token_type,
      expires_in: token.expires_in,
      user_type: "user" as const,
      user_id: user.id,
      user_name: user.full_name,
      is_super_admin: isSuperAdmin,
      memberships: memberships.map((m) => ({
        client_id: m.client_id,
        slug: m.slug,
        name: m.name,
        role: m.role,
        plan: m.plan,
        last_used_at: only === m ? iso(now) : iso(m.last_used_at),
      })),
      redirect,
      ...(only ? { client_name: only.name } : {}),
    };
  }

  // --- refresh
  async refresh(bearer: string | undefined, ip: string): Promise<IssuedToken> {
    const budget = await this.refreshPerIp.consume(ip);
    if (!budget.allowed) throw tooManyRequests(budget);
    if (!bearer) throw new AppError("unauthorized", "A bearer token is required.");
    let claims: AccessClaims;
    try {
      claims = await this.ctx.signer.verify(bearer, REFRESH_GRACE_SECONDS);
    } catch {
      // Past the grace window (or invalid): the caller must obtain a new grant.
      throw new AppError("unauthorized", "The token cannot be refreshed; obtain a new grant.");
    }
    // The revocation must outlive the refresh grace, or housekeeping would forget it while the
    // token could still be refreshed.
    if (!(await this.ctx.revocations.revoke(claims.jti, (claims.exp + REFRESH_GRACE_SECONDS) * 1000))) {
      throw new AppError("unauthorized", "The token has been revoked.");
    }
    if (claims.user_type === "client") {
      const store = await this.repo.findStore(claims.sub);
      if (!store || store.status !== "active") throw new AppError("unauthorized");
      if (issuedBeforeRotation(claims, store)) {
        throw new AppError("unauthorized", "The client secret was rotated after this token was issued; obtain a new grant.");
      }
      return this.ctx.signer.issue(this.clientClaims(store));
    }
    const user = await this.repo.findUser(claims.sub);
    if (!user) throw new AppError("unauthorized");
    const memberships = (await this.repo.membershipsOfUser(user.id)).filter((m) => m.status === "active");
    return this.ctx.signer.issue(this.userClaims(user.id, user.is_super_admin === 1, memberships));
  }

  // --- claims
  private clientClaims(store: StoreRow): ClaimsInput {
    const plan = planOf(store.plan);
    return {
      sub: store.id,
      user_type: "client",
      memberships: [],
      is_super_admin: false,
      plan: plan.plan_name,
      rate_limit: plan.requests_per_minute,
    };
  }

  private userClaims(userId: string, isSuperAdmin: boolean, memberships: MembershipRow[]): ClaimsInput {
    const only = memberships.length === 1 ? planOf(memberships[0]!.plan) : undefined;
    return {
      sub: userId,
      user_type: "user",
      user_id: userId,
      memberships: memberships.map((m) => ({ client_id: m.client_id, slug: m.slug, role: m.role })),
      is_super_admin: isSuperAdmin,
      ...(only ? { plan: only.plan_name, rate_limit: only.requests_per_minute } : {}),
    };
  }

  private async refuseWhenExhausted(limiter: Limiter, key: string): Promise<void> {
    const state = await limiter.peek(key);
    if (!state.allowed) throw tooManyRequests(state);
  }

  private async recordFailure(storeId: string | null, userId: string | null, identity: string, ip: string) {
    await this.repo.recordAuthEvent(storeId, {
      id: uuid(),
      user_id: userId,
      kind: "login_failed",
      identity,
      ip,
      created_at: this.ctx.clock.now(),
    });
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID.test(s);
