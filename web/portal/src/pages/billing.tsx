import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { ErrorNotice, Loading, Section, fmtDate, fmtMoney, useAction, useLoad } from "../ui";
import type { StoreProps } from "./store";

interface CurrentPlan {
  plan_name: string;
  price_per_month: number;
  currency: string;
  max_products: number | null;
  requests_per_minute: number | null;
  period_start: string;
  period_end: string;
  billing_provider: string;
  subscription_status: string | null;
}
interface Usage {
  api_calls: number;
  products_count: number;
  max_products: number | null;
  products_percent: number | null;
  over_product_limit: boolean;
}
interface Invoice {
  id: string;
  date: string;
  amount: number;
  currency: string;
  status: string;
  url: string | null;
  plan_name: string;
}

const PLANS = [
  { name: "free", price: 0, products: "50", rpm: "10" },
  { name: "basic", price: 29.99, products: "5,000", rpm: "60" },
  { name: "premium", price: 99.99, products: "50,000", rpm: "200" },
  { name: "enterprise", price: 299.99, products: "unlimited", rpm: "unlimited" },
];

export function BillingPage({ slug }: StoreProps) {
  const plan = useLoad(() => api<CurrentPlan>("/v1/billing/current-plan", { store: slug }), [slug]);
  const usage = useLoad(() => api<Usage>("/v1/billing/usage", { store: slug }), [slug]);
  const invoices = useLoad(() => api<Invoice[]>("/v1/billing/invoices", { store: slug }), [slug]);
  const [checkoutOpen, setCheckoutOpen] = useState(false);
  const act = useAction();

  // Back from the checkout tab: show the new plan.
  useEffect(() => {
    if (!checkoutOpen) return;
    const onFocus = () => {
      plan.reload();
      usage.reload();
      invoices.reload();
    };
    window.addEventListener("focus", onFocus);
    return () => window.removeEventListener("focus", onFocus);
  }, [checkoutOpen]);

  return (
    <>
      <h1>Billing</h1>
      <ErrorNotice error={act.error ?? plan.error ?? usage.error ?? invoices.error} />
      {plan.loading && !plan.data && <Loading what="your plan" />}
      {plan.data && (
        <Section title={`Current plan: ${plan.data.plan_name}`}>
          <p>
            {fmtMoney(plan.data.price_per_month, plan.data.currency.toUpperCase())} a month · {plan.data.max_products ?? "unlimited"} products ·{" "}
            {plan.data.requests_per_minute ?? "unlimited"} requests a minute
          </p>
          <p class="muted small">
            Period {fmtDate(plan.data.period_start)} – {fmtDate(plan.data.period_end)}
            {plan.data.billing_provider === "local" ? " · test mode checkout (no payment taken)" : ""}
          </p>
          {usage.data && (
            <>
              <p>
                {usage.data.products_count} of {usage.data.max_products ?? "unlimited"} products · {usage.data.api_calls} API calls this period
              </p>
              {usage.data.max_products !== null && <progress max={usage.data.max_products} value={Math.min(usage.data.products_count, usage.data.max_products)} />}
              {usage.data.over_product_limit && (
                <div class="notice error" role="alert">
                  <p class="notice-title">The store has more products than the plan allows: existing products keep working, new ones are refused until you upgrade.</p>
                </div>
              )}
            </>
          )}
        </Section>
      )}
      <Section title="Change plan">
        <div class="plans">
          {PLANS.map((p) => {
            const current = plan.data?.plan_name === p.name;
            return (
              <div key={p.name} class={`plan${current ? " current" : ""}`}>
                <h3>{p.name}</h3>
                <p class="price">{p.price === 0 ? "Free" : `$${p.price} / month`}</p>
                <p class="small">
                  {p.products} products
                  <br />
                  {p.rpm} requests / minute
                </p>
                {current ? (
                  <span class="badge active">Current plan</span>
                ) : p.name === "free" ? (
                  <span class="muted small">Every store starts here</span>
                ) : (
                  <button
                    type="button"
                    disabled={act.busy}
                    onClick={() =>
                      void act.run(async () => {
                        const res = await api<{ checkout_url: string }>("/v1/billing/checkout", { store: slug, body: { plan_name: p.name } });
                        setCheckoutOpen(true);
                        // The checkout opens in a new tab; this page refreshes when you come back.
                        const tab = window.open(res.checkout_url, "_blank");
                        if (tab) tab.opener = null;
                        else location.assign(res.checkout_url);
                      })
                    }
                  >
                    Change to {p.name}
                  </button>
                )}
              </div>
            );
          })}
        </div>
        {checkoutOpen && (
          <p class="muted" role="status">
            The checkout opened in a new tab. When you are done there, come back: this page shows the new plan.{" "}
            <button type="button" class="link" onClick={() => (plan.reload(), usage.reload(), invoices.reload())}>
              Refresh now
            </button>
          </p>
        )}
      </Section>
      <Section title="Invoices">
        {invoices.data && invoices.data.length === 0 && <p class="muted">No invoices yet.</p>}
        {invoices.data && invoices.data.length > 0 && (
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Plan</th>
                <th scope="col">Amount</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="sr-only">Link</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invoices.data.map((i) => (
                <tr key={i.id}>
                  <td>{fmtDate(i.date)}</td>
                  <td>{i.plan_name}</td>
                  <td>{fmtMoney(i.amount, i.currency.toUpperCase())}</td>
                  <td>
                    <span class={`badge ${i.status}`}>{i.status}</span>
                  </td>
                  <td>
                    {i.url && (
                      <a href={i.url} target="_blank" rel="noopener noreferrer">
                        View
                      </a>
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
