// Up-front check of a URL the service will call later (webhooks, bulk callbacks, storefronts):
// http(s) only, https unless OUTBOUND_ALLOW_PRIVATE, and no literal private address. Names are
// resolved and checked again on every delivery by the safe fetch, so a name that later points
// somewhere private is still refused then.
import net from "node:net";
import { AppError } from "../errors/catalogue.js";
import { checkAddress } from "./address-policy.js";

export function checkTargetUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("invalid_url", `"${raw}" is not a valid URL.`);
  }
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) {
    throw new AppError("invalid_url", "The URL must use https.", { url: raw });
  }
  if (url.username || url.password) throw new AppError("invalid_url", "The URL must not carry credentials.");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivate) {
    if (net.isIP(host) !== 0) {
      const verdict = checkAddress(host);
      if (!verdict.allowed) throw new AppError("address_not_allowed", undefined, { url: raw, reason: verdict.reason });
    } else if (host === "localhost" || host.endsWith(".localhost") || !host.includes(".")) {
      throw new AppError("address_not_allowed", undefined, { url: raw, reason: "loopback" });
    }
  }
  return url;
}
