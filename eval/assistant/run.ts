// The assistant evaluation: builds the real Search and Assistant apps in-process (SQLite in a
// temp folder by default, the tiny test model), sets the fixture store up through the public HTTP
// API (settings and policies through the admin routes, products through POST /v1/products with
// images served by a local image host), then asks every fixture question in its own anonymous
// session and thread through POST /v1/chat/messages and scores the answers.
//
// Figures:
// - outcome accuracy: share of questions whose `outcome` is the expected one;
// - citation precision / recall, micro-averaged over all questions: cited concept ids vs the
//   expected ones (a citation of an older concept_version than the newest counts as wrong);
// - prices in response_markdown: every amount (€4.95, 12,50 €, $5, 50 EUR …) is matched against
//   the answer's live_facts (price facts) and else against the cited policy passages; a price
//   matching neither is INVENTED. The run fails (exit code 1 from scripts/eval-assistant.ts)
//   when any price is invented. Amounts quoted from a cited policy (e.g. a shipping fee) are not
//   product prices and are reported separately.
import assert from "node:assert/strict";
import { createTestApp, type DialectName, type TestApp } from "../../test/support/harness.js";
import { bearer, freshIp, loginToken, machineToken, registerStore } from "../../test/support/factories.js";
import { solidImage, startImageHost } from "../../test/support/servers.js";
import { quantities } from "../../src/assistant/knowledge/text.js";
import type { AssistantVocabulary } from "../../src/assistant/settings/schemas.js";
import {
  policies as allPolicies,
  products as allProducts,
  questions as allQuestions,
  settings,
  type FixturePolicy,
  type FixtureProduct,
  type FixtureQuestion,
} from "./fixture.js";

interface Citation {
  handle: string;
  concept_id: string;
  concept_version: number;
  title: string;
}
interface MoneyValue {
  amount_minor: number;
  currency: string;
}
interface MessageResponse {
  outcome: string;
  answer: {
    response_markdown: string;
    citations: Citation[];
    products: unknown[];
    clarification_question: string | null;
    conflicts: unknown[];
    live_facts: Array<{ field: string; value: MoneyValue | Record<string, unknown> }>;
  };
}

export interface QuestionResult {
  id: string;
  text: string;
  expected: FixtureQuestion["expect"];
  outcome: string;
  cited: string[];
  staleCitations: number;
  products: number;
  ok: boolean;
  markdown: string;
  prices: { total: number; live: number; policy: number; invented: string[] };
}

export interface EvalReport {
  dialect: DialectName;
  questions: number;
  outcomeAccuracy: number;
  citationPrecision: number;
  citationRecall: number;
  staleCitations: number;
  productExpectationsMet: number;
  productExpectations: number;
  prices: { total: number; live: number; policy: number; invented: number };
  results: QuestionResult[];
}

export interface EvalOptions {
  /** Extra configuration of the app (e.g. an LLM: eval:assistant --llm). */
  env?: Record<string, string>;
  dialect?: DialectName;
  /** Question ids to ask (default: all). */
  only?: string[];
  log?: (line: string) => void;
}

const PRICE_RE = /(?:€|\$|£)\s?\d+(?:[.,]\d+)*|\d+(?:[.,]\d+)*\s?(?:€|EUR|USD|GBP|euros?)/gi;

/** Every price written in a markdown text, with its amount in minor units (2 decimals assumed: EUR fixture). */
export function pricesIn(markdown: string): Array<{ text: string; minor: number }> {
  return [...markdown.matchAll(PRICE_RE)].map((m) => {
    const q = quantities(m[0]).find((x) => x.kind === "money");
    return { text: m[0], minor: q && q.kind === "money" ? q.minor : NaN };
  });
}

export interface StoreSpec {
  /** The store's name at sign-up (the engine weighs it as context in questions); a generated one when absent. */
  name?: string;
  settings: { currency: string; support_contact: Record<string, string> | null };
  /** The store's own words, when it keeps any. */
  vocabulary?: AssistantVocabulary;
  policies: FixturePolicy[];
  products: FixtureProduct[];
}

/** Builds one store through the HTTP API: settings, policies (older versions first), products, a public key. */
export async function setUpStore(t: TestApp, spec: StoreSpec): Promise<{ publicKey: string }> {
  const store = await registerStore(t, spec.name !== undefined ? { name: spec.name } : {});
  const owner = await loginToken(t.search, store.email, store.password);
  const machine = await machineToken(t.search, store);

  // A contact field a store's pages did not name (written "" by a set's author) is left out, as its
  // owner would leave it; a store that names none has no contact (null).
  const named = Object.entries(spec.settings.support_contact ?? {}).filter(([, v]) => v.trim() !== "");
  const payload = { ...spec.settings, support_contact: named.length > 0 ? Object.fromEntries(named) : null };
  const s = await t.assistant.inject({ method: "PUT", url: "/v1/admin/settings", headers: bearer(owner), payload });
  assert.equal(s.statusCode, 200, s.body);
  if (spec.vocabulary) {
    const v = await t.assistant.inject({
      method: "PUT",
      url: "/v1/admin/settings/vocabulary",
      headers: bearer(owner),
      payload: spec.vocabulary,
    });
    assert.equal(v.statusCode, 200, v.body);
  }

  for (const p of spec.policies) {
    for (const body of [...(p.earlier ?? []), p.body_markdown]) {
      const res = await t.assistant.inject({
        method: "PUT",
        url: `/v1/admin/policies/${p.concept_id}`,
        headers: bearer(owner),
        payload: { handle: p.handle, title: p.title, body_markdown: body, locale: p.locale, published: p.published },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
  }

  const host = await startImageHost();
  try {
    for (const p of spec.products) {
      const url = host.put(`/${p.product_id}.png`, await solidImage(p.hex, { size: 64 }));
      const res = await t.search.inject({
        method: "POST",
        url: "/v1/products",
        headers: bearer(machine),
        payload: {
          product_id: p.product_id,
          image_url: url,
          metadata: {
            name: p.name,
            category: p.category,
            color_name: p.color_name,
            price: p.price,
            stock: p.stock,
            sku: p.sku,
            ...(p.size ? { size: p.size } : {}),
          },
        },
      });
      assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
    }
  } finally {
    await host.close();
  }

  const key = await t.assistant.inject({ method: "POST", url: "/v1/admin/public-keys", headers: bearer(owner), payload: { name: "eval" } });
  assert.equal(key.statusCode, 201, key.body);
  return { publicKey: (key.json() as { key: string }).key };
}

/** Builds the fixture store through the HTTP API (also used by bench/assistant.ts). */
export function setUp(t: TestApp): Promise<{ publicKey: string }> {
  return setUpStore(t, { settings, policies: allPolicies, products: allProducts });
}

async function ask(t: TestApp, publicKey: string, q: FixtureQuestion): Promise<MessageResponse> {
  const session = await t.assistant.inject({
    method: "POST",
    url: "/v1/sessions/anonymous",
    remoteAddress: freshIp(),
    payload: { store_public_key: publicKey, locale: q.locale },
  });
  assert.equal(session.statusCode, 200, session.body);
  const token = (session.json() as { session_token: string }).session_token;
  const thread = await t.assistant.inject({
    method: "POST",
    url: "/v1/chat/sessions",
    headers: bearer(token),
    payload: { locale: q.locale },
  });
  assert.equal(thread.statusCode, 201, thread.body);
  const threadId = (thread.json() as { thread_id: string }).thread_id;
  const res = await t.assistant.inject({
    method: "POST",
    url: "/v1/chat/messages",
    headers: bearer(token),
    payload: { thread_id: threadId, text: q.text },
  });
  assert.equal(res.statusCode, 200, `${q.id}: ${res.body}`);
  return res.json() as MessageResponse;
}

function score(q: FixtureQuestion, res: MessageResponse): QuestionResult {
  const newest = new Map(allPolicies.map((p) => [p.concept_id, 1 + (p.earlier?.length ?? 0)]));
  const cited = [...new Set(res.answer.citations.map((c) => c.concept_id))];
  const staleCitations = res.answer.citations.filter((c) => newest.get(c.concept_id) !== c.concept_version).length;
  const livePrices = res.answer.live_facts
    .filter((f) => f.field === "price" && typeof (f.value as MoneyValue).amount_minor === "number")
    .map((f) => (f.value as MoneyValue).amount_minor);
  const citedBodies = res.answer.citations.map((c) => allPolicies.find((p) => p.concept_id === c.concept_id)?.body_markdown ?? "");
  const policyAmounts = new Set(citedBodies.flatMap((b) => quantities(b).flatMap((x) => (x.kind === "money" ? [x.minor] : []))));
  const prices = { total: 0, live: 0, policy: 0, invented: [] as string[] };
  for (const p of pricesIn(res.answer.response_markdown)) {
    prices.total++;
    if (livePrices.includes(p.minor)) prices.live++;
    else if (policyAmounts.has(p.minor)) prices.policy++;
    else prices.invented.push(p.text);
  }
  const expectedCites = [...q.expect.cites].sort();
  const outcomeOk = res.outcome === q.expect.outcome;
  const citesOk = JSON.stringify([...cited].sort()) === JSON.stringify(expectedCites) && staleCitations === 0;
  const productsOk = q.expect.products === undefined || res.answer.products.length > 0 === q.expect.products;
  return {
    id: q.id,
    text: q.text,
    expected: q.expect,
    outcome: res.outcome,
    cited,
    staleCitations,
    products: res.answer.products.length,
    ok: outcomeOk && citesOk && productsOk,
    markdown: res.answer.response_markdown,
    prices,
  };
}

export async function runEval(options: EvalOptions = {}): Promise<EvalReport> {
  const dialect = options.dialect ?? "sqlite";
  const log = options.log ?? (() => {});
  const questions = options.only ? allQuestions.filter((q) => options.only!.includes(q.id)) : allQuestions;
  const t = await createTestApp({ dialect, model: true, ...(options.env ? { env: options.env } : {}) });
  try {
    const { publicKey } = await setUp(t);
    const results: QuestionResult[] = [];
    for (const q of questions) {
      const r = score(q, await ask(t, publicKey, q));
      results.push(r);
      log(
        `${r.ok ? "ok  " : "MISS"} ${r.id} ${JSON.stringify(r.text)} → ${r.outcome}${r.cited.length ? ` [${r.cited.join(", ")}]` : ""}${r.products ? ` (${r.products} products)` : ""}` +
          (r.ok ? "" : ` — expected ${r.expected.outcome}${r.expected.cites.length ? ` [${r.expected.cites.join(", ")}]` : ""}`),
      );
    }
    let tp = 0;
    let predicted = 0;
    let expected = 0;
    for (const r of results) {
      const exp = new Set(r.expected.cites);
      predicted += r.cited.length;
      expected += exp.size;
      tp += r.cited.filter((c) => exp.has(c)).length;
    }
    tp -= results.reduce((s, r) => s + r.staleCitations, 0);
    const productQs = results.filter((r) => r.expected.products !== undefined);
    return {
      dialect,
      questions: results.length,
      outcomeAccuracy: results.filter((r) => r.outcome === r.expected.outcome).length / Math.max(1, results.length),
      citationPrecision: predicted === 0 ? 1 : Math.max(0, tp) / predicted,
      citationRecall: expected === 0 ? 1 : Math.max(0, tp) / expected,
      staleCitations: results.reduce((s, r) => s + r.staleCitations, 0),
      productExpectationsMet: productQs.filter((r) => r.products > 0 === r.expected.products).length,
      productExpectations: productQs.length,
      prices: {
        total: results.reduce((s, r) => s + r.prices.total, 0),
        live: results.reduce((s, r) => s + r.prices.live, 0),
        policy: results.reduce((s, r) => s + r.prices.policy, 0),
        invented: results.reduce((s, r) => s + r.prices.invented.length, 0),
      },
      results,
    };
  } finally {
    await t.close();
  }
}

export function formatReport(r: EvalReport): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  return [
    `Assistant evaluation (${r.dialect}, ${r.questions} questions)`,
    `  outcome accuracy:     ${pct(r.outcomeAccuracy)}`,
    `  citation precision:   ${pct(r.citationPrecision)}`,
    `  citation recall:      ${pct(r.citationRecall)}`,
    `  stale citations:      ${r.staleCitations}`,
    `  product requests with cards as expected: ${r.productExpectationsMet}/${r.productExpectations}`,
    `  prices in response_markdown: ${r.prices.total} (matching a live fact: ${r.prices.live}; quoted from a cited policy: ${r.prices.policy})`,
    `  prices matching no live fact and no cited policy (invented): ${r.prices.invented} (must be 0)`,
  ].join("\n");
}
