import { useState } from "preact/hooks";
import { api } from "../api";
import { Badge, CheckSet, DeleteButton, ListTable } from "../components";
import { ErrorNotice, Field, Loaded, Section, fmtDate, useAction, useLoad } from "../ui";
import type { StoreProps } from "./store-props";
import type { Item, SearchOk } from "../api-types";

type Webhook = Item<SearchOk<"/v1/search/webhooks">>;
type Delivery = Item<SearchOk<"/v1/search/webhooks/{webhook_id}/deliveries">>;

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
        The service posts product events to your URL, signed with <code>X-Webhook-Signature: sha256=…</code> (HMAC-SHA256 of the body with
        your secret).
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
          <CheckSet legend="Events" options={EVENTS} chosen={events} onChange={setEvents} />
          <button type="submit" disabled={act.busy || events.size === 0}>
            Add webhook
          </button>
        </form>
      </Section>
      <ErrorNotice error={act.error ?? hooks.error} />
      <Section title="Webhooks">
        <Loaded state={hooks} what="webhooks" empty="No webhooks yet.">
          {(list) =>
            list.map((h) => (
              <div key={h.id} class="subcard">
                <div class="card-head">
                  <div>
                    <code>{h.url}</code> <Badge status={h.status} />
                    <div class="muted small">
                      {h.events.join(", ")} · since {fmtDate(h.created_at)}
                      {h.disabled_reason ? ` · ${h.disabled_reason}` : ""}
                    </div>
                  </div>
                  <div>
                    <button
                      type="button"
                      class="secondary small"
                      aria-expanded={open === h.id}
                      onClick={() => setOpen(open === h.id ? null : h.id)}
                    >
                      {open === h.id ? "Hide deliveries" : "Delivery log"}
                    </button>{" "}
                    <DeleteButton
                      act={act}
                      store={slug}
                      path={`/v1/search/webhooks/${encodeURIComponent(h.id)}`}
                      question={`Delete the webhook to ${h.url}?`}
                      onDone={hooks.reload}
                    >
                      Delete
                    </DeleteButton>
                  </div>
                </div>
                {open === h.id && <Deliveries slug={slug} id={h.id} />}
              </div>
            ))
          }
        </Loaded>
      </Section>
    </>
  );
}

function Deliveries({ slug, id }: { slug: string; id: string }) {
  const list = useLoad(
    () => api<Delivery[]>(`/v1/search/webhooks/${encodeURIComponent(id)}/deliveries`, { store: slug, query: { limit: 50 } }),
    [slug, id],
  );
  return (
    <div>
      <ErrorNotice error={list.error} />
      <ListTable
        state={list}
        what="deliveries"
        empty="No deliveries yet."
        columns={["Event", "Status", "Attempts", "Last answer", "Created", "Next retry"]}
        row={(d) => (
          <tr key={d.id}>
            <td>{d.event}</td>
            <td>
              <Badge status={d.status} />
            </td>
            <td>{d.attempts}</td>
            <td class="small">{d.last_status_code !== null ? `HTTP ${d.last_status_code}` : (d.last_error ?? "—")}</td>
            <td class="small">{fmtDate(d.created_at)}</td>
            <td class="small">{fmtDate(d.next_retry_at)}</td>
          </tr>
        )}
      />
    </div>
  );
}
