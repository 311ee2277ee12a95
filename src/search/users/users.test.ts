import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, freshIp, loginToken, machineToken, registerStore } from "../../../test/support/factories.js";
import { addMember, createGroup, MEMBER_PASSWORD, setGroups } from "../../../test/support/members.js";
import { PERMISSION_NAMES, ROLE_PERMISSIONS } from "../../tenancy/permissions.js";

let n = 0;
const newEmail = (label: string) => `${label}-${Date.now().toString(36)}-${(n += 1)}@example.com`;

describeEachDialect("users, groups and members", (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ dialect });
  });
  after(() => t.close());

  type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  const call = (method: Method, url: string, token: string | undefined, payload?: object, headers: Record<string, string> = {}) =>
    t.search.inject({ method, url, headers: { ...(token ? bearer(token) : {}), ...headers }, ...(payload ? { payload } : {}) });

  test("POST /v1/users creates a member (role from a built-in group, default viewer) who can sign in", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const email = newEmail("ada");
    const res = await call("POST", "/v1/users", owner, { email, password: "Ada-password-1", full_name: "Ada", group_ids: ["grp_admin"] });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.email, email);
    assert.equal(body.full_name, "Ada");
    assert.equal(body.role, "admin");
    assert.deepEqual(body.group_ids, ["grp_admin"]);
    assert.equal(body.two_factor_enabled, false);
    assert.match(body.id, /^[0-9a-f-]{36}$/);
    const plain = await call("POST", "/v1/users", owner, { email: newEmail("bob"), password: "Bob-password-1", full_name: "Bob" });
    assert.equal(plain.json().role, "viewer");

    const login = await t.search.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: freshIp(),
      payload: { email, password: "Ada-password-1" },
    });
    assert.equal(login.statusCode, 200);
    assert.deepEqual(
      login.json().memberships.map((m: { slug: string; role: string }) => [m.slug, m.role]),
      [[store.slug, "admin"]],
    );

    const list = await call("GET", "/v1/users", owner);
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      list
        .json()
        .map((u: { email: string; role: string }) => [u.email, u.role])
        .sort(),
      [
        [store.email, "owner"],
        [email, "admin"],
        [plain.json().email, "viewer"],
      ].sort(),
    );
    assert.ok(!list.body.includes("password"), "no password material");
    const members = await call("GET", "/v1/team/members", owner);
    assert.deepEqual(members.json(), list.json(), "GET /v1/team/members is the same list");
  });

  test("refuses duplicates, weak passwords, unknown groups and malformed bodies", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const other = await registerStore(t);
    const dup = await call("POST", "/v1/users", owner, { email: other.email, password: "Some-password-1", full_name: "Dup" });
    assert.equal(dup.statusCode, 409);
    assert.match(dup.json().message, /\/v1\/team\/invite/);
    const weak = await call("POST", "/v1/users", owner, { email: newEmail("weak"), password: "short", full_name: "W" });
    assert.equal(weak.statusCode, 400);
    const unknownGroup = await call("POST", "/v1/users", owner, {
      email: newEmail("g"),
      password: "Some-password-1",
      full_name: "G",
      group_ids: ["grp_nope"],
    });
    assert.equal(unknownGroup.statusCode, 404);
    const twoRoles = await call("POST", "/v1/users", owner, {
      email: newEmail("g"),
      password: "Some-password-1",
      full_name: "G",
      group_ids: ["grp_admin", "grp_viewer"],
    });
    assert.equal(twoRoles.statusCode, 400);
    for (const payload of [
      {},
      { email: "nope", password: "Some-password-1", full_name: "X" },
      { email: newEmail("x"), password: "Some-password-1" },
      { email: newEmail("x"), password: "Some-password-1", full_name: "X", role: "owner" },
      { email: newEmail("x"), password: "Some-password-1", full_name: "X", group_ids: "grp_admin" },
    ]) {
      const res = await call("POST", "/v1/users", owner, payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().error, "validation_failed");
    }
    assert.equal((await call("GET", "/v1/users", owner)).json().length, 1, "nobody was added");
  });

  test("groups: built-in role groups are listed with their permissions, custom groups add permissions", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const viewer = await addMember(t, owner, "viewer");
    const groups = await call("GET", "/v1/user-groups", owner);
    assert.equal(groups.statusCode, 200);
    const builtIn = groups.json().filter((g: { built_in: boolean }) => g.built_in);
    assert.deepEqual(
      builtIn.map((g: { id: string; role: string; member_count: number }) => [g.id, g.role, g.member_count]),
      [
        ["grp_owner", "owner", 1],
        ["grp_admin", "admin", 0],
        ["grp_developer", "developer", 0],
        ["grp_viewer", "viewer", 1],
      ],
    );
    assert.deepEqual(builtIn[3].permission_names, [...ROLE_PERMISSIONS.viewer]);

    const refused = await call("POST", "/v1/user-groups", viewer.token, { name: "x", permission_names: ["products:read"] });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().details.missing_permission, "team:write");

    const created = await call("POST", "/v1/user-groups", owner, {
      name: "Team managers",
      permission_names: ["team:write", "products:write"],
      description: "may add people",
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual(created.json().permission_names, ["products:write", "team:write"], "catalogue order");
    assert.equal(created.json().built_in, false);
    assert.equal(created.json().role, null);
    await setGroups(t, owner, viewer.id, [created.json().id]);
    const listed = (await call("GET", "/v1/user-groups", owner)).json().find((g: { id: string }) => g.id === created.json().id);
    assert.equal(listed.member_count, 1);

    const nowAllowed = await call("POST", "/v1/user-groups", viewer.token, { name: "Readers", permission_names: ["products:read"] });
    assert.equal(nowAllowed.statusCode, 201, "the group's team:write is effective at once");
    const escalate = await call("POST", "/v1/user-groups", viewer.token, { name: "Payers", permission_names: ["billing:write"] });
    assert.equal(escalate.statusCode, 403, "nobody grants more than they hold");
    assert.equal(escalate.json().details.missing_permission, "billing:write");
    const selfPromote = await call("PATCH", `/v1/team/members/${viewer.id}`, viewer.token, { role: "admin" });
    assert.equal(selfPromote.statusCode, 403, "no self-promotion above one's own rank");
    assert.equal(selfPromote.json().error, "forbidden");
    const selfGroup = await createGroup(t, owner, ["billing:write"]);
    const grabGroup = await call("PATCH", `/v1/team/members/${viewer.id}`, viewer.token, { group_ids: [created.json().id, selfGroup] });
    assert.equal(grabGroup.statusCode, 403, "joining a group with permissions one lacks is refused");
    assert.equal(grabGroup.json().details.missing_permission, "billing:write");

    const del = await call("DELETE", `/v1/user-groups/${created.json().id}`, owner);
    assert.equal(del.statusCode, 200);
    const gone = await call("POST", "/v1/user-groups", viewer.token, { name: "Again", permission_names: ["products:read"] });
    assert.equal(gone.statusCode, 403, "deleting the group removes its permissions at once");
    const member = (await call("GET", "/v1/users", owner)).json().find((u: { id: string }) => u.id === viewer.id);
    assert.deepEqual(member.group_ids, ["grp_viewer"]);
  });

  test("groups: refuses unknown permissions, duplicate or built-in names, and deleting built-in groups", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    await createGroup(t, owner, ["products:read"], "Catalogue");
    const cases: [object, number][] = [
      [{ name: "x", permission_names: ["products:fly"] }, 400],
      [{ name: "x", permission_names: [] }, 400],
      [{ name: "", permission_names: ["products:read"] }, 400],
      [{ name: "x" }, 400],
      [{ name: "x", permission_names: ["products:read"], extra: 1 }, 400],
      [{ name: "catalogue", permission_names: ["products:read"] }, 409],
      [{ name: "Owners", permission_names: ["products:read"] }, 409],
    ];
    for (const [payload, status] of cases) {
      const res = await call("POST", "/v1/user-groups", owner, payload);
      assert.equal(res.statusCode, status, JSON.stringify(payload));
    }
    assert.equal((await call("DELETE", "/v1/user-groups/grp_owner", owner)).statusCode, 409);
    assert.equal((await call("DELETE", "/v1/user-groups/grp_unknown", owner)).statusCode, 404);
  });

  test("GET /v1/user-groups/permissions lists every permission, described", async () => {
    const store = await registerStore(t);
    const machine = await machineToken(t.search, store);
    const res = await call("GET", "/v1/user-groups/permissions", machine);
    assert.equal(res.statusCode, 200);
    const names: string[] = res.json().map((p: { name: string }) => p.name);
    for (const required of [
      "products:read",
      "products:write",
      "products:delete",
      "products:bulk",
      "search:read",
      "search:write",
      "search:execute",
    ]) {
      assert.ok(names.includes(required), required);
    }
    assert.deepEqual(names, PERMISSION_NAMES);
    for (const p of res.json()) assert.ok(p.description.length > 20, p.name);
    const byName = Object.fromEntries(res.json().map((p: { name: string }) => [p.name, p]));
    assert.equal(byName["security:write"].api_key_scope, false);
    assert.equal(byName["products:read"].api_key_scope, true);
    assert.deepEqual(byName["search:execute"].roles, ["owner", "admin", "developer", "viewer"]);
    assert.deepEqual(byName["billing:write"].roles, ["owner", "admin"]);
    assert.equal(byName["connector:write:store"].area, "connector");
    assert.equal(byName["connector:write:store"].action, "write:store");
  });

  test("role rules: members manage only roles at or below their own (owners alone manage owners); a store keeps an owner", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const ownerId = (await call("GET", "/v1/users", owner)).json()[0].id as string;
    const admin = await addMember(t, owner, "admin");
    const dev = await addMember(t, owner, "developer");

    const promote = await call("PATCH", `/v1/team/members/${dev.id}`, admin.token, { role: "owner" });
    assert.equal(promote.statusCode, 403);
    assert.equal(promote.json().error, "forbidden");
    const createOwner = await call("POST", "/v1/users", admin.token, {
      email: newEmail("o"),
      password: "Some-password-1",
      full_name: "O",
      group_ids: ["grp_owner"],
    });
    assert.equal(createOwner.statusCode, 403);
    assert.equal((await call("PATCH", `/v1/team/members/${ownerId}`, admin.token, { role: "viewer" })).statusCode, 403);
    assert.equal((await call("DELETE", `/v1/team/members/${ownerId}`, admin.token)).statusCode, 403);
    const managers = await createGroup(t, owner, ["team:write"]);
    await setGroups(t, owner, dev.id, [managers]);
    const devOnAdmin = await call("PATCH", `/v1/team/members/${admin.id}`, dev.token, { role: "viewer" });
    assert.equal(devOnAdmin.statusCode, 403, "team:write does not let a developer manage an admin");
    assert.equal(devOnAdmin.json().error, "forbidden");
    const devMakesAdmin = await call("POST", "/v1/users", dev.token, {
      email: newEmail("a"),
      password: "Some-password-1",
      full_name: "A",
      group_ids: ["grp_admin"],
    });
    assert.equal(devMakesAdmin.statusCode, 403);
    const devMakesViewer = await call("POST", "/v1/users", dev.token, {
      email: newEmail("v"),
      password: "Some-password-1",
      full_name: "V",
    });
    assert.equal(devMakesViewer.statusCode, 201, "at or below its own rank is fine");
    const demoteDev = await call("PATCH", `/v1/team/members/${dev.id}`, admin.token, { role: "viewer" });
    assert.equal(demoteDev.statusCode, 200, "admins manage non-owners");
    assert.equal(demoteDev.json().role, "viewer");

    const lastOwner = await call("PATCH", `/v1/team/members/${ownerId}`, owner, { role: "admin" });
    assert.equal(lastOwner.statusCode, 409);
    assert.equal(lastOwner.json().error, "last_owner");
    assert.equal((await call("DELETE", `/v1/team/members/${ownerId}`, owner)).json().error, "last_owner");
    assert.equal((await call("PATCH", `/v1/team/members/${admin.id}`, owner, { role: "owner" })).statusCode, 200);
    const stepDown = await call("PATCH", `/v1/team/members/${ownerId}`, owner, { group_ids: ["grp_admin"] });
    assert.equal(stepDown.statusCode, 200, "with a second owner, the first may step down");
    assert.equal(stepDown.json().role, "admin");

    const removed = await call("DELETE", `/v1/team/members/${dev.id}`, admin.token);
    assert.equal(removed.statusCode, 200);
    assert.deepEqual(removed.json(), { removed: true, id: dev.id, revoked_api_keys: 0 });
    const afterRemoval = await call("GET", "/v1/users", dev.token);
    assert.equal(afterRemoval.statusCode, 403, "a removed member's token no longer reaches the store");
    assert.equal((await call("DELETE", `/v1/team/members/${dev.id}`, admin.token)).statusCode, 404);
    const contradict = await call("PATCH", `/v1/team/members/${admin.id}`, admin.token, { role: "viewer", group_ids: ["grp_admin"] });
    assert.equal(contradict.statusCode, 400);
    assert.equal((await call("PATCH", `/v1/team/members/${admin.id}`, admin.token, {})).statusCode, 400);
    assert.equal((await call("PATCH", `/v1/team/members/${admin.id}`, admin.token, { role: "boss" })).statusCode, 400);
  });

  test("removing a member revokes the API keys they created; the key list names each key's creator and last use", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const admin = await addMember(t, owner, "admin");
    const scopes = { products: ["read", "write"] };
    const adminKey = await call("POST", "/v1/security/api-keys", admin.token, { name: "admin's sync", scopes });
    assert.equal(adminKey.statusCode, 201, adminKey.body);
    assert.deepEqual(adminKey.json().created_by, { user_id: admin.id, email: admin.email, name: "A admin" });
    const ownerKey = await call("POST", "/v1/security/api-keys", owner, { name: "owner's sync", scopes });
    const machineKey = await call("POST", "/v1/security/api-keys", await machineToken(t.search, store), { name: "machine", scopes });
    assert.equal(machineKey.json().created_by, null, "a key created with the machine grant has no user behind it");
    const key = adminKey.json().key as string;
    assert.equal((await call("GET", "/v1/products", key)).statusCode, 200);

    const listed = (await call("GET", "/v1/security/api-keys", owner)).json() as {
      id: string;
      created_by: unknown;
      last_used_at: string | null;
    }[];
    const adminRow = listed.find((k) => k.id === adminKey.json().id);
    assert.deepEqual(adminRow?.created_by, { user_id: admin.id, email: admin.email, name: "A admin" });
    assert.ok(adminRow?.last_used_at, "last use is shown");

    const removed = await call("DELETE", `/v1/team/members/${admin.id}`, owner);
    assert.deepEqual(removed.json(), { removed: true, id: admin.id, revoked_api_keys: 1 });
    const after = await call("GET", "/v1/products", key);
    assert.equal(after.statusCode, 401, "the removed member's key no longer reads the store");
    assert.equal((await call("DELETE", "/v1/products/any", key)).statusCode, 401);
    assert.equal((await call("GET", "/v1/products", ownerKey.json().key as string)).statusCode, 200, "other keys keep working");
    assert.equal((await call("GET", "/v1/products", machineKey.json().key as string)).statusCode, 200);
    const status = (await call("GET", "/v1/security/api-keys", owner)).json() as { id: string; status: string }[];
    assert.equal(status.find((k) => k.id === adminKey.json().id)?.status, "revoked");
  });

  test("replaced /v1/users/* endpoints answer 410 naming the /v1/team/* replacement", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const cases: [Method, string, string][] = [
      ["POST", "/v1/users/invite", "/v1/team/invite"],
      ["POST", "/v1/users/invites", "/v1/team/invite"],
      ["GET", "/v1/users/invites", "/v1/team/invites"],
      ["POST", "/v1/users/invites/accept", "/v1/team/invites/accept"],
      ["DELETE", "/v1/users/invites/inv_123", "/v1/team/invites/inv_123"],
      ["PUT", "/v1/users/u-42/role", "/v1/team/members/u-42"],
      ["PATCH", "/v1/users/u-42", "/v1/team/members/u-42"],
      ["DELETE", "/v1/users/u-42", "/v1/team/members/u-42"],
      ["GET", "/v1/users/u-42", "/v1/team/members"],
      ["POST", "/v1/users/u-42/groups", "/v1/team/members/u-42"],
    ];
    for (const [method, url, replacement] of cases) {
      for (const token of [owner, undefined]) {
        const res = await call(method, url, token, method === "GET" || method === "DELETE" ? undefined : { role: "admin" });
        assert.equal(res.statusCode, 410, `${method} ${url}`);
        assert.equal(res.json().error, "gone");
        assert.equal(res.json().replacement, replacement, `${method} ${url}`);
        assert.equal(res.json().details.replacement, replacement);
        assert.match(res.json().message, /\/v1\/team\//);
      }
    }
    assert.equal((await call("GET", "/v1/users", owner)).statusCode, 200, "GET /v1/users keeps working");
  });

  test("a second store's token and ids never reach the first store's users and groups", async () => {
    const a = await registerStore(t);
    const b = await registerStore(t);
    const ownerA = await loginToken(t.search, a.email, a.password);
    const memberA = await addMember(t, ownerA, "developer");
    const groupA = await createGroup(t, ownerA, ["products:read"], "A-private-group");
    const machineB = await machineToken(t.search, b);
    const ownerB = await loginToken(t.search, b.email, b.password);

    for (const token of [machineB, ownerB]) {
      assert.equal((await call("PATCH", `/v1/team/members/${memberA.id}`, token, { role: "viewer" })).statusCode, 404);
      assert.equal((await call("DELETE", `/v1/team/members/${memberA.id}`, token)).statusCode, 404);
      assert.equal((await call("DELETE", `/v1/user-groups/${groupA}`, token)).statusCode, 404);
      const useGroup = await call("POST", "/v1/users", token, {
        email: newEmail("x"),
        password: "Some-password-1",
        full_name: "X",
        group_ids: [groupA],
      });
      assert.equal(useGroup.statusCode, 404, "another store's group id is unknown here");
      const list = await call("GET", "/v1/users", token);
      assert.ok(!list.body.includes(memberA.email) && !list.body.includes(a.email));
      const groups = await call("GET", "/v1/user-groups", token);
      assert.ok(!groups.body.includes("A-private-group"));
    }
    const viaHeader = await call("GET", "/v1/users", ownerB, undefined, { "X-Service-Active-Tenant": a.slug });
    assert.equal(viaHeader.statusCode, 403);
    const listA = (await call("GET", "/v1/users", ownerA)).json();
    assert.deepEqual(listA.find((u: { id: string }) => u.id === memberA.id).role, "developer", "A's member is untouched");
    const relogin = await loginToken(t.search, memberA.email, MEMBER_PASSWORD);
    const ownGroups = await call("GET", "/v1/user-groups", relogin);
    assert.equal(ownGroups.statusCode, 200, "A's member still works in A");
    assert.ok(ownGroups.body.includes("A-private-group"));
  });
});
