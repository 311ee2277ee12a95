import { useState } from "preact/hooks";
import { api } from "../api";
import { ErrorNotice, Field, Section, useAction } from "../ui";
import type { StoreProps } from "./store";

interface SearchResponse {
  query_time_ms: number;
  count: number;
  search_id: string;
  results: { product_id: string; similarity_score: number; metadata: Record<string, unknown> }[];
}
type Mode = "text" | "image" | "url" | "hybrid";

const MODES: { id: Mode; label: string }[] = [
  { id: "text", label: "Text" },
  { id: "image", label: "Image upload" },
  { id: "url", label: "Image URL" },
  { id: "hybrid", label: "Hybrid" },
];

export function PlaygroundPage({ slug }: StoreProps) {
  const [mode, setMode] = useState<Mode>("text");
  const [query, setQuery] = useState("");
  const [imageUrl, setImageUrl] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [visualWeight, setVisualWeight] = useState(0.5);
  const [colors, setColors] = useState("");
  const [limit, setLimit] = useState(10);
  const [threshold, setThreshold] = useState(0);
  const [filters, setFilters] = useState({ category: "", price_min: "", price_max: "", color: "" });
  const [result, setResult] = useState<SearchResponse | null>(null);
  const { busy, error, run } = useAction();

  function common(): Record<string, unknown> {
    const c: Record<string, unknown> = { limit, threshold };
    if (filters.category.trim()) c.category = filters.category.trim();
    if (filters.color.trim()) c.color = filters.color.trim();
    if (filters.price_min !== "") c.price_min = Number(filters.price_min);
    if (filters.price_max !== "") c.price_max = Number(filters.price_max);
    return c;
  }

  async function search() {
    if (mode === "text") return api<SearchResponse>("/v1/search/text", { store: slug, body: { query, ...common() } });
    if (mode === "url") return api<SearchResponse>("/v1/search/url", { store: slug, body: { image_url: imageUrl, ...common() } });
    if (mode === "hybrid") {
      const colorList = colors.split(/[\s,]+/).map((c) => c.trim()).filter(Boolean);
      return api<SearchResponse>("/v1/search/hybrid", {
        store: slug,
        body: {
          ...(query.trim() ? { query } : {}),
          ...(imageUrl.trim() ? { image_url: imageUrl } : {}),
          ...(colorList.length ? { colors: colorList } : {}),
          visual_weight: visualWeight,
          ...common(),
        },
      });
    }
    if (!file) throw new Error("Choose an image file first.");
    const form = new FormData();
    form.set("image", file);
    for (const [k, v] of Object.entries(common())) form.set(k, String(v));
    return api<SearchResponse>("/v1/search", { store: slug, form });
  }

  return (
    <>
      <h1>Search playground</h1>
      <Section title="Query">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => setResult(await search()));
          }}
        >
          <fieldset class="modes">
            <legend>Search by</legend>
            {MODES.map((m) => (
              <label key={m.id} class="radio">
                <input type="radio" name="mode" value={m.id} checked={mode === m.id} onChange={() => setMode(m.id)} /> {m.label}
              </label>
            ))}
          </fieldset>
          <div class="grid-form">
            {(mode === "text" || mode === "hybrid") && (
              <Field label="Text query" hint="Describe what the shopper looks for, e.g. “red summer dress”.">
                <input name="query" required={mode === "text"} maxLength={500} value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
              </Field>
            )}
            {(mode === "url" || mode === "hybrid") && (
              <Field label="Image URL">
                <input name="image_url" type="url" required={mode === "url"} value={imageUrl} onInput={(e) => setImageUrl(e.currentTarget.value)} />
              </Field>
            )}
            {mode === "image" && (
              <Field label="Image file">
                <input name="image" type="file" accept="image/*" required onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
              </Field>
            )}
            {mode === "hybrid" && (
              <>
                <Field label={`Visual weight: ${visualWeight.toFixed(2)} image / ${(1 - visualWeight).toFixed(2)} text`}>
                  <input type="range" min="0" max="1" step="0.05" value={visualWeight} onInput={(e) => setVisualWeight(Number(e.currentTarget.value))} />
                </Field>
                <Field label="Colours" hint="Up to 5 hex codes, e.g. #d01010 #1030c0">
                  <input name="colors" value={colors} onInput={(e) => setColors(e.currentTarget.value)} />
                </Field>
              </>
            )}
          </div>
          <details class="filters" open>
            <summary>Filters and limits</summary>
            <div class="grid-form">
              <Field label="Category">
                <input name="category" value={filters.category} onInput={(e) => setFilters({ ...filters, category: e.currentTarget.value })} />
              </Field>
              <Field label="Colour" hint="A colour name or #hex">
                <input name="color" value={filters.color} onInput={(e) => setFilters({ ...filters, color: e.currentTarget.value })} />
              </Field>
              <Field label="Price from">
                <input name="price_min" type="number" min="0" step="0.01" value={filters.price_min} onInput={(e) => setFilters({ ...filters, price_min: e.currentTarget.value })} />
              </Field>
              <Field label="Price up to">
                <input name="price_max" type="number" min="0" step="0.01" value={filters.price_max} onInput={(e) => setFilters({ ...filters, price_max: e.currentTarget.value })} />
              </Field>
              <Field label="Results">
                <input name="limit" type="number" min="1" max="100" value={limit} onInput={(e) => setLimit(Number(e.currentTarget.value))} />
              </Field>
              <Field label={`Minimum score: ${threshold.toFixed(2)}`}>
                <input type="range" min="0" max="1" step="0.01" value={threshold} onInput={(e) => setThreshold(Number(e.currentTarget.value))} />
              </Field>
            </div>
          </details>
          <button type="submit" disabled={busy}>
            {busy ? "Searching…" : "Search"}
          </button>
        </form>
        <ErrorNotice error={error} />
      </Section>
      {result && (
        <Section title={`${result.count} result${result.count === 1 ? "" : "s"}`}>
          <p class="muted small" aria-live="polite">
            {result.count} results in {result.query_time_ms} ms · search id <code>{result.search_id}</code>
          </p>
          <ol class="results" aria-label="Search results">
            {result.results.map((r) => (
              <li key={r.product_id} class="result" data-product-id={r.product_id}>
                <div class="result-main">
                  <strong>{String(r.metadata.name ?? r.product_id)}</strong>
                  <span class="muted small">
                    {r.product_id}
                    {r.metadata.category ? ` · ${String(r.metadata.category)}` : ""}
                    {typeof r.metadata.price === "number" ? ` · ${r.metadata.price.toFixed(2)}` : ""}
                  </span>
                </div>
                <div class="score" title="Similarity score (0–1)">
                  <meter min={0} max={1} value={r.similarity_score} aria-label={`Score of ${r.product_id}`} />
                  <span class="score-value">score {r.similarity_score.toFixed(3)}</span>
                </div>
              </li>
            ))}
          </ol>
          {result.count === 0 && <p>No product reached the minimum score. Lower it, or loosen the filters.</p>}
        </Section>
      )}
    </>
  );
}
