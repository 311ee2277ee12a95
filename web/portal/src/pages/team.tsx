import { useState } from "preact/hooks";
import { api } from "../api";
import { DeleteButton, ListTable, Options } from "../components";
import { ErrorNotice, Field, Section, Success, fmtDate, useAction, useLoad } from "../ui";
import type { StoreProps } from "./store-props";
import type { Item, SearchOk } from "../api-types";
import type { ApiKey } from "./keys";

type Member = Item<SearchOk<"/v1/team/members">>;
type Invite = Item<SearchOk<"/v1/team/invites">>;
const ROLES = ["owner", "admin", "developer", "viewer"] as const;

export function TeamPage({ slug, session }: StoreProps) {
  const members = useLoad(() => api<Member[]>("/v1/team/members", { store: slug }), [slug]);
  const invites = useLoad(() => api<Invite[]>("/v1/team/invites", { store: slug }), [slug]);
  // The API keys each member created (revoked with their removal); null without security:read.
  const keys = useLoad(() => api<ApiKey[]>("/v1/security/api-keys", { store: slug }).catch(() => null), [slug]);
  const removalQuestion = (m: Member): string => {
    const own = keys.data?.filter((k) => k.status === "active" && k.created_by?.user_id === m.id).length;
    const consequence =
      own === undefined
        ? "API keys they created are revoked at once."
        : own === 0
          ? "They created no active API keys."
          : `The ${own === 1 ? "active API key" : `${own} active API keys`} they created ${own === 1 ? "is" : "are"} revoked at once: calls using ${own === 1 ? "it" : "them"} get 401.`;
    return `Remove ${m.email} from this store? Their account stays. ${consequence}`;
  };
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<string>("viewer");
  const [sent, setSent] = useState<string | null>(null);
  const act = useAction();

  return (
    <>
      <h1>Team</h1>
      <Section title="Invite someone">
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            setSent(null);
            void act.run(async () => {
              const res = await api<SearchOk<"/v1/team/invite", "post">>("/v1/team/invite", { store: slug, body: { email, role } });
              setSent(
                res.email_sent
                  ? `Invite e-mailed to ${res.email}. The link is valid for 7 days.`
                  : `Invite created for ${res.email}, but the e-mail could not be sent.`,
              );
              setEmail("");
              invites.reload();
            });
          }}
        >
          <Field label="E-mail">
            <input type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </Field>
          <Field label="Role">
            <select value={role} onChange={(e) => setRole(e.currentTarget.value)}>
              <Options values={ROLES} />
            </select>
          </Field>
          <button type="submit" disabled={act.busy}>
            Send invite
          </button>
        </form>
        <p class="muted small">
          Owners and admins manage the store; developers manage products, search, webhooks and widgets; viewers can read and search.
        </p>
        {sent && <Success>{sent}</Success>}
      </Section>
      <ErrorNotice error={act.error ?? members.error ?? invites.error} />
      <Section title="Members">
        <ListTable
          state={members}
          what="members"
          columns={["Name", "E-mail", "Role", "2FA", "Joined"]}
          actions="Actions"
          row={(m) => (
            <tr key={m.id}>
              <td>{m.full_name || "—"}</td>
              <td>{m.email}</td>
              <td>
                <select
                  aria-label={`Role of ${m.email}`}
                  value={m.role}
                  disabled={act.busy}
                  onChange={(e) => {
                    const next = e.currentTarget.value;
                    void act.run(async () => {
                      await api(`/v1/team/members/${encodeURIComponent(m.id)}`, { store: slug, method: "PATCH", body: { role: next } });
                      members.reload();
                    });
                  }}
                >
                  <Options values={ROLES} />
                </select>
              </td>
              <td>{m.two_factor_enabled ? "on" : "off"}</td>
              <td class="small">{fmtDate(m.joined_at)}</td>
              <td>
                {m.id !== session.user_id && (
                  <DeleteButton
                    act={act}
                    store={slug}
                    path={`/v1/team/members/${encodeURIComponent(m.id)}`}
                    question={removalQuestion(m)}
                    onDone={() => {
                      members.reload();
                      keys.reload();
                    }}
                  >
                    Remove
                  </DeleteButton>
                )}
              </td>
            </tr>
          )}
        />
      </Section>
      <Section title="Pending invites">
        <ListTable
          state={invites}
          empty="No pending invites."
          columns={["E-mail", "Role", "Expires"]}
          actions="Actions"
          row={(i) => (
            <tr key={i.invite_id}>
              <td>{i.email}</td>
              <td>{i.role}</td>
              <td class="small">{fmtDate(i.expires_at)}</td>
              <td>
                <DeleteButton act={act} store={slug} path={`/v1/team/invites/${encodeURIComponent(i.invite_id)}`} onDone={invites.reload}>
                  Cancel invite
                </DeleteButton>
              </td>
            </tr>
          )}
        />
      </Section>
    </>
  );
}
