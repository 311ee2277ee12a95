// Signed-in customer sessions: POST /v1/sessions/exchange trades an assertion from the store's
// backend for a shopper session with role "customer" and the customer's id (unlocking order and
// return questions).
//
// The assertion is a compact JWS (JWT), alg HS256, signed with the store's exchange secret
// (POST /v1/admin/exchange-secret, shown once), with the claims:
//   iss  the store's id (client_id of the Search API registration)     required
//   aud  "shopsight-assistant"                                           required
//   sub  the store's customer id (1–200 characters)                     required
//   jti  unique id of this assertion (1–200 characters), single use     required
//   iat, exp  issued/expiry (seconds); exp − iat ≤ 300 and exp in the future; iat at most 60 s
//        ahead of our clock                                              required
// A used jti is remembered (in the database, so across processes) until the assertion's expiry.
// A wrong signature, another store's secret, an expired, reused or malformed assertion: 401.
// Exchanges are limited per client address like anonymous minting (MINT_LIMIT, own budget).
import { decodeJwt, jwtVerify } from "jose";
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId, randomSecret } from "../../platform/ids.js";
import type { AccountsRepository } from "../../tenancy/stores/repository.js";
import type { SessionsRepository } from "../sessions/repository.js";
import { mintBudget, newSession, SESSION_TTL_SECONDS } from "../sessions/service.js";
import type { ExchangeRepository } from "./repository.js";
import { iso } from "../../platform/clock.js";
import type { ExchangeSecretInfo } from "./schemas.js";

export const EXCHANGE_AUDIENCE = "shopsight-assistant";
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
export const MAX_IAT_SKEW_SECONDS = 60;
export const SECRET_PREFIX = "exs_";

const secretAad = (storeId: string, id: string): string => `exchange-secret:${storeId}:${id}`;
const invalid = (why: string): AppError => new AppError("unauthorized", `The assertion is not accepted: ${why}.`);

export class ExchangeService {
  private readonly repo: ExchangeRepository;
  private readonly stores: AccountsRepository;
  private readonly sessions: SessionsRepository;
  private readonly exchangeBudget: (clientAddress: string) => Promise<void>;

  constructor(
    private readonly ctx: AppContext,
    deps: { exchange: ExchangeRepository; stores: AccountsRepository; sessions: SessionsRepository },
  ) {
    this.exchangeBudget = mintBudget(ctx, "exchange");
    this.repo = deps.exchange;
    this.stores = deps.stores;
    this.sessions = deps.sessions;
  }

  private info(storeId: string, row: { id: string; secret_prefix: string; created_at: number } | undefined): ExchangeSecretInfo {
    return {
      configured: row !== undefined,
      secret_id: row?.id ?? null,
      secret_prefix: row?.secret_prefix ?? null,
      created_at: row ? iso(row.created_at) : null,
      issuer: storeId,
      audience: EXCHANGE_AUDIENCE,
      algorithm: "HS256",
      max_lifetime_seconds: MAX_ASSERTION_LIFETIME_SECONDS,
    };
  }

  async secretInfo(storeId: string): Promise<ExchangeSecretInfo> {
    return this.info(storeId, await this.repo.activeSecret(storeId));
  }

  /** A new secret (shown once); the previous one stops verifying at once. */
  async rotate(storeId: string, actorUserId: string | null): Promise<ExchangeSecretInfo & { secret: string }> {
    const secret = randomSecret(SECRET_PREFIX, 32);
    const id = prefixedId("exsid");
    const now = this.ctx.clock.now();
    const row = {
      id,
      secret_ciphertext: this.ctx.secrets.seal(secret, secretAad(storeId, id)),
      secret_prefix: secret.slice(0, SECRET_PREFIX.length + 6),
      created_by: actorUserId,
      created_at: now,
      revoked_at: null,
    };
    await this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      await repo.revokeSecrets(storeId, now);
      await repo.insertSecret(storeId, row);
    });
    return { ...this.info(storeId, row), secret };
  }

  async exchange(assertion: string, locale: string | undefined, clientAddress: string) {
    await this.exchangeBudget(clientAddress);
    let claims: ReturnType<typeof decodeJwt>;
    try {
      claims = decodeJwt(assertion);
    } catch {
      throw invalid("not a JWT");
    }
    const storeId = typeof claims.iss === "string" && claims.iss.length <= 100 ? claims.iss : null;
    if (!storeId) throw invalid("iss must name the store");
    const secretRow = await this.repo.activeSecret(storeId);
    if (!secretRow) throw invalid("the store has no exchange secret");
    let secret: string;
    try {
      secret = this.ctx.secrets.open(secretRow.secret_ciphertext, secretAad(storeId, secretRow.id));
    } catch {
      throw new AppError("service_unavailable", "The store's exchange secret cannot be decrypted (was CONNECTOR_ENCRYPTION_KEY changed?).");
    }
    const now = this.ctx.clock.now();
    let payload: Awaited<ReturnType<typeof jwtVerify>>["payload"];
    try {
      ({ payload } = await jwtVerify(assertion, new TextEncoder().encode(secret), {
        algorithms: ["HS256"],
        issuer: storeId,
        audience: EXCHANGE_AUDIENCE,
        currentDate: new Date(now),
        requiredClaims: ["exp", "iat", "jti", "sub"],
      }));
    } catch (e) {
      const code = (e as { code?: string }).code;
      throw invalid(
        code === "ERR_JWT_EXPIRED"
          ? "expired"
          : code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED"
            ? "bad signature"
            : "invalid claims or signature",
      );
    }
    const { exp, iat, jti, sub } = payload as { exp: number; iat: number; jti: unknown; sub: unknown };
    if (exp - iat > MAX_ASSERTION_LIFETIME_SECONDS) throw invalid(`exp − iat exceeds ${MAX_ASSERTION_LIFETIME_SECONDS} seconds`);
    if (iat * 1000 > now + MAX_IAT_SKEW_SECONDS * 1000) throw invalid("issued in the future");
    if (typeof sub !== "string" || sub.length < 1 || sub.length > 200) throw invalid("sub must be the customer id (1–200 characters)");
    if (typeof jti !== "string" || jti.length < 1 || jti.length > 200) throw invalid("jti must be 1–200 characters");
    const store = await this.stores.findStore(storeId);
    if (!store || store.status !== "active") throw invalid("the store is not active");

    const { token, row } = newSession(now, { role: "customer", locale, public_key_id: null, customer_id: sub });
    await this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      await repo.forgetExpiredJtis(storeId, now);
      if (!(await repo.useJti(storeId, jti, exp * 1000))) throw invalid("already used (jti)");
      await this.sessions.with(tx).insertSession(storeId, row);
    });
    return { session_token: token, expires_in: SESSION_TTL_SECONDS, role: "customer" as const, customer_id: sub };
  }
}
