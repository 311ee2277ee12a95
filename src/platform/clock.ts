// Time is injected: services ask a Clock, so tests can move time without sleeping.
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}

/**
 * The API's one way to write a time: epoch milliseconds (a number, or the string PostgreSQL's
 * bigint arrives as) as an ISO 8601 UTC string; null stays null.
 */
export function iso(ms: number | string): string;
export function iso(ms: number | string | null): string | null;
export function iso(ms: number | string | null): string | null {
  return ms === null ? null : new Date(Number(ms)).toISOString();
}
