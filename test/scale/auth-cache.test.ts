// The authentication cache across processes, as an operator runs them: two `cli serve --role api`
// processes over one PostgreSQL database and one Redis. Process B answers a credential from its
// cache (its /metrics count hits); a change made through process A — an API key revoked, a token
// replaced by /oauth/refresh, an IP allow-list entry added, a client secret rotated — or by a third
// process (`cli plan set`) reaches B over Redis, and B's next requests follow it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { freePort, grantOverHttp, registerOverHttp, runEntry, waitFor200, type Started } from "../support/process.js";
import { testEnv } from "../support/env.js";
import { withPg } from "../support/database.js";
import { describeWithPostgresAndRedis } from "../support/peers.js";

/** How long a change may take to reach the other process (a Redis publication: milliseconds). */
const PROPAGATION_MS = 5_000;

describeWithPostgresAndRedis("scale: the authentication cache of two API processes over PostgreSQL and Redis", () => {
  const dbName = `authcache_${randomBytes(5).toString("hex")}`;
  let dataDir: string;
  let env: Record<string, string>;
  const procs: Record<"a" | "b", Started> = {} as never;
  const ports = { a: 0, aChat: 0, b: 0, bChat: 0 };
  const base = (p: "a" | "b") => `http://127.0.0.1:${ports[p]}`;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-authcache-"));
    await withPg((c) => c.query(`CREATE DATABASE "${dbName}"`));
    const url = new URL(testEnv.databaseUrl!);
    url.pathname = `/${dbName}`;
    for (const k of Object.keys(ports) as (keyof typeof ports)[]) ports[k] = await freePort();
    env = {
      DATA_DIR: dataDir,
      DATABASE_URL: url.toString(),
      REDIS_URL: testEnv.redisUrl!,
      JWT_SIGNING_KEY: randomBytes(32).toString("hex"),
      CONNECTOR_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
    };
    procs.a = runEntry("cli.ts", ["serve", "--role", "api"], { ...env, PORT: String(ports.a), CHAT_PORT: String(ports.aChat) });
    await waitFor200(`${base("a")}/health/ready`, 60_000, procs.a);
    procs.b = runEntry("cli.ts", ["serve", "--role", "api"], { ...env, PORT: String(ports.b), CHAT_PORT: String(ports.bChat) });
    await waitFor200(`${base("b")}/health/ready`, 60_000, procs.b);
  });

  after(async () => {
    for (const p of Object.values(procs)) if (p.child.exitCode === null) p.child.kill("SIGTERM");
    await Promise.all(Object.values(procs).map((p) => p.exited));
    await withPg((c) => c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (p: "a" | "b", method: string, url: string, token?: string, body?: unknown) => {
    const res = await fetch(`${base(p)}${url}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json().catch(() => null)) as any };
  };
  /** Process B's authentication-cache lookups by result, from its /metrics. */
  const lookupsOfB = async (): Promise<Record<string, number>> => {
    const text = await (await fetch(`${base("b")}/metrics`)).text();
    return Object.fromEntries(
      [...text.matchAll(/^shopsight_auth_cache_lookups_total\{result="(\w+)"\} (\S+)$/gm)].map((m) => [m[1]!, Number(m[2])]),
    );
  };
  /** B's status for `token` on GET /v1/products, polled until it is `status` or PROPAGATION_MS passes. */
  const bSees = async (token: string, status: number): Promise<number> => {
    const deadline = Date.now() + PROPAGATION_MS;
    let seen = 0;
    do {
      seen = (await call("b", "GET", "/v1/products", token)).status;
      if (seen === status) return seen;
      await new Promise((r) => setTimeout(r, 50));
    } while (Date.now() < deadline);
    return seen;
  };
  /** A store with its owner's login and a machine token, both used once on B (so B caches them). */
  const store = async () => {
    const registered = await registerOverHttp(base("a"), dataDir);
    const token = await grantOverHttp(base("a"), registered);
    const login = await call("a", "POST", "/oauth/login", undefined, { email: registered.email, password: registered.password });
    assert.equal(login.status, 200, JSON.stringify(login.json));
    assert.equal((await call("b", "GET", "/v1/products", token)).status, 200);
    return { ...registered, token, owner: login.json.access_token as string };
  };

  test("B answers a warm credential from its cache: no misses on repeated requests", async () => {
    const s = await store();
    const before = await lookupsOfB();
    for (let i = 0; i < 5; i++) assert.equal((await call("b", "GET", "/v1/products", s.token)).status, 200);
    const after = await lookupsOfB();
    assert.equal((after.miss ?? 0) - (before.miss ?? 0), 0);
    assert.equal((after.hit ?? 0) - (before.hit ?? 0), 15, "three lookups a request, all hits");
  });

  test("an API key revoked through A is refused by B", async () => {
    const s = await store();
    const created = await call("a", "POST", "/v1/security/api-keys", s.owner, { name: "sync", scopes: { products: ["read"] } });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.equal(await bSees(created.json.key, 200), 200);
    assert.equal(await bSees(created.json.key, 200), 200);
    assert.equal((await call("a", "DELETE", `/v1/security/api-keys/${created.json.id}`, s.owner)).status, 200);
    assert.equal(await bSees(created.json.key, 401), 401);
  });

  test("a token replaced through A's /oauth/refresh is refused by B", async () => {
    const s = await store();
    const refreshed = await call("a", "POST", "/oauth/refresh", s.token);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
    assert.equal(await bSees(s.token, 401), 401);
    assert.equal(await bSees(refreshed.json.access_token, 200), 200);
  });

  test("an IP allow-list entry added through A applies on B", async () => {
    const s = await store();
    const added = await call("a", "POST", "/v1/security/ip-whitelist", s.owner, { ip_address: "203.0.113.0/24", description: "office" });
    assert.equal(added.status, 201, JSON.stringify(added.json));
    assert.equal(await bSees(s.token, 403), 403);
    assert.equal((await call("b", "GET", "/v1/products", s.token)).json.error, "ip_not_allowed");
  });

  test("a client secret rotated through A revokes B's warm machine token", async () => {
    const s = await store();
    await new Promise((r) => setTimeout(r, 1_100)); // tokens are compared to the rotation by whole seconds
    const rotated = await call("a", "POST", "/v1/security/client-secret/rotate", s.owner);
    assert.equal(rotated.status, 200, JSON.stringify(rotated.json));
    assert.equal(await bSees(s.token, 401), 401);
  });

  test("a plan changed by a third process (cli plan set) applies on B", async () => {
    const s = await store(); // a new store is on the free plan: 10 requests a minute
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await call("b", "GET", "/v1/products", s.token)).status);
    assert.equal(statuses.at(-1), 429, `the free plan's budget is spent: ${statuses.join(" ")}`);
    const upgraded = runEntry("cli.ts", ["plan", "set", "--plan", "enterprise", "--store", s.id], env);
    assert.equal(await upgraded.exited, 0, upgraded.output());
    assert.equal(await bSees(s.token, 200), 200);
  });
});
