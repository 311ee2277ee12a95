// The store's own synonyms of text search (/v1/search/synonyms): add one-way or multi-way
// entries, see them, delete them. They apply to text search, the widget and the assistant's
// catalogue search beside the built-in vocabulary.
import { useState } from "preact/hooks";
import { api } from "../api";
import { DeleteButton, ListTable } from "../components";
import { ErrorNotice, Field, Section, Success, commaList, fmtDate, useAction, useLoad } from "../ui";
import type { StoreProps } from "./store-props";
import type { Item, SearchOk } from "../api-types";

type Synonym = Item<SearchOk<"/v1/search/synonyms">>;

export function SynonymsPage({ slug }: StoreProps) {
  const list = useLoad(() => api<Synonym[]>("/v1/search/synonyms", { store: slug }), [slug]);
  const [kind, setKind] = useState<"multi_way" | "one_way">("multi_way");
  const [words, setWords] = useState("");
  const [synonyms, setSynonyms] = useState("");
  const [added, setAdded] = useState<string | null>(null);
  const act = useAction();

  return (
    <>
      <h1>Synonyms</h1>
      <p class="muted">
        Words your shoppers use that your catalogue says differently. Text search, the widget and the assistant find products through them,
        ranked just below products holding the word itself. Gender words, everyday apparel words (en and de) and colour families are built
        in.
      </p>
      <Section title="Add synonyms">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setAdded(null);
            void act.run(async () => {
              const body =
                kind === "multi_way" ? { kind, words: commaList(words) } : { kind, words: commaList(words), synonyms: commaList(synonyms) };
              const created = await api<Synonym>("/v1/search/synonyms", { store: slug, body });
              setAdded(created.words.join(", "));
              setWords("");
              setSynonyms("");
              list.reload();
            });
          }}
        >
          <fieldset class="checks">
            <legend>Kind</legend>
            <label class="check">
              <input type="radio" name="kind" checked={kind === "multi_way"} onChange={() => setKind("multi_way")} /> Multi-way: each word
              finds the others
            </label>
            <label class="check">
              <input type="radio" name="kind" checked={kind === "one_way"} onChange={() => setKind("one_way")} /> One-way: the words also
              find the synonyms, not the reverse
            </label>
          </fieldset>
          <div class="grid-form">
            <Field label="Words" hint="Comma-separated, up to three words each, e.g. hoodie, sweatshirt">
              <input required value={words} onInput={(e) => setWords(e.currentTarget.value)} />
            </Field>
            {kind === "one_way" && (
              <Field label="Also find" hint="Comma-separated, e.g. women">
                <input required value={synonyms} onInput={(e) => setSynonyms(e.currentTarget.value)} />
              </Field>
            )}
          </div>
          <button type="submit" disabled={act.busy}>
            Add synonyms
          </button>
        </form>
        {added !== null && <Success>Added: {added}</Success>}
      </Section>
      <ErrorNotice error={act.error ?? list.error} />
      <Section title="Your synonyms">
        <ListTable
          state={list}
          what="synonyms"
          empty="No synonyms of your own yet."
          label="Synonyms"
          columns={["Kind", "Words", "Also find", "Added"]}
          actions="Delete"
          row={(s) => (
            <tr key={s.id}>
              <td>{s.kind === "multi_way" ? "multi-way" : "one-way"}</td>
              <td>{s.words.join(", ")}</td>
              <td>{s.kind === "multi_way" ? "each other" : s.synonyms.join(", ")}</td>
              <td class="small">{fmtDate(s.created_at)}</td>
              <td>
                <DeleteButton
                  act={act}
                  store={slug}
                  path={`/v1/search/synonyms/${encodeURIComponent(s.id)}`}
                  question={`Delete the synonyms ${s.words.join(", ")}?`}
                  onDone={list.reload}
                >
                  Delete
                </DeleteButton>
              </td>
            </tr>
          )}
        />
      </Section>
    </>
  );
}
