// The Shopsight store portal: a single-page app over the public Search API.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import "./styles.css";
import { getSession, onSession, type Session } from "./api";
import { navigate, useRoute } from "./router";
import { Link } from "./ui";
import { LoginPage } from "./pages/login";
import { SelectStorePage } from "./pages/select-store";
import { AcceptInvitePage } from "./pages/accept-invite";
import { StorePortal } from "./pages/store";
import { AdminPage } from "./pages/admin";
import { RegisterPage } from "./pages/register";
import { VerifyPage } from "./pages/verify";

function useSession(): Session | null {
  const [s, setS] = useState(getSession());
  useEffect(() => onSession(() => setS(getSession())), []);
  return s;
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, true), [to]);
  return null;
}

function App() {
  const route = useRoute();
  const session = useSession();

  useEffect(() => {
    const titles: Record<string, string> = {
      login: "Sign in",
      register: "Create your store",
      verify: "Store activated",
      "select-store": "Choose a store",
      "accept-invite": "Accept invite",
      admin: "Platform admin",
      "not-found": "Not found",
    };
    if (route.name !== "store") document.title = `${titles[route.name] ?? "Portal"} · Shopsight`;
  }, [route]);

  // Sign-up and the e-mailed verification link work signed out (and signed in).
  if (route.name === "register") return <RegisterPage />;
  if (route.name === "verify") return <VerifyPage token={route.token} />;
  if (route.name === "accept-invite") return <AcceptInvitePage token={route.token} session={session} />;
  if (route.name === "login") return session ? <Redirect to={route.next ?? session.redirect} /> : <LoginPage next={route.next} />;
  if (!session) {
    const here = location.pathname + location.search;
    return (
      <Redirect to={`/portal/login${here.startsWith("/portal/login") || here === "/portal" ? "" : `?next=${encodeURIComponent(here)}`}`} />
    );
  }
  switch (route.name) {
    case "home":
      return <Redirect to={session.redirect} />;
    case "select-store":
      return <SelectStorePage session={session} />;
    case "store":
      return <StorePortal session={session} slug={route.slug} section={route.section} />;
    case "admin":
      return session.is_super_admin ? <AdminPage session={session} /> : <Redirect to="/portal/select-store" />;
    default:
      return (
        <main class="centered">
          <h1>Page not found</h1>
          <p>
            <Link href="/portal">Go to the portal</Link>
          </p>
        </main>
      );
  }
}

const root = document.getElementById("app")!;
root.textContent = ""; // drop the "Loading…" placeholder
render(<App />, root);
