import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import {
  AVAILABILITY_LABELS,
  AvailabilityOptions,
  DeleteButton,
  FilterForm,
  ListTable,
  Pager,
  useCursors,
  type AvailabilityState,
} from "../components";
import { productsFromFile, rowNamedError, type ProductInput } from "../csv";
import {
  Alert,
  ErrorNotice,
  Field,
  JobErrors,
  Section,
  commaList,
  Success,
  fmtDate,
  fmtNumber,
  fmtPrice,
  startedJob,
  useAction,
  useJobPoll,
  useLoad,
  useStoreCurrency,
} from "../ui";
import type { StoreProps } from "./store-props";
import { GetStarted } from "./start";
import { BulkActions, SelectBox, useSelection } from "./bulk-actions";
import type { Item, SearchOk } from "../api-types";

type ProductList = SearchOk<"/v1/products">;
type Availability = Item<ProductList["products"]>["availability"];
const AVAILABILITY_BADGE: Record<AvailabilityState, string> = {
  in_stock: "badge active",
  low_stock: "badge low",
  out_of_stock: "badge failed",
};

function AvailabilityCell({ availability }: { availability: Availability }) {
  if (!availability) return <span class="muted">Unknown</span>;
  return (
    <>
      <span class={AVAILABILITY_BADGE[availability.state]}>{AVAILABILITY_LABELS[availability.state]}</span>
      {availability.quantity !== null && <div class="muted small">Quantity: {fmtNumber(availability.quantity)}</div>}
    </>
  );
}
type Job = SearchOk<"/v1/jobs/{job_id}">;
/** What the page shows of a job: known from the bulk answer before the first poll. */
type JobProgress = Pick<Job, "job_id" | "status" | "total" | "processed" | "succeeded" | "failed" | "errors">;

export function ProductsPage({ slug, session }: StoreProps) {
  const [filter, setFilter] = useState({ category: "", brand: "" });
  const [applied, setApplied] = useState({ category: "", brand: "" });
  const pages = useCursors();
  const { cursor } = pages;
  const list = useLoad(
    () => api<ProductList>("/v1/products", { store: slug, query: { limit: 20, cursor, category: applied.category, brand: applied.brand } }),
    [slug, cursor, applied],
  );
  const del = useAction();
  const currency = useStoreCurrency(slug);
  // Rows checked for a bulk action: the current page's only (cleared when the page or filter changes).
  const selection = useSelection();
  useEffect(() => selection.clear(), [slug, cursor, applied]);
  // An empty store shows the "what next" checklist; it stays while the first products come in.
  const [welcome, setWelcome] = useState(false);
  useEffect(() => {
    if (list.data?.total === 0 && !applied.category && !applied.brand) setWelcome(true);
  }, [list.data, applied]);

  return (
    <>
      <h1>Products</h1>
      {welcome && <GetStarted slug={slug} session={session} onProductsChanged={list.reload} />}
      <AddProduct slug={slug} onAdded={list.reload} />
      <BulkUpload slug={slug} onDone={list.reload} />
      <Section
        title={`Catalogue${list.data ? ` (${fmtNumber(list.data.total)})` : ""}`}
        actions={
          <FilterForm
            button="Filter"
            onSearch={() => {
              pages.reset();
              setApplied({ ...filter });
            }}
          >
            <input
              aria-label="Category"
              placeholder="Category"
              value={filter.category}
              onInput={(e) => setFilter({ ...filter, category: e.currentTarget.value })}
            />
            <input
              aria-label="Brand"
              placeholder="Brand"
              value={filter.brand}
              onInput={(e) => setFilter({ ...filter, brand: e.currentTarget.value })}
            />
          </FilterForm>
        }
      >
        <ErrorNotice error={list.error ?? del.error} />
        {list.data && (
          <BulkActions slug={slug} pageIds={list.data.products.map((p) => p.product_id)} selection={selection} onDone={list.reload} />
        )}
        <ListTable
          state={{ data: list.data?.products, loading: list.loading }}
          what="products"
          empty={
            <>
              No products {applied.category || applied.brand ? "match the filter" : "yet: add one above, upload a file, or "}
              {!applied.category && !applied.brand && (
                <button
                  type="button"
                  class="link"
                  onClick={() => void del.run(async () => (await api("/v1/products/demo", { store: slug, method: "POST" }), list.reload()))}
                >
                  install the demo products
                </button>
              )}
              .
            </>
          }
          label="Products"
          columns={["Select", "Image", "Product", "Category / brand", "Price", "Availability", "Colours", "Added"]}
          actions="Actions"
          row={(p) => (
            <tr key={p.product_id}>
              <td>
                <SelectBox id={p.product_id} selection={selection} />
              </td>
              <td>
                <img class="thumb" src={p.image_url} alt="" loading="lazy" referrerpolicy="no-referrer" />
              </td>
              <td>
                <strong>{String(p.metadata.name ?? p.product_id)}</strong>
                <div class="muted small">{p.product_id}</div>
              </td>
              <td>{[p.metadata.category, p.metadata.brand].filter(Boolean).join(" · ") || "—"}</td>
              <td>{typeof p.metadata.price === "number" ? fmtPrice(p.metadata.price, p.metadata.currency, currency) : "—"}</td>
              <td>
                <AvailabilityCell availability={p.availability} />
              </td>
              <td>
                {p.dominant_colors.slice(0, 4).map((c) => (
                  <span key={c.hex} class="color-dot" style={{ background: c.hex }} title={`${c.hex} (${Math.round(c.share * 100)}%)`} />
                ))}
              </td>
              <td class="small">{fmtDate(p.created_at)}</td>
              <td>
                <DeleteButton
                  act={del}
                  store={slug}
                  path={`/v1/products/${encodeURIComponent(p.product_id)}`}
                  question={`Delete ${p.product_id}? Its image and vector are removed too.`}
                  onDone={list.reload}
                  disabled={del.busy}
                >
                  Delete
                </DeleteButton>
              </td>
            </tr>
          )}
        />
        <Pager pages={pages} next={list.data?.next_cursor} />
      </Section>
    </>
  );
}

function AddProduct({ slug, onAdded }: { slug: string; onAdded: () => void }) {
  const empty = {
    product_id: "",
    image_url: "",
    name: "",
    category: "",
    brand: "",
    price: "",
    color_name: "",
    tags: "",
    availability: "",
    quantity: "",
  };
  const [f, setF] = useState(empty);
  const [added, setAdded] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const set = (k: keyof typeof empty) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) =>
    setF({ ...f, [k]: e.currentTarget.value });
  return (
    <Section title="Add a product by image URL">
      <form
        class="grid-form"
        onSubmit={(e) => {
          e.preventDefault();
          setAdded(null);
          void run(async () => {
            const metadata: Record<string, unknown> = {};
            for (const k of ["name", "category", "brand", "color_name"] as const) if (f[k].trim()) metadata[k] = f[k].trim();
            if (f.price.trim()) metadata.price = Number(f.price);
            if (f.tags.trim()) metadata.tags = commaList(f.tags);
            // No state chosen: availability unknown (the quantity field is off then).
            const state = f.availability as AvailabilityState | "";
            const availability = state ? { state, ...(f.quantity.trim() ? { quantity: Number(f.quantity) } : {}) } : undefined;
            const res = await api<SearchOk<"/v1/products", "post">>("/v1/products", {
              store: slug,
              body: { product_id: f.product_id.trim(), image_url: f.image_url.trim(), metadata, ...(availability ? { availability } : {}) },
            });
            setAdded(`${res.product_id}: ${res.message}`);
            setF(empty);
            onAdded();
          });
        }}
      >
        <Field label="Product id">
          <input name="product_id" required maxLength={200} value={f.product_id} onInput={set("product_id")} />
        </Field>
        <Field label="Image URL" hint="The service downloads the image and indexes it.">
          <input name="image_url" type="url" required value={f.image_url} onInput={set("image_url")} />
        </Field>
        <Field label="Name">
          <input name="name" maxLength={300} value={f.name} onInput={set("name")} />
        </Field>
        <Field label="Category">
          <input name="category" maxLength={100} value={f.category} onInput={set("category")} />
        </Field>
        <Field label="Brand">
          <input name="brand" maxLength={100} value={f.brand} onInput={set("brand")} />
        </Field>
        <Field label="Price">
          <input name="price" type="number" min="0" step="0.01" value={f.price} onInput={set("price")} />
        </Field>
        <Field label="Colour name">
          <input name="color_name" maxLength={50} value={f.color_name} onInput={set("color_name")} />
        </Field>
        <Field label="Tags" hint="Separated by commas">
          <input name="tags" value={f.tags} onInput={set("tags")} />
        </Field>
        <Field label="Availability" hint="What the shopping assistant tells shoppers about stock">
          <select name="availability" value={f.availability} onChange={set("availability")}>
            <option value="">Unknown</option>
            <AvailabilityOptions />
          </select>
        </Field>
        <Field label="Quantity in stock" hint={f.availability ? "Optional" : "Choose a stock state first"}>
          <input name="quantity" type="number" min="0" step="1" value={f.quantity} disabled={!f.availability} onInput={set("quantity")} />
        </Field>
        <div class="form-actions">
          <button type="submit" disabled={busy}>
            {busy ? "Indexing…" : "Add product"}
          </button>
        </div>
      </form>
      <ErrorNotice error={error} />
      {added && <Success>Indexed {added}</Success>}
    </Section>
  );
}

function BulkUpload({ slug, onDone }: { slug: string; onDone: () => void }) {
  const [items, setItems] = useState<ProductInput[] | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const { busy, error, run, setError } = useAction();
  const progress = useJobPoll<JobProgress>(slug, { onError: setError, onEnd: onDone });
  const job = progress.job;

  return (
    <Section title="Bulk upload">
      <p class="muted">
        A CSV file with a header row (<code>product_id,image_url,name,category,brand,price,color_name,tags,availability,quantity</code>;
        tags separated by <code>|</code>; availability <code>in_stock</code>, <code>low_stock</code> or <code>out_of_stock</code>, quantity
        a whole number) or a JSON array of <code>{"{product_id, image_url, metadata, availability: {state, quantity}}"}</code>. Up to 1,000
        products per upload.
      </p>
      <Field label="Products file (CSV or JSON)">
        <input
          type="file"
          accept=".csv,.json,text/csv,application/json"
          onChange={async (e) => {
            setFileError(null);
            setItems(null);
            progress.clear();
            const file = e.currentTarget.files?.[0];
            if (!file) return;
            try {
              const parsed = productsFromFile(file.name, await file.text());
              if (parsed.length === 0) throw new Error("The file holds no products.");
              if (parsed.length > 1000) throw new Error(`The file holds ${parsed.length} products; upload at most 1,000 at a time.`);
              setItems(parsed);
            } catch (err) {
              setFileError((err as Error).message);
            }
          }}
        />
      </Field>
      {fileError && <Alert>{fileError}</Alert>}
      {items && !job && (
        <p>
          {items.length} product{items.length === 1 ? "" : "s"} ready.{" "}
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              void run(async () => {
                const res = await api<SearchOk<"/v1/products/bulk", "post">>("/v1/products/bulk", {
                  store: slug,
                  body: { products: items },
                }).catch((e: unknown) => {
                  throw rowNamedError(e, items);
                });
                progress.start(startedJob(res));
              })
            }
          >
            Start upload
          </button>
        </p>
      )}
      <ErrorNotice error={error} />
      {job && (
        <div class="job" aria-live="polite">
          <label>
            Job {job.job_id}: {job.status === "processing" ? "processing" : job.status} — {fmtNumber(job.processed)} of{" "}
            {fmtNumber(job.total)} done ({fmtNumber(job.succeeded)} indexed, {fmtNumber(job.failed)} failed)
            <progress max={job.total} value={job.processed} />
          </label>
          <JobErrors errors={job.errors} what="failed" />
        </div>
      )}
    </Section>
  );
}
