// Registration, e-mail verification and client-secret rotation.
//   register → inactive store + owner user + membership, verification mail (one transaction,
//   mail sent after commit); verify → store active, client secret shown once (stored as SHA-256);
//   rotate → new secret, the old one stops working at once;
//   resend → a new verification link for a store still waiting for it (same answer either way).
// Sign-ups and resends are throttled per client address and per e-mail (SIGNUP_LIMITS): each
// writes a mail, so an unthrottled form is a mail cannon.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { randomSecret, sha256, uuid } from "../../platform/ids.js";
import { hashPassword, passwordProblem } from "../../platform/auth/passwords.js";
import { AccountsRepository } from "../../tenancy/stores/repository.js";
import { iso } from "../../platform/clock.js";
import { throttle, type Limiter } from "../../platform/rate-limit.js";
import "../errors/codes.js"; // registers the error codes thrown here

const VERIFICATION_TTL_MS = 48 * 3600 * 1000;

/** Budgets of the mail-writing account routes (docs/api-search.md "Throttles"). */
export const SIGNUP_LIMITS = {
  registerPerAddress: { name: "register-ip", points: 10, durationSec: 3600 },
  registerPerEmail: { name: "register-email", points: 3, durationSec: 3600 },
  resendPerAddress: { name: "resend-ip", points: 10, durationSec: 3600 },
  resendPerEmail: { name: "resend-email", points: 3, durationSec: 3600 },
} as const;

export interface RegisterInput {
  client_name: string;
  email: string;
  password: string;
}

export function slugify(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    // An apostrophe joins the parts of a word ("Lena's" → "lenas"); other non-letters separate words.
    .replace(/['’ʼ`]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return base.length >= 2 ? base : `store-${base}`.replace(/-$/, "");
}

export class AccountsService {
  private readonly repo: AccountsRepository;
  private readonly limits: { [K in keyof typeof SIGNUP_LIMITS]: Limiter };

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: AccountsRepository },
  ) {
    this.repo = deps.repo;
    const l = SIGNUP_LIMITS;
    this.limits = {
      registerPerAddress: ctx.limiters(l.registerPerAddress),
      registerPerEmail: ctx.limiters(l.registerPerEmail),
      resendPerAddress: ctx.limiters(l.resendPerAddress),
      resendPerEmail: ctx.limiters(l.resendPerEmail),
    };
  }

  async register(input: RegisterInput, ip: string) {
    const problem = passwordProblem(input.password);
    if (problem) throw new AppError("validation_failed", problem, { errors: [{ field: "password", message: problem }] });
    const email = input.email.trim().toLowerCase();
    await throttle("sign-ups", [
      { limiter: this.limits.registerPerAddress, key: ip, scope: "client_address" },
      { limiter: this.limits.registerPerEmail, key: email, scope: "email" },
    ]);
    if (await this.repo.findUserByEmail(email)) {
      throw new AppError("conflict", "An account with this e-mail address already exists.");
    }
    const passwordHash = await hashPassword(input.password);
    const now = this.ctx.clock.now();
    const storeId = uuid();
    const userId = uuid();
    const token = randomSecret("", 32);
    const slug = await this.uniqueSlug(slugify(input.client_name));
    await this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      await repo.createStore(storeId, {
        slug,
        name: input.client_name.trim(),
        status: "inactive",
        plan: this.ctx.config.billing.defaultPlan,
        client_secret_hash: null,
        secret_rotated_at: null,
        created_at: now,
        updated_at: now,
      });
      await repo.createUser(userId, {
        email,
        password_hash: passwordHash,
        full_name: input.client_name.trim(),
        is_super_admin: 0,
        created_at: now,
      });
      await repo.addMembership(storeId, userId, "owner", now);
      await repo.createVerificationToken(storeId, sha256(token), now + VERIFICATION_TTL_MS, now);
    });
    await this.sendVerification(email, input.client_name.trim(), token);
    return { client_id: storeId, slug, status: "inactive" as const, email, verification_sent: true };
  }

  /**
   * A new verification link for a store still waiting for its e-mail to be verified, owned by
   * `email`. The answer is the same whether or not there is one, so it tells nobody which
   * addresses have accounts; earlier links stay valid until they expire.
   */
  async resendVerification(rawEmail: string, ip: string) {
    const email = rawEmail.trim().toLowerCase();
    await throttle("verification e-mails", [
      { limiter: this.limits.resendPerAddress, key: ip, scope: "client_address" },
      { limiter: this.limits.resendPerEmail, key: email, scope: "email" },
    ]);
    const user = await this.repo.findUserByEmail(email);
    const waiting = user
      ? (await this.repo.membershipsOfUser(user.id)).find((m) => m.status === "inactive" && m.role === "owner")
      : undefined;
    if (waiting) {
      const now = this.ctx.clock.now();
      const token = randomSecret("", 32);
      await this.repo.createVerificationToken(waiting.client_id, sha256(token), now + VERIFICATION_TTL_MS, now);
      await this.sendVerification(email, waiting.name, token);
    }
    return {
      email,
      message: "If a store waiting for verification is registered with this address, a new link (valid 48 hours) is on its way.",
    };
  }

  private async sendVerification(email: string, storeName: string, token: string): Promise<void> {
    const link = `${this.ctx.config.publicBaseUrl}/verify?token=${encodeURIComponent(token)}`;
    await this.ctx.mailer.send({
      to: email,
      subject: "Verify your Shopsight account",
      text: `Welcome to Shopsight, ${storeName}.\n\nOpen this link to activate your store (valid 48 hours):\n${link}\n\nYour client secret is shown once on that page.\n`,
    });
  }

  async verify(token: string) {
    const now = this.ctx.clock.now();
    const secret = randomSecret("cs_", 32);
    const storeId = await this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      const id = await repo.consumeVerificationToken(sha256(token), now);
      if (!id) throw new AppError("invalid_verification_token");
      await repo.activateStore(id, sha256(secret), now);
      return id;
    });
    return { client_id: storeId, client_secret: secret, status: "active" as const };
  }

  async rotateClientSecret(storeId: string, actorUserId: string | null, ip: string | null) {
    const now = this.ctx.clock.now();
    const secret = randomSecret("cs_", 32);
    await this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      await repo.setClientSecret(storeId, sha256(secret), now);
      await repo.recordAuthEvent(storeId, {
        id: uuid(),
        user_id: actorUserId,
        kind: "client_secret_rotated",
        identity: storeId,
        ip,
        created_at: now,
      });
    });
    return { client_id: storeId, client_secret: secret, rotated_at: iso(now) };
  }

  /** A platform administrator (spec: is_super_admin); created from the command line only. */
  async createSuperAdmin(email: string, password: string) {
    const problem = passwordProblem(password);
    if (problem) throw new AppError("validation_failed", problem);
    const normalised = email.trim().toLowerCase();
    if (await this.repo.findUserByEmail(normalised)) {
      throw new AppError("conflict", "An account with this e-mail address already exists.");
    }
    const userId = uuid();
    await this.repo.createUser(userId, {
      email: normalised,
      password_hash: await hashPassword(password),
      full_name: "Platform administrator",
      is_super_admin: 1,
      created_at: this.ctx.clock.now(),
    });
    return { user_id: userId, email: normalised, is_super_admin: true };
  }

  private async uniqueSlug(base: string): Promise<string> {
    for (let i = 1; ; i++) {
      const slug = i === 1 ? base : `${base}-${i}`;
      if (!(await this.repo.slugExists(slug))) return slug;
    }
  }
}
