import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api";
import { Badge, CheckSet, DeleteButton, ListTable } from "../components";
import { ErrorNotice, Field, Section, SecretOnce, Snippet, fmtDate, useAction, useLoad } from "../ui";
import type { StoreProps } from "./store-props";
import type { AssistantOk, Item, SearchOk } from "../api-types";

/** The answer of any of the key-creating routes this page and the chat-key page call (the secret, once). */
export type CreatedKey =
  SearchOk<"/v1/security/api-keys", "post"> | SearchOk<"/v1/widget/keys", "post"> | AssistantOk<"/v1/admin/public-keys", "post">;

export type ApiKey = Item<SearchOk<"/v1/security/api-keys">>;

/** Who created a key: the member's name or e-mail, or the store's machine grant. */
const creatorOf = (k: ApiKey): string =>
  k.created_by === null ? "machine grant" : (k.created_by.name ?? k.created_by.email ?? k.created_by.user_id);
type PermissionInfo = Item<SearchOk<"/v1/user-groups/permissions">>;

/**
 * The create form of a key: a name plus `fields`, POSTed to `path` with `body(name)` (through
 * `send`, the Search API by default); the new key is shown once (with `usage(key)` beneath it),
 * then `onCreated(key)` resets the page's own fields.
 */
export function CreateKeyForm({
  act,
  store,
  path,
  kind,
  button,
  body,
  onCreated,
  disabled,
  fields,
  children,
  usage,
  send = (p, s, b) => api<CreatedKey>(p, { store: s, body: b }),
}: {
  act: ReturnType<typeof useAction>;
  store: string;
  path: string;
  kind: string;
  button: string;
  body: (name: string) => Record<string, unknown>;
  onCreated: (key: string) => void;
  disabled?: boolean;
  fields?: ComponentChildren;
  children?: ComponentChildren;
  usage?: (key: string) => ComponentChildren;
  send?: (path: string, store: string, body: Record<string, unknown>) => Promise<CreatedKey>;
}) {
  const [name, setName] = useState("");
  const [created, setCreated] = useState<CreatedKey | null>(null);
  return (
    <>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setCreated(null);
          const payload = body(name);
          void act.run(async () => {
            const res = await send(path, store, payload);
            setCreated(res);
            setName("");
            onCreated(res.key);
          });
        }}
      >
        <div class="grid-form">
          <Field label="Name">
            <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          {fields}
        </div>
        {children}
        <button type="submit" disabled={act.busy || disabled}>
          {button}
        </button>
      </form>
      {created && (
        <SecretOnce label={`${kind} “${created.name}”`} value={created.key}>
          {usage?.(created.key)}
        </SecretOnce>
      )}
    </>
  );
}

// Scopes an API key can carry (the server's `api_key_scope`): never security:write, team:write or
// connector:write:store (the Assistant API's admin routes take a user login only).
const FALLBACK_SCOPES = [
  "products:read",
  "products:write",
  "products:delete",
  "products:bulk",
  "search:execute",
  "search:read",
  "search:write",
  "analytics:read",
];

export function ApiKeysPage({ slug }: StoreProps) {
  const keys = useLoad(() => api<ApiKey[]>("/v1/security/api-keys", { store: slug }), [slug]);
  const perms = useLoad(() => api<PermissionInfo[]>("/v1/user-groups/permissions", { store: slug }), [slug]);
  const scopes = perms.data ? perms.data.filter((p) => p.api_key_scope).map((p) => p.name) : FALLBACK_SCOPES;
  const [days, setDays] = useState(90);
  const [chosen, setChosen] = useState<Set<string>>(new Set(["search:execute"]));
  const act = useAction();

  return (
    <>
      <h1>API keys</h1>
      <p class="muted">
        Scoped keys for your backend (sent as <code>Authorization: Bearer sk_live_…</code>). Never put them in web pages: use widget keys
        there.
      </p>
      <Section title="Create a key">
        <CreateKeyForm
          act={act}
          store={slug}
          path="/v1/security/api-keys"
          kind="API key"
          button="Create key"
          body={(name) => {
            const map: Record<string, string[]> = {};
            for (const s of chosen) {
              const [area, action] = s.split(":");
              if (area && action) (map[area] ??= []).push(action);
            }
            return { name, scopes: map, expires_in_days: days };
          }}
          onCreated={keys.reload}
          disabled={chosen.size === 0}
          fields={
            <Field label="Valid for (days)" hint="1 to 365">
              <input type="number" min={1} max={365} value={days} onInput={(e) => setDays(Number(e.currentTarget.value))} />
            </Field>
          }
        >
          <CheckSet legend="Scopes" options={scopes} chosen={chosen} onChange={setChosen} />
        </CreateKeyForm>
      </Section>
      <ErrorNotice error={act.error ?? keys.error} />
      <Section title="Keys">
        <ListTable
          state={keys}
          what="keys"
          empty="No API keys yet."
          columns={["Name", "Key", "Scopes", "Status", "Created by", "Expires", "Last used"]}
          actions="Actions"
          row={(k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}…</code>
              </td>
              <td class="small">
                {Object.entries(k.scopes)
                  .map(([a, acts]) => `${a}: ${acts.join(", ")}`)
                  .join("; ")}
              </td>
              <td>
                <Badge status={k.status} />
              </td>
              <td class="small">{creatorOf(k)}</td>
              <td class="small">{fmtDate(k.expires_at)}</td>
              <td class="small">{fmtDate(k.last_used_at)}</td>
              <td>
                {k.status === "active" && (
                  <DeleteButton
                    act={act}
                    store={slug}
                    path={`/v1/security/api-keys/${encodeURIComponent(k.id)}`}
                    question={`Revoke “${k.name}”? Calls using it stop working at once.`}
                    onDone={keys.reload}
                  >
                    Revoke
                  </DeleteButton>
                )}
              </td>
            </tr>
          )}
        />
      </Section>
    </>
  );
}

type WidgetKey = Item<SearchOk<"/v1/widget/keys">>;

const originsOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((o) => o.trim())
    .filter(Boolean);

export function WidgetKeysPage({ slug }: StoreProps) {
  const keys = useLoad(() => api<WidgetKey[]>("/v1/widget/keys", { store: slug }), [slug]);
  const [origins, setOrigins] = useState("");
  const [editing, setEditing] = useState<{ id: string; origins: string } | null>(null);
  const act = useAction();
  const base = location.origin;

  return (
    <>
      <h1>Widget keys</h1>
      <p class="muted">
        Public keys for the drop-in search widget. A key only works on the web sites (origins) you list, e.g.{" "}
        <code>https://shop.example.com</code>.
      </p>
      <Section title="Create a widget key">
        <CreateKeyForm
          act={act}
          store={slug}
          path="/v1/widget/keys"
          kind="Widget key"
          button="Create widget key"
          body={(name) => ({ name, allowed_origins: originsOf(origins) })}
          onCreated={() => {
            setOrigins("");
            keys.reload();
          }}
          fields={
            <Field label="Allowed origins" hint="One per line: scheme, host and port, no path. At most 20.">
              <textarea required rows={3} value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} />
            </Field>
          }
          usage={(key) => (
            <>
              <p>Add the widget to your shop:</p>
              <Snippet
                label="Widget snippet"
                code={`<div id="search"></div>
<script src="${base}/widget.js"></script>
<script>
  ServiceWidget.mount(document.getElementById("search"), { key: "${key}" });
</script>`}
              />
            </>
          )}
        />
      </Section>
      <ErrorNotice error={act.error ?? keys.error} />
      <Section title="Keys">
        <ListTable
          state={keys}
          what="widget keys"
          empty="No widget keys yet."
          columns={["Name", "Key", "Allowed origins", "Status", "Last used"]}
          actions="Actions"
          row={(k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td>
                <code>{k.key_prefix}…</code>
              </td>
              <td>
                {editing?.id === k.id ? (
                  <form
                    onSubmit={(e) => {
                      e.preventDefault();
                      void act.run(async () => {
                        await api(`/v1/widget/keys/${encodeURIComponent(k.id)}`, {
                          store: slug,
                          method: "PATCH",
                          body: { allowed_origins: originsOf(editing.origins) },
                        });
                        setEditing(null);
                        keys.reload();
                      });
                    }}
                  >
                    <textarea
                      aria-label={`Allowed origins of ${k.name}`}
                      rows={3}
                      value={editing.origins}
                      onInput={(e) => setEditing({ id: k.id, origins: e.currentTarget.value })}
                    />
                    <button type="submit" class="small">
                      Save
                    </button>{" "}
                    <button type="button" class="secondary small" onClick={() => setEditing(null)}>
                      Cancel
                    </button>
                  </form>
                ) : (
                  <ul class="plain">
                    {k.allowed_origins.map((o) => (
                      <li key={o}>
                        <code>{o}</code>
                      </li>
                    ))}
                  </ul>
                )}
              </td>
              <td>
                <Badge status={k.status} />
              </td>
              <td class="small">{fmtDate(k.last_used_at)}</td>
              <td>
                {k.status === "active" && editing?.id !== k.id && (
                  <>
                    <button
                      type="button"
                      class="secondary small"
                      onClick={() => setEditing({ id: k.id, origins: k.allowed_origins.join("\n") })}
                    >
                      Edit origins
                    </button>{" "}
                    <DeleteButton
                      act={act}
                      store={slug}
                      path={`/v1/widget/keys/${encodeURIComponent(k.id)}`}
                      question={`Revoke “${k.name}”? The widget stops working on your site at once.`}
                      onDone={keys.reload}
                    >
                      Revoke
                    </DeleteButton>
                  </>
                )}
              </td>
            </tr>
          )}
        />
      </Section>
    </>
  );
}
