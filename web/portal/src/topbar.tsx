import type { ComponentChildren } from "preact";
import { signOut, type Session } from "./api";
import { navigate } from "./router";
import { Link } from "./ui";

export function TopBar({ session, children }: { session: Session; children?: ComponentChildren }) {
  return (
    <header class="topbar">
      <Link href="/portal" class="brand">
        Shopsight
      </Link>
      <div class="topbar-middle">{children}</div>
      <div class="topbar-user">
        {session.is_super_admin && <Link href="/admin">Platform admin</Link>}
        {session.memberships.length > 1 && <Link href="/portal/select-store">Switch store</Link>}
        <span class="muted" title={session.email}>
          {session.user_name || session.email}
        </span>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            signOut();
            navigate("/portal/login");
          }}
        >
          Sign out
        </button>
      </div>
    </header>
  );
}
