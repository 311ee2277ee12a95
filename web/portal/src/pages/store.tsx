import { useEffect } from "preact/hooks";
import type { Session } from "../api";
import { TopBar } from "../topbar";
import { Alert, Link, NoticeScope } from "../ui";
import { ProductsPage } from "./products";
import { PlaygroundPage } from "./playground";
import { AnalyticsPage } from "./analytics";
import { ApiKeysPage, WidgetKeysPage } from "./keys";
import { WebhooksPage } from "./webhooks";
import { TeamPage } from "./team";
import { SecurityPage } from "./security";
import { BillingPage } from "./billing";
import { StartPage } from "./start";
import { AssistantPage } from "./assistant";
import { SynonymsPage } from "./synonyms";
import { RulesPage } from "./rules";
import type { StoreProps } from "./store-props";

const SECTIONS: { id: string; label: string; view: (p: StoreProps) => preact.JSX.Element }[] = [
  { id: "start", label: "Get started", view: (p) => <StartPage {...p} /> },
  { id: "products", label: "Products", view: (p) => <ProductsPage {...p} /> },
  { id: "playground", label: "Search playground", view: (p) => <PlaygroundPage {...p} /> },
  { id: "synonyms", label: "Synonyms", view: (p) => <SynonymsPage {...p} /> },
  { id: "merchandising", label: "Merchandising", view: (p) => <RulesPage {...p} /> },
  { id: "analytics", label: "Analytics", view: (p) => <AnalyticsPage {...p} /> },
  { id: "api-keys", label: "API keys", view: (p) => <ApiKeysPage {...p} /> },
  { id: "widget-keys", label: "Widget keys", view: (p) => <WidgetKeysPage {...p} /> },
  { id: "assistant", label: "Assistant", view: (p) => <AssistantPage {...p} /> },
  { id: "webhooks", label: "Webhooks", view: (p) => <WebhooksPage {...p} /> },
  { id: "team", label: "Team", view: (p) => <TeamPage {...p} /> },
  { id: "security", label: "Two-factor authentication", view: (p) => <SecurityPage {...p} /> },
  { id: "billing", label: "Billing", view: (p) => <BillingPage {...p} /> },
];

export function StorePortal({ session, slug, section }: { session: Session; slug: string; section: string }) {
  const membership = session.memberships.find((m) => m.slug === slug);
  const current = SECTIONS.find((s) => s.id === section);
  const storeName = membership?.name ?? slug;
  useEffect(() => {
    document.title = `${current?.label ?? "Not found"} · ${storeName} · Shopsight`;
  }, [current, storeName]);

  if (!membership && !session.is_super_admin) {
    return (
      <>
        <TopBar session={session} />
        <main class="page">
          <Alert>You are not a member of the store “{slug}”.</Alert>
          <p>
            <Link href="/portal/select-store">Choose one of your stores</Link>
          </p>
        </main>
      </>
    );
  }
  return (
    <>
      <TopBar session={session}>
        <span class="store-name">{storeName}</span>
        <span class="muted">
          {membership ? `${membership.role}` : "super admin"} · {slug}
        </span>
      </TopBar>
      <div class="layout">
        <nav class="sidenav" aria-label="Store sections">
          <ul>
            {SECTIONS.map((s) => (
              <li key={s.id}>
                <Link href={`/${encodeURIComponent(slug)}/portal/${s.id}`} current={s.id === current?.id}>
                  {s.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main class="page" id="main">
          {current ? (
            // A page's notices are its own: a new scope per store and section (see NoticeScope).
            <NoticeScope key={`${slug}/${current.id}`}>{current.view({ slug, session })}</NoticeScope>
          ) : (
            <>
              <h1>Page not found</h1>
              <p>
                <Link href={`/${encodeURIComponent(slug)}/portal`}>Back to products</Link>
              </p>
            </>
          )}
        </main>
      </div>
    </>
  );
}
