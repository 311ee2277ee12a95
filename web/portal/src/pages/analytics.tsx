import { useState } from "preact/hooks";
import { api } from "../api";
import { Funnel, RevenueBars, TimeChart } from "../charts";
import { Table } from "../components";
import { ErrorNotice, Loaded, Section, fmtMoney, pct, fmtNumber, useLoad } from "../ui";

const orDash = (v: number | null) => (v === null ? "—" : fmtNumber(v));
import type { StoreProps } from "./store-props";
import type { SearchOk } from "../api-types";

type Analytics = SearchOk<"/v1/search/analytics">;

export function AnalyticsPage({ slug }: StoreProps) {
  const [days, setDays] = useState(30);
  const analytics = useLoad(() => api<Analytics>("/v1/search/analytics", { store: slug, query: { days } }), [slug, days]);
  const total = analytics.data?.searches.total ?? 0;
  return (
    <>
      <div class="page-head">
        <h1>Analytics</h1>
        <label class="inline">
          Period{" "}
          <select value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
            <option value={7}>Last 7 days</option>
            <option value={30}>Last 30 days</option>
            <option value={90}>Last 90 days</option>
          </select>
        </label>
      </div>
      <ErrorNotice error={analytics.error} />
      <Loaded state={analytics} what="analytics">
        {(data) => (
          <>
            <div class="kpis">
              <Kpi label="Searches" value={fmtNumber(total)} />
              <Kpi label="Zero-result rate" value={pct(data.zero_result_rate)} />
              <Kpi label="Click-through" value={pct(data.click_through_rate)} />
              <Kpi label="Conversion" value={pct(data.conversion_rate)} />
              <Kpi label="Mean / p95 time" value={`${orDash(data.query_time_ms.mean)} / ${orDash(data.query_time_ms.p95)} ms`} />
            </div>
            <Section title="Searches over time">
              {data.searches.by_day ? (
                <TimeChart
                  title="Searches per day"
                  valueLabel="searches"
                  secondaryLabel="with no result"
                  points={data.searches.by_day.map((d) => ({ label: d.date, value: d.searches, secondary: d.zero_results }))}
                />
              ) : (
                <p class="muted">This server does not report searches per day.</p>
              )}
            </Section>
            <Section title="Conversion funnel">
              <p class="muted small">Searches of the period, and how many led to at least one click, add-to-cart and purchase.</p>
              <Funnel
                title="Conversion funnel"
                steps={[
                  { label: "Searches", value: total },
                  { label: "With a click", value: Math.round(data.click_through_rate * total) },
                  { label: "With add to cart", value: Math.round(data.add_to_cart_rate * total) },
                  { label: "With a purchase", value: Math.round(data.conversion_rate * total) },
                ]}
              />
            </Section>
            <Section title="Revenue by currency">
              {data.revenue.length === 0 ? (
                <p class="muted">No purchases reported in this period.</p>
              ) : (
                <>
                  <RevenueBars title="Revenue by currency" rows={data.revenue} />
                  <Table columns={["Currency", "Total", "Attributed to a search", "Unattributed", "Reported by the widget", "Purchases"]}>
                    {data.revenue.map((r) => (
                      <tr key={r.currency}>
                        <td>{r.currency}</td>
                        <td>{fmtMoney(r.total, r.currency)}</td>
                        <td>{fmtMoney(r.attributed, r.currency)}</td>
                        <td>{fmtMoney(r.unattributed, r.currency)}</td>
                        <td>{fmtMoney(r.from_widget, r.currency)}</td>
                        <td>{r.purchases}</td>
                      </tr>
                    ))}
                  </Table>
                </>
              )}
            </Section>
            <div class="two-col">
              <Section title="Top queries">
                {data.top_queries.length === 0 ? (
                  <p class="muted">No text searches yet.</p>
                ) : (
                  <Table columns={["Query", "Searches", "Without results"]}>
                    {data.top_queries.map((q) => (
                      <tr key={q.query}>
                        <td>{q.query}</td>
                        <td>{fmtNumber(q.searches)}</td>
                        <td>{q.zero_result_searches}</td>
                      </tr>
                    ))}
                  </Table>
                )}
              </Section>
              <Section title="Searches by mode and source">
                <table class="table">
                  <tbody>
                    {Object.entries(data.searches.by_mode)
                      .filter(([, v]) => v > 0)
                      .map(([k, v]) => (
                        <tr key={k}>
                          <th scope="row">{k}</th>
                          <td>{v}</td>
                        </tr>
                      ))}
                    <tr>
                      <th scope="row">from your backend (API)</th>
                      <td>{data.searches.by_source.api}</td>
                    </tr>
                    <tr>
                      <th scope="row">from the portal (playground, signed-in people)</th>
                      <td>{data.searches.by_source.portal}</td>
                    </tr>
                    <tr>
                      <th scope="row">from the widget</th>
                      <td>{data.searches.by_source.widget}</td>
                    </tr>
                  </tbody>
                </table>
              </Section>
            </div>
          </>
        )}
      </Loaded>
    </>
  );
}

function Kpi({ label, value }: { label: string; value: string }) {
  return (
    <div class="kpi">
      <span class="kpi-value">{value}</span>
      <span class="kpi-label">{label}</span>
    </div>
  );
}
