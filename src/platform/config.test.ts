import path from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "./config.js";

test("defaults: ports 8080/8081, SQLite under ./data", () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.chatPort, 8081);
  assert.equal(c.database.kind, "sqlite");
  assert.match(c.database.kind === "sqlite" ? c.database.file : "", /data\/shopsight\.db$/);
  assert.equal(c.tokenTtlSeconds, 3600);
  assert.equal(c.outbound.allowPrivate, false);
  assert.equal(c.publicBaseUrl, "http://localhost:8080");
});

test("DATABASE_URL selects PostgreSQL", () => {
  const c = loadConfig({ DATABASE_URL: "postgres://u:p@db:5432/x" });
  assert.deepEqual(c.database, { kind: "postgres", url: "postgres://u:p@db:5432/x", readUrls: [], readMaxLagMs: 5_000 });
  assert.deepEqual(
    c.imageStore,
    { kind: "database", path: path.resolve("./data/images") },
    "PostgreSQL keeps images in the database unless IMAGE_STORE says otherwise",
  );
});

test("DATABASE_READ_URLS lists replicas of DATABASE_URL; each must be a postgres URL", () => {
  const c = loadConfig({
    DATABASE_URL: "postgres://u:p@db:5432/x",
    DATABASE_READ_URLS: "postgres://u:p@r1/x, postgresql://u:p@r2/x",
    DATABASE_READ_MAX_LAG_MS: "800",
  });
  assert.deepEqual(c.database, {
    kind: "postgres",
    url: "postgres://u:p@db:5432/x",
    readUrls: ["postgres://u:p@r1/x", "postgresql://u:p@r2/x"],
    readMaxLagMs: 800,
  });
  assert.throws(() => loadConfig({ DATABASE_URL: "postgres://u:p@db/x", DATABASE_READ_URLS: "mysql://r/x" }), /DATABASE_READ_URLS/);
  assert.throws(() => loadConfig({ DATABASE_READ_URLS: "postgres://r/x" }), /DATABASE_READ_URLS: needs DATABASE_URL/);
});

test("the embedded default keeps images as files under DATA_DIR/images; IMAGE_STORE and IMAGE_STORE_PATH choose", () => {
  assert.deepEqual(loadConfig({ DATA_DIR: "/srv/shop" }).imageStore, { kind: "filesystem", path: "/srv/shop/images" });
  assert.deepEqual(
    loadConfig({ DATABASE_URL: "postgres://u:p@db/x", IMAGE_STORE: "filesystem", IMAGE_STORE_PATH: "/mnt/shared/images" }).imageStore,
    {
      kind: "filesystem",
      path: "/mnt/shared/images",
    },
  );
  assert.throws(() => loadConfig({ IMAGE_STORE: "s3" }), /IMAGE_STORE/);
});

test("a bad variable is named in the error", () => {
  assert.throws(
    () => loadConfig({ PORT: "eighty" }),
    (e: unknown) => e instanceof ConfigError && /PORT/.test(e.message),
  );
  assert.throws(() => loadConfig({ DATABASE_URL: "mysql://x" }), /DATABASE_URL/);
  assert.throws(() => loadConfig({ OUTBOUND_ALLOW_PRIVATE: "maybe" }), /OUTBOUND_ALLOW_PRIVATE/);
  assert.throws(() => loadConfig({ JWT_SIGNING_KEY: "short" }), /JWT_SIGNING_KEY/);
});

test("TRUST_PROXY accepts true, a hop count or a list", () => {
  assert.equal(loadConfig({ TRUST_PROXY: "true" }).trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: "2" }).trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: "10.0.0.1, 10.0.0.0/8" }).trustProxy, ["10.0.0.1", "10.0.0.0/8"]);
  assert.equal(loadConfig({}).trustProxy, false);
});

test("LLM: off by default; with LLM_BASE_URL the agent mode, LLM_MODE and LLM_MAX_TOOL_ROUNDS validated", () => {
  assert.equal(loadConfig({}).llm, null);
  assert.deepEqual(loadConfig({ LLM_BASE_URL: "http://127.0.0.1:11434/v1/", LLM_MODEL: "qwen2.5:7b" }).llm, {
    baseUrl: "http://127.0.0.1:11434/v1",
    apiKey: undefined,
    model: "qwen2.5:7b",
    timeoutMs: 8000,
    mode: "agent",
    maxToolRounds: 3,
  });
  const phrase = loadConfig({ LLM_BASE_URL: "https://llm.example/v1", LLM_MODEL: "m", LLM_MODE: "phrase", LLM_MAX_TOOL_ROUNDS: "5" }).llm;
  assert.equal(phrase?.mode, "phrase");
  assert.equal(phrase?.maxToolRounds, 5);
  assert.throws(() => loadConfig({ LLM_BASE_URL: "https://llm.example/v1" }), /LLM_MODEL: is required/);
  assert.throws(() => loadConfig({ LLM_BASE_URL: "https://llm.example/v1", LLM_MODEL: "m", LLM_MODE: "chat" }), /LLM_MODE/);
  assert.throws(
    () => loadConfig({ LLM_BASE_URL: "https://llm.example/v1", LLM_MODEL: "m", LLM_MAX_TOOL_ROUNDS: "20" }),
    /LLM_MAX_TOOL_ROUNDS/,
  );
});

test("VECTOR_EF_SEARCH: unset leaves the engine default; 10–1000 accepted, anything else named in the error", () => {
  assert.equal(loadConfig({}).vectorEfSearch, undefined);
  assert.equal(loadConfig({ VECTOR_EF_SEARCH: "256" }).vectorEfSearch, 256);
  for (const bad of ["0", "9", "1001", "deep"]) assert.throws(() => loadConfig({ VECTOR_EF_SEARCH: bad }), /VECTOR_EF_SEARCH/);
});

test("ASSISTANT_ABSTENTION: off by default, on when asked, anything else refused with the accepted values", () => {
  assert.equal(loadConfig({}).assistantAbstention, false);
  assert.equal(loadConfig({ ASSISTANT_ABSTENTION: "on" }).assistantAbstention, true);
  assert.throws(() => loadConfig({ ASSISTANT_ABSTENTION: "maybe" }), /ASSISTANT_ABSTENTION/);
});
