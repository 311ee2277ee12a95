import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, login } from "../api";
import { navigate } from "../router";
import { Alert, ErrorNotice, Field, Link } from "../ui";

export function LoginPage({ next }: { next: string | null }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [needsCode, setNeedsCode] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const codeRef = useRef<HTMLInputElement>(null);

  // A layout effect runs in the same task as the render that shows the code box, so focus is
  // there before the browser paints or handles the next key press (a plain effect waits for an
  // animation frame: keys typed in between went nowhere, and the portal test saw no focus).
  useLayoutEffect(() => {
    if (needsCode) codeRef.current?.focus();
  }, [needsCode]);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const s = await login(email.trim(), password, needsCode ? code.trim() : undefined);
      // Only same-site paths are followed after sign-in.
      const target = next && next.startsWith("/") && !next.startsWith("//") ? next : s.redirect;
      navigate(target, true);
    } catch (err) {
      if (err instanceof ApiError && err.code === "requires_2fa") {
        setNeedsCode(true);
      } else if (err instanceof ApiError && err.code === "unauthorized") {
        setError(new ApiError(401, "login_failed", err.message, {}, err.requestId));
      } else {
        setError(err);
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="centered">
      <form class="card narrow" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Sign in to your store</h1>
        {error instanceof ApiError && error.code === "login_failed" ? (
          <Alert>That e-mail and password don't match an account.</Alert>
        ) : (
          <ErrorNotice error={error} />
        )}
        {!needsCode ? (
          <>
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
            <Field label="Password">
              <input
                type="password"
                name="password"
                autoComplete="current-password"
                required
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
            </Field>
          </>
        ) : (
          <>
            <p>Two-factor authentication is on for {email}. Enter the 6-digit code from your authenticator app.</p>
            <Field label="Authentication code">
              <input
                ref={codeRef}
                name="totp_code"
                inputMode="numeric"
                autoComplete="one-time-code"
                pattern="[0-9]{6}"
                maxLength={6}
                required
                value={code}
                onInput={(e) => setCode(e.currentTarget.value)}
              />
            </Field>
          </>
        )}
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : needsCode ? "Verify and sign in" : "Sign in"}
        </button>
        {needsCode && (
          <button
            type="button"
            class="link"
            onClick={() => {
              setNeedsCode(false);
              setCode("");
              setError(null);
            }}
          >
            Use another account
          </button>
        )}
        <p class="muted small">
          New here? <Link href="/portal/register">Create a store</Link>
        </p>
      </form>
    </main>
  );
}
