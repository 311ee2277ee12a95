import { useState } from "preact/hooks";
import { api, type Session } from "../api";
import { ErrorNotice, Field, Link, Success, useAction } from "../ui";
import type { SearchOk } from "../api-types";

/** The invite e-mail's link: {PUBLIC_BASE_URL}/portal/accept-invite?token=… */
export function AcceptInvitePage({ token, session }: { token: string; session: Session | null }) {
  const [fullName, setFullName] = useState("");
  const [password, setPassword] = useState("");
  const [done, setDone] = useState<{ slug?: string } | null>(null);
  const { busy, error, run } = useAction();

  if (!token) {
    return (
      <main class="centered">
        <div class="card narrow">
          <h1>Accept an invite</h1>
          <p>This link has no invite token. Open the link from the invite e-mail again.</p>
        </div>
      </main>
    );
  }
  if (done) {
    return (
      <main class="centered">
        <div class="card narrow">
          <h1>Invite accepted</h1>
          <Success>You are now a member of the store.</Success>
          <p>
            <Link href="/portal/login">Sign in</Link> to open it{session ? " (sign in again so your new store appears)" : ""}.
          </p>
        </div>
      </main>
    );
  }
  return (
    <main class="centered">
      <div class="card narrow">
        <h1>Accept an invite</h1>
        <ErrorNotice error={error} />
        {session && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void run(async () =>
                setDone((await api<SearchOk<"/v1/team/invites/accept", "post">>("/v1/team/invites/accept", { body: { token } })) ?? {}),
              );
            }}
          >
            <p>You are signed in as {session.email}. Accept the invite with this account:</p>
            <button type="submit" disabled={busy}>
              Accept as {session.email}
            </button>
            <hr />
          </form>
        )}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () =>
              setDone(
                (await api<SearchOk<"/v1/team/invites/accept", "post">>("/v1/team/invites/accept", {
                  anonymous: true,
                  body: { token, password, full_name: fullName },
                })) ?? {},
              ),
            );
          }}
        >
          <p>{session ? "Or create a new account for the invited e-mail:" : "New here? Choose your name and a password:"}</p>
          <Field label="Full name">
            <input required value={fullName} onInput={(e) => setFullName(e.currentTarget.value)} autoComplete="name" />
          </Field>
          <Field
            label="Password"
            hint="10 or more characters, mixing at least two of: lower case, upper case, digits, symbols — and not a commonly used password."
          >
            <input
              type="password"
              required
              minLength={10}
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
              autoComplete="new-password"
            />
          </Field>
          <button type="submit" disabled={busy}>
            Create account and join
          </button>
          {!session && (
            <p class="muted">
              Already have an account?{" "}
              <Link href={`/portal/login?next=${encodeURIComponent(`/portal/accept-invite?token=${token}`)}`}>Sign in first</Link>.
            </p>
          )}
        </form>
      </div>
    </main>
  );
}
