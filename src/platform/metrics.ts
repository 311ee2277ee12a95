// Prometheus metrics (prom-client), one registry per AppContext so that tests building many
// contexts never share or collide on metric names. Served as text at GET /metrics by both APIs
// and by the worker role's optional METRICS_PORT (src/context/ops.ts).
//
//   shopsight_http_requests_total{api,method,route,status}            counter
//   shopsight_http_request_duration_seconds{api,method,route,status}  histogram
//       `route` is the route pattern (/v1/products/:product_id), never the raw URL; requests
//       that matched no route are labelled "unmatched" so a URL scan cannot blow up cardinality.
//   shopsight_search_stage_duration_seconds{stage}   histogram: a search's server time by stage
//       (SEARCH_STAGES): http (request start to the handler: routing, body parsing, validation,
//       the onRequest hooks other than authentication), auth (the authentication hooks), embed
//       (the model: the only stage not the service's own), lexical (query understanding, the
//       query's analysis in the store's lexicon and the lexical lookup), filter (the filters'
//       candidates), vector (index lookups), fusion (merchandising rules, merging and ranking the
//       two retrievals, re-ranking with the product rows it reads), hydrate (the page's product
//       rows and their metadata; on PostgreSQL a text search reads a few lexical hits' rows beside
//       the embedding first, a second observation), history (the search-history row: building it
//       and its share of the batched write that follows the reply) and serialise (the reply's
//       JSON). http, auth and serialise are recorded by the JSON search routes and the widget's
//       searches. Stages are wall time and may overlap (embed runs beside lexical, vector beside
//       lexical); under concurrency a stage that awaits also holds other requests' work. Some run
//       twice in one search (a second vector lookup, multi-image, the early read of rows): sum ÷
//       searches is the mean per search.
//   shopsight_model_inference_seconds{kind}          histogram (image, text): one model batch
//   shopsight_model_inference_items_total{kind}      counter
//   shopsight_webhook_deliveries_total{outcome}      counter (delivered, retry, failed, cancelled)
//   shopsight_jobs{kind,status}                      gauge, collected on scrape (queued, running)
//   shopsight_jobs_oldest_age_seconds{kind}          gauge, collected on scrape (oldest queued job)
//   shopsight_webhook_outbox_pending                 gauge, collected on scrape
//   shopsight_model_parallel_workers                 gauge, collected on scrape (this process's
//       single-threaded model workers alive: each holds a copy of the model)
//   process_* / nodejs_*                             prom-client default metrics
//
// Gauges read from the database are shared state: every process reports the same figure, so
// dashboards should use max() over instances, not sum().
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** The stages of shopsight_search_stage_duration_seconds (see the header). */
export const SEARCH_STAGES = ["http", "auth", "embed", "lexical", "filter", "vector", "fusion", "hydrate", "history", "serialise"] as const;
export type SearchStage = (typeof SEARCH_STAGES)[number];
export type WebhookOutcome = "delivered" | "retry" | "failed" | "cancelled";

export interface QueueSnapshot {
  /** Rows per (kind, status) for unfinished jobs. */
  counts: { kind: string; status: string; count: number }[];
  /** Age in seconds of the oldest queued job per kind. */
  oldest: { kind: string; ageSeconds: number }[];
  /** Webhook deliveries still pending. */
  outboxPending: number;
}

export interface MetricsOptions {
  /** Read on every scrape (database-backed figures). A failure leaves the gauges at their last value. */
  queue?: () => Promise<QueueSnapshot>;
  /** Read on every scrape: this process's parallel model workers alive (absent: the gauge stays 0). */
  parallelModelWorkers?: () => number;
  /** Process-level default metrics (CPU, memory, event loop). Default true. */
  defaults?: boolean;
}

export interface Metrics {
  readonly registry: Registry;
  readonly contentType: string;
  /** Records one finished HTTP request. */
  observeRequest(api: string, method: string, route: string, status: number, seconds: number): void;
  /** Records how long one search stage took. */
  observeSearchStage(stage: SearchStage, seconds: number): void;
  /** Records one model batch. */
  observeInference(kind: "image" | "text", items: number, seconds: number): void;
  webhookDelivery(outcome: WebhookOutcome): void;
  /** The Prometheus text exposition. */
  render(): Promise<string>;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STAGE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.defaults !== false) collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: "shopsight_http_requests_total",
    help: "HTTP requests by API, method, route pattern and status code.",
    labelNames: ["api", "method", "route", "status"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "shopsight_http_request_duration_seconds",
    help: "HTTP request latency by API, method, route pattern and status code.",
    labelNames: ["api", "method", "route", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const stages = new Histogram({
    name: "shopsight_search_stage_duration_seconds",
    help: "Server time of a search by stage: http, auth, embed (model), lexical, filter, vector, fusion, hydrate, history, serialise.",
    labelNames: ["stage"] as const,
    buckets: STAGE_BUCKETS,
    registers: [registry],
  });
  const inference = new Histogram({
    name: "shopsight_model_inference_seconds",
    help: "Model inference time of one batch in the runtime worker, by input kind.",
    labelNames: ["kind"] as const,
    buckets: STAGE_BUCKETS,
    registers: [registry],
  });
  const inferenceItems = new Counter({
    name: "shopsight_model_inference_items_total",
    help: "Items embedded by the model, by input kind.",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const deliveries = new Counter({
    name: "shopsight_webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome: delivered (2xx), retry (scheduled again), failed (gave up), cancelled (410 Gone).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });

  const queue = options.queue;
  let snapshot: Promise<QueueSnapshot | undefined> | undefined;
  // One database read per scrape, shared by the three gauges' collect callbacks.
  const read = () => (snapshot ??= queue ? queue().catch(() => undefined) : Promise.resolve(undefined));
  new Gauge({
    name: "shopsight_jobs",
    help: "Unfinished background jobs by kind and status (queued, running), read from the database at scrape time.",
    labelNames: ["kind", "status"] as const,
    registers: [registry],
    async collect() {
      const s = await read();
      if (!s) return;
      this.reset();
      for (const c of s.counts) this.set({ kind: c.kind, status: c.status }, c.count);
    },
  });
  new Gauge({
    name: "shopsight_jobs_oldest_age_seconds",
    help: "Age of the oldest queued job by kind, read from the database at scrape time.",
    labelNames: ["kind"] as const,
    registers: [registry],
    async collect() {
      const s = await read();
      if (!s) return;
      this.reset();
      for (const o of s.oldest) this.set({ kind: o.kind }, o.ageSeconds);
    },
  });
  new Gauge({
    name: "shopsight_webhook_outbox_pending",
    help: "Webhook deliveries not yet delivered, failed or cancelled, read from the database at scrape time.",
    registers: [registry],
    async collect() {
      const s = await read();
      if (s) this.set(s.outboxPending);
    },
  });

  const parallelModelWorkers = options.parallelModelWorkers;
  new Gauge({
    name: "shopsight_model_parallel_workers",
    help: "Single-threaded model workers alive in this process (MODEL_PARALLEL_WORKERS; each holds a copy of the model).",
    registers: [registry],
    collect() {
      if (parallelModelWorkers) this.set(parallelModelWorkers());
    },
  });

  // One child per stage, so that an observation allocates no label object.
  const stageChildren = {} as Record<SearchStage, ReturnType<typeof stages.labels>>;
  for (const stage of SEARCH_STAGES) stageChildren[stage] = stages.labels({ stage });
  const observeSearchStage = (stage: SearchStage, seconds: number) => stageChildren[stage].observe(seconds);
  // The same per request: one pair of children per api, method, route pattern and status (a set as
  // bounded as the exported series), so that a request hashes no label object.
  const requestChildren = new Map<string, { count: ReturnType<typeof requests.labels>; duration: ReturnType<typeof duration.labels> }>();
  return {
    registry,
    contentType: registry.contentType,
    observeRequest(api, method, route, status, seconds) {
      const key = `${api} ${method} ${route} ${status}`;
      let child = requestChildren.get(key);
      if (!child) {
        const labels = { api, method, route, status: String(status) };
        child = { count: requests.labels(labels), duration: duration.labels(labels) };
        requestChildren.set(key, child);
      }
      child.count.inc();
      child.duration.observe(seconds);
    },
    observeSearchStage,
    observeInference(kind, items, seconds) {
      inference.observe({ kind }, seconds);
      inferenceItems.inc({ kind }, items);
    },
    webhookDelivery(outcome) {
      deliveries.inc({ outcome });
    },
    async render() {
      try {
        return await registry.metrics();
      } finally {
        snapshot = undefined;
      }
    },
  };
}
