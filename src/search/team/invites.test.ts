import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ManualClock } from "../../platform/clock.js";
import { sha256 } from "../../platform/ids.js";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, freshIp, lastMailTo, loginToken, machineToken, registerStore } from "../../../test/support/factories.js";
import { addMember, createApiKey } from "../../../test/support/members.js";

const DAY = 86_400_000;
let n = 0;
const newEmail = (label: string) => `${label}-${Date.now().toString(36)}-${(n += 1)}@example.com`;

describeEachDialect("team: invites", (dialect) => {
  let t: TestApp;
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 9));
  before(async () => {
    t = await createTestApp({ dialect, clock });
  });
  after(() => t.close());

  const invite = (token: string, slug: string | undefined, payload: object) =>
    t.search.inject({
      method: "POST",
      url: "/v1/team/invite",
      headers: { ...bearer(token), ...(slug ? { "X-Service-Active-Tenant": slug } : {}) },
      payload,
    });
  const accept = (payload: object, token?: string) =>
    t.search.inject({
      method: "POST",
      url: "/v1/team/invites/accept",
      remoteAddress: freshIp(),
      headers: token ? bearer(token) : {},
      payload,
    });
  const cancel = (token: string, inviteId: string, headers: Record<string, string> = {}) =>
    t.search.inject({ method: "DELETE", url: `/v1/team/invites/${inviteId}`, headers: { ...bearer(token), ...headers } });
  const tokenFromMail = (email: string) => {
    const match = /\/portal\/accept-invite\?token=([A-Za-z0-9_%-]+)/.exec(lastMailTo(t, email));
    assert.ok(match, "accept link in the mail");
    return decodeURIComponent(match[1]!);
  };
  const login = (email: string, password: string) =>
    t.search.inject({ method: "POST", url: "/oauth/login", remoteAddress: freshIp(), payload: { email, password } });

  test("an owner invites a new user, who accepts with a password; user and membership are created", async () => {
    const store = await registerStore(t, { name: "Invite Shop" });
    const owner = await loginToken(t.search, store.email, store.password);
    const email = newEmail("new");
    const res = await invite(owner, store.slug, { email: email.toUpperCase(), role: "developer" });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ["email", "email_sent", "expires_at", "invite_id", "is_existing_user", "role"]);
    assert.equal(body.email, email);
    assert.equal(body.role, "developer");
    assert.equal(body.is_existing_user, false);
    assert.equal(body.email_sent, true);
    assert.equal(body.expires_at, new Date(clock.now() + 7 * DAY).toISOString());

    const mail = lastMailTo(t, email);
    assert.match(mail, /Invite Shop/);
    assert.ok(mail.includes(`${t.config.publicBaseUrl}/portal/accept-invite?token=`));
    const token = tokenFromMail(email);
    const row = await t.ctx.database.db.selectFrom("team_invites").selectAll().where("id", "=", body.invite_id).executeTakeFirstOrThrow();
    assert.equal(row.token_hash, sha256(token), "the token is kept as its SHA-256 only");
    assert.ok(!JSON.stringify(row).includes(token));

    const pending = await t.search.inject({ method: "GET", url: "/v1/team/invites", headers: bearer(owner) });
    assert.deepEqual(
      pending.json().map((i: { invite_id: string }) => i.invite_id),
      [body.invite_id],
    );

    const accepted = await accept({ token, password: "New-member-pass-1", full_name: "New Member" });
    assert.equal(accepted.statusCode, 200, accepted.body);
    assert.equal(accepted.json().client_id, store.clientId);
    assert.equal(accepted.json().role, "developer");
    assert.equal(accepted.json().is_new_user, true);
    const signedIn = await login(email, "New-member-pass-1");
    assert.equal(signedIn.statusCode, 200, signedIn.body);
    assert.equal(signedIn.json().user_name, "New Member");
    assert.deepEqual(
      signedIn.json().memberships.map((m: { slug: string; role: string }) => [m.slug, m.role]),
      [[store.slug, "developer"]],
    );
    const afterAccept = await t.search.inject({ method: "GET", url: "/v1/team/invites", headers: bearer(owner) });
    assert.deepEqual(afterAccept.json(), [], "no longer pending");

    const reuse = await accept({ token, password: "New-member-pass-1", full_name: "Again" });
    assert.equal(reuse.statusCode, 409);
    assert.equal(reuse.json().error, "invite_already_used");
  });

  test("an invite expires after 7 days", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const early = newEmail("early");
    const late = newEmail("late");
    await invite(owner, store.slug, { email: early, role: "viewer" });
    await invite(owner, store.slug, { email: late, role: "viewer" });
    clock.advance(7 * DAY - 1);
    const inTime = await accept({ token: tokenFromMail(early), password: "Early-member-1", full_name: "Early" });
    assert.equal(inTime.statusCode, 200, inTime.body);
    clock.advance(1);
    const expired = await accept({ token: tokenFromMail(late), password: "Late-member-1", full_name: "Late" });
    assert.equal(expired.statusCode, 410);
    assert.equal(expired.json().error, "invite_expired");
    assert.equal((await login(late, "Late-member-1")).statusCode, 401, "no user was created");
    const fresh = await loginToken(t.search, store.email, store.password);
    const pending = await t.search.inject({ method: "GET", url: "/v1/team/invites", headers: bearer(fresh) });
    assert.deepEqual(pending.json(), []);
    const again = await invite(fresh, store.slug, { email: late, role: "viewer" });
    assert.equal(again.statusCode, 201, "an expired invite does not block a new one");
  });

  test("a cancelled invite's token stops working; a fresh invite gets a new token", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const email = newEmail("cancel");
    const first = (await invite(owner, store.slug, { email, role: "admin" })).json();
    const oldToken = tokenFromMail(email);
    const dup = await invite(owner, store.slug, { email, role: "admin" });
    assert.equal(dup.statusCode, 409, "a pending invite exists");
    const cancelled = await cancel(owner, first.invite_id);
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.equal(cancelled.json().status, "cancelled");
    const twice = await cancel(owner, first.invite_id);
    assert.equal(twice.statusCode, 410);
    assert.equal(twice.json().error, "invite_cancelled");
    const refused = await accept({ token: oldToken, password: "Cancelled-pass-1", full_name: "X" });
    assert.equal(refused.statusCode, 410);
    assert.equal(refused.json().error, "invite_cancelled");

    clock.advance(1000);
    const second = await invite(owner, store.slug, { email, role: "admin" });
    assert.equal(second.statusCode, 201);
    const newToken = tokenFromMail(email);
    assert.notEqual(newToken, oldToken);
    assert.equal((await accept({ token: oldToken, password: "Cancelled-pass-1", full_name: "X" })).json().error, "invite_cancelled");
    assert.equal((await accept({ token: newToken, password: "Cancelled-pass-1", full_name: "X" })).statusCode, 200);
    const usedCancel = await cancel(owner, second.json().invite_id);
    assert.equal(usedCancel.statusCode, 409);
    assert.equal(usedCancel.json().error, "invite_already_used");
    assert.equal((await cancel(owner, "inv_unknown")).statusCode, 404);
  });

  test("an existing user accepts with their own bearer; the invite's e-mail must be theirs", async () => {
    const a = await registerStore(t);
    const b = await registerStore(t);
    const ownerA = await loginToken(t.search, a.email, a.password);
    clock.advance(1000); // mail files are named by the clock: the invite must sort after B's verification mail
    const res = await invite(ownerA, a.slug, { email: b.email, role: "viewer" });
    assert.equal(res.json().is_existing_user, true);
    assert.match(lastMailTo(t, b.email), /sign in/);
    const token = tokenFromMail(b.email);

    const asNew = await accept({ token, password: "Some-password-1", full_name: "B" });
    assert.equal(asNew.statusCode, 409, "an existing account accepts signed in");
    const stranger = await registerStore(t);
    const strangerToken = await loginToken(t.search, stranger.email, stranger.password);
    const wrongUser = await accept({ token }, strangerToken);
    assert.equal(wrongUser.statusCode, 403);
    assert.equal(wrongUser.json().error, "forbidden");
    const ownerB = await loginToken(t.search, b.email, b.password);
    const mixed = await accept({ token, password: "Some-password-1" }, ownerB);
    assert.equal(mixed.statusCode, 400);
    const machine = await machineToken(t.search, b);
    assert.equal((await accept({ token }, machine)).statusCode, 403, "a machine grant cannot accept");

    const ok = await accept({ token }, ownerB);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().is_new_user, false);
    const relogin = await login(b.email, b.password);
    assert.deepEqual(
      relogin
        .json()
        .memberships.map((m: { slug: string; role: string }) => [m.slug, m.role])
        .sort(),
      [
        [a.slug, "viewer"],
        [b.slug, "owner"],
      ].sort(),
    );
    const member = await invite(ownerA, a.slug, { email: b.email, role: "admin" });
    assert.equal(member.statusCode, 409, "already a member");
  });

  test("only an owner or a super admin invites, with the active-tenant header", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const admin = await addMember(t, owner, "admin");
    const developer = await addMember(t, owner, "developer");
    const machine = await machineToken(t.search, store);
    const key = await createApiKey(t, machine, { team: ["read"] });
    const payload = () => ({ email: newEmail("who"), role: "viewer" });

    const byAdmin = await invite(admin.token, store.slug, payload());
    assert.equal(byAdmin.statusCode, 403);
    assert.equal(byAdmin.json().error, "forbidden");
    const byDeveloper = await invite(developer.token, store.slug, payload());
    assert.equal(byDeveloper.statusCode, 403);
    assert.equal(byDeveloper.json().details.missing_permission, "team:write");
    const byMachine = await invite(machine, store.slug, payload());
    assert.equal(byMachine.statusCode, 403);
    assert.equal(byMachine.json().error, "forbidden");
    const byKey = await invite(key.key, store.slug, payload());
    assert.equal(byKey.statusCode, 403);
    const noHeader = await invite(owner, undefined, payload());
    assert.equal(noHeader.statusCode, 400);
    assert.equal(noHeader.json().error, "validation_failed");
    assert.match(JSON.stringify(noHeader.json().details), /x-service-active-tenant/);

    const rootEmail = newEmail("root");
    await t.services.accounts.createSuperAdmin(rootEmail, "Root-password-1");
    const root = await loginToken(t.search, rootEmail, "Root-password-1");
    const bySuperAdmin = await invite(root, store.slug, payload());
    assert.equal(bySuperAdmin.statusCode, 201, bySuperAdmin.body);
    const byOwner = await invite(owner, store.slug, { email: newEmail("owner2"), role: "owner" });
    assert.equal(byOwner.statusCode, 201);
    const adminCancel = await cancel(admin.token, byOwner.json().invite_id);
    assert.equal(adminCancel.statusCode, 403);
    const rows = await t.ctx.database.db.selectFrom("team_invites").select("id").where("store_id", "=", store.clientId).execute();
    assert.equal(rows.length, 2, "only the super admin's and the owner's invites exist");
  });

  test("refuses malformed invites and accepts with 400, unknown tokens with 404", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    for (const payload of [
      {},
      { email: "not-an-email", role: "viewer" },
      { email: newEmail("x"), role: "boss" },
      { email: newEmail("x") },
      { email: newEmail("x"), role: "viewer", note: "hi" },
    ]) {
      const res = await invite(owner, store.slug, payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().error, "validation_failed");
    }
    const email = newEmail("weak");
    await invite(owner, store.slug, { email, role: "viewer" });
    const token = tokenFromMail(email);
    for (const payload of [
      {},
      { token: "short" },
      { token, password: "Some-password-1" },
      { token, full_name: "No Password" },
      { token, password: "Some-password-1", full_name: "X", role: "owner" },
    ]) {
      const res = await accept(payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().error, "validation_failed");
    }
    const weak = await accept({ token, password: "weakpassword", full_name: "Weak" });
    assert.equal(weak.statusCode, 400);
    assert.match(weak.json().message, /Password must be/);
    const unknown = await accept({ token: "a-token-that-does-not-exist", password: "Some-password-1", full_name: "X" });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error, "invalid_invite");
    assert.equal(
      (await accept({ token, password: "Good-password-1", full_name: "Good" })).statusCode,
      200,
      "the failed attempts did not use the token",
    );
  });

  test("a second store's token and ids never reach the first store's invites", async () => {
    const a = await registerStore(t);
    const b = await registerStore(t);
    const ownerA = await loginToken(t.search, a.email, a.password);
    const ownerB = await loginToken(t.search, b.email, b.password);
    const email = newEmail("iso");
    const inv = (await invite(ownerA, a.slug, { email, role: "viewer" })).json();
    assert.equal((await cancel(ownerB, inv.invite_id)).statusCode, 404);
    const viaHeader = await cancel(ownerB, inv.invite_id, { "X-Service-Active-Tenant": a.slug });
    assert.equal(viaHeader.statusCode, 403);
    const intoA = await invite(ownerB, a.slug, { email: newEmail("intruder"), role: "owner" });
    assert.equal(intoA.statusCode, 403);
    assert.equal(intoA.json().error, "not_a_member");
    const listB = await t.search.inject({ method: "GET", url: "/v1/team/invites", headers: bearer(ownerB) });
    assert.deepEqual(listB.json(), []);
    const ok = await accept({ token: tokenFromMail(email), password: "Iso-member-pass-1", full_name: "Iso" });
    assert.equal(ok.statusCode, 200, "A's invite is intact");
    assert.equal(ok.json().client_id, a.clientId);
  });

  test("invite acceptance is throttled per client address (20 an hour), so tokens cannot be guessed in bulk", async () => {
    const address = "10.40.30.20";
    for (let i = 0; i < 20; i++) {
      const res = await t.search.inject({
        method: "POST",
        url: "/v1/team/invites/accept",
        remoteAddress: address,
        payload: { token: `guess-${i}-0123456789`, password: "Some-password-1", full_name: "G" },
      });
      assert.equal(res.statusCode, 404, res.body);
    }
    const over = await t.search.inject({
      method: "POST",
      url: "/v1/team/invites/accept",
      remoteAddress: address,
      payload: { token: "guess-20-0123456789", password: "Some-password-1", full_name: "G" },
    });
    assert.equal(over.statusCode, 429, over.body);
    assert.equal(over.json().details.scope, "client_address");
    assert.ok(Number(over.headers["retry-after"]) > 0);
  });

  test("acceptances of one invite are throttled per invited e-mail (5 an hour), from whatever addresses", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const email = `throttled-${Date.now()}@example.com`;
    assert.equal((await invite(owner, store.slug, { email, role: "viewer" })).statusCode, 201);
    const token = tokenFromMail(email);
    // Five attempts with a password the policy refuses, each from a fresh address: 400 each.
    for (let i = 0; i < 5; i++) {
      const res = await accept({ token, password: "short", full_name: "T" });
      assert.equal(res.statusCode, 400, res.body);
    }
    const over = await accept({ token, password: "Long-enough-pass-7", full_name: "T" });
    assert.equal(over.statusCode, 429, over.body);
    assert.equal(over.json().details.scope, "email");
  });
});
