// Identifiers, random secrets and hashing of secrets at rest.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";

export const uuid = (): string => randomUUID();

/** A URL-safe random secret with an optional prefix, e.g. `cs_…`, `pk_live_…`. */
export function randomSecret(prefix = "", bytes = 32): string {
  return prefix + randomBytes(bytes).toString("base64url");
}

/** A short prefixed id such as `thr_3k9x…` (128 random bits). */
export const prefixedId = (prefix: string): string => `${prefix}_${randomBytes(16).toString("hex")}`;

/** SHA-256 hex digest: for high-entropy secrets and tokens stored at rest (never for passwords). */
export const sha256 = (value: string | Buffer): string => createHash("sha256").update(value).digest("hex");

/** Constant-time comparison of two strings. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
