// ISO 4217 currency codes and their minor units, from the ICU data built into Node
// (Intl.supportedValuesOf("currency"): the currencies in use today, e.g. EUR, USD, JPY).
// Money is stored in the currency's minor unit (cents for EUR, yen for JPY, fils for BHD) so
// sums are exact; values with more decimals than the currency has (floating-point noise such as
// 3 × 19.99 = 59.970000000000006 in a browser) are rounded half away from zero to that unit.

const CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"));

/**
 * A store's currency until its owner sets one (the Assistant settings' `currency`; the widget's
 * prices and the assistant's live prices use it).
 */
export const DEFAULT_STORE_CURRENCY = "USD";

/** Per-store counter of currency changes made through this process (caches of the currency compare it). */
const currencyVersions = new Map<string, number>();
export const noteCurrencyChange = (storeId: string): void => void currencyVersions.set(storeId, currencyVersion(storeId) + 1);
export const currencyVersion = (storeId: string): number => currencyVersions.get(storeId) ?? 0;
const digitsCache = new Map<string, number>();

export const isCurrency = (code: string): boolean => CODES.has(code);

/** Number of decimals of the currency's minor unit (EUR 2, JPY 0, BHD 3). */
export function minorDigits(code: string): number {
  let d = digitsCache.get(code);
  if (d === undefined) {
    d = new Intl.NumberFormat("en", { style: "currency", currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    digitsCache.set(code, d);
  }
  return d;
}

/** 59.97 EUR → 5997. */
export function toMinor(value: number, code: string): number {
  const scaled = value * 10 ** minorDigits(code);
  return Math.sign(scaled) * Math.round(Math.abs(scaled) + 1e-9);
}

/** 5997 EUR → 59.97. */
export function fromMinor(minor: number, code: string): number {
  const d = minorDigits(code);
  return Number((minor / 10 ** d).toFixed(d));
}
