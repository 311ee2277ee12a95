// Billing periods and money. A store without a Stripe subscription (free plan, or a plan bought
// through the local test checkout) is billed per calendar month in UTC; a Stripe subscription
// uses Stripe's current period while it covers `now`. Usage is counted in UTC-hour buckets, so a
// calendar month is summed exactly and a Stripe period to within the hour its boundary falls in.

export const HOUR_MS = 3_600_000;

export interface Period {
  start: number;
  end: number;
}

/** The calendar month (UTC) containing `now`: [first day 00:00, first day of next month 00:00). */
export function calendarMonth(now: number): Period {
  const d = new Date(now);
  return {
    start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}

/** Start of the UTC hour containing `t`. */
export const hourBucket = (t: number): number => Math.floor(t / HOUR_MS) * HOUR_MS;

/** The usage buckets [from, to) that make up `period`. */
export const bucketRange = (period: Period): { from: number; to: number } => ({
  from: hourBucket(period.start),
  to: period.end,
});

// ISO 4217 currencies without a minor unit, as Stripe lists them ("zero-decimal currencies").
const ZERO_DECIMAL = new Set([
  "bif",
  "clp",
  "djf",
  "gnf",
  "jpy",
  "kmf",
  "krw",
  "mga",
  "pyg",
  "rwf",
  "ugx",
  "vnd",
  "vuv",
  "xaf",
  "xof",
  "xpf",
]);

/** Minor units (cents) → amount in the currency's major unit. */
export function fromMinor(amountMinor: number, currency: string): number {
  return ZERO_DECIMAL.has(currency.toLowerCase()) ? amountMinor : Math.round(amountMinor) / 100;
}

/** Amount in the major unit → minor units. */
export function toMinor(amount: number, currency: string): number {
  return ZERO_DECIMAL.has(currency.toLowerCase()) ? Math.round(amount) : Math.round(amount * 100);
}
