import { useState } from "preact/hooks";
import { api } from "../api";
import { ErrorNotice, Field, Loading, Section, SecretOnce, fmtDate, useAction, useLoad } from "../ui";
import type { StoreProps } from "./store";

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: Record<string, string[]>;
  status: "active" | "expired" | "revoked";
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
}
interface PermissionInfo {
  name: string;
  area: string;
  action: string;
  description: string;
  api_key_scope: boolean;
}

const FALLBACK_SCOPES = ["products:read", "products:write", "products:delete", "products:bulk", "search:execute", "search:read", "search:write", "analytics:read"];

export function ApiKeysPage({ slug }: StoreProps) {
  const keys = useLoad(() => api<ApiKey[]>("/v1/security/api-keys", { store: slug }), [slug]);
  const perms = useLoad(() => api<PermissionInfo[]>("/v1/user-groups/permissions", { store: slug }), [slug]);
  const scopes = perms.data ? perms.data.filter((p) => p.api_key_scope).map((p) => p.name) : FALLBACK_SCOPES;
  const [name, setName] = useState("");
  const [days, setDays] = useState(90);
  const [chosen, setChosen] = useState<Set<string>>(new Set(["search:execute"]));
  const [created, setCreated] = useState<{ key: string; name: string } | null>(null);
  const act = useAction();

  return (
    <>
      <h1>API keys</h1>
      <p class="muted">Scoped keys for your backend (sent as <code>Authorization: Bearer sk_live_…</code>). Never put them in web pages: use widget keys there.</p>
      <Section title="Create a key">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setCreated(null);
            const map: Record<string, string[]> = {};
            for (const s of chosen) {
              const [area, action] = s.split(":");
              if (area && action) (map[area] ??= []).push(action);
            }
            void act.run(async () => {
              const res = await api<{ key: string; name: string }>("/v1/security/api-keys", { store: slug, body: { name, scopes: map, expires_in_days: days } });
              setCreated(res);
              setName("");
              keys.reload();
            });
          }}
        >
          <div class="grid-form">
            <Field label="Name">
              <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </Field>
            <Field label="Valid for (days)" hint="1 to 365">
              <input type="number" min={1} max={365} value={days} onInput={(e) => setDays(Number(e.currentTarget.value))} />
            </Field>
          </div>
          <fieldset class="checks">
            <legend>Scopes</legend>
            {scopes.map((s) => (
              <label key={s} class="check">
                <input
                  type="checkbox"
                  checked={chosen.has(s)}
                  onChange={(e) => {
                    const next = new Set(chosen);
                    if (e.currentTarget.checked) next.add(s);
                    else next.delete(s);
                    setChosen(next);
                  }}
                />{" "}
                {s}
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={act.busy || chosen.size === 0}>
            Create key
          </button>
        </form>
        {created && <SecretOnce label={`API key “${created.name}”`} value={created.key} />}
      </Section>
      <ErrorNotice error={act.error ?? keys.error} />
      <Section title="Keys">
        {keys.loading && !keys.data && <Loading what="keys" />}
        {keys.data && keys.data.length === 0 && <p class="muted">No API keys yet.</p>}
        {keys.data && keys.data.length > 0 && (
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Status</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td class="small">{Object.entries(k.scopes).map(([a, acts]) => `${a}: ${acts.join(", ")}`).join("; ")}</td>
                  <td>
                    <span class={`badge ${k.status}`}>{k.status}</span>
                  </td>
                  <td class="small">{fmtDate(k.expires_at)}</td>
                  <td class="small">{fmtDate(k.last_used_at)}</td>
                  <td>
                    {k.status === "active" && (
                      <button
                        type="button"
                        class="danger small"
                        onClick={() =>
                          confirm(`Revoke “${k.name}”? Calls using it stop working at once.`) &&
                          void act.run(async () => (await api(`/v1/security/api-keys/${encodeURIComponent(k.id)}`, { store: slug, method: "DELETE" }), keys.reload()))
                        }
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}

interface WidgetKey {
  id: string;
  name: string;
  key_prefix: string;
  allowed_origins: string[];
  status: string;
  created_at: string;
  last_used_at: string | null;
}

const originsOf = (text: string) => text.split(/[\s,]+/).map((o) => o.trim()).filter(Boolean);

export function WidgetKeysPage({ slug }: StoreProps) {
  const keys = useLoad(() => api<WidgetKey[]>("/v1/widget/keys", { store: slug }), [slug]);
  const [name, setName] = useState("");
  const [origins, setOrigins] = useState("");
  const [created, setCreated] = useState<{ key: string; name: string } | null>(null);
  const [editing, setEditing] = useState<{ id: string; origins: string } | null>(null);
  const act = useAction();
  const base = location.origin;

  return (
    <>
      <h1>Widget keys</h1>
      <p class="muted">Public keys for the drop-in search widget. A key only works on the web sites (origins) you list, e.g. <code>https://shop.example.com</code>.</p>
      <Section title="Create a widget key">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setCreated(null);
            void act.run(async () => {
              const res = await api<{ key: string; name: string }>("/v1/widget/keys", { store: slug, body: { name, allowed_origins: originsOf(origins) } });
              setCreated(res);
              setName("");
              setOrigins("");
              keys.reload();
            });
          }}
        >
          <div class="grid-form">
            <Field label="Name">
              <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </Field>
            <Field label="Allowed origins" hint="One per line: scheme, host and port, no path. At most 20.">
              <textarea required rows={3} value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} />
            </Field>
          </div>
          <button type="submit" disabled={act.busy}>
            Create widget key
          </button>
        </form>
        {created && (
          <SecretOnce label={`Widget key “${created.name}”`} value={created.key}>
            <p>Add the widget to your shop:</p>
            <pre class="code">{`<div id="search"></div>
<script src="${base}/widget.js"></script>
<script>
  ServiceWidget.mount(document.getElementById("search"), { key: "${created.key}" });
</script>`}</pre>
          </SecretOnce>
        )}
      </Section>
      <ErrorNotice error={act.error ?? keys.error} />
      <Section title="Keys">
        {keys.loading && !keys.data && <Loading what="widget keys" />}
        {keys.data && keys.data.length === 0 && <p class="muted">No widget keys yet.</p>}
        {keys.data && keys.data.length > 0 && (
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Allowed origins</th>
                <th scope="col">Status</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => (
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
                            await api(`/v1/widget/keys/${encodeURIComponent(k.id)}`, { store: slug, method: "PATCH", body: { allowed_origins: originsOf(editing.origins) } });
                            setEditing(null);
                            keys.reload();
                          });
                        }}
                      >
                        <textarea aria-label={`Allowed origins of ${k.name}`} rows={3} value={editing.origins} onInput={(e) => setEditing({ id: k.id, origins: e.currentTarget.value })} />
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
                    <span class={`badge ${k.status}`}>{k.status}</span>
                  </td>
                  <td class="small">{fmtDate(k.last_used_at)}</td>
                  <td>
                    {k.status === "active" && editing?.id !== k.id && (
                      <>
                        <button type="button" class="secondary small" onClick={() => setEditing({ id: k.id, origins: k.allowed_origins.join("\n") })}>
                          Edit origins
                        </button>{" "}
                        <button
                          type="button"
                          class="danger small"
                          onClick={() =>
                            confirm(`Revoke “${k.name}”? The widget stops working on your site at once.`) &&
                            void act.run(async () => (await api(`/v1/widget/keys/${encodeURIComponent(k.id)}`, { store: slug, method: "DELETE" }), keys.reload()))
                          }
                        >
                          Revoke
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}
