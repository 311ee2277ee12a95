// Up-front check of a URL the service will call later (webhooks, bulk callbacks, storefronts):
// http(s) only, https unless OUTBOUND_ALLOW_PRIVATE, and no literal private address. Names are
// resolved and checked again on every delivery by the safe fetch, so a name that later points
// somewhere private is still refused then.
import net from "node:net";
import { domainToASCII } from "node:url";
import { AppError } from "../errors/catalogue.js";
import { checkAddress } from "./address-policy.js";

/** How to lift the address check, for messages (development and tests only). */
export const ALLOW_PRIVATE_HINT =
  "set OUTBOUND_ALLOW_PRIVATE=true to allow plain http and private or loopback addresses (development only)";

/**
 * The host as the resolver will see it: brackets dropped, lower case, IDNA (punycode) form, and
 * without trailing dots — `https://LOCALHOST./` and `https://ｌｏｃａｌｈｏｓｔ/` are localhost.
 */
export function normalizeHost(hostname: string): string {
  const bare = hostname
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.+$/, "");
  if (net.isIP(bare) !== 0) return bare;
  return domainToASCII(bare) || bare;
}

export function checkTargetUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("invalid_url", `"${raw}" is not a valid URL.`);
  }
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) {
    throw new AppError("invalid_url", `The URL must use https; ${ALLOW_PRIVATE_HINT}.`, { url: raw });
  }
  if (url.username || url.password) throw new AppError("invalid_url", "The URL must not carry credentials.");
  const host = normalizeHost(url.hostname);
  if (!allowPrivate) {
    const refused = (reason: string) =>
      new AppError(
        "address_not_allowed",
        `${host} is a ${reason.replace(/_/g, " ")} address, which may not be called; ${ALLOW_PRIVATE_HINT}.`,
        { url: raw, host, reason },
      );
    if (net.isIP(host) !== 0) {
      const verdict = checkAddress(host);
      if (!verdict.allowed) throw refused(verdict.reason);
    } else if (host === "" || host === "localhost" || host.endsWith(".localhost") || !host.includes(".")) {
      throw refused("loopback");
    }
  }
  return url;
}
