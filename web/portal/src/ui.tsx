// Shared pieces: error notices, async loading, forms.
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { explain } from "./errors";
import { assistantApi } from "./api";
import { linkHandler } from "./router";
import type { AssistantOk } from "./api-types";

export function ErrorNotice({ error, onDismiss }: { error: unknown; onDismiss?: () => void }) {
  if (!error) return null;
  const e = explain(error);
  return (
    <div class="notice error" role="alert">
      <p class="notice-title">{e.title}</p>
      {e.detail && <p class="notice-detail">Details from the service: {e.detail}</p>}
      {e.requestId && (
        <p class="notice-detail">
          Request id: <code>{e.requestId}</code>
        </p>
      )}
      {onDismiss && (
        <button type="button" class="link" onClick={onDismiss}>
          Dismiss
        </button>
      )}
    </div>
  );
}

/** A plain error message of the portal's own (no API error behind it). */
export function Alert({ children }: { children: ComponentChildren }) {
  return (
    <div class="notice error" role="alert">
      <p class="notice-title">{children}</p>
    </div>
  );
}

export function Success({ children }: { children: ComponentChildren }) {
  return (
    <div class="notice success" role="status">
      {children}
    </div>
  );
}

export function Link({
  href,
  children,
  class: cls,
  current,
}: {
  href: string;
  children: ComponentChildren;
  class?: string;
  current?: boolean;
}) {
  return (
    <a href={href} class={cls} onClick={linkHandler} aria-current={current ? "page" : undefined}>
      {children}
    </a>
  );
}

/** Loads data with `load` when `deps` change; `reload()` loads again. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: null,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => alive.current && setState({ data, error: null, loading: false }),
      (error: unknown) => alive.current && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      alive.current = false;
    };
    // The effect re-runs when a caller's dependency or the refresh tick changes (deps are the caller's).
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** Runs an action with busy and error state. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}

export function Field({ label, hint, children }: { label: string; hint?: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span class="label">{label}</span>
      {children}
      {hint && <span class="hint">{hint}</span>}
    </label>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

/**
 * What `useLoad` has so far: "Loading {what}…" until the first data (nothing when `what` is left
 * out), then `children(data)`; with `empty`, an empty list shows `empty` as a muted line instead.
 */
export function Loaded<T>({
  state,
  what,
  empty,
  children,
}: {
  state: { data: T | null | undefined; loading: boolean };
  what?: string;
  empty?: ComponentChildren;
  children: (data: T) => ComponentChildren;
}) {
  const { data, loading } = state;
  if (data === undefined || data === null) return loading && what ? <Loading what={what} /> : null;
  if (empty !== undefined && Array.isArray(data) && data.length === 0) return <p class="muted">{empty}</p>;
  return <>{children(data)}</>;
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card">
      <div class="card-head">
        <h2>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** A button copying `value` to the clipboard ("Copied" afterwards). */
export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(value).then(() => setCopied(true));
      }}
    >
      {copied ? "Copied" : label}
    </button>
  );
}

/** A value with its copy button; `secret` values get the .secret-value style. */
export function CopyRow({ value, label }: { value: string; label?: string }) {
  return (
    <div class="secret-row">
      <code class="secret-value">{value}</code>
      <CopyButton value={value} {...(label ? { label } : {})} />
    </div>
  );
}

export function SecretOnce({ label, value, children }: { label: string; value: string; children?: ComponentChildren }) {
  return (
    <div class="notice success secret" role="status">
      <p class="notice-title">{label}</p>
      <p>This is shown only once: copy it now and keep it somewhere safe.</p>
      <CopyRow value={value} />
      {children}
    </div>
  );
}

/** A code snippet with a copy button. */
export function Snippet({ code, label }: { code: string; label: string }) {
  return (
    <div class="snippet">
      <pre class="code" aria-label={label}>
        {code}
      </pre>
      <CopyButton value={code} label={`Copy ${label.toLowerCase()}`} />
    </div>
  );
}

export const fmtDate = (iso: string | number | null | undefined) => {
  if (iso === null || iso === undefined || iso === "") return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "—" : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
};

/** A product price: its own `currency` metadata when it has one (ISO 4217), else the store's. */
export const fmtPrice = (amount: number, own: unknown, storeCurrency: string) =>
  fmtMoney(amount, typeof own === "string" && /^[A-Za-z]{3}$/.test(own) ? own.toUpperCase() : storeCurrency);

const currencies = new Map<string, Promise<string>>();
/**
 * The store's currency: the Assistant settings' `currency` (owners and admins may read them),
 * USD (the settings' default) when they cannot be read.
 */
export function useStoreCurrency(slug: string): string {
  const [currency, setCurrency] = useState("USD");
  useEffect(() => {
    let promise = currencies.get(slug);
    if (!promise) {
      promise = assistantApi<AssistantOk<"/v1/admin/settings">>("/v1/admin/settings", { store: slug }).then(
        (s) => s.currency.toUpperCase(),
        () => "USD",
      );
      currencies.set(slug, promise);
    }
    let alive = true;
    void promise.then((c) => alive && setCurrency(c));
    return () => {
      alive = false;
    };
  }, [slug]);
  return currency;
}
/** Forgets the cached currency of `slug` (after the settings changed). */
export const forgetStoreCurrency = (slug: string) => currencies.delete(slug);

export const fmtMoney = (amount: number, currency: string) => {
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
};

// One number format for the whole portal: the browser's locale through Intl.
const NUMBER = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
export const fmtNumber = (x: number) => NUMBER.format(x);
/** A 0–1 score with three decimals (similarity scores). */
const SCORE = new Intl.NumberFormat(undefined, { minimumFractionDigits: 3, maximumFractionDigits: 3 });
export const fmtScore = (x: number) => SCORE.format(x);
const PERCENT = new Intl.NumberFormat(undefined, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });
export const pct = (x: number) => PERCENT.format(x);
