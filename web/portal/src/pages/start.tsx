// "What next" for a new store: the four steps from an empty catalogue to search on the shop and
// the chat, each with its state read from the API (products, searches of the last 30 days, widget
// keys, chat public keys).
import { useState } from "preact/hooks";
import { api, assistantApi } from "../api";
import { ErrorNotice, Link, Section, Success, useAction, useLoad } from "../ui";
import type { StoreProps } from "./store-props";
import type { AssistantOk, SearchOk } from "../api-types";

type DemoResult = SearchOk<"/v1/products/demo", "post">;

function Step({ done, title, children }: { done: boolean; title: string; children: preact.ComponentChildren }) {
  return (
    <li class={done ? "step done" : "step"}>
      <span class="step-mark" aria-hidden="true">
        {done ? "✓" : "○"}
      </span>
      <div>
        <strong>{title}</strong>
        <span class="sr-only">{done ? " (done)" : " (to do)"}</span>
        <div class="step-body">{children}</div>
      </div>
    </li>
  );
}

/** The checklist; `onProductsChanged` lets the products page reload after the demo install. */
export function GetStarted({ slug, onProductsChanged }: StoreProps & { onProductsChanged?: () => void }) {
  const state = useLoad(async () => {
    const [products, searches, widgetKeys, chatKeys] = await Promise.all([
      api<SearchOk<"/v1/products">>("/v1/products", { store: slug, query: { limit: 1 } }).then(
        (r) => r.total,
        () => 0,
      ),
      api<SearchOk<"/v1/search/analytics">>("/v1/search/analytics", { store: slug, query: { days: 30 } }).then(
        (r) => r.searches.total,
        () => 0,
      ),
      api<SearchOk<"/v1/widget/keys">>("/v1/widget/keys", { store: slug }).then(
        (r) => r.length,
        () => 0,
      ),
      assistantApi<AssistantOk<"/v1/admin/public-keys">>("/v1/admin/public-keys", { store: slug }).then(
        (r) => r.keys.filter((k) => k.status === "active").length,
        () => 0,
      ),
    ]);
    return { products, searches, widgetKeys, chatKeys };
  }, [slug]);
  const demo = useAction();
  const [installed, setInstalled] = useState<DemoResult | null>(null);
  const s = state.data ?? { products: 0, searches: 0, widgetKeys: 0, chatKeys: 0 };
  const base = `/${encodeURIComponent(slug)}/portal`;

  return (
    <Section title="What next">
      <ol class="checklist" aria-label="Getting started">
        <Step done={s.products > 0} title="Add products">
          Add one by its image URL, upload a CSV file (see <em>Bulk upload</em> on the <Link href={`${base}/products`}>Products</Link>{" "}
          page), or start with the demo catalogue of 24 products whose images ship with Shopsight.{" "}
          <button
            type="button"
            class="secondary small"
            disabled={demo.busy}
            onClick={() =>
              void demo.run(async () => {
                setInstalled(await api<DemoResult>("/v1/products/demo", { store: slug, method: "POST" }));
                state.reload();
                onProductsChanged?.();
              })
            }
          >
            {demo.busy ? "Installing…" : "Install the demo catalogue"}
          </button>
          {installed && (
            <Success>
              <p>
                Installed {installed.installed} demo products{installed.failed.length ? `; ${installed.failed.length} failed` : ""}.
              </p>
            </Success>
          )}
          <ErrorNotice error={demo.error} />
        </Step>
        <Step done={s.searches > 0} title="Try a search">
          Search your catalogue by words, by an image or both in the <Link href={`${base}/playground`}>Search playground</Link>.
        </Step>
        <Step done={s.widgetKeys > 0} title="Make a widget key">
          Put the search box on your shop with a <Link href={`${base}/widget-keys`}>widget key</Link> for your shop's address, and paste the
          snippet it gives you.
        </Step>
        <Step done={s.chatKeys > 0} title="Add the chat">
          Publish your shipping and returns policies, mint a chat key and paste the <code>&lt;commerce-ai-chat&gt;</code> snippet: see{" "}
          <Link href={`${base}/assistant`}>Assistant</Link>.
        </Step>
      </ol>
    </Section>
  );
}

export function StartPage(props: StoreProps) {
  return (
    <>
      <h1>Get started</h1>
      <GetStarted {...props} />
    </>
  );
}
