import { useEffect, useState } from "preact/hooks";
import QRCode from "qrcode";
import { api } from "../api";
import { ErrorNotice, Field, Loaded, Section, Success, useAction, useLoad } from "../ui";
import type { StoreProps } from "./store-props";
import type { SearchOk } from "../api-types";

type Setup = SearchOk<"/v1/security/2fa/setup", "post">;

/** Sends the 6-digit code from the authenticator app to `path`, then calls `onDone`. */
function CodeForm({
  act,
  path,
  label,
  button,
  danger,
  onDone,
}: {
  act: ReturnType<typeof useAction>;
  path: string;
  label: string;
  button: string;
  danger?: boolean;
  onDone: () => void;
}) {
  const [code, setCode] = useState("");
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        void act.run(async () => {
          await api(path, { body: { totp_code: code.trim() } });
          setCode("");
          onDone();
        });
      }}
    >
      <Field label={label}>
        <input
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          required
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
        />
      </Field>
      <button type="submit" class={danger ? "danger" : undefined} disabled={act.busy}>
        {button}
      </button>
    </form>
  );
}

/** The otpauth:// URI drawn as an SVG QR code in the browser. */
function QrCode({ uri }: { uri: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    QRCode.toString(uri, { type: "svg", margin: 2, errorCorrectionLevel: "M" }).then(
      (s: string) => alive && setSvg(s),
      () => alive && setSvg(null),
    );
    return () => {
      alive = false;
    };
  }, [uri]);
  if (!svg) return null;
  // The SVG is generated locally from the URI (no markup from the network).
  return <div class="qr" role="img" aria-label="QR code for your authenticator app" dangerouslySetInnerHTML={{ __html: svg }} />;
}

export function SecurityPage(_props: StoreProps) {
  const status = useLoad(() => api<SearchOk<"/v1/security/2fa/status">>("/v1/security/2fa/status"), []);
  const [setup, setSetup] = useState<Setup | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const act = useAction();

  return (
    <>
      <h1>Two-factor authentication</h1>
      <p class="muted">Two-factor authentication protects your own sign-in, in every store you belong to.</p>
      <ErrorNotice error={status.error ?? act.error} />
      {message && <Success>{message}</Success>}
      <Loaded state={status} what="status">
        {({ enabled }) => (
          <Section title={enabled ? "Two-factor authentication is on" : "Two-factor authentication is off"}>
            {!enabled && !setup && (
              <button
                type="button"
                disabled={act.busy}
                onClick={() =>
                  void act.run(async () => (setMessage(null), setSetup(await api<Setup>("/v1/security/2fa/setup", { method: "POST" }))))
                }
              >
                Set up two-factor authentication
              </button>
            )}
            {!enabled && setup && (
              <div class="setup">
                <ol>
                  <li>Scan this QR code with an authenticator app (or enter the key by hand).</li>
                  <li>Enter the 6-digit code the app shows to turn two-factor authentication on.</li>
                </ol>
                <QrCode uri={setup.otpauth_url} />
                <p>
                  Key:{" "}
                  <code class="secret-value" data-testid="totp-secret">
                    {setup.secret}
                  </code>
                </p>
                <CodeForm
                  act={act}
                  path="/v1/security/2fa/enable"
                  label="Code from the app"
                  button="Turn on"
                  onDone={() => {
                    setSetup(null);
                    setMessage("Two-factor authentication is on. You will be asked for a code when you sign in.");
                    status.reload();
                  }}
                />
              </div>
            )}
            {enabled && (
              <CodeForm
                act={act}
                path="/v1/security/2fa/disable"
                label="Current code, to turn it off"
                button="Turn off"
                danger
                onDone={() => {
                  setMessage("Two-factor authentication is off.");
                  status.reload();
                }}
              />
            )}
          </Section>
        )}
      </Loaded>
    </>
  );
}
