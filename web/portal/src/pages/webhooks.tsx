import { useState } from "preact/hooks";
import { api } from "../api";
import { ErrorNotice, Field, Loading, Section, fmtDate, useAction, useLoad } from "../ui";
import type { StoreProps } from "./store";

interface Webhook {
  id: string;
  url: string;
  events: string[];
  status: "active" | "disabled";
  disabled_reason: string | null;
  created_at: string;
}
interface Delivery {
  id: string;
  event: string;
  status: string;
  attempts: number;
  created_at: string;
  delivered_at: string | null;
  next_retry_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  attempt_log: { attempt: number; status_code: number | null; duration_ms: number; error: string | null; at: string }[];
}

const EVENTS = ["product.indexed", "product.updated", "product.deleted", "product.duplicate_detected"];

function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function WebhooksPage({ slug }: StoreProps) {
  const hooks = useLoad(() => api<Webhook[]>("/v1/search/webhooks", { store: slug }), [slug]);
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<Set<string>>(new Set(EVENTS));
  const [secret, setSecret] = useState(randomSecret);
  const [open, setOpen] = useState<string | null>(null);
  const act = useAction();

  return (
    <>
      <h1>Webhooks</h1>
      <p class="muted">
        The service posts product events to your URL, signed with <code>X-Webhook-Signature: sha256=…</code> (HMAC-SHA256 of the body with your secret).
      </p>
      <Section title="Add a webhook">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void act.run(async () => {
              await api("/v1/search/webhooks", { store: slug, body: { url, events: [...events], secret } });
              setUrl("");
              setSecret(randomSecret());
              hooks.reload();
            });
          }}
        >
          <div class="grid-form">
            <Field label="Endpoint URL" hint="https only">
              <input type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
            </Field>
            <Field label="Signing secret" hint="At least 16 characters; keep a copy for your receiver: it is never shown again.">
              <input required minLength={16} value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
            </Field>
          </div>
          <fieldset class="checks">
            <legend>Events</legend>
            {EVENTS.map((ev) => (
              <label key={ev} class="check">
                <input
                  type="checkbox"
                  checked={events.has(ev)}
                  onChange={(e) => {
                    const next = new Set(events);
                    if (e.currentTarget.checked) next.add(ev);
                    else next.delete(ev);
                    setEvents(next);
                  }}
                />{" "}
                {ev}
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={act.busy || events.size === 0}>
            Add webhook
          </button>
        </form>
      </Section>
      <ErrorNotice error={act.error ?? hooks.error} />
      <Section title="Webhooks">
        {hooks.loading && !hooks.data && <Loading what="webhooks" />}
        {hooks.data && hooks.data.length === 0 && <p class="muted">No webhooks yet.</p>}
        {hooks.data?.map((h) => (
          <div key={h.id} class="subcard">
            <div class="card-head">
              <div>
                <code>{h.url}</code> <span class={`badge ${h.status}`}>{h.status}</span>
                <div class="muted small">
                  {h.events.join(", ")} · since {fmtDate(h.created_at)}
                  {h.disabled_reason ? ` · ${h.disabled_reason}` : ""}
                </div>
              </div>
              <div>
                <button type="button" class="secondary small" aria-expanded={open === h.id} onClick={() => setOpen(open === h.id ? null : h.id)}>
                  {open === h.id ? "Hide deliveries" : "Delivery log"}
                </button>{" "}
                <button
                  type="button"
                  class="danger small"
                  onClick={() =>
                    confirm(`Delete the webhook to ${h.url}?`) &&
                    void act.run(async () => (await api(`/v1/search/webhooks/${encodeURIComponent(h.id)}`, { store: slug, method: "DELETE" }), hooks.reload()))
                  }
                >
                  Delete
                </button>
              </div>
            </div>
            {open === h.id && <Deliveries slug={slug} id={h.id} />}
          </div>
        ))}
      </Section>
    </>
  );
}

function Deliveries({ slug, id }: { slug: string; id: string }) {
  const list = useLoad(() => api<Delivery[]>(`/v1/search/webhooks/${encodeURIComponent(id)}/deliveries`, { store: slug, query: { limit: 50 } }), [slug, id]);
  return (
    <div>
      <ErrorNotice error={list.error} />
      {list.loading && !list.data && <Loading what="deliveries" />}
      {list.data && list.data.length === 0 && <p class="muted">No deliveries yet.</p>}
      {list.data && list.data.length > 0 && (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Created</th>
              <th scope="col">Next retry</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((d) => (
              <tr key={d.id}>
                <td>{d.event}</td>
                <td>
                  <span class={`badge ${d.status}`}>{d.status}</span>
                </td>
                <td>{d.attempts}</td>
                <td class="small">{d.last_status_code !== null ? `HTTP ${d.last_status_code}` : (d.last_error ?? "—")}</td>
                <td class="small">{fmtDate(d.created_at)}</td>
                <td class="small">{fmtDate(d.next_retry_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
