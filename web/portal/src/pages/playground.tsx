import { useEffect, useState } from "preact/hooks";
import { ApiError, api, imageUrl } from "../api";
import { ErrorNotice, Field, Section, fmtNumber, fmtPrice, fmtScore, useAction, useLoad, useStoreCurrency } from "../ui";
import type { StoreProps } from "./store-props";
import type { SearchOk } from "../api-types";

/** GET /v1/search/model: the embedding model this server searches with. */
type ActiveModel = SearchOk<"/v1/search/model">;

/** The product's stored image (GET /v1/products/{id}/image, with the bearer token) as an <img>. */
function ProductImage({ slug, productId, name }: { slug: string; productId: string; name: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let url: string | null = null;
    let alive = true;
    void imageUrl(`/v1/products/${encodeURIComponent(productId)}/image`, slug).then((u) => {
      url = u;
      if (alive) setSrc(u);
      else if (u) URL.revokeObjectURL(u);
    });
    return () => {
      alive = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [slug, productId]);
  return src ? (
    <img class="result-image" src={src} alt={name} />
  ) : (
    <span class="result-image" role="img" aria-label={`${name} (no image)`} />
  );
}

/** The active model line, and a warning when it is the built-in test model (404 until the route exists: nothing shown). */
function ModelInfo({ slug }: { slug: string }) {
  const model = useLoad(
    () =>
      api<ActiveModel>("/v1/search/model", { store: slug }).catch((e: unknown) => {
        if (e instanceof ApiError && (e.status === 404 || e.status === 403)) return null;
        throw e;
      }),
    [slug],
  );
  const m = model.data;
  const reindexing = m?.reindex.job?.status === "processing";
  // While a reindex runs, its progress is read again every 2 s (a failed read too: it is shown, and asked again).
  useEffect(() => {
    if (!reindexing) return;
    const timer = setTimeout(model.reload, 2000);
    return () => clearTimeout(timer);
  }, [m, model.error, reindexing, model.reload]);
  if (!m) return null;
  return (
    <>
      <p class="muted model-line" data-testid="active-model">
        Model: <code>{m.model_id}</code> · {fmtNumber(m.dimensions)} dimensions · {m.status}
      </p>
      <ReindexNotice slug={slug} reindex={m.reindex} onStarted={model.reload} />
      {reindexing && <ErrorNotice error={model.error} />}
      {m.is_test_model && (
        <div class="notice warning" role="status">
          <p class="notice-title">This server runs the built-in test model.</p>
          <p>
            It is a tiny model for tests and trials: its results show that search works, not how well a real model ranks your catalogue. Set{" "}
            <code>CLIP_MODEL</code> (e.g. Xenova/clip-vit-base-patch32) and restart: the server re-embeds your products in the background,
            and searches use each new vector at once.
          </p>
        </div>
      )}
    </>
  );
}

/**
 * Products embedded by another model than the loaded one: the running reindex with its progress,
 * or a button that starts one (POST /v1/products/reindex; a start with a new CLIP_MODEL queues it).
 */
function ReindexNotice({ slug, reindex, onStarted }: { slug: string; reindex: ActiveModel["reindex"]; onStarted: () => void }) {
  const action = useAction();
  const job = reindex.job;
  if (job?.status === "processing") {
    return (
      <div class="notice" role="status" data-testid="reindex-progress">
        <p class="notice-title">
          Re-embedding products with this model: {fmtNumber(job.processed)} of {fmtNumber(job.total)}
        </p>
        <progress max={Math.max(1, job.total)} value={job.processed} />
        <p class="muted">Searches use each new vector as soon as it is written.</p>
      </div>
    );
  }
  if (reindex.stale_products === 0) return null;
  return (
    <div class="notice warning" role="status" data-testid="reindex-needed">
      <p class="notice-title">{fmtNumber(reindex.stale_products)} products were embedded by another model.</p>
      <p>Image search can't compare them with this model's vectors until they are re-embedded from their stored images.</p>
      {job?.status === "failed" && <p>{job.summary}</p>}
      <button
        type="button"
        disabled={action.busy}
        onClick={() =>
          void action.run(async () => {
            await api("/v1/products/reindex", { store: slug, method: "POST" });
            onStarted();
          })
        }
      >
        Re-embed now
      </button>
      <ErrorNotice error={action.error} />
    </div>
  );
}

type SearchResponse = SearchOk<"/v1/search/text", "post">;
type Mode = "text" | "image" | "url" | "hybrid";

const MODES: { id: Mode; label: string }[] = [
  { id: "text", label: "Text" },
  { id: "image", label: "Image upload" },
  { id: "url", label: "Image URL" },
  { id: "hybrid", label: "Hybrid" },
];

export function PlaygroundPage({ slug }: StoreProps) {
  const currency = useStoreCurrency(slug);
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
      const colorList = colors
        .split(/[\s,]+/)
        .map((c) => c.trim())
        .filter(Boolean);
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
      <ModelInfo slug={slug} />
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
                <input
                  type="radio"
                  name="mode"
                  value={m.id}
                  checked={mode === m.id}
                  onChange={() => {
                    // Results of another mode would be read as answers to this one.
                    setMode(m.id);
                    setResult(null);
                  }}
                />{" "}
                {m.label}
              </label>
            ))}
          </fieldset>
          <div class="grid-form">
            {(mode === "text" || mode === "hybrid") && (
              <Field label="Text query" hint="Describe what the shopper looks for, e.g. “red summer dress”.">
                <input
                  name="query"
                  required={mode === "text"}
                  maxLength={500}
                  value={query}
                  onInput={(e) => setQuery(e.currentTarget.value)}
                />
              </Field>
            )}
            {(mode === "url" || mode === "hybrid") && (
              <Field label="Image URL">
                <input
                  name="image_url"
                  type="url"
                  required={mode === "url"}
                  value={imageUrl}
                  onInput={(e) => setImageUrl(e.currentTarget.value)}
                />
              </Field>
            )}
            {mode === "image" && (
              <Field label="Image file">
                <input name="image" type="file" accept="image/*" required onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
              </Field>
            )}
            {mode === "hybrid" && (
              <>
                <Field label={`Visual weight: ${fmtNumber(visualWeight)} image / ${fmtNumber(1 - visualWeight)} text`}>
                  <input
                    type="range"
                    min="0"
                    max="1"
                    step="0.05"
                    value={visualWeight}
                    onInput={(e) => setVisualWeight(Number(e.currentTarget.value))}
                  />
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
                <input
                  name="category"
                  value={filters.category}
                  onInput={(e) => setFilters({ ...filters, category: e.currentTarget.value })}
                />
              </Field>
              <Field label="Colour" hint="A colour name or #hex">
                <input name="color" value={filters.color} onInput={(e) => setFilters({ ...filters, color: e.currentTarget.value })} />
              </Field>
              <Field label="Price from">
                <input
                  name="price_min"
                  type="number"
                  min="0"
                  step="0.01"
                  value={filters.price_min}
                  onInput={(e) => setFilters({ ...filters, price_min: e.currentTarget.value })}
                />
              </Field>
              <Field label="Price up to">
                <input
                  name="price_max"
                  type="number"
                  min="0"
                  step="0.01"
                  value={filters.price_max}
                  onInput={(e) => setFilters({ ...filters, price_max: e.currentTarget.value })}
                />
              </Field>
              <Field label="Results">
                <input
                  name="limit"
                  type="number"
                  min="1"
                  max="100"
                  value={limit}
                  onInput={(e) => setLimit(Number(e.currentTarget.value))}
                />
              </Field>
              <Field label={`Minimum score: ${fmtNumber(threshold)}`}>
                <input
                  type="range"
                  min="0"
                  max="1"
                  step="0.01"
                  value={threshold}
                  onInput={(e) => setThreshold(Number(e.currentTarget.value))}
                />
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
        <Section title={`${fmtNumber(result.count)} result${result.count === 1 ? "" : "s"}`}>
          <p class="muted small" aria-live="polite">
            {fmtNumber(result.count)} results in {fmtNumber(result.query_time_ms)} ms · search id <code>{result.search_id}</code>
          </p>
          <ol class="results" aria-label="Search results">
            {result.results.map((r) => (
              <li key={r.product_id} class="result" data-product-id={r.product_id}>
                <div class="result-left">
                  <ProductImage slug={slug} productId={r.product_id} name={String(r.metadata.name ?? r.product_id)} />
                  <div class="result-main">
                    <strong>{String(r.metadata.name ?? r.product_id)}</strong>
                    <span class="muted small">
                      {r.product_id}
                      {r.metadata.category ? ` · ${String(r.metadata.category)}` : ""}
                      {typeof r.metadata.price === "number" ? ` · ${fmtPrice(r.metadata.price, r.metadata.currency, currency)}` : ""}
                    </span>
                  </div>
                </div>
                <div class="score" title="Similarity score (0–1)">
                  <meter min={0} max={1} value={r.similarity_score} aria-label={`Score of ${r.product_id}`} />
                  <span class="score-value">score {fmtScore(r.similarity_score)}</span>
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
