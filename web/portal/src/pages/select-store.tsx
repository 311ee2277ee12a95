import type { Session } from "../api";
import { TopBar } from "../topbar";
import { Link } from "../ui";

export function SelectStorePage({ session }: { session: Session }) {
  return (
    <>
      <TopBar session={session} />
      <main class="page">
        <h1>Choose a store</h1>
        {session.memberships.length === 0 ? (
          <p>
            You are not a member of any store yet.
            {session.is_super_admin && (
              <>
                {" "}
                Open the <Link href="/admin">platform admin</Link> to see every store.
              </>
            )}
          </p>
        ) : (
          <ul class="store-list">
            {session.memberships.map((m) => (
              <li key={m.client_id}>
                <Link href={`/${encodeURIComponent(m.slug)}/portal`} class="store-card">
                  <strong>{m.name}</strong>
                  <span class="muted">
                    {m.slug} · {m.role} · {m.plan} plan
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </main>
    </>
  );
}
