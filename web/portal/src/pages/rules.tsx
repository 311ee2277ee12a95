// The store's merchandising rules (/v1/search/rules): for a query (exact, or containing words),
// pin products to positions, hide products, boost or bury products by a metadata value. List with
// hit counts, add, edit (the same form, filled), enable or disable, delete. They apply to text
// search, the widget and the assistant's catalogue search.
import { useState } from "preact/hooks";
import { api, ApiError } from "../api";
import { DeleteButton, ListTable } from "../components";
import { ErrorNotice, Field, Section, Success, commaList, fmtDate, fmtNumber, useAction, useLoad } from "../ui";
import type { StoreProps } from "./store-props";
import type { Item, SearchBody, SearchOk } from "../api-types";

type Rule = Item<SearchOk<"/v1/search/rules">>;
type RuleBody = SearchBody<"/v1/search/rules">;
type Condition = Rule["boost"][number];

interface Form {
  match: "exact" | "contains";
  query: string;
  pins: string;
  hide: string;
  boost: string;
  bury: string;
  enabled: boolean;
  description: string;
}

const EMPTY: Form = { match: "exact", query: "", pins: "", hide: "", boost: "", bury: "", enabled: true, description: "" };

/** A mistake in the form, named as the API names its fields. */
const invalid = (field: string, message: string) =>
  new ApiError(400, "validation_failed", `${field} ${message}`, { errors: [{ field, message }] });

/** "product-id:position" entries; the position after the last colon. */
function parsePins(text: string): RuleBody["pins"] {
  return commaList(text).map((entry, i) => {
    const at = entry.lastIndexOf(":");
    const position = Number(entry.slice(at + 1).trim());
    if (at <= 0 || !Number.isInteger(position) || position < 1) {
      throw invalid(`pins.${i}`, `“${entry}” needs a product id and a position from 1, e.g. red-dress:1`);
    }
    return { product_id: entry.slice(0, at).trim(), position };
  });
}

/** "field=value" entries; numbers and true/false as such, other values as text. */
function parseConditions(field: "boost" | "bury", text: string): Condition[] {
  return commaList(text).map((entry, i) => {
    const eq = entry.indexOf("=");
    if (eq <= 0 || eq === entry.length - 1) throw invalid(`${field}.${i}`, `“${entry}” needs a field and a value, e.g. brand=Acme`);
    const raw = entry.slice(eq + 1).trim();
    const value = raw === "true" ? true : raw === "false" ? false : raw !== "" && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    return { field: entry.slice(0, eq).trim(), value };
  });
}

const showConditions = (list: readonly Condition[]) => list.map((c) => `${c.field}=${String(c.value)}`).join(", ");
const showPins = (rule: Rule) => rule.pins.map((p) => `${p.product_id}:${p.position}`).join(", ");

function formOf(rule: Rule): Form {
  return {
    match: rule.match,
    query: rule.query,
    pins: showPins(rule),
    hide: rule.hide.join(", "),
    boost: showConditions(rule.boost),
    bury: showConditions(rule.bury),
    enabled: rule.enabled,
    description: rule.description ?? "",
  };
}

function bodyOf(f: Form): RuleBody {
  return {
    match: f.match,
    query: f.query,
    pins: parsePins(f.pins),
    hide: commaList(f.hide),
    boost: parseConditions("boost", f.boost),
    bury: parseConditions("bury", f.bury),
    enabled: f.enabled,
    description: f.description.trim() === "" ? null : f.description,
  };
}

export function RulesPage({ slug }: StoreProps) {
  const list = useLoad(() => api<Rule[]>("/v1/search/rules", { store: slug }), [slug]);
  const [form, setForm] = useState<Form>(EMPTY);
  const [editing, setEditing] = useState<Rule | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const act = useAction();
  const set =
    <K extends keyof Form>(key: K) =>
    (value: Form[K]) =>
      setForm((f) => ({ ...f, [key]: value }));
  const text = (key: "query" | "pins" | "hide" | "boost" | "bury" | "description") => ({
    value: form[key],
    onInput: (e: { currentTarget: HTMLInputElement }) => set(key)(e.currentTarget.value),
  });

  return (
    <>
      <h1>Merchandising</h1>
      <p class="muted">
        Rules for what shoppers search: pin products to the top (or any position), hide products, and move products of a brand, category or
        tag up or down. Text search, the widget and the assistant apply them after ranking. A pinned product shows even when the search did
        not find it, as long as it passes the shopper's filters.
      </p>
      <Section title={editing ? `Edit the rule for “${editing.query}”` : "Add a rule"}>
        <form
          aria-label={editing ? "Edit rule" : "Add rule"}
          onSubmit={(e) => {
            e.preventDefault();
            setSaved(null);
            void act.run(async () => {
              const body = bodyOf(form);
              const rule = editing
                ? await api<Rule>(`/v1/search/rules/${encodeURIComponent(editing.id)}`, { store: slug, method: "PUT", body })
                : await api<Rule>("/v1/search/rules", { store: slug, body });
              setSaved(`${editing ? "Saved" : "Added"}: the rule for “${rule.query}”`);
              setEditing(null);
              setForm(EMPTY);
              list.reload();
            });
          }}
        >
          <div class="grid-form">
            <Field label="When the search" hint="exact: the whole query; contains: these words in a row anywhere in it">
              <select value={form.match} onChange={(e) => set("match")(e.currentTarget.value as Form["match"])}>
                <option value="exact">is exactly</option>
                <option value="contains">contains</option>
              </select>
            </Field>
            <Field label="Query" hint="e.g. summer dress (case and punctuation ignored)">
              <input required maxLength={200} {...text("query")} />
            </Field>
            <Field label="Pin" hint="product-id:position, comma-separated, e.g. red-dress:1, blue-scarf:3">
              <input {...text("pins")} />
            </Field>
            <Field label="Hide" hint="Product ids, comma-separated">
              <input {...text("hide")} />
            </Field>
            <Field label="Boost" hint="field=value, e.g. brand=Acme, tags=new">
              <input {...text("boost")} />
            </Field>
            <Field label="Bury" hint="field=value, e.g. tags=clearance">
              <input {...text("bury")} />
            </Field>
            <Field label="Note" hint="For your team (optional)">
              <input maxLength={200} {...text("description")} />
            </Field>
          </div>
          <fieldset class="checks">
            <legend>Status</legend>
            <label class="check">
              <input type="checkbox" checked={form.enabled} onChange={(e) => set("enabled")(e.currentTarget.checked)} /> Enabled
            </label>
          </fieldset>
          <div class="inline">
            <button type="submit" disabled={act.busy}>
              {editing ? "Save rule" : "Add rule"}
            </button>
            {editing && (
              <button
                type="button"
                class="secondary"
                onClick={() => {
                  setEditing(null);
                  setForm(EMPTY);
                  act.setError(null);
                }}
              >
                Cancel
              </button>
            )}
          </div>
        </form>
        {saved !== null && <Success>{saved}</Success>}
      </Section>
      <ErrorNotice error={act.error ?? list.error} />
      <Section title="Your rules">
        <ListTable
          state={list}
          what="rules"
          empty="No merchandising rules yet."
          label="Merchandising rules"
          columns={["Query", "Pinned", "Hidden", "Boost", "Bury", "Status", "Searches", "Changed"]}
          actions="Edit or delete"
          row={(r) => (
            <tr key={r.id}>
              <td>
                {r.match === "exact" ? "is " : "contains "}
                <strong>{r.query}</strong>
                {r.description && <div class="small muted">{r.description}</div>}
              </td>
              <td>{showPins(r)}</td>
              <td>{r.hide.join(", ")}</td>
              <td>{showConditions(r.boost)}</td>
              <td>{showConditions(r.bury)}</td>
              <td>{r.enabled ? "enabled" : "disabled"}</td>
              <td>{fmtNumber(r.hits)}</td>
              <td class="small">{fmtDate(r.updated_at)}</td>
              <td>
                <div class="inline">
                  <button
                    type="button"
                    class="small"
                    aria-label={`Edit the rule for ${r.query}`}
                    onClick={() => {
                      setEditing(r);
                      setForm(formOf(r));
                      setSaved(null);
                      window.scrollTo(0, 0);
                    }}
                  >
                    Edit
                  </button>
                  <DeleteButton
                    act={act}
                    store={slug}
                    path={`/v1/search/rules/${encodeURIComponent(r.id)}`}
                    question={`Delete the rule for “${r.query}”?`}
                    onDone={() => {
                      if (editing?.id === r.id) {
                        setEditing(null);
                        setForm(EMPTY);
                      }
                      list.reload();
                    }}
                  >
                    Delete
                  </DeleteButton>
                </div>
              </td>
            </tr>
          )}
        />
      </Section>
    </>
  );
}
