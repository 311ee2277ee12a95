// The landing page of the e-mailed verification link: the Search API redirects a browser's
// GET /verify?token=… here, and this page calls GET /verify as JSON (once), which activates the
// store and returns its machine credentials. The client secret is shown this once, with copy
// buttons; then the owner continues to sign in.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, api } from "../api";
import { Alert, CopyRow, ErrorNotice, Link } from "../ui";
import type { SearchOk } from "../api-types";

type Verified = SearchOk<"/verify">;

export function VerifyPage({ token }: { token: string }) {
  const [result, setResult] = useState<Verified | null>(null);
  const [error, setError] = useState<unknown>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current || !token) return;
    started.current = true; // the token is single-use: never call twice
    // Drop the token from the address bar (and from the history), so a reload does not reuse it.
    history.replaceState(null, "", "/portal/verify");
    api<Verified>("/verify", { anonymous: true, query: { token } }).then(setResult, setError);
  }, [token]);

  if (!token && !result && !error) {
    return (
      <main class="centered">
        <section class="card narrow">
          <h1>Verification link</h1>
          <Alert>This page needs the link from the verification e-mail. Open the link from the message again.</Alert>
          <p>
            <Link href="/portal/login">Go to sign in</Link>
          </p>
        </section>
      </main>
    );
  }
  if (error) {
    const used = error instanceof ApiError && error.code === "invalid_verification_token";
    return (
      <main class="centered">
        <section class="card narrow">
          <h1>Verification link</h1>
          {used ? (
            <Alert>This link is invalid or has already been used. If you opened it before, your store is active: sign in.</Alert>
          ) : (
            <ErrorNotice error={error} />
          )}
          <p>
            <Link href="/portal/login">Go to sign in</Link>
          </p>
        </section>
      </main>
    );
  }
  if (!result) {
    return (
      <main class="centered">
        <p role="status">Activating your store…</p>
      </main>
    );
  }
  return (
    <main class="centered">
      <section class="card narrow" aria-labelledby="verified-title">
        <h1 id="verified-title">Your store is active</h1>
        <p>
          These are your store's machine credentials, for servers that call the API with <code>POST /oauth/token</code> (client
          credentials). You don't need them to use the portal.
        </p>
        <div class="notice success secret" role="status">
          <p class="notice-title">Client id</p>
          <CopyRow value={result.client_id} label="Copy client id" />
          <p class="notice-title">Client secret</p>
          <p>This is shown only once: copy it now and keep it somewhere safe. An owner can rotate it later.</p>
          <CopyRow value={result.client_secret} label="Copy client secret" />
        </div>
        <p>
          <Link href="/portal/login" class="button">
            Continue to sign in
          </Link>
        </p>
      </section>
    </main>
  );
}
