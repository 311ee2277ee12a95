// Anonymous shopper sessions and chat threads.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId, randomSecret, sha256 } from "../../platform/ids.js";
import type { AccountsRepository } from "../../tenancy/stores/repository.js";
import { SESSION_TOKEN_PREFIX, type ShopperSession } from "../http/auth.js";
import type { PublicKeysService } from "../public-keys/service.js";
import type { SessionRow, SessionsRepository, ThreadRow } from "./repository.js";
import type { ChatRepository } from "../threads/repository.js";
import type { Answer } from "../answers/schemas.js";
import { iso } from "../../platform/clock.js";
import type { Transcript, TranscriptMessage } from "./schemas.js";

/** Lifetime of a shopper session token (spec sample: 3600). */
export const SESSION_TTL_SECONDS = 3600;
/** Anonymous sessions one client address may mint per window (refused, never queued). */
export const MINT_LIMIT = { points: 20, durationSec: 60 } as const;
export const DEFAULT_LOCALE = "en";

/**
 * A new shopper session (anonymous or exchanged customer): its bearer token (ast_…, shown once)
 * and the row to insert (only the token's SHA-256 is kept), valid SESSION_TTL_SECONDS from `now`.
 */
export function newSession(
  now: number,
  fields: Pick<SessionRow, "role" | "public_key_id" | "customer_id"> & { locale: string | undefined },
): { token: string; row: Omit<SessionRow, "store_id"> } {
  const token = randomSecret(SESSION_TOKEN_PREFIX, 32);
  const row = {
    id: prefixedId("ses"),
    token_hash: sha256(token),
    role: fields.role,
    locale: fields.locale ?? null,
    public_key_id: fields.public_key_id,
    customer_id: fields.customer_id,
    created_at: now,
    expires_at: now + SESSION_TTL_SECONDS * 1000,
    revoked_at: null,
    revoke_reason: null,
  };
  return { token, row };
}

/**
 * The per-client-address budget of session minting (MINT_LIMIT), one for anonymous sessions and
 * one for exchanges: the returned function throws 429 RATE_LIMITED naming the window once spent.
 */
export function mintBudget(ctx: AppContext, kind: "anonymous" | "exchange"): (clientAddress: string) => Promise<void> {
  const limiter = ctx.limiters({ name: kind === "anonymous" ? "assistant-session-mint" : "assistant-session-exchange", ...MINT_LIMIT });
  const window = kind === "anonymous" ? "session_mint_per_client_address" : "session_exchange_per_client_address";
  return async (clientAddress) => {
    const budget = await limiter.consume(clientAddress);
    if (budget.allowed) return;
    throw new AppError(
      "rate_limit_exceeded",
      `At most ${MINT_LIMIT.points} ${kind === "anonymous" ? "sessions may be minted" : "assertions may be exchanged"} per ${MINT_LIMIT.durationSec} seconds from one client address.`,
      { limit: MINT_LIMIT.points, window, window_seconds: MINT_LIMIT.durationSec, retry_after: budget.retryAfterSec },
      { "retry-after": String(budget.retryAfterSec) },
    );
  };
}

/** What SessionsService is built from (src/assistant/compose.ts). */
export interface SessionsDeps {
  sessions: SessionsRepository;
  /** Resolves the widget's public key to its store. */
  keys: PublicKeysService;
  stores: AccountsRepository;
  /** The threads' turns, read for the transcript. */
  turns: ChatRepository;
}

export class SessionsService {
  private readonly repo: SessionsRepository;
  private readonly keys: PublicKeysService;
  private readonly stores: AccountsRepository;
  private readonly mintBudget: (clientAddress: string) => Promise<void>;
  private readonly turns: ChatRepository;

  constructor(
    private readonly ctx: AppContext,
    deps: SessionsDeps,
  ) {
    this.repo = deps.sessions;
    this.keys = deps.keys;
    this.stores = deps.stores;
    this.turns = deps.turns;
    this.mintBudget = mintBudget(ctx, "anonymous");
  }

  async mintAnonymous(publicKey: string, locale: string | undefined, clientAddress: string) {
    await this.mintBudget(clientAddress);
    const key = await this.keys.resolve(publicKey);
    const store = await this.stores.findStore(key.store_id);
    if (!store || store.status !== "active") throw new AppError("unauthorized", "The store is not active.");
    const { token, row } = newSession(this.ctx.clock.now(), { role: "anonymous", locale, public_key_id: key.id, customer_id: null });
    await this.repo.insertSession(key.store_id, row);
    return { session_token: token, expires_in: SESSION_TTL_SECONDS, role: "anonymous" as const };
  }

  async revoke(session: ShopperSession, reason: string): Promise<void> {
    await this.repo.revokeSession(session.storeId, session.id, this.ctx.clock.now(), reason);
  }

  async createThread(session: ShopperSession, locale: string | undefined): Promise<{ thread_id: string }> {
    const id = prefixedId("thr");
    await this.repo.insertThread(session.storeId, {
      id,
      session_id: session.id,
      locale: locale ?? session.locale ?? DEFAULT_LOCALE,
      created_at: this.ctx.clock.now(),
    });
    return { thread_id: id };
  }

  /** The thread, only when it belongs to this session (another session's or store's: 404). */
  async thread(session: ShopperSession, threadId: string): Promise<ThreadRow> {
    const row = await this.repo.findThread(session.storeId, session.id, threadId);
    if (!row) throw new AppError("not_found", "No such thread in this session.");
    return row;
  }

  async transcript(session: ShopperSession, threadId: string): Promise<Transcript> {
    const row = await this.thread(session, threadId);
    const messages: TranscriptMessage[] = [];
    for (const turn of await this.turns.listTurns(session.storeId, row.id)) {
      messages.push({
        role: "user",
        turn_id: turn.id,
        text: turn.user_text,
        created_at: iso(turn.created_at),
        outcome: null,
        answer: null,
      });
      if (turn.status === "completed" && turn.answer !== null) {
        const answer = JSON.parse(turn.answer) as Answer;
        messages.push({
          role: "assistant",
          turn_id: turn.id,
          text: answer.response_markdown,
          created_at: iso(turn.completed_at ?? turn.created_at),
          outcome: turn.outcome,
          answer,
        });
      }
    }
    return { thread_id: row.id, locale: row.locale, created_at: iso(row.created_at), messages };
  }
}
