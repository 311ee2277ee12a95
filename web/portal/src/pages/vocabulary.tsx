// The store's own words for the assistant's policy answers, on the Assistant page, over the
// Assistant API's GET/PUT /v1/admin/settings/vocabulary: synonyms (groups of words that mean the
// same at the store), scope words (words that limit where a policy statement applies) and product
// words (kinds of product the store's policies set apart). Every save replaces all three lists;
// the API lower-cases the words, drops duplicates and answers with what it saved.
import { useEffect, useState } from "preact/hooks";
import { ApiError, assistantApi } from "../api";
import { ErrorNotice, Field, Section, Success, commaList, fmtDate, useAction, useLoad } from "../ui";
import type { AssistantBody, AssistantOk } from "../api-types";

type Vocabulary = AssistantOk<"/v1/admin/settings/vocabulary">;
type VocabularyBody = AssistantBody<"/v1/admin/settings/vocabulary", "put">;

interface Form {
  synonyms: string;
  scope_words: string;
  product_words: string;
}

/** The API's limits (src/assistant/settings/schemas.ts), checked before anything is sent. */
const MAX_WORD = 40;
const GROUP = { min: 2, max: 20 };

/** A mistake in the form, named as the API names its fields. */
const invalid = (field: string, message: string) =>
  new ApiError(400, "validation_failed", `${field} ${message}`, { errors: [{ field, message }] });

const formOf = (v: Vocabulary): Form => ({
  synonyms: v.synonyms.map((group) => group.join(", ")).join("\n"),
  scope_words: v.scope_words.join(", "),
  product_words: v.product_words.join(", "),
});

function checkedWords(field: string, words: string[]): string[] {
  words.forEach((w, i) => {
    if (w.length > MAX_WORD) throw invalid(`${field}[${i}]`, `“${w}” is longer than ${MAX_WORD} characters`);
  });
  return words;
}

/** One synonym group a line, its words comma-separated; blank lines left out. */
function synonymGroups(text: string): string[][] {
  return text
    .split("\n")
    .map(commaList)
    .filter((group) => group.length > 0)
    .map((group, i) => {
      const field = `synonyms[${i}]`;
      if (group.length < GROUP.min) throw invalid(field, `“${group.join(", ")}” needs at least ${GROUP.min} words, comma-separated`);
      if (group.length > GROUP.max) throw invalid(field, `has ${group.length} words; a group holds at most ${GROUP.max}`);
      return checkedWords(field, group);
    });
}

const bodyOf = (f: Form): VocabularyBody => ({
  synonyms: synonymGroups(f.synonyms),
  scope_words: checkedWords("scope_words", commaList(f.scope_words)),
  product_words: checkedWords("product_words", commaList(f.product_words)),
});

export function VocabularyForm({ slug }: { slug: string }) {
  const loaded = useLoad(() => assistantApi<Vocabulary>("/v1/admin/settings/vocabulary", { store: slug }), [slug]);
  // What the store has saved (loaded, then the answer of each save) and the form: both null until
  // the store's vocabulary is loaded, and the form is shown only then, so nothing unseen is replaced.
  const [view, setView] = useState<Vocabulary | null>(null);
  const [f, setF] = useState<Form | null>(null);
  const [saved, setSaved] = useState(false);
  const act = useAction();
  useEffect(() => {
    if (loaded.data) {
      setView(loaded.data);
      setF(formOf(loaded.data));
    }
  }, [loaded.data]);
  const help = (
    <p class="muted">
      Your store's own words, so the assistant reads your policies as you mean them. Words are saved in lower case; every save replaces all
      three lists.
    </p>
  );
  if (!f || !view) {
    return (
      <Section title="Vocabulary">
        {help}
        <ErrorNotice error={loaded.error} />
        {loaded.loading && <p class="muted">Loading the store's vocabulary…</p>}
      </Section>
    );
  }
  const set = (k: keyof Form) => (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
    setF({ ...f, [k]: e.currentTarget.value });
  return (
    <Section title="Vocabulary">
      {help}
      <ErrorNotice error={act.error ?? loaded.error} />
      <form
        aria-label="Vocabulary"
        onSubmit={(e) => {
          e.preventDefault();
          setSaved(false);
          // On a refusal (here or by the API) the form keeps what was typed.
          void act.run(async () => {
            const res = await assistantApi<Vocabulary>("/v1/admin/settings/vocabulary", { store: slug, method: "PUT", body: bodyOf(f) });
            setView(res);
            setF(formOf(res));
            setSaved(true);
          });
        }}
      >
        <div class="grid-form">
          <Field
            label="Synonym groups"
            hint="One group a line, its words comma-separated: words that mean the same at your store, e.g. member, elite when your members' tier is called Elite"
          >
            <textarea name="synonyms" rows={4} value={f.synonyms} onInput={set("synonyms")} />
          </Field>
          <Field
            label="Scope words"
            hint="Comma-separated: words that limit where a statement of a policy applies, such as a membership tier, a programme or a region, e.g. elite, alaska. A statement naming one is an exception to its rule, not a conflict."
          >
            <input name="scope_words" value={f.scope_words} onInput={set("scope_words")} />
          </Field>
          <Field label="Product words" hint="Comma-separated: kinds of product your policies set apart, e.g. mattress">
            <input name="product_words" value={f.product_words} onInput={set("product_words")} />
          </Field>
        </div>
        <button type="submit" disabled={act.busy}>
          Save vocabulary
        </button>{" "}
        <span class="muted small">{view.updated_at ? `Last saved ${fmtDate(view.updated_at)}` : "Not saved yet"}</span>
        {saved && (
          <Success>
            <p>Vocabulary saved. The assistant's policy answers use it from the next question.</p>
          </Success>
        )}
      </form>
    </Section>
  );
}
