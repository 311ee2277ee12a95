// The chat turn: limits, routing (Knowledge.classify), grounded composition, the thread's event
// log, and consent-gated actions (confirm / cancel).
//
// A turn is two steps so that streaming can refuse before any 200 header goes out:
//   begin()  — thread ownership (404), per-session, per-thread and per-store limits (429), a
//              concurrency lease, the user's message persisted as a running turn;
//   run()    — events appended to the thread's log in order (each one handed to `onEvent` as it
//              is persisted), the answer composed, the turn completed, the lease released.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId } from "../../platform/ids.js";
import type { Limiter } from "../../platform/rate-limit.js";
import type { Lease, Semaphore } from "../../platform/concurrency.js";
import type { AccountsRepository } from "../../tenancy/stores/repository.js";
import { planOf, type PlanName } from "../../tenancy/plans.js";
import type { ShopperSession } from "../http/auth.js";
import type { TurnAgent } from "../agent/index.js";
import { KnowledgeUnavailable, type Grounded, type Knowledge } from "../knowledge/types.js";
import type { AssistantSettingsService } from "../settings/service.js";
import { StorefrontUnavailable, type ActionName, type StorefrontGateway } from "../storefront/types.js";
import type { SessionsService } from "../sessions/service.js";
import type { ThreadRow } from "../sessions/repository.js";
import { chunkText, composeAnswer } from "../answers/compose.js";
import { chatLang, T } from "../answers/i18n.js";
import { threadContext } from "../knowledge/classify.js";
import {
  CONTEXT_MESSAGES,
  INTENT_TTL_MS,
  MAX_REPLAY_EVENTS,
  PLAN_TURN_LIMITS,
  SESSION_LIMITS,
  TURN_LEASE_MS,
  WINDOW_MS,
} from "../turns/limits.js";
import { cartTurn } from "../turns/cart.js";
import { ordersTurn } from "../turns/orders.js";
import { handoffTurn, policyTurn } from "../turns/policy.js";
import { asksAvailability, mayNameProduct, namedProduct, namedProductTurn, productsTurn } from "../turns/products.js";
import { EVENT, type Emit, type TurnHandle, type TurnReply, type TurnTools } from "../turns/tools.js";
import "../errors/codes.js"; // registers the error codes thrown here

export { EVENT, type TurnHandle } from "../turns/tools.js";
import type { ChatRepository, EventRow, IntentRow } from "../threads/repository.js";
import type { NextAction } from "../answers/schemas.js";
import type { CancelResult, ChatEvent, ConfirmResult, Replay, TurnResult } from "./schemas.js";
import { iso } from "../../platform/clock.js";

/** What ChatService is built from (src/assistant/compose.ts builds each once; tests may swap knowledge and agent). */
export interface ChatDeps {
  /** The threads' turns, event log and action intents. */
  threads: ChatRepository;
  /** Thread ownership (404 for another session's thread). */
  sessions: SessionsService;
  /** The store's plan, for the per-store turn limits. */
  stores: AccountsRepository;
  settings: AssistantSettingsService;
  /** The grounding engine (src/assistant/knowledge). */
  knowledge: Knowledge;
  /** The storefront gateway (connected storefront or the embedded catalogue). */
  gateway: StorefrontGateway;
  /** LLM agent mode (src/assistant/agent/index.ts agentFor): undefined unless LLM_BASE_URL is set with LLM_MODE=agent. */
  agent: TurnAgent | undefined;
}

export function toChatEvent(row: EventRow): ChatEvent {
  return {
    id: row.seq,
    event: row.name,
    turn_id: row.turn_id,
    data: JSON.parse(row.data) as Record<string, unknown>,
    created_at: iso(row.created_at),
  };
}

/** 429 RATE_LIMITED naming the window, the retry delay (s) and instant; null when waiting never helps. */
function rateLimited(now: number, message: string, details: Record<string, unknown>, retryAfterSec: number | null): AppError {
  return new AppError(
    "rate_limit_exceeded",
    message,
    { ...details, retry_after: retryAfterSec, retry_at: retryAfterSec === null ? null : iso(now + retryAfterSec * 1000) },
    retryAfterSec === null ? {} : { "retry-after": String(retryAfterSec) },
  );
}

export class ChatService {
  private readonly repo: ChatRepository;
  private readonly sessions: SessionsService;
  private readonly stores: AccountsRepository;
  private readonly settings: AssistantSettingsService;
  private readonly storeTurns: Map<PlanName, Limiter>;
  private readonly sessionTurns: Limiter;
  private readonly concurrent: Semaphore;
  private readonly knowledge: Knowledge;
  private readonly gateway: StorefrontGateway;
  private readonly agent: TurnAgent | undefined;

  constructor(
    private readonly ctx: AppContext,
    deps: ChatDeps,
  ) {
    this.repo = deps.threads;
    this.sessions = deps.sessions;
    this.stores = deps.stores;
    this.settings = deps.settings;
    this.knowledge = deps.knowledge;
    this.gateway = deps.gateway;
    this.agent = deps.agent;
    // Counters of fixed windows keyed by the window's start on ctx.clock; the limiter's own
    // expiry (two windows) only garbage-collects them.
    const ttl = (2 * WINDOW_MS) / 1000;
    this.storeTurns = new Map(
      (Object.keys(PLAN_TURN_LIMITS) as PlanName[]).map((plan) => [
        plan,
        ctx.limiters({ name: `assistant-turns-${plan}`, points: PLAN_TURN_LIMITS[plan].turns_per_minute, durationSec: ttl }),
      ]),
    );
    this.sessionTurns = ctx.limiters({ name: "assistant-session-turns", points: SESSION_LIMITS.turns_per_minute, durationSec: ttl });
    this.concurrent = ctx.concurrency({ name: "assistant-turns", leaseMs: TURN_LEASE_MS });
  }

  // --- limits --------------------------------------------------------------------------------

  private window(): { key: string; retryAfterSec: number; resetsAt: string } {
    const now = this.ctx.clock.now();
    const start = Math.floor(now / WINDOW_MS) * WINDOW_MS;
    return {
      key: String(start),
      retryAfterSec: Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000)),
      resetsAt: iso(start + WINDOW_MS),
    };
  }

  private async checkLimits(session: ShopperSession, thread: ThreadRow): Promise<Lease> {
    const w = this.window();
    const perSession = await this.sessionTurns.consume(`${session.id}:${w.key}`);
    if (!perSession.allowed) {
      throw rateLimited(
        this.ctx.clock.now(),
        `A session may start ${SESSION_LIMITS.turns_per_minute} turns per minute; retry in ${w.retryAfterSec} s.`,
        {
          window: "session_turns_per_minute",
          limit: SESSION_LIMITS.turns_per_minute,
          window_seconds: WINDOW_MS / 1000,
          resets_at: w.resetsAt,
        },
        w.retryAfterSec,
      );
    }
    const turns = await this.repo.countTurns(session.storeId, thread.id);
    if (turns >= SESSION_LIMITS.max_turns_per_thread) {
      throw rateLimited(
        this.ctx.clock.now(),
        `A thread holds at most ${SESSION_LIMITS.max_turns_per_thread} turns; open a new thread with POST /v1/chat/sessions.`,
        { window: "thread_turns", limit: SESSION_LIMITS.max_turns_per_thread, window_seconds: null, resets_at: null },
        null,
      );
    }
    const store = await this.stores.findStore(session.storeId);
    const plan = planOf(store?.plan ?? "free").plan_name;
    const limits = PLAN_TURN_LIMITS[plan];
    const perStore = await this.storeTurns.get(plan)!.consume(`${session.storeId}:${w.key}`);
    if (!perStore.allowed) {
      throw rateLimited(
        this.ctx.clock.now(),
        `The ${plan} plan allows ${limits.turns_per_minute} chat turns per minute per store; retry in ${w.retryAfterSec} s.`,
        { window: "store_turns_per_minute", plan, limit: limits.turns_per_minute, window_seconds: WINDOW_MS / 1000, resets_at: w.resetsAt },
        w.retryAfterSec,
      );
    }
    const slot = await this.concurrent.acquire(session.storeId, limits.concurrent_turns);
    if (!slot.acquired) {
      throw rateLimited(
        this.ctx.clock.now(),
        `The ${plan} plan allows ${limits.concurrent_turns} concurrent chat turns per store; retry in ${slot.retryAfterSec} s.`,
        {
          window: "store_concurrent_turns",
          plan,
          limit: limits.concurrent_turns,
          in_flight: slot.inFlight,
          window_seconds: null,
          resets_at: null,
        },
        slot.retryAfterSec,
      );
    }
    return slot.lease;
  }

  // --- turns ---------------------------------------------------------------------------------

  /** Validates ownership and limits and records the user's message; throws AppError before any output. */
  async begin(session: ShopperSession, threadId: string, text: string): Promise<TurnHandle> {
    const thread = await this.sessions.thread(session, threadId);
    const lease = await this.checkLimits(session, thread);
    try {
      const turn = await this.repo.insertTurn(session.storeId, {
        id: prefixedId("turn"),
        thread_id: thread.id,
        session_id: session.id,
        user_text: text,
        created_at: this.ctx.clock.now(),
      });
      return { session, thread, turnId: turn.id, number: turn.number, text, lease };
    } catch (e) {
      await lease.release();
      throw e;
    }
  }

  /** Runs a begun turn to completion; `onEvent` sees every event right after it is persisted. */
  async run(handle: TurnHandle, onEvent: (event: ChatEvent) => void = () => {}): Promise<TurnResult> {
    const { session, thread } = handle;
    const events: ChatEvent[] = [];
    const emit: Emit = async (name, data) => {
      const row = await this.repo.appendEvent(session.storeId, {
        thread_id: thread.id,
        turn_id: handle.turnId,
        name,
        data: JSON.stringify(data),
        created_at: this.ctx.clock.now(),
      });
      const event = toChatEvent(row);
      events.push(event);
      onEvent(event);
    };
    try {
      await emit(EVENT.turnStarted, { turn_id: handle.turnId, thread_id: thread.id, number: handle.number, text: handle.text });
      const { outcome, answer } = await this.route(handle, emit);
      for (const text of chunkText(answer.response_markdown)) await emit(EVENT.answerDelta, { text });
      const now = this.ctx.clock.now();
      await this.repo.completeTurn(session.storeId, handle.turnId, outcome, JSON.stringify(answer), now);
      await emit(EVENT.messageCompleted, { outcome, ...answer });
      return { turn_id: handle.turnId, outcome, answer, events };
    } catch (e) {
      await this.repo.failTurn(session.storeId, handle.turnId, this.ctx.clock.now()).catch(() => {});
      await emit(EVENT.turnFailed, { turn_id: handle.turnId, code: "INTERNAL_ERROR" }).catch(() => {});
      throw e;
    } finally {
      await handle.lease.release().catch(() => {});
    }
  }

  /** begin + run, for the non-streaming route. */
  async message(session: ShopperSession, threadId: string, text: string): Promise<TurnResult> {
    return this.run(await this.begin(session, threadId, text));
  }

  private tools(handle: TurnHandle, emit: Emit): TurnTools {
    let previous: Promise<string | undefined> | undefined;
    let grounded: Promise<Grounded> | undefined;
    let answered: ReturnType<Knowledge["answer"]> | undefined;
    // The shopper's earlier messages back to their last question (classify.ts threadContext).
    const previousText = () =>
      (previous ??= this.repo
        .previousUserTexts(handle.session.storeId, handle.thread.id, handle.number, CONTEXT_MESSAGES)
        .then((texts) => threadContext(texts, CONTEXT_MESSAGES)));
    const policyGrounding = () =>
      (grounded ??= previousText().then((p) =>
        this.knowledge.ground(handle.session.storeId, handle.text, handle.thread.locale, p !== undefined ? { previous: p } : {}),
      ));
    return {
      ctx: this.ctx,
      knowledge: this.knowledge,
      gateway: this.gateway,
      settings: this.settings,
      handle,
      emit,
      lang: chatLang(handle.thread.locale),
      now: () => this.ctx.clock.now(),
      propose: (action, args) => this.propose(handle, action, args, emit),
      // Asked by the router, the conflict pre-check, the agent and the policy turn: read once per turn.
      previousText,
      policyGrounding,
      policyAnswer: () => (answered ??= policyGrounding().then((g) => this.knowledge.phrase(handle.text, g))),
    };
  }

  /**
   * Whether the published policies disagree on what a policy question asks. A check that fails (an
   * embedding model down) is no conflict: the turn takes its normal path, which reports a failure
   * of its own if it needs the knowledge engine.
   */
  private async policiesConflict(t: TurnTools): Promise<boolean> {
    try {
      return (await t.policyGrounding()).result.kind === "conflict";
    } catch (e) {
      if (e instanceof KnowledgeUnavailable) return false;
      throw e;
    }
  }

  /**
   * Routing: the knowledge engine's router decides the intent; then a product named by its title
   * (turns/products.ts) takes precedence for product requests, cart actions and clarifications,
   * and for a policy-looking question that asks about availability or price.
   */
  private async route(handle: TurnHandle, emit: Emit): Promise<TurnReply> {
    const { session, thread, text } = handle;
    const t = this.tools(handle, emit);
    try {
      const intent = await this.knowledge.classify(session.storeId, text, thread.locale, { previous: () => t.previousText() });
      await emit(EVENT.intentClassified, {
        kind: intent.kind,
        ...(intent.kind === "action" ? { name: intent.name } : {}),
        ...(intent.trace ? { route: intent.trace } : {}),
      });
      // A request for a person always hands off (no agent, no product lookup). An order question
      // the policies do not answer ("my order hasn't arrived yet") goes to a person too, unless the
      // shopper is signed in: then their own orders answer it.
      if (intent.kind === "handoff") {
        const signedIn = session.role === "customer" && Boolean(session.customerId);
        if (intent.trace?.rerouted === "soft_order_handoff" && signedIn) return await ordersTurn(t, { kind: "order", query: intent.query });
        return await handoffTurn(t);
      }
      const lookup =
        intent.kind === "product" || intent.kind === "ambiguous"
          ? mayNameProduct(text) || intent.kind === "product"
          : intent.kind === "policy" && asksAvailability(text) && mayNameProduct(text);
      // Whichever path would answer a policy question (the agent, a product named in it), two
      // published policies disagreeing on what it asks make the reply the policy turn's handoff
      // quoting both. Only the grounding and conflict check run here (no phrasing); the full answer
      // is computed when the policy turn uses it.
      if (intent.kind === "policy" && (this.agent || lookup) && (await this.policiesConflict(t))) return await policyTurn(t);
      // LLM agent mode (src/assistant/agent): the model's checked reply, or null → the path below.
      const agentReply = this.agent ? await this.agent.turn(t, intent) : null;
      if (agentReply) return agentReply;
      if (lookup) {
        const named = await namedProduct(t, intent.kind === "product" ? `${intent.query} ${text}` : text);
        if (named) return await namedProductTurn(t, named);
      }
      switch (intent.kind) {
        case "policy":
          return await policyTurn(t);
        case "product":
          return await productsTurn(t, intent);
        case "order":
        case "return":
          return await ordersTurn(t, intent);
        case "action":
          return await cartTurn(t, intent);
        case "courtesy":
          return {
            outcome: "answer",
            answer: composeAnswer({ answer_status: "answered", response_markdown: intent.reply }, t.now()),
          };
        case "ambiguous":
          return {
            outcome: "clarification",
            answer: composeAnswer(
              {
                answer_status: "needs_clarification",
                response_markdown: intent.question,
                clarification_question: intent.question,
                next_actions: [{ type: "reply", label: "Answer the question" }],
              },
              t.now(),
            ),
          };
      }
    } catch (e) {
      if (e instanceof StorefrontUnavailable || e instanceof KnowledgeUnavailable) {
        const dependency = e instanceof StorefrontUnavailable ? "storefront" : "knowledge";
        await emit(EVENT.dependencyUnavailable, { dependency, ...(e instanceof StorefrontUnavailable ? { source: e.source } : {}) });
        const what = dependency === "storefront" ? "The store's catalogue" : "The assistant's knowledge service";
        return {
          outcome: "temporary_failure",
          answer: composeAnswer(
            {
              answer_status: "unavailable",
              response_markdown: T(t.lang).unavailable(dependency),
              limitations: [
                { code: "dependency_unavailable", message: `${what} was unavailable while answering; nothing was answered from it.` },
              ],
              next_actions: [{ type: "retry", label: "Try again" }],
              ...(e instanceof StorefrontUnavailable ? { catalog_source: e.source } : {}),
            },
            t.now(),
          ),
        };
      }
      throw e;
    }
  }

  /** Stores an intent awaiting consent and returns the confirm/cancel next actions previewing it. */
  private async propose(handle: TurnHandle, action: ActionName, args: Record<string, string | number>, emit: Emit): Promise<NextAction[]> {
    const id = prefixedId("int");
    const now = this.ctx.clock.now();
    const expiresAt = now + INTENT_TTL_MS;
    await this.repo.insertIntent(handle.session.storeId, {
      id,
      session_id: handle.session.id,
      thread_id: handle.thread.id,
      turn_id: handle.turnId,
      action,
      arguments: JSON.stringify(args),
      status: "pending",
      result: null,
      created_at: now,
      expires_at: expiresAt,
      resolved_at: null,
    });
    await emit(EVENT.actionProposed, { intent_id: id, action, arguments: args, expires_at: iso(expiresAt) });
    return [
      {
        type: "confirm",
        label: "Confirm",
        intent_id: id,
        action,
        arguments: args,
        expires_at: iso(expiresAt),
        method: "POST",
        path: "/v1/chat/actions/confirm",
      },
      { type: "cancel", label: "Cancel", intent_id: id, action, method: "POST", path: "/v1/chat/actions/cancel" },
    ];
  }

  // --- actions -------------------------------------------------------------------------------

  private async boundIntent(session: ShopperSession, threadId: string, intentId: string): Promise<IntentRow> {
    const intent = await this.repo.findIntent(session.storeId, session.id, threadId, intentId);
    if (!intent)
      throw new AppError("confirmation_invalid", "No such confirmation for this session and thread.", {
        intent_id: intentId,
        reason: "not_bound",
      });
    return intent;
  }

  async confirm(session: ShopperSession, threadId: string, intentId: string): Promise<ConfirmResult> {
    const intent = await this.boundIntent(session, threadId, intentId);
    const now = this.ctx.clock.now();
    if (intent.status !== "pending") {
      throw new AppError(
        "confirmation_invalid",
        `This confirmation was already ${intent.status === "failed" ? "used (the action failed)" : intent.status}.`,
        {
          intent_id: intentId,
          reason: intent.status,
        },
      );
    }
    if (intent.expires_at <= now) {
      throw new AppError("confirmation_invalid", "This confirmation has expired.", {
        intent_id: intentId,
        reason: "expired",
        expired_at: iso(intent.expires_at),
      });
    }
    // Single use: only the caller whose UPDATE … WHERE status = 'pending' changed the row runs it.
    if (!(await this.repo.transitionPending(session.storeId, intent.id, "consumed", now, now))) {
      throw new AppError("confirmation_invalid", "This confirmation was already used.", { intent_id: intentId, reason: "consumed" });
    }
    const action = { name: intent.action as ActionName, arguments: JSON.parse(intent.arguments) as Record<string, string | number> };
    let result;
    try {
      result = await this.gateway.runAction(session.storeId, { sessionId: session.id, customerId: session.customerId }, action);
    } catch (e) {
      await this.repo.finishIntent(session.storeId, intent.id, "failed", null).catch(() => {});
      if (e instanceof StorefrontUnavailable) {
        throw new AppError("service_unavailable", "The store could not run the action; ask again for a fresh preview.", {
          intent_id: intent.id,
          status: "failed",
        });
      }
      throw e;
    }
    await this.repo.finishIntent(session.storeId, intent.id, "consumed", JSON.stringify(result.result));
    await this.repo.appendEvent(session.storeId, {
      thread_id: threadId,
      turn_id: intent.turn_id,
      name: EVENT.actionConfirmed,
      data: JSON.stringify({
        intent_id: intent.id,
        action: action.name,
        arguments: action.arguments,
        status: "completed",
        result: result.result,
      }),
      created_at: this.ctx.clock.now(),
    });
    return { intent_id: intent.id, thread_id: threadId, status: "completed", action, result: result.result };
  }

  /** pending → cancelled (an expired one too); cancelling a cancelled intent again is a no-op. */
  async cancel(session: ShopperSession, threadId: string, intentId: string): Promise<CancelResult> {
    const intent = await this.boundIntent(session, threadId, intentId);
    if (intent.status === "cancelled") return { intent_id: intent.id, thread_id: threadId, status: "cancelled" };
    const now = this.ctx.clock.now();
    if (intent.status !== "pending" || !(await this.repo.transitionPending(session.storeId, intent.id, "cancelled", now))) {
      const current = (await this.boundIntent(session, threadId, intentId)).status;
      if (current === "cancelled") return { intent_id: intent.id, thread_id: threadId, status: "cancelled" };
      throw new AppError(
        "confirmation_invalid",
        `This confirmation was already ${current === "failed" ? "used (the action failed)" : current}.`,
        { intent_id: intentId, reason: current },
      );
    }
    await this.repo.appendEvent(session.storeId, {
      thread_id: threadId,
      turn_id: intent.turn_id,
      name: EVENT.actionCancelled,
      data: JSON.stringify({ intent_id: intent.id, action: intent.action }),
      created_at: now,
    });
    return { intent_id: intent.id, thread_id: threadId, status: "cancelled" };
  }

  // --- replay --------------------------------------------------------------------------------

  /** Events of the thread after `afterId` (at most MAX_REPLAY_EVENTS), for reconnecting clients. */
  async replay(session: ShopperSession, threadId: string, afterId: number): Promise<Replay> {
    const thread = await this.sessions.thread(session, threadId);
    const rows = await this.repo.listEventsAfter(session.storeId, thread.id, afterId, MAX_REPLAY_EVENTS);
    const events = rows.map(toChatEvent);
    return { thread_id: thread.id, events, last_event_id: events.length > 0 ? events[events.length - 1]!.id : afterId };
  }
}
