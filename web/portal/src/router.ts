// A small History-API router: the server answers index.html for every portal path.
import { useEffect, useState } from "preact/hooks";

export type Route =
  | { name: "login"; next: string | null }
  | { name: "register" }
  | { name: "verify"; token: string }
  | { name: "select-store" }
  | { name: "accept-invite"; token: string }
  | { name: "store"; slug: string; section: string; rest: string[] }
  | { name: "admin" }
  | { name: "home" }
  | { name: "not-found" };

export function parse(pathname: string, search: string): Route {
  const params = new URLSearchParams(search);
  const parts = pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[1] === "portal" && parts[0] !== undefined && parts[0] !== "portal") {
    return { name: "store", slug: parts[0], section: parts[2] ?? "products", rest: parts.slice(3) };
  }
  if (parts[0] === "portal") {
    if (parts.length === 1) return { name: "home" };
    if (parts[1] === "login") return { name: "login", next: params.get("next") };
    if (parts[1] === "register") return { name: "register" };
    if (parts[1] === "verify") return { name: "verify", token: params.get("token") ?? "" };
    if (parts[1] === "select-store") return { name: "select-store" };
    if (parts[1] === "accept-invite") return { name: "accept-invite", token: params.get("token") ?? "" };
  }
  if (parts[0] === "admin") return { name: "admin" };
  return { name: "not-found" };
}

const subscribers = new Set<() => void>();
window.addEventListener("popstate", () => subscribers.forEach((s) => s()));

export function navigate(to: string, replace = false) {
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  subscribers.forEach((s) => s());
  window.scrollTo(0, 0);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parse(location.pathname, location.search));
  useEffect(() => {
    const update = () => setRoute(parse(location.pathname, location.search));
    subscribers.add(update);
    // A child may have navigated before this effect ran (children's effects run first).
    update();
    return () => void subscribers.delete(update);
  }, []);
  return route;
}

/** Same-origin link handled by the router (modifier clicks keep the browser's behaviour). */
export function linkHandler(e: MouseEvent) {
  const a = (e.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.getAttribute("href") ?? "/portal");
}
