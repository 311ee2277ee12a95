// Enforcement of a store's IP allow-list (no Fastify types: used by the authentication hook for
// machine grants and API keys, and by the machine grant itself in AuthService).
import { AppError } from "../../platform/errors/catalogue.js";
import { addressAllowed } from "./ip.js";
import type { SecurityRepository } from "./repository.js";
import "../errors/codes.js"; // registers the error codes thrown here

/** Whether `ip` may use the store's machine credentials (an empty allow-list allows everyone). */
export async function ipAllowedForStore(security: SecurityRepository, storeId: string, ip: string): Promise<boolean> {
  return rangesAllow(await security.allowlistRanges(storeId), ip);
}

/** Whether an allow-list of `ranges` lets `ip` in (an empty one lets everyone in). */
export function rangesAllow(ranges: readonly string[], ip: string): boolean {
  return ranges.length === 0 || addressAllowed(ip, ranges);
}

export function ipNotAllowed(ip: string): AppError {
  return new AppError("ip_not_allowed", `Requests from ${ip} are not allowed for this store: the address is not on its IP allow-list.`, {
    ip,
  });
}
