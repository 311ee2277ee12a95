// The one formatter for money in answer text. response_markdown mentions a price only through
// formatLiveFact / formatMoney applied to a live read's value; numbers are never copied from
// model text. The eval (scripts/eval-assistant.ts) can use the same functions to check that
// every price in an answer matches a live fact.
import type { LiveFact, Money } from "../storefront/types.js";
import { T, type ChatLang } from "./i18n.js";
import { DEFAULT_LANGUAGE } from "../language/index.js";

/** Digits after the decimal point of an ISO 4217 currency (JPY 0, EUR 2, KWD 3 …). */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** "€12.50", "¥1,200", "12.50 XYZ" for an unknown code. Locale-independent (en) so text is stable. */
export function formatMoney(money: Money): string {
  const digits = currencyDigits(money.currency);
  const value = money.amount_minor / 10 ** digits;
  try {
    return new Intl.NumberFormat("en", {
      style: "currency",
      currency: money.currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(value);
  } catch {
    return `${value.toFixed(digits)} ${money.currency}`;
  }
}

export function isMoney(value: LiveFact["value"]): value is Money {
  return typeof (value as Money).amount_minor === "number" && typeof (value as Money).currency === "string";
}

/** Text of a live fact: a formatted price or a stock state (in the thread's language). */
export function formatLiveFact(fact: LiveFact, lang: ChatLang = DEFAULT_LANGUAGE): string {
  if (isMoney(fact.value)) return formatMoney(fact.value);
  return T(lang).stock[fact.value.state];
}
