// The shopping assistant of the store, over the Assistant API's admin routes (CHAT_PORT; its
// address comes from the Search API's `GET /`). The Assistant API answers the portal's origin on
// /v1/admin/* with CORS (src/assistant/widget/routes.ts) and the portal's CSP allows connecting to
// it (src/search/portal/page.ts). Admin calls need a user login with connector:write:store
// (owners and admins).
//   Settings     currency and support contact               GET/PUT /v1/admin/settings
//   Policies     create, edit, publish; each change is a new version   GET /v1/admin/policies, PUT /v1/admin/policies/{concept_id}
//   Vocabulary   the store's synonyms, scope words and product words for the policy answers
//                (./vocabulary.tsx)                                    GET/PUT /v1/admin/settings/vocabulary
//   Chat keys    public keys with the <commerce-ai-chat> snippet      GET/POST /v1/admin/public-keys, DELETE …/{id}
//   Preview      the real <commerce-ai-chat> component (served to the portal under /portal/chat/)
//                talking to the Assistant API with one of the store's public keys.
import { useEffect, useRef, useState } from "preact/hooks";
import { assistantApi, serviceLinks } from "../api";
import { Badge, DeleteButton, ListTable } from "../components";
import { ErrorNotice, Field, Loaded, Section, Snippet, Success, fmtDate, forgetStoreCurrency, useAction, useLoad } from "../ui";
import { CreateKeyForm, type CreatedKey } from "./keys";
import type { StoreProps } from "./store-props";
import { VocabularyForm } from "./vocabulary";
import type { AssistantOk, Item } from "../api-types";

type Settings = AssistantOk<"/v1/admin/settings">;
type Policy = Item<AssistantOk<"/v1/admin/policies">["policies"]>;

const chatSnippet = (base: string, key: string) => `<script type="module" src="${base}/widget/index.js"></script>
<commerce-ai-chat store-public-key="${key}" api-base-url="${base}" locale="en"></commerce-ai-chat>`;

function SettingsForm({ slug }: { slug: string }) {
  const settings = useLoad(() => assistantApi<Settings>("/v1/admin/settings", { store: slug }), [slug]);
  // Empty until the store's settings are loaded: the form is shown only then, so nothing that was
  // not loaded (a default currency) can be saved over the store's own.
  const [f, setF] = useState({ currency: "", email: "", url: "", phone: "", hours: "" });
  const [saved, setSaved] = useState(false);
  const act = useAction();
  useEffect(() => {
    const s = settings.data;
    if (s)
      setF({
        currency: s.currency,
        email: s.support_contact?.email ?? "",
        url: s.support_contact?.url ?? "",
        phone: s.support_contact?.phone ?? "",
        hours: s.support_contact?.hours ?? "",
      });
  }, [settings.data]);
  const set = (k: keyof typeof f) => (e: { currentTarget: HTMLInputElement }) => setF({ ...f, [k]: e.currentTarget.value });
  if (!settings.data) {
    return (
      <Section title="Settings">
        <ErrorNotice error={settings.error} />
        {settings.loading && <p class="muted">Loading the store's settings…</p>}
      </Section>
    );
  }
  return (
    <Section title="Settings">
      <ErrorNotice error={act.error ?? settings.error} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setSaved(false);
          const contact = Object.fromEntries(
            Object.entries({ email: f.email, url: f.url, phone: f.phone, hours: f.hours })
              .filter(([, v]) => v.trim() !== "")
              .map(([k, v]) => [k, v.trim()]),
          );
          void act.run(async () => {
            await assistantApi("/v1/admin/settings", {
              store: slug,
              method: "PUT",
              body: { currency: f.currency.trim().toUpperCase(), support_contact: Object.keys(contact).length ? contact : null },
            });
            forgetStoreCurrency(slug);
            setSaved(true);
            settings.reload();
          });
        }}
      >
        <div class="grid-form">
          <Field label="Currency" hint="ISO 4217 code of your prices, e.g. USD, EUR, GBP">
            <input name="currency" required pattern="[A-Za-z]{3}" maxLength={3} value={f.currency} onInput={set("currency")} />
          </Field>
          <Field label="Support e-mail">
            <input name="support_email" type="email" value={f.email} onInput={set("email")} />
          </Field>
          <Field label="Support page" hint="https://…">
            <input name="support_url" type="url" value={f.url} onInput={set("url")} />
          </Field>
          <Field label="Support phone">
            <input name="support_phone" value={f.phone} onInput={set("phone")} />
          </Field>
          <Field label="Support hours" hint="e.g. Mon–Fri 9:00–17:00 CET">
            <input name="support_hours" value={f.hours} onInput={set("hours")} />
          </Field>
        </div>
        <button type="submit" disabled={act.busy}>
          Save settings
        </button>
        {saved && (
          <Success>
            <p>Settings saved. Shoppers who ask for a person see the support contact.</p>
          </Success>
        )}
      </form>
    </Section>
  );
}

/** A small secondary button running `run` through the section's action (busy state, errors). */
function ActionButton({
  act,
  run,
  children,
}: {
  act: ReturnType<typeof useAction>;
  run: () => Promise<unknown>;
  children: preact.ComponentChildren;
}) {
  return (
    <button type="button" class="secondary small" disabled={act.busy} onClick={() => void act.run(run)}>
      {children}
    </button>
  );
}

const EMPTY_POLICY = { concept_id: "", handle: "", title: "", body_markdown: "", locale: "en", published: true };
const slugOf = (text: string) =>
  text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);

function Policies({ slug }: { slug: string }) {
  const list = useLoad(
    () => assistantApi<AssistantOk<"/v1/admin/policies">>("/v1/admin/policies", { store: slug }).then((r) => r.policies),
    [slug],
  );
  const [f, setF] = useState(EMPTY_POLICY);
  const [editing, setEditing] = useState<string | null>(null);
  const [saved, setSaved] = useState<{ title: string; version: number; changed: boolean; published: boolean } | null>(null);
  const [history, setHistory] = useState<{ concept_id: string; title: string; versions: Policy[] } | null>(null);
  const act = useAction();
  /** PUT one policy (a new version when anything changed), then show the outcome and reload the list. */
  const save = async (conceptId: string, body: Omit<Policy, "concept_id" | "concept_version" | "updated_at">) => {
    const res = await assistantApi<AssistantOk<"/v1/admin/policies/{concept_id}", "put">>(
      `/v1/admin/policies/${encodeURIComponent(conceptId)}`,
      { store: slug, method: "PUT", body },
    );
    setSaved({ title: res.title, version: res.concept_version, changed: res.changed, published: res.published });
    list.reload();
  };
  const set =
    (k: "title" | "handle" | "locale" | "body_markdown" | "concept_id") =>
    (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => {
      const value = e.currentTarget.value;
      // A new policy's id and handle follow its title until they are edited by hand.
      if (k === "title" && !editing && (f.concept_id === "" || f.concept_id === slugOf(f.title)))
        setF({ ...f, title: value, concept_id: slugOf(value), handle: slugOf(value) });
      else setF({ ...f, [k]: value });
    };
  return (
    <Section title="Policies">
      <p class="muted">
        The assistant answers questions about shipping, returns, payment and the like from your published policies only, citing them. Every
        change is kept as a new version.
      </p>
      <ErrorNotice error={act.error ?? list.error} />
      <form
        aria-label={editing ? `Edit policy ${editing}` : "New policy"}
        onSubmit={(e) => {
          e.preventDefault();
          setSaved(null);
          void act.run(async () => {
            await save(f.concept_id, {
              handle: f.handle,
              title: f.title.trim(),
              body_markdown: f.body_markdown,
              locale: f.locale.trim(),
              published: f.published,
            });
            setEditing(null);
            setF(EMPTY_POLICY);
          });
        }}
      >
        <div class="grid-form">
          <Field label="Policy title" hint="e.g. Returns policy">
            <input name="title" required maxLength={200} value={f.title} onInput={set("title")} />
          </Field>
          <Field label="Policy id" hint="Lower-case letters, digits, - and _; stays the same across versions">
            <input
              name="concept_id"
              required
              pattern="[a-z0-9][a-z0-9_\-]*"
              maxLength={64}
              value={f.concept_id}
              readOnly={editing !== null}
              onInput={set("concept_id")}
            />
          </Field>
          <Field label="Handle" hint="e.g. returns-policy">
            <input name="handle" required pattern="[a-z0-9][a-z0-9_\-]*" maxLength={64} value={f.handle} onInput={set("handle")} />
          </Field>
          <Field label="Language" hint="BCP 47, e.g. en or de-DE">
            <input name="locale" required maxLength={35} value={f.locale} onInput={set("locale")} />
          </Field>
        </div>
        <Field label="Policy text" hint="Markdown. Write the facts shoppers ask about: time limits, costs, conditions.">
          <textarea name="body_markdown" required rows={8} maxLength={50000} value={f.body_markdown} onInput={set("body_markdown")} />
        </Field>
        <label class="checkbox">
          <input type="checkbox" checked={f.published} onChange={(e) => setF({ ...f, published: e.currentTarget.checked })} /> Published
          (the assistant may use it)
        </label>
        <div>
          <button type="submit" disabled={act.busy}>
            {editing ? "Save new version" : "Save policy"}
          </button>{" "}
          {editing && (
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setEditing(null);
                setF(EMPTY_POLICY);
              }}
            >
              Cancel
            </button>
          )}
        </div>
      </form>
      {saved && (
        <Success>
          <p>
            {saved.changed
              ? `Saved “${saved.title}” as version ${saved.version}`
              : `“${saved.title}” is unchanged (still version ${saved.version})`}
            {saved.published ? " · published" : " · draft"}.
          </p>
        </Success>
      )}
      {history && (
        <div class="card-inset">
          <h3>Versions of “{history.title}”</h3>
          <ol class="plain" aria-label={`Versions of ${history.title}`}>
            {history.versions.map((v) => (
              <li key={v.concept_version}>
                <strong>v{v.concept_version}</strong> · {fmtDate(v.updated_at)} · {v.published ? "published" : "draft"} ·{" "}
                <span class="muted">{v.body_markdown.slice(0, 120)}</span>
              </li>
            ))}
          </ol>
          <button type="button" class="link" onClick={() => setHistory(null)}>
            Close
          </button>
        </div>
      )}
      <ListTable
        state={list}
        what="policies"
        empty="No policies yet."
        label="Policies"
        columns={["Policy", "Language", "Status", "Version", "Updated"]}
        actions="Actions"
        row={(p) => (
          <tr key={p.concept_id}>
            <td>
              <strong>{p.title}</strong>
              <div class="muted small">
                {p.concept_id} · {p.handle}
              </div>
            </td>
            <td>{p.locale}</td>
            <td>
              <Badge status={p.published ? "published" : "draft"} />
            </td>
            <td>v{p.concept_version}</td>
            <td class="small">{fmtDate(p.updated_at)}</td>
            <td>
              <button
                type="button"
                class="secondary small"
                onClick={() => {
                  setEditing(p.concept_id);
                  setSaved(null);
                  setF({
                    concept_id: p.concept_id,
                    handle: p.handle,
                    title: p.title,
                    body_markdown: p.body_markdown,
                    locale: p.locale,
                    published: p.published,
                  });
                }}
              >
                Edit
              </button>{" "}
              <ActionButton
                act={act}
                run={() =>
                  save(p.concept_id, {
                    handle: p.handle,
                    title: p.title,
                    body_markdown: p.body_markdown,
                    locale: p.locale,
                    published: !p.published,
                  })
                }
              >
                {p.published ? "Unpublish" : "Publish"}
              </ActionButton>{" "}
              <ActionButton
                act={act}
                run={async () => {
                  const res = await assistantApi<AssistantOk<"/v1/admin/policies/{concept_id}/versions">>(
                    `/v1/admin/policies/${encodeURIComponent(p.concept_id)}/versions`,
                    { store: slug },
                  );
                  setHistory({ concept_id: p.concept_id, title: p.title, versions: res.versions });
                }}
              >
                Versions
              </ActionButton>
            </td>
          </tr>
        )}
      />
    </Section>
  );
}

const viaAssistant = {
  send: (path: string, store: string, body: Record<string, unknown>) => assistantApi<CreatedKey>(path, { store, body }),
  remove: (path: string, store: string) => assistantApi(path, { store, method: "DELETE" }),
};

function ChatKeys({ slug, chatBase, onKey }: { slug: string; chatBase: string; onKey: (key: string) => void }) {
  const keys = useLoad(
    () => assistantApi<AssistantOk<"/v1/admin/public-keys">>("/v1/admin/public-keys", { store: slug }).then((r) => r.keys),
    [slug],
  );
  const act = useAction();
  return (
    <Section title="Chat keys">
      <p class="muted">
        A public key (<code>store_pub_…</code>) lets the chat on your shop start anonymous sessions. It is not a secret, but it is shown in
        full only once.
      </p>
      <CreateKeyForm
        act={act}
        store={slug}
        path="/v1/admin/public-keys"
        kind="Chat key"
        button="Create chat key"
        body={(name) => ({ name: name.trim() })}
        send={viaAssistant.send}
        onCreated={(key) => {
          onKey(key);
          keys.reload();
        }}
        usage={(key) => (
          <>
            <p>Add the chat to your shop's pages:</p>
            <Snippet label="Chat snippet" code={chatSnippet(chatBase, key)} />
          </>
        )}
      />
      <ErrorNotice error={act.error ?? keys.error} />
      <ListTable
        state={keys}
        what="chat keys"
        empty="No chat keys yet."
        label="Chat keys"
        columns={["Name", "Key", "Status", "Created"]}
        actions="Actions"
        row={(k) => (
          <tr key={k.id}>
            <td>{k.name}</td>
            <td>
              <code>{k.key_prefix}…</code>
            </td>
            <td>
              <Badge status={k.status} />
            </td>
            <td class="small">{fmtDate(k.created_at)}</td>
            <td>
              {k.status === "active" && (
                <DeleteButton
                  act={act}
                  store={slug}
                  path={`/v1/admin/public-keys/${encodeURIComponent(k.id)}`}
                  question={`Revoke “${k.name}”? The chat stops starting new sessions with it.`}
                  onDone={keys.reload}
                  remove={viaAssistant.remove}
                >
                  Revoke
                </DeleteButton>
              )}
            </td>
          </tr>
        )}
      />
    </Section>
  );
}

/** Loads the chat component module once (same origin: /portal/chat/index.js). */
let chatModule: Promise<void> | null = null;
function loadChatComponent(): Promise<void> {
  chatModule ??= new Promise<void>((resolve, reject) => {
    if (customElements.get("commerce-ai-chat")) return resolve();
    const script = document.createElement("script");
    script.type = "module";
    script.src = "/portal/chat/index.js";
    script.onload = () => void customElements.whenDefined("commerce-ai-chat").then(() => resolve());
    script.onerror = () => {
      chatModule = null;
      reject(new Error("The chat component could not be loaded."));
    };
    document.head.append(script);
  });
  return chatModule;
}

function ChatPreview({ chatBase, keyValue, setKey }: { chatBase: string; keyValue: string; setKey: (k: string) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<unknown>(null);
  const [draft, setDraft] = useState(keyValue);
  useEffect(() => setDraft(keyValue), [keyValue]);
  useEffect(() => {
    const el = host.current;
    if (!el || !keyValue) return;
    let alive = true;
    loadChatComponent().then(() => {
      if (!alive) return;
      setError(null); // an earlier failure to load is over
      // A fresh element per key (the component keeps its session per tab in sessionStorage).
      el.textContent = "";
      const chat = document.createElement("commerce-ai-chat");
      chat.setAttribute("store-public-key", keyValue);
      chat.setAttribute("api-base-url", chatBase);
      chat.setAttribute("locale", "en");
      el.append(chat);
    }, setError);
    return () => {
      alive = false;
      el.textContent = "";
    };
  }, [keyValue, chatBase]);
  return (
    <Section title="Chat preview">
      <p class="muted">
        The chat as shoppers see it on your shop, answering from your published policies and catalogue. It uses one of your chat keys.
      </p>
      <ErrorNotice error={error} />
      {!keyValue && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setKey(draft.trim());
          }}
        >
          <div class="grid-form">
            <Field label="Chat key for the preview" hint="Create a chat key above, or paste one you kept (store_pub_…)">
              <input name="preview_key" required pattern="store_pub_.+" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
            </Field>
          </div>
          <button type="submit">Open the preview</button>
        </form>
      )}
      <div class="chat-preview" ref={host} hidden={!keyValue} />
    </Section>
  );
}

export function AssistantPage({ slug }: StoreProps) {
  const links = useLoad(() => serviceLinks(), []);
  const [previewKey, setPreviewKey] = useState("");
  return (
    <>
      <h1>Assistant</h1>
      <p class="muted">
        The shopping assistant answers shoppers in a chat on your shop. Its API runs at <code>{links.data?.assistant_api ?? "…"}</code>.
      </p>
      <ErrorNotice error={links.error} />
      <Loaded state={links} what="the assistant's address">
        {(l) => (
          <>
            <SettingsForm slug={slug} />
            <Policies slug={slug} />
            <VocabularyForm slug={slug} />
            <ChatKeys slug={slug} chatBase={l.assistant_api} onKey={setPreviewKey} />
            <ChatPreview chatBase={l.assistant_api} keyValue={previewKey} setKey={setPreviewKey} />
          </>
        )}
      </Loaded>
    </>
  );
}
