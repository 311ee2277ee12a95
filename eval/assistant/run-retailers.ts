// The retailer evaluation (eval/assistant/retailers/): builds every retailer store through the
// HTTP API (in-process apps, SQLite by default, tiny test model), asks each question in its own
// anonymous session and thread (earlier turns of a follow-up first, in the same thread) and
// scores the reply. Figures per split (dev / test) and per category:
//   outcome     — share whose `outcome` is (one of) the expected;
//   strict      — outcome + required citations present and nothing cited outside required ∪ alsoOk
//                 + every key fact in response_markdown + no forbidden string + the conflict
//                 expectation + expected product cards + cart quantity;
//   cite P / R  — micro-averaged: P = cited ∩ (required ∪ alsoOk) / cited, R = required ∩ cited / required;
//   conflicts   — questions whose expected conflict was reported / questions expecting one;
//   false conflicts — questions expecting no conflict whose reply said the policies disagree;
//   avoidable handoffs — handoff where an answer (or another non-handoff outcome) was expected;
//   invented    — numbers in response_markdown found nowhere in: the question (and earlier turns),
//                 the store's cited policy bodies, the answer's live facts, the titles of its
//                 product cards, the store's support contact (and a cart preview's default
//                 quantity 1 when the shopper named no number). Money amounts among them are the
//                 invented prices;
//   latency     — p50 / p95 of the scored turn (in-process inject, ms);
//   answer length — words of the policy answers (answers citing a policy): median, mean and p90, so that a
//                 figure won by quoting more sentences shows its cost in reading.
import assert from "node:assert/strict";
import { createTestApp, type DialectName, type TestApp } from "../../test/support/harness.js";
import { bearer, freshIp } from "../../test/support/factories.js";
import { numbersIn, quantities } from "../../src/assistant/knowledge/text.js";
import type { AnswerConfidence } from "../../src/assistant/knowledge/types.js";
import { probabilityRight } from "../../src/assistant/knowledge/abstain.js";
import { setUpStore } from "./run.js";
import {
  questions as allQuestions,
  splitOf,
  stores as fixtureStores,
  type Category,
  type RetailerStore,
  type RetailQuestion,
} from "./retailers.js";

interface Card {
  product_id: string;
  title: string;
}
interface Reply {
  outcome: string;
  events?: Array<{ event: string; data: Record<string, unknown> }>;
  answer: {
    answer_status: string;
    response_markdown: string;
    citations: Array<{ concept_id: string; concept_version: number }>;
    products: Card[];
    conflicts: unknown[];
    live_facts: Array<{ field: string; value: unknown }>;
    next_actions: Array<{ type: string; arguments?: Record<string, unknown> }>;
  };
}

export interface RetailResult {
  id: string;
  store: string;
  category: Category;
  /** dev / test of eval/assistant/retailers/, or "blind": a helper-written set (--set). */
  split: "dev" | "test" | "blind";
  text: string;
  outcome: string;
  outcomeOk: boolean;
  strict: boolean;
  why: string[];
  cited: string[];
  citeCorrect: number;
  requiredHit: number;
  required: number;
  conflictExpected: boolean;
  conflictReported: boolean;
  avoidableHandoff: boolean;
  /** Answered although a handoff or other outcome was expected, or without a key fact. */
  wrong: boolean;
  /** The engine's confidence in an extractive policy answer (the retrieval.completed event), when it answered one. */
  confidence?: AnswerConfidence;
  /** LLM agent mode only (--llm): whether the model's reply was used, else why it was refused (the agent.completed event). */
  agent?: { accepted: boolean; reason: string | null };
  /** The router's trained product-or-policy decision (intent.classified's route.model), when it made one. */
  routeModel?: { inputs: number[]; policy: number };
  /** The question asks for products (category product, or product cards expected): the route model's label. */
  productExpected: boolean;
  invented: string[];
  inventedPrices: string[];
  ms: number;
  markdown: string;
}

const norm = (s: string) => s.normalize("NFC").toLowerCase().replace(/[’‘]/g, "'").replace(/[–—]/g, "-").replace(/\\/g, "");

async function newThread(t: TestApp, publicKey: string, locale: string): Promise<{ token: string; threadId: string }> {
  const session = await t.assistant.inject({
    method: "POST",
    url: "/v1/sessions/anonymous",
    remoteAddress: freshIp(),
    payload: { store_public_key: publicKey, locale },
  });
  assert.equal(session.statusCode, 200, session.body);
  const token = (session.json() as { session_token: string }).session_token;
  const thread = await t.assistant.inject({ method: "POST", url: "/v1/chat/sessions", headers: bearer(token), payload: { locale } });
  assert.equal(thread.statusCode, 201, thread.body);
  return { token, threadId: (thread.json() as { thread_id: string }).thread_id };
}

async function say(t: TestApp, token: string, threadId: string, text: string): Promise<Reply> {
  const res = await t.assistant.inject({
    method: "POST",
    url: "/v1/chat/messages",
    headers: bearer(token),
    payload: { thread_id: threadId, text },
  });
  assert.equal(res.statusCode, 200, `${text}: ${res.body}`);
  return res.json() as Reply;
}

function score(q: RetailQuestion, store: RetailerStore, split: RetailResult["split"], reply: Reply, ms: number): RetailResult {
  const e = q.expect;
  const why: string[] = [];
  const outcomes = Array.isArray(e.outcome) ? e.outcome : [e.outcome];
  const outcomeOk = outcomes.includes(reply.outcome as never);
  if (!outcomeOk) why.push(`outcome ${reply.outcome}`);
  const cited = [...new Set(reply.answer.citations.map((c) => c.concept_id))];
  const allowed = new Set([...e.cites, ...(e.alsoOk ?? [])]);
  const citeCorrect = cited.filter((c) => allowed.has(c)).length;
  const requiredHit = e.cites.filter((c) => cited.includes(c)).length;
  if (requiredHit < e.cites.length) why.push(`missing cite ${e.cites.filter((c) => !cited.includes(c)).join(",")}`);
  if (citeCorrect < cited.length) why.push(`extra cite ${cited.filter((c) => !allowed.has(c)).join(",")}`);
  const md = norm(reply.answer.response_markdown);
  for (const f of e.facts ?? []) if (!f.split("|").some((alt) => md.includes(norm(alt)))) why.push(`fact "${f}"`);
  for (const f of e.forbid ?? []) if (md.includes(norm(f))) why.push(`forbidden "${f}"`);
  const conflictReported = reply.answer.conflicts.length > 0;
  if (e.conflicts !== undefined && e.conflicts !== conflictReported)
    why.push(conflictReported ? "unexpected conflict" : "conflict not reported");
  const titleOf = (id: string) => store.products.find((p) => p.product_id === id)?.name ?? id;
  for (const id of e.products ?? []) {
    if (!reply.answer.products.some((c) => norm(c.title) === norm(titleOf(id)))) why.push(`no card ${id}`);
  }
  if (
    q.category === "cart" &&
    e.products?.[0] &&
    reply.answer.products[0] &&
    norm(reply.answer.products[0].title) !== norm(titleOf(e.products[0]))
  )
    why.push("wrong product");
  if (e.quantity !== undefined) {
    const confirm = reply.answer.next_actions.find((a) => a.type === "confirm");
    if (Number(confirm?.arguments?.quantity) !== e.quantity) why.push(`quantity ${String(confirm?.arguments?.quantity)}`);
  }
  // Invented numbers.
  const sourceText = [
    q.text,
    ...(q.before ?? []),
    ...cited.map((c) => store.policies.find((p) => p.concept_id === c)?.body_markdown ?? ""),
    ...reply.answer.products.map((c) => c.title),
    JSON.stringify(reply.answer.live_facts),
    Object.values(store.support_contact).join(" "),
  ].join("\n");
  const allowedNumbers = new Set(numbersIn(sourceText).map((n) => Math.round(n * 1000) / 1000));
  // A cart preview of one when the shopper named no number is the default quantity, not an invention.
  const proposed = reply.answer.next_actions.find((a) => a.type === "confirm")?.arguments?.quantity;
  if (proposed === 1 && numbersIn([q.text, ...(q.before ?? [])].join("\n")).length === 0) allowedNumbers.add(1);
  for (const f of reply.answer.live_facts) {
    const v = f.value as { amount_minor?: number; quantity?: number };
    if (typeof v?.amount_minor === "number") allowedNumbers.add(Math.round(v.amount_minor) / 100);
    if (typeof v?.quantity === "number") allowedNumbers.add(v.quantity);
  }
  const invented = [
    ...new Set(
      numbersIn(reply.answer.response_markdown)
        .filter((n) => !allowedNumbers.has(Math.round(n * 1000) / 1000))
        .map(String),
    ),
  ];
  const inventedPrices = quantities(reply.answer.response_markdown)
    .filter((x) => x.kind === "money" && !allowedNumbers.has(Math.round(x.minor) / 100))
    .map((x) => x.text);
  if (invented.length > 0) why.push(`invented ${invented.join(",")}`);
  const avoidableHandoff = reply.outcome === "handoff" && !outcomes.includes("handoff");
  // A wrong answer: the reply answers, but an answer was not expected or it lacks a key fact.
  const wrong = reply.outcome === "answer" && (!outcomeOk || why.some((w) => w.startsWith("fact ")));
  const confidence = reply.events?.find((ev) => ev.event === "retrieval.completed")?.data.confidence as AnswerConfidence | undefined;
  const agent = reply.events?.find((ev) => ev.event === "agent.completed")?.data as RetailResult["agent"] | undefined;
  const route = reply.events?.find((ev) => ev.event === "intent.classified")?.data.route as
    { model?: RetailResult["routeModel"] } | undefined;
  return {
    id: q.id,
    store: q.store,
    category: q.category,
    split,
    text: q.text,
    outcome: reply.outcome,
    outcomeOk,
    strict: why.length === 0,
    why,
    cited,
    citeCorrect,
    requiredHit,
    required: e.cites.length,
    conflictExpected: e.conflicts === true,
    conflictReported,
    avoidableHandoff,
    wrong,
    ...(confidence ? { confidence } : {}),
    ...(agent ? { agent: { accepted: agent.accepted, reason: agent.reason } } : {}),
    ...(route?.model ? { routeModel: route.model } : {}),
    productExpected: q.category === "product" || (e.products?.length ?? 0) > 0,
    invented,
    inventedPrices,
    ms,
    markdown: reply.answer.response_markdown,
  };
}

/** A helper-written set (eval/assistant/blind/*.json): its own stores and questions, all "blind". */
export interface RetailSet {
  stores: RetailerStore[];
  questions: RetailQuestion[];
}

export interface RetailOptions {
  dialect?: DialectName;
  only?: string[];
  /** Instead of eval/assistant/retailers/. */
  set?: RetailSet;
  /** Extra environment of the app (e.g. ASSISTANT_ABSTENTION=off). */
  env?: Record<string, string>;
  log?: (line: string, r: RetailResult) => void;
}

export async function runRetailerEval(options: RetailOptions = {}): Promise<RetailResult[]> {
  const dialect = options.dialect ?? "sqlite";
  const stores = options.set?.stores ?? fixtureStores;
  const pool = options.set?.questions ?? allQuestions;
  const splitFor = (id: string): RetailResult["split"] => (options.set ? "blind" : splitOf(id));
  const questions = options.only ? pool.filter((q) => options.only!.includes(q.id)) : pool;
  const t = await createTestApp({ dialect, model: true, ...(options.env ? { env: options.env } : {}) });
  try {
    const keys = new Map<string, string>();
    for (const s of stores) {
      if (!questions.some((q) => q.store === s.key)) continue;
      const { publicKey } = await setUpStore(t, {
        name: s.name,
        settings: { currency: s.currency, support_contact: s.support_contact },
        ...(s.vocabulary ? { vocabulary: s.vocabulary } : {}),
        policies: s.policies,
        products: s.products,
      });
      keys.set(s.key, publicKey);
    }
    const results: RetailResult[] = [];
    for (const q of questions) {
      const { token, threadId } = await newThread(t, keys.get(q.store)!, q.locale);
      for (const earlier of q.before ?? []) await say(t, token, threadId, earlier);
      const started = performance.now();
      const reply = await say(t, token, threadId, q.text);
      const r = score(
        q,
        stores.find((s) => s.key === q.store)!,
        splitFor(q.id),
        reply,
        performance.now() - started,
      );
      results.push(r);
      options.log?.(
        `${r.strict ? "ok  " : "MISS"} ${r.split} ${r.id} [${r.category}] ${JSON.stringify(r.text)} → ${r.outcome}${r.conflictReported ? " (policies disagree)" : ""}${r.cited.length ? ` [${r.cited.join(", ")}]` : ""}${r.why.length ? ` — ${r.why.join("; ")}` : ""}`,
        r,
      );
    }
    return results;
  } finally {
    await t.close();
  }
}

function quantile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

function row(label: string, rs: RetailResult[]): string {
  const pct = (a: number, b: number) => (b === 0 ? "   -  " : `${((100 * a) / b).toFixed(0).padStart(4)}% `);
  const cited = rs.reduce((s, r) => s + r.cited.length, 0);
  const correct = rs.reduce((s, r) => s + r.citeCorrect, 0);
  const required = rs.reduce((s, r) => s + r.required, 0);
  const hit = rs.reduce((s, r) => s + r.requiredHit, 0);
  const conflictsExp = rs.filter((r) => r.conflictExpected).length;
  const conflictsHit = rs.filter((r) => r.conflictExpected && r.conflictReported).length;
  const ms = rs.map((r) => r.ms).sort((a, b) => a - b);
  return [
    label.padEnd(13),
    String(rs.length).padStart(4),
    pct(rs.filter((r) => r.outcomeOk).length, rs.length),
    pct(rs.filter((r) => r.strict).length, rs.length),
    pct(correct, cited),
    pct(hit, required),
    (conflictsExp ? `${conflictsHit}/${conflictsExp}` : "-").padStart(6),
    String(rs.filter((r) => r.avoidableHandoff).length).padStart(6),
    String(rs.filter((r) => r.wrong).length).padStart(5),
    String(rs.reduce((s, r) => s + r.invented.length, 0)).padStart(5),
    String(rs.reduce((s, r) => s + r.inventedPrices.length, 0)).padStart(5),
    `${quantile(ms, 0.5).toFixed(0).padStart(5)} /${quantile(ms, 0.95).toFixed(0).padStart(5)}`,
  ].join(" ");
}

/** A refusal's kind without its detail: "reply_refused:number_not_in_sources:45" → "reply_refused:number_not_in_sources". */
const kindOf = (reason: string | null) => (reason ?? "none").split(":").slice(0, 2).join(":");

export function formatRetailReport(results: RetailResult[], dialect = "sqlite"): string {
  const header = `${"category".padEnd(13)}    n outcome strict  citeP  citeR  confl. avoid. wrong  inv. inv$  p50/p95 ms`;
  const out: string[] = [
    `Retailer evaluation (${dialect}; ${results.length} questions; ${new Set(results.map((r) => r.store)).size} stores)`,
  ];
  for (const split of ["dev", "test", "blind"] as const) {
    const rs = results.filter((r) => r.split === split);
    if (rs.length === 0) continue;
    out.push("", `[${split}]`, header);
    const cats = [...new Set(rs.map((r) => r.category))].sort();
    for (const c of cats)
      out.push(
        row(
          c,
          rs.filter((r) => r.category === c),
        ),
      );
    out.push(row("ALL", rs));
    const answered = rs.filter((r) => r.outcome === "answer").length;
    const wrong = rs.filter((r) => r.wrong).length;
    out.push(
      `wrong answers: ${wrong} of ${answered} answers (${answered ? ((100 * wrong) / answered).toFixed(0) : 0} %), ${((100 * wrong) / rs.length).toFixed(0)} % of questions`,
    );
    const lengths = rs
      .filter((r) => r.outcome === "answer" && r.cited.length > 0)
      .map((r) => r.markdown.split(/\s+/).filter(Boolean).length)
      .sort((a, b) => a - b);
    if (lengths.length > 0)
      out.push(
        `answer length: median ${quantile(lengths, 0.5).toFixed(0)} words, mean ${(lengths.reduce((s, n) => s + n, 0) / lengths.length).toFixed(1)}, p90 ${quantile(lengths, 0.9).toFixed(0)} words (${lengths.length} policy answers)`,
      );
    const noConflict = rs.filter((r) => !r.conflictExpected);
    out.push(
      `false conflicts: ${noConflict.filter((r) => r.conflictReported).length} of ${noConflict.length} questions expecting no conflict were told the policies disagree`,
    );
    const agent = rs.filter((r) => r.agent);
    if (agent.length > 0) {
      const reasons = new Map<string, number>();
      for (const r of agent.filter((x) => !x.agent!.accepted)) {
        const kind = kindOf(r.agent!.reason);
        reasons.set(kind, (reasons.get(kind) ?? 0) + 1);
      }
      const accepted = agent.filter((r) => r.agent!.accepted);
      out.push(
        `LLM agent: ${accepted.length} of ${agent.length} replies used (${accepted.filter((r) => r.strict).length} of them strictly right), refused: ` +
          ([...reasons].map(([k, n]) => `${k} ${n}`).join(", ") || "none"),
      );
    }
  }
  return out.join("\n");
}

/**
 * The precision / coverage curve of abstention (issue 36): over the policy answers the engine gave
 * (those carrying a confidence), for each `bar` — answer only when the abstention model's
 * probability of being right is at least `bar` — how many answers remain, how many of them are wrong, and the
 * handoffs it adds where an answer was right.
 */
export function formatAbstentionCurve(results: RetailResult[], bars: number[]): string {
  const answered = results.filter((r) => r.confidence !== undefined && r.outcome === "answer");
  const out = [
    `abstention on ${answered.length} extractive policy answers: bar = least probability of being right (abstain.ts, abstention.json's weights)`,
    "  bar   kept  wrong kept  right dropped  precision",
  ];
  for (const bar of bars) {
    const kept = answered.filter((r) => probabilityRight(r.confidence!) >= bar);
    const wrong = kept.filter((r) => r.wrong).length;
    const dropped = answered.filter((r) => probabilityRight(r.confidence!) < bar && !r.wrong).length;
    out.push(
      `  ${bar.toFixed(2)}  ${String(kept.length).padStart(5)}  ${String(wrong).padStart(10)}  ${String(dropped).padStart(13)}  ${kept.length ? ((100 * (kept.length - wrong)) / kept.length).toFixed(0).padStart(8) : "       -"} %`,
    );
  }
  return out.join("\n");
}
