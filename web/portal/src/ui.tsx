// Shared pieces: error notices, async loading, forms.
import { createContext, type ComponentChildren } from "preact";
import { useCallback, useContext, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { explain } from "./errors";
import { api, assistantApi } from "./api";
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

/** The successes of a page's actions (NoticeScope). */
interface Notices {
  /** Successes so far, as rendered. */
  successes: number;
  /** Successes so far, at once (an error recorded in the same tick as a success comes after it). */
  count: { current: number };
  succeeded: () => void;
}
const NoticeContext = createContext<Notices | null>(null);

/**
 * The notices of one page: every action that succeeds on the page (useAction's `run`) counts,
 * and an action's error notice stays only until the next success on the same page, its own or
 * another's (a failed add, then a successful delete: the add's error is old news). Errors of
 * loads (useLoad) are not affected: they go when that load succeeds. The store portal gives each
 * page (store and section) a scope of its own, so a notice never follows the owner to another
 * page or store.
 */
export function NoticeScope({ children }: { children: ComponentChildren }) {
  const count = useRef(0);
  const [successes, setSuccesses] = useState(0);
  const succeeded = useCallback(() => setSuccesses((count.current += 1)), []);
  const value = useMemo(() => ({ successes, count, succeeded }), [successes, succeeded]);
  return <NoticeContext.Provider value={value}>{children}</NoticeContext.Provider>;
}

/**
 * Runs an action with busy and error state. The error clears when the action runs again, and on
 * the next success of any action of the page (NoticeScope); `setError` sets or clears it by hand.
 */
export function useAction() {
  const scope = useContext(NoticeContext);
  const count = scope?.count;
  const succeeded = scope?.succeeded;
  const [busy, setBusy] = useState(false);
  // The error with the page's success count when it happened.
  const [failure, setFailure] = useState<{ error: unknown; at: number } | null>(null);
  const setError = useCallback((error: unknown) => setFailure(error ? { error, at: count?.current ?? 0 } : null), [count]);
  const run = useCallback(
    async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
      setBusy(true);
      setFailure(null);
      try {
        const result = await fn();
        succeeded?.();
        return result;
      } catch (e) {
        setError(e);
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [setError, succeeded],
  );
  const error = failure !== null && failure.at >= (scope?.successes ?? 0) ? failure.error : null;
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

/** A bulk job's per-product errors (GET /v1/jobs/{id}), the first 50, folded. */
export function JobErrors({ errors, what }: { errors: { product_id: string; error: string; message: string }[]; what: string }) {
  if (errors.length === 0) return null;
  return (
    <details>
      <summary>
        {errors.length} product(s) {what}
      </summary>
      <ul>
        {errors.slice(0, 50).map((x) => (
          <li key={x.product_id}>
            <code>{x.product_id}</code>: {x.message} ({x.error})
          </li>
        ))}
      </ul>
    </details>
  );
}

/** Job polls that may fail in a row before the page stops asking. */
const POLL_TRIES = 5;

/**
 * A bulk job's progress, polled from GET /v1/jobs/{job_id} every second while it is processing
 * (bulk upload, bulk actions). A failed poll (a network blip, the service restarting) is handed to
 * `onError` and asked again 3 s later, up to POLL_TRIES times in a row; the next answer clears it
 * (`onError(null)`). After the last try `stalled` is true, so the page no longer counts it as running.
 */
export function useJobPoll<J extends { job_id: string; status: string }>(
  slug: string,
  { onError, onEnd }: { onError: (e: unknown) => void; onEnd: (job: J) => void },
) {
  const [job, setJob] = useState<J | null>(null);
  const [stalled, setStalled] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  const poll = (id: string, failures: number) => {
    timer.current = setTimeout(
      async () => {
        try {
          const j = await api<J>(`/v1/jobs/${encodeURIComponent(id)}`, { store: slug });
          onError(null);
          setJob(j);
          if (j.status === "processing") poll(id, 0);
          else onEnd(j);
        } catch (e) {
          onError(e);
          if (failures + 1 < POLL_TRIES) poll(id, failures + 1);
          else setStalled(true);
        }
      },
      failures > 0 ? 3000 : 1000,
    );
  };
  return {
    job,
    stalled,
    clear: () => setJob(null),
    /** Shows `first` (the 202 answer) and polls from there. */
    start: (first: J) => {
      clearTimeout(timer.current);
      setStalled(false);
      setJob(first);
      poll(first.job_id, 0);
    },
  };
}

/** A bulk job as its 202 answer starts it, for `useJobPoll().start`: nothing processed yet. */
export const startedJob = (res: { job_id: string; total: number }) => ({
  job_id: res.job_id,
  status: "processing" as const,
  total: res.total,
  processed: 0,
  succeeded: 0,
  failed: 0,
  errors: [],
});

/** The words of a comma-separated field ("summer dress, red scarf"), trimmed, empty ones left out. */
export const commaList = (text: string): string[] =>
  text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
