// Team invites (spec: Team invite; States: Invite; Authentication 8).
//   invite  → pending invite with a single-use token (256 random bits, SHA-256 at rest), valid
//             7 days; the e-mail carries the accept link; only owners and super admins invite;
//   accept  → new user: user + membership + invite marked accepted in one transaction;
//             existing user: with that user's bearer, membership added; the invite's e-mail must
//             be the signed-in user's;
//   cancel  → pending → cancelled; no resend exists: a fresh invite gets a new token.
// A used, cancelled or expired token answers a distinct 4xx (invite_already_used 409,
// invite_cancelled 410, invite_expired 410); an unknown one invalid_invite 404.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId, randomSecret, sha256, uuid } from "../../platform/ids.js";
import { hashPassword, passwordProblem } from "../../platform/auth/passwords.js";
import type { Role } from "../../db/schema.js";
import type { Tx } from "../../platform/db/index.js";
import { AccountsRepository } from "../../tenancy/stores/repository.js";
import { UsersRepository } from "../../tenancy/users/repository.js";
import { TeamRepository, type InviteRow } from "./repository.js";
import { iso } from "../../platform/clock.js";
import { throttle, type Limiter } from "../../platform/rate-limit.js";
import "../errors/codes.js"; // registers the error codes thrown here

/** Budgets of invite acceptance (docs/api-search.md "Throttles"). */
export const ACCEPT_LIMITS = {
  perAddress: { name: "invite-accept-ip", points: 20, durationSec: 3600 },
  perEmail: { name: "invite-accept-email", points: 5, durationSec: 3600 },
} as const;

export const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;
/** The page the e-mailed link opens; it posts the token to POST /v1/team/invites/accept. */
export const INVITE_ACCEPT_PATH = "/portal/accept-invite";

export interface InviteInput {
  email: string;
  role: Role;
}

export interface AcceptInput {
  token: string;
  password?: string | undefined;
  full_name?: string | undefined;
}

function stateError(invite: InviteRow, now: number): AppError | undefined {
  if (invite.accepted_at !== null) return new AppError("invite_already_used");
  if (invite.cancelled_at !== null) return new AppError("invite_cancelled");
  if (invite.expires_at <= now) return new AppError("invite_expired", undefined, { expired_at: iso(invite.expires_at) });
  return undefined;
}

export function inviteView(i: InviteRow) {
  return {
    invite_id: i.id,
    email: i.email,
    role: i.role,
    invited_by: i.invited_by,
    created_at: iso(i.created_at),
    expires_at: iso(i.expires_at),
  };
}

export class TeamService {
  private readonly repo: TeamRepository;
  private readonly accounts: AccountsRepository;
  private readonly users: UsersRepository;

  private readonly acceptPerAddress: Limiter;
  private readonly acceptPerEmail: Limiter;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: TeamRepository; accounts: AccountsRepository; users: UsersRepository },
  ) {
    this.repo = deps.repo;
    this.accounts = deps.accounts;
    this.users = deps.users;
    this.acceptPerAddress = ctx.limiters(ACCEPT_LIMITS.perAddress);
    this.acceptPerEmail = ctx.limiters(ACCEPT_LIMITS.perEmail);
  }

  /** POST /v1/team/invite. The caller (owner or super admin) was checked by the route. */
  async invite(storeId: string, inviterUserId: string, input: InviteInput) {
    const email = input.email.trim().toLowerCase();
    const now = this.ctx.clock.now();
    const store = await this.accounts.findStore(storeId);
    if (!store) throw new AppError("not_found");
    const existing = await this.accounts.findUserByEmail(email);
    if (existing && (await this.users.findMember(storeId, existing.id))) {
      throw new AppError("conflict", `${email} is already a member of this store.`, { email });
    }
    if (await this.repo.findPendingForEmail(storeId, email, now)) {
      throw new AppError("conflict", `A pending invite for ${email} exists; cancel it to send a new one.`, { email });
    }
    const token = randomSecret("", 32);
    const invite: Omit<InviteRow, "store_id"> = {
      id: prefixedId("inv"),
      email,
      role: input.role,
      token_hash: sha256(token),
      invited_by: inviterUserId,
      created_at: now,
      expires_at: now + INVITE_TTL_MS,
      accepted_at: null,
      accepted_by: null,
      cancelled_at: null,
    };
    await this.repo.createInvite(storeId, invite);
    const inviter = await this.accounts.findUser(inviterUserId);
    const link = `${this.ctx.config.publicBaseUrl}${INVITE_ACCEPT_PATH}?token=${encodeURIComponent(token)}`;
    let emailSent = true;
    try {
      await this.ctx.mailer.send({
        to: email,
        subject: `You are invited to join ${store.name} on Shopsight`,
        text:
          `${inviter?.full_name || inviter?.email || "An administrator"} invited you to join the store "${store.name}" on Shopsight as ${input.role}.\n\n` +
          `Accept the invitation (single use, valid until ${iso(invite.expires_at)}):\n${link}\n\n` +
          (existing
            ? `You already have a Shopsight account: sign in as ${email} first, then open the link.\n`
            : `Opening the link lets you choose your name and password.\n`) +
          `\nFrom a program: POST ${this.ctx.config.publicBaseUrl}/v1/team/invites/accept with the token.\n` +
          `If you did not expect this invitation, ignore this message.\n`,
      });
    } catch {
      emailSent = false;
    }
    return {
      invite_id: invite.id,
      email,
      role: input.role,
      is_existing_user: existing !== undefined,
      expires_at: iso(invite.expires_at),
      email_sent: emailSent,
    };
  }

  async listPending(storeId: string) {
    return (await this.repo.listPending(storeId, this.ctx.clock.now())).map(inviteView);
  }

  /** DELETE /v1/team/invites/{invite_id}. */
  async cancel(storeId: string, inviteId: string) {
    const now = this.ctx.clock.now();
    const invite = await this.repo.findInvite(storeId, inviteId);
    if (!invite) throw new AppError("not_found", `No invite ${inviteId} in this store.`);
    const problem = stateError(invite, now);
    if (problem) throw problem;
    if (!(await this.repo.cancel(storeId, inviteId, now))) {
      throw stateError((await this.repo.findInvite(storeId, inviteId))!, now) ?? new AppError("conflict");
    }
    return { invite_id: inviteId, status: "cancelled" as const, cancelled_at: iso(now) };
  }

  /** POST /v1/team/invites/accept: `signedInUserId` is the bearer's user, if one was sent. */
  async accept(input: AcceptInput, signedInUserId: string | null, ip: string) {
    // Every attempt counts per client address (token guessing); a found invite also per its e-mail.
    await throttle("invite acceptances", [{ limiter: this.acceptPerAddress, key: ip, scope: "client_address" }]);
    const now = this.ctx.clock.now();
    const invite = await this.repo.findByTokenHash(sha256(input.token));
    if (!invite) throw new AppError("invalid_invite");
    await throttle("invite acceptances", [{ limiter: this.acceptPerEmail, key: invite.email, scope: "email" }]);
    const problem = stateError(invite, now);
    if (problem) throw problem;
    const store = await this.accounts.findStore(invite.store_id);
    if (!store || store.status !== "active") throw new AppError("invalid_invite");

    if (signedInUserId !== null) {
      if (input.password !== undefined || input.full_name !== undefined) {
        throw new AppError("validation_failed", "Signed in: send only the token.", {
          errors: [{ field: input.password !== undefined ? "password" : "full_name", message: "is not accepted with a bearer" }],
        });
      }
      const user = await this.accounts.findUser(signedInUserId);
      if (!user) throw new AppError("unauthorized");
      if (user.email !== invite.email) {
        throw new AppError("forbidden", "This invite was sent to another e-mail address; sign in as that user.");
      }
      if (await this.users.findMember(invite.store_id, user.id)) {
        throw new AppError("conflict", "You are already a member of this store.");
      }
      await this.ctx.database.transaction(async (tx) => {
        await this.claim(tx, invite, user.id, now);
        await this.accounts.with(tx).addMembership(invite.store_id, user.id, invite.role, now);
      });
      return this.accepted(store, user.id, invite, false);
    }

    if (input.password === undefined || input.full_name === undefined) {
      const field = input.password === undefined ? "password" : "full_name";
      throw new AppError(
        "validation_failed",
        "A new user sends token, password and full_name; an existing user sends the token with their bearer.",
        { errors: [{ field, message: "is required without a bearer" }] },
      );
    }
    const problemPw = passwordProblem(input.password);
    if (problemPw) throw new AppError("validation_failed", problemPw, { errors: [{ field: "password", message: problemPw }] });
    if (await this.accounts.findUserByEmail(invite.email)) {
      throw new AppError("conflict", `${invite.email} already has an account: sign in and accept with your bearer.`);
    }
    const passwordHash = await hashPassword(input.password);
    const userId = uuid();
    await this.ctx.database.transaction(async (tx) => {
      await this.claim(tx, invite, userId, now, async () => {
        await this.accounts.with(tx).createUser(userId, {
          email: invite.email,
          password_hash: passwordHash,
          full_name: input.full_name!.trim(),
          is_super_admin: 0,
          created_at: now,
        });
      });
      await this.accounts.with(tx).addMembership(invite.store_id, userId, invite.role, now);
    });
    return this.accepted(store, userId, invite, true);
  }

  /** Marks the invite accepted inside `tx`; a concurrent accept or cancel loses here. */
  private async claim(tx: Tx, invite: InviteRow, userId: string, now: number, before?: () => Promise<void>) {
    // The user row must exist before accepted_by references it.
    if (before) await before();
    if (!(await this.repo.with(tx).markAccepted(invite.store_id, invite.id, userId, now))) {
      const fresh = await this.repo.with(tx).findInvite(invite.store_id, invite.id);
      throw (fresh && stateError(fresh, now)) ?? new AppError("invalid_invite");
    }
  }

  private accepted(store: { id: string; slug: string; name: string }, userId: string, invite: InviteRow, isNewUser: boolean) {
    return {
      client_id: store.id,
      slug: store.slug,
      store_name: store.name,
      user_id: userId,
      email: invite.email,
      role: invite.role,
      is_new_user: isNewUser,
    };
  }
}
