import { useState } from "preact/hooks";
import { api, type Session } from "../api";
import { Badge, FilterForm, ListTable, Options, Pager, useCursors } from "../components";
import { TopBar } from "../topbar";
import { ErrorNotice, Link, Section, Success, fmtDate, useAction, useLoad } from "../ui";
import type { SearchOk } from "../api-types";

type StorePage = SearchOk<"/v1/admin/stores">;
const PLANS = ["free", "basic", "premium", "enterprise"];

export function AdminPage({ session }: { session: Session }) {
  const [q, setQ] = useState("");
  const [applied, setApplied] = useState("");
  const pages = useCursors();
  const { cursor } = pages;
  const list = useLoad(() => api<StorePage>("/v1/admin/stores", { query: { q: applied, cursor, limit: 50 } }), [applied, cursor]);
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const [done, setDone] = useState<string | null>(null);
  const act = useAction();

  return (
    <>
      <TopBar session={session}>
        <span class="store-name">Platform admin</span>
      </TopBar>
      <main class="page">
        <h1>Stores</h1>
        <ErrorNotice error={act.error ?? list.error} />
        {done && <Success>{done}</Success>}
        <Section
          title={`All stores${list.data ? ` (${list.data.total})` : ""}`}
          actions={
            <FilterForm
              button="Search"
              onSearch={() => {
                pages.reset();
                setApplied(q.trim());
              }}
            >
              <input aria-label="Search stores" placeholder="Slug or name" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
            </FilterForm>
          }
        >
          <ListTable
            state={{ data: list.data?.stores, loading: list.loading }}
            what="stores"
            columns={["Store", "Owners", "Status", "Products", "Members", "Created", "Plan"]}
            row={(s) => (
              <tr key={s.client_id}>
                <td>
                  <Link href={`/${encodeURIComponent(s.slug)}/portal`}>{s.name}</Link>
                  <div class="muted small">{s.slug}</div>
                </td>
                <td class="small">{s.owners.join(", ") || "—"}</td>
                <td>
                  <Badge status={s.status} />
                </td>
                <td>{s.products_count}</td>
                <td>{s.members_count}</td>
                <td class="small">{fmtDate(s.created_at)}</td>
                <td>
                  <form
                    class="inline"
                    onSubmit={(e) => {
                      e.preventDefault();
                      const plan = chosen[s.slug] ?? s.plan_name;
                      setDone(null);
                      void act.run(async () => {
                        const res = await api<SearchOk<"/v1/admin/stores/{slug}/plan", "put">>(
                          `/v1/admin/stores/${encodeURIComponent(s.slug)}/plan`,
                          { method: "PUT", body: { plan_name: plan } },
                        );
                        setDone(
                          res.changed
                            ? `${res.name} moved from ${res.previous_plan} to ${res.plan_name}.`
                            : `${res.name} is already on ${res.plan_name}.`,
                        );
                        list.reload();
                      });
                    }}
                  >
                    <select
                      aria-label={`Plan of ${s.slug}`}
                      value={chosen[s.slug] ?? s.plan_name}
                      onChange={(e) => setChosen({ ...chosen, [s.slug]: e.currentTarget.value })}
                    >
                      <Options values={PLANS} />
                    </select>
                    <button type="submit" class="small" disabled={act.busy}>
                      Set plan
                    </button>
                  </form>
                </td>
              </tr>
            )}
          />
          <Pager pages={pages} next={list.data?.next_cursor} />
        </Section>
      </main>
    </>
  );
}
