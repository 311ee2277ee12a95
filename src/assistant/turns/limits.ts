// Chat turn limits (spec: Limits). Every bound refuses with 429 RATE_LIMITED naming its window
// and a retry time; nothing is queued. Windows are fixed one-minute windows on the injected
// clock (shared across processes through Redis when REDIS_URL is set).
//
// | plan       | turns per minute per store | concurrent turns per store |
// |------------|----------------------------|----------------------------|
// | free       | 20                         | 2                          |
// | basic      | 120                        | 8                          |
// | premium    | 600                        | 32                         |
// | enterprise | 3000                       | 128                        |
//
// Per session: 10 turns per minute; per thread: 50 turns in its lifetime (then open a new thread).
import type { PlanName } from "../../tenancy/plans.js";

export interface PlanTurnLimits {
  turns_per_minute: number;
  concurrent_turns: number;
}

export const PLAN_TURN_LIMITS: Record<PlanName, PlanTurnLimits> = {
  free: { turns_per_minute: 20, concurrent_turns: 2 },
  basic: { turns_per_minute: 120, concurrent_turns: 8 },
  premium: { turns_per_minute: 600, concurrent_turns: 32 },
  enterprise: { turns_per_minute: 3000, concurrent_turns: 128 },
};

export const SESSION_LIMITS = {
  /** Turns one session may start per one-minute window (all its threads together). */
  turns_per_minute: 10,
  /** Turns one thread may hold; past it the client opens a new thread. */
  max_turns_per_thread: 50,
} as const;

/** Length of the fixed rate windows. */
export const WINDOW_MS = 60_000;

/** A turn's concurrency slot is a lease: a crashed process frees its slots after this. */
export const TURN_LEASE_MS = 120_000;

/** How long a proposed action waits for consent. */
export const INTENT_TTL_MS = 10 * 60_000;

/** Longest shopper message accepted. */
export const MAX_TEXT_LENGTH = 2000;

/** Product cards shown in one answer. */
export const MAX_PRODUCT_CARDS = 5;

/** Events returned by one replay call; the client continues from the last id. */
export const MAX_REPLAY_EVENTS = 1000;

/** Earlier shopper messages a turn is read with at most: those back to their last question (classify.ts threadContext). */
export const CONTEXT_MESSAGES = 3;
