import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../test/support/harness.js";
import { bearer, machineToken, registerStore } from "../../test/support/factories.js";
import { solidImage } from "../../test/support/servers.js";
import { createMetrics, SEARCH_STAGES } from "../platform/metrics.js";
import { historyWriter } from "../search/query/history-writer.js";

/** The value of a sample line `name{labels} value` (0 when absent). */
function sample(text: string, name: string, labels: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(" ").pop()) : 0;
}

test("each metrics registry is its own: two contexts never share counts", async () => {
  const one = createMetrics({ defaults: false });
  const two = createMetrics({ defaults: false });
  one.observeRequest("search", "GET", "/v1/products", 200, 0.01);
  one.webhookDelivery("delivered");
  assert.equal(
    sample(await one.render(), "shopsight_http_requests_total", 'api="search",method="GET",route="/v1/products",status="200"'),
    1,
  );
  // A second request of the same series adds to it (each series' children are kept after the first).
  one.observeRequest("search", "GET", "/v1/products", 200, 0.03);
  one.observeRequest("search", "GET", "/v1/products", 404, 0.02);
  const text = await one.render();
  assert.equal(sample(text, "shopsight_http_requests_total", 'api="search",method="GET",route="/v1/products",status="200"'), 2);
  assert.equal(sample(text, "shopsight_http_requests_total", 'api="search",method="GET",route="/v1/products",status="404"'), 1);
  assert.ok(
    Math.abs(
      sample(text, "shopsight_http_request_duration_seconds_sum", 'api="search",method="GET",route="/v1/products",status="200"') - 0.04,
    ) < 1e-9,
  );
  assert.equal(
    sample(await two.render(), "shopsight_http_requests_total", 'api="search",method="GET",route="/v1/products",status="200"'),
    0,
  );
  assert.equal(sample(await one.render(), "shopsight_webhook_deliveries_total", 'outcome="delivered"'), 1);
});

test("a failing queue reader leaves the scrape working", async () => {
  const m = createMetrics({ defaults: false, queue: () => Promise.reject(new Error("database down")) });
  const text = await m.render();
  assert.match(text, /# TYPE shopsight_jobs gauge/);
});

describeEachDialect("ops: /health/live, /health/ready and /metrics", (dialect) => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({ dialect, model: true });
  });
  after(() => t.close());

  test("/health/live answers 200 on both APIs, /health keeps its shape", async () => {
    for (const app of [t.search, t.assistant]) {
      const live = await app.inject({ method: "GET", url: "/health/live" });
      assert.equal(live.statusCode, 200);
      assert.deepEqual(live.json(), { status: "ok" });
      assert.deepEqual((await app.inject({ method: "GET", url: "/health" })).json(), { status: "ok" });
    }
  });

  test("/health/ready reports each check and is 200 when the database and the model are usable", async () => {
    for (const app of [t.search, t.assistant]) {
      const ready = await app.inject({ method: "GET", url: "/health/ready" });
      assert.equal(ready.statusCode, 200, ready.body);
      assert.deepEqual(ready.json(), {
        status: "ok",
        checks: { service: "ok", database: "ok", redis: "not_configured", model: "ok" },
        failed: [],
        model: { id: "shopsight-tiny-test-model", is_test_model: true },
      });
    }
  });

  test("/metrics labels requests by route pattern, method and status, never by raw URL", async () => {
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    const before = (await t.search.inject({ method: "GET", url: "/metrics" })).body;
    await t.search.inject({ method: "GET", url: "/v1/products/secret-looking-id-123", headers: bearer(token) });
    await t.search.inject({ method: "GET", url: "/v1/products/another-id-456", headers: bearer(token) });
    await t.search.inject({ method: "GET", url: "/no/such/route/xyz?token=abc" });
    await t.assistant.inject({ method: "GET", url: "/health/live" });
    const res = await t.search.inject({ method: "GET", url: "/metrics" });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
    const body = res.body;
    const delta = (name: string, labels: string) => sample(body, name, labels) - sample(before, name, labels);
    assert.equal(delta("shopsight_http_requests_total", 'api="search",method="GET",route="/v1/products/:product_id",status="404"'), 2);
    assert.equal(delta("shopsight_http_requests_total", 'api="search",method="GET",route="unmatched",status="404"'), 1);
    assert.equal(delta("shopsight_http_requests_total", 'api="assistant",method="GET",route="/health/live",status="200"'), 1);
    assert.equal(
      delta("shopsight_http_request_duration_seconds_count", 'api="search",method="GET",route="/v1/products/:product_id",status="404"'),
      2,
    );
    assert.equal(delta("shopsight_http_requests_total", 'api="search",method="GET",route="/metrics",status="200"'), 1);
    for (const raw of ["secret-looking-id-123", "another-id-456", "/no/such/route", "token=abc"]) assert.ok(!body.includes(raw), raw);
    // The assistant API serves the same process registry.
    const fromAssistant = await t.assistant.inject({ method: "GET", url: "/metrics" });
    assert.equal(fromAssistant.statusCode, 200);
    assert.match(fromAssistant.body, /shopsight_http_requests_total\{api="search"/);
  });

  test("/metrics reports search stage timings and model inference time", async () => {
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    const image = await t.ctx.images.fromBytes(await solidImage("#d01010"));
    const [vector] = await t.ctx.images.embed([image.decoded]);
    await t.services.products.write(store.clientId, {
      productId: "red",
      imageUrl: "http://127.0.0.1/red.png",
      metadata: { category: "dresses" },
      embedded: { image, vector: vector! },
    });
    const before = await t.ctx.metrics.render();
    const count = (text: string, stage: string) => sample(text, "shopsight_search_stage_duration_seconds_count", `stage="${stage}"`);
    const text = await t.search.inject({
      method: "POST",
      url: "/v1/search/text",
      headers: bearer(token),
      payload: { query: "red dress", limit: 3 },
    });
    assert.equal(text.statusCode, 200, text.body);
    const filtered = await t.search.inject({
      method: "POST",
      url: "/v1/search/text",
      headers: bearer(token),
      payload: { query: "red", category: "dresses" },
    });
    assert.equal(filtered.statusCode, 200, filtered.body);
    await historyWriter(t.ctx).flush(); // the history stage is recorded once its row is written, after the reply
    const after = (await t.search.inject({ method: "GET", url: "/metrics" })).body;
    assert.equal(count(after, "embed") - count(before, "embed"), 2);
    assert.equal(count(after, "vector") - count(before, "vector"), 2);
    assert.equal(count(after, "filter") - count(before, "filter"), 1, "only the filtered search ran the pre-filter");
    // Every other stage once per text search: http, auth, lexical, fusion, hydrate, history,
    // serialise. On PostgreSQL a text search with lexical hits reads their rows beside the
    // embedding first (SearchService.hitRowsOf), another hydrate: the first search's "dress"
    // finds the product (its category), the second's "red" nothing.
    for (const stage of SEARCH_STAGES.filter((s) => !["embed", "vector", "filter"].includes(s))) {
      const times = stage === "hydrate" && dialect === "postgres" ? 3 : 2;
      assert.equal(count(after, stage) - count(before, stage), times, `stage ${stage}`);
    }
    const seconds = (text: string, stage: string) => sample(text, "shopsight_search_stage_duration_seconds_sum", `stage="${stage}"`);
    assert.ok(seconds(after, "http") > seconds(before, "http"), "the http stage took time");
    const inferred = (s: string) => sample(s, "shopsight_model_inference_items_total", 'kind="text"');
    assert.ok(inferred(after) - inferred(before) >= 2, "both query texts went through the model");
    assert.ok(sample(after, "shopsight_model_inference_seconds_count", 'kind="image"') >= 1, "the product image was embedded");
  });

  test("a closed model makes /health/ready answer 503 naming the model check", async () => {
    const own = await createTestApp({ dialect, model: true });
    try {
      await own.ctx.model!.close();
      const res = await own.search.inject({ method: "GET", url: "/health/ready" });
      assert.equal(res.statusCode, 503);
      assert.deepEqual(res.json().failed, ["model"]);
      assert.equal(res.json().checks.database, "ok");
    } finally {
      await own.close();
    }
  });
});

describeEachDialect("ops: readiness failures and the metrics token", (dialect) => {
  let t: TestApp;

  before(async () => {
    // Redis on a port nothing listens on; a metrics token; no model on purpose.
    t = await createTestApp({ dialect, env: { REDIS_URL: "redis://127.0.0.1:1", METRICS_TOKEN: "metrics-token-0123456789" } });
    t.ctx.redis?.on("error", () => undefined);
  });
  after(() => t.close());

  test("/health/ready answers 503 with the failed Redis check, while /health/live stays 200", async () => {
    const res = await t.search.inject({ method: "GET", url: "/health/ready" });
    assert.equal(res.statusCode, 503, res.body);
    assert.deepEqual(res.json(), {
      status: "unavailable",
      checks: { service: "ok", database: "ok", redis: "failed", model: "disabled" },
      failed: ["redis"],
      model: { id: t.ctx.config.model.id, is_test_model: false },
    });
    assert.equal((await t.search.inject({ method: "GET", url: "/health/live" })).statusCode, 200);
  });

  test("/metrics with METRICS_TOKEN set refuses a missing or wrong bearer (401) and serves the right one", async () => {
    const none = await t.search.inject({ method: "GET", url: "/metrics" });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error, "unauthorized");
    const wrong = await t.search.inject({ method: "GET", url: "/metrics", headers: bearer("metrics-token-wrong-000000") });
    assert.equal(wrong.statusCode, 401);
    const assistantWrong = await t.assistant.inject({ method: "GET", url: "/metrics", headers: bearer("x") });
    assert.equal(assistantWrong.statusCode, 401);
    assert.equal(assistantWrong.json().code, "UNAUTHENTICATED");
    const ok = await t.search.inject({ method: "GET", url: "/metrics", headers: bearer("metrics-token-0123456789") });
    assert.equal(ok.statusCode, 200);
    assert.match(ok.body, /shopsight_http_requests_total/);
  });
});

test("/metrics counts the parallel model workers alive in this process", async () => {
  const t = await createTestApp({ model: true, env: { MODEL_PARALLEL_WORKERS: "2" } });
  try {
    const gauge = async () => {
      const body = (await t.search.inject({ method: "GET", url: "/metrics" })).body;
      const line = body.split("\n").find((l) => l.startsWith("shopsight_model_parallel_workers "));
      assert.ok(line, "the gauge is exported");
      return Number(line.split(" ").pop());
    };
    assert.equal(await gauge(), 0, "none before images pile up");
    const model = t.ctx.model as unknown as { parallelReady(): Promise<boolean> };
    assert.ok(await model.parallelReady());
    assert.equal(await gauge(), 2);
  } finally {
    await t.close();
  }
});
