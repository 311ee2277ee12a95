import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { Badge, ListTable } from "../components";
import { Alert, ErrorNotice, Loaded, Section, fmtDate, fmtMoney, fmtNumber, useAction, useLoad } from "../ui";
import type { StoreProps } from "./store-props";
import type { Item, SearchOk } from "../api-types";

type CurrentPlan = SearchOk<"/v1/billing/current-plan">;
type Usage = SearchOk<"/v1/billing/usage">;
type Invoice = Item<SearchOk<"/v1/billing/invoices">>;

const limit = (n: number | null) => (n === null ? "unlimited" : fmtNumber(n));

/** GET /v1/billing/mode: whether this server sells plans (BILLING_MODE). */
type BillingMode = SearchOk<"/v1/billing/mode">;

export function BillingPage({ slug }: StoreProps) {
  const plan = useLoad(() => api<CurrentPlan>("/v1/billing/current-plan", { store: slug }), [slug]);
  const usage = useLoad(() => api<Usage>("/v1/billing/usage", { store: slug }), [slug]);
  const invoices = useLoad(() => api<Invoice[]>("/v1/billing/invoices", { store: slug }), [slug]);
  const plans = useLoad(() => api<SearchOk<"/v1/billing/plans">>("/v1/billing/plans"), []);
  const mode = useLoad(() => api<BillingMode>("/v1/billing/mode", { anonymous: true }), []);
  // Until the mode is known nothing about prices is shown; a server without the route sells plans.
  const selling = mode.data ? mode.data.billing_enabled : mode.error ? true : null;
  const [checkoutOpen, setCheckoutOpen] = useState(false);
  const act = useAction();
  const reloadAll = () => {
    plan.reload();
    usage.reload();
    invoices.reload();
  };

  // Back from the checkout tab: show the new plan.
  useEffect(() => {
    if (!checkoutOpen) return;
    const onFocus = reloadAll;
    window.addEventListener("focus", onFocus);
    return () => window.removeEventListener("focus", onFocus);
  }, [checkoutOpen]);

  return (
    <>
      <h1>Billing</h1>
      <ErrorNotice error={act.error ?? plan.error ?? usage.error ?? invoices.error} />
      <Loaded state={plan} what="your plan">
        {(current) => (
          <Section title={`Current plan: ${current.plan_name}`}>
            <p>
              {selling ? `${fmtMoney(current.price_per_month, current.currency.toUpperCase())} a month · ` : ""}
              {current.max_products === null ? "No product limit" : `${limit(current.max_products)} products`} ·{" "}
              {current.requests_per_minute === null ? "no request limit" : `${limit(current.requests_per_minute)} requests a minute`}
            </p>
            <p class="muted small">
              Period {fmtDate(current.period_start)} – {fmtDate(current.period_end)}
              {current.billing_provider === "local" ? " · test mode checkout (no payment taken)" : ""}
            </p>
            {usage.data && (
              <>
                <p>
                  {usage.data.max_products === null
                    ? `${fmtNumber(usage.data.products_count)} products`
                    : `${fmtNumber(usage.data.products_count)} of ${limit(usage.data.max_products)} products`}{" "}
                  · {fmtNumber(usage.data.api_calls)} API calls this period
                </p>
                {usage.data.max_products !== null && (
                  <progress max={usage.data.max_products} value={Math.min(usage.data.products_count, usage.data.max_products)} />
                )}
                {usage.data.over_product_limit && (
                  <Alert>
                    The store has more products than the plan allows: existing products keep working, new ones are refused until you
                    upgrade.
                  </Alert>
                )}
              </>
            )}
          </Section>
        )}
      </Loaded>
      {selling === false && (
        <Section title="Billing is off on this server">
          <p>
            This Shopsight server runs with <code>BILLING_MODE=off</code>: nothing is sold here and there is no checkout. New stores start
            on the <strong>{mode.data?.default_plan}</strong> plan. The operator changes a store's plan with{" "}
            <code>npm run cli -- plan set --store {slug} --plan NAME</code>.
          </p>
        </Section>
      )}
      {selling && (
        <Section title="Change plan">
          <div class="plans">
            {(plans.data?.plans ?? []).map((p) => {
              const current = plan.data?.plan_name === p.plan_name;
              return (
                <div key={p.plan_name} class={`plan${current ? " current" : ""}`}>
                  <h3>{p.plan_name}</h3>
                  <p class="price">
                    {p.price_per_month === 0 ? "Free" : `${fmtMoney(p.price_per_month, p.currency.toUpperCase())} / month`}
                  </p>
                  <p class="small">
                    {limit(p.max_products)} products
                    <br />
                    {limit(p.requests_per_minute)} requests / minute
                  </p>
                  {current ? (
                    <span class="badge active">Current plan</span>
                  ) : !p.purchasable ? (
                    <span class="muted small">Every store starts here</span>
                  ) : (
                    <button
                      type="button"
                      disabled={act.busy}
                      onClick={() =>
                        void act.run(async () => {
                          const res = await api<SearchOk<"/v1/billing/checkout", "post">>("/v1/billing/checkout", {
                            store: slug,
                            body: { plan_name: p.plan_name },
                          });
                          setCheckoutOpen(true);
                          // The checkout opens in a new tab; this page refreshes when you come back.
                          const tab = window.open(res.checkout_url, "_blank");
                          if (tab) tab.opener = null;
                          else location.assign(res.checkout_url);
                        })
                      }
                    >
                      Change to {p.plan_name}
                    </button>
                  )}
                </div>
              );
            })}
          </div>
          {checkoutOpen && (
            <p class="muted" role="status">
              The checkout opened in a new tab. When you are done there, come back: this page shows the new plan.{" "}
              <button type="button" class="link" onClick={reloadAll}>
                Refresh now
              </button>
            </p>
          )}
        </Section>
      )}
      {selling && (
        <Section title="Invoices">
          <ListTable
            state={invoices}
            empty="No invoices yet."
            columns={["Date", "Plan", "Amount", "Status"]}
            actions="Link"
            row={(i) => (
              <tr key={i.id}>
                <td>{fmtDate(i.date)}</td>
                <td>{i.plan_name}</td>
                <td>{fmtMoney(i.amount, i.currency.toUpperCase())}</td>
                <td>
                  <Badge status={i.status} />
                </td>
                <td>
                  {i.url && (
                    <a href={i.url} target="_blank" rel="noopener noreferrer">
                      View
                    </a>
                  )}
                </td>
              </tr>
            )}
          />
        </Section>
      )}
    </>
  );
}
