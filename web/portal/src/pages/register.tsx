// Sign-up: POST /register creates the store and its owner (inactive until the e-mailed link is
// opened). Then the page says where the link is: in the inbox, or — on a server without a mail
// server — in the server's log (development) and its outbox folder.
import { useState } from "preact/hooks";
import { api } from "../api";
import { ErrorNotice, Field, Link, Success, useAction } from "../ui";
import type { SearchOk } from "../api-types";

type Registered = SearchOk<"/register", "post">;

export function RegisterPage() {
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [done, setDone] = useState<Registered | null>(null);
  const [resent, setResent] = useState<string | null>(null);
  const act = useAction();

  if (done) {
    return (
      <main class="centered">
        <section class="card narrow" aria-labelledby="check-mail">
          <h1 id="check-mail">Check your e-mail</h1>
          <p>
            We sent a link to <strong>{done.email}</strong>. Open it to activate your store <code>{done.slug}</code>; it is valid for 48
            hours.
          </p>
          <p class="muted">
            Running Shopsight yourself without a mail server (no <code>SMTP_URL</code>)? The message is saved as an <code>.eml</code> file
            in the server's <code>DATA_DIR/outbox/</code> folder, and in development the link is also printed in the server's log.
          </p>
          <p>
            No e-mail after a few minutes?{" "}
            <button
              type="button"
              class="small"
              disabled={act.busy}
              onClick={() =>
                void act.run(async () => {
                  const res = await api<SearchOk<"/register/resend", "post">>("/register/resend", { body: { email: done.email } });
                  setResent(res.message);
                })
              }
            >
              Send the link again
            </button>
          </p>
          {resent && <Success>{resent}</Success>}
          <ErrorNotice error={act.error} />
          <p>
            <Link href="/portal/login">Go to sign in</Link>
          </p>
        </section>
      </main>
    );
  }

  return (
    <main class="centered">
      <form
        class="card narrow"
        aria-labelledby="register-title"
        onSubmit={(e) => {
          e.preventDefault();
          void act.run(async () =>
            setDone(
              await api<Registered>("/register", { anonymous: true, body: { client_name: name.trim(), email: email.trim(), password } }),
            ),
          );
        }}
      >
        <h1 id="register-title">Create your store</h1>
        <ErrorNotice error={act.error} />
        <Field label="Store name" hint="Shown to your team; the store's address (slug) is made from it.">
          <input name="client_name" required maxLength={120} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field label="E-mail">
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </Field>
        <Field
          label="Password"
          hint="At least 10 characters, from two kinds: lower case, upper case, digits, others — and not a commonly used password."
        >
          <input
            type="password"
            name="password"
            autoComplete="new-password"
            required
            minLength={10}
            maxLength={256}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" disabled={act.busy}>
          {act.busy ? "Creating…" : "Create store"}
        </button>
        <p class="muted small">
          Already have an account? <Link href="/portal/login">Sign in</Link>
        </p>
      </form>
    </main>
  );
}
