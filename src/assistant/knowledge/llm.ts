// Optional LLM phrasing of an extractive answer (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL).
//
// The model gets the question and ONLY the passages the extractive answer cited, through an
// OpenAI-compatible POST {LLM_BASE_URL}/chat/completions sent by the safe outbound fetch
// (ctx.fetch) with its own time limit (LLM_TIMEOUT_MS). Its text replaces the extractive text only
// when checkPhrasing() accepts it:
//   - it is non-empty and at most MAX_LLM_CHARS characters;
//   - every number it states (digits in en/de notation, number words) is a number of a cited
//     passage or of a live fact — this covers prices, amounts, durations and percentages;
//   - every promise word it uses (guarantee, free, always, never, refund, money back, lifetime,
//     unlimited, no questions asked, any time … and the German counterparts) occurs in a cited
//     passage.
// Anything else — the LLM unreachable, a timeout, a non-2xx status, an unparsable reply or a
// rejected text — keeps the extractive answer (phrased_by "extractive"); it is not a failure.
import type { AppContext } from "../../platform/context.js";
import { normalize, numbersIn, stem, words, type Lang } from "./text.js";

export const MAX_LLM_CHARS = 1500;

const PROMISES: Record<"en" | "de", string[]> = {
  en: ["guarantee", "guaranteed", "guarantees", "free", "always", "never", "refund", "refunds", "refunded", "lifetime", "unlimited", "forever", "promise", "promised", "instantly", "immediately", "anytime", "money back", "no questions asked", "any time", "100%"],
  de: ["garantie", "garantiert", "garantieren", "kostenlos", "kostenfrei", "gratis", "immer", "nie", "niemals", "erstattung", "erstattet", "rückerstattung", "lebenslang", "unbegrenzt", "versprechen", "sofort", "jederzeit", "geld zurück", "ohne angabe von gründen"],
};

export interface PhrasingCheck {
  ok: boolean;
  reason?: string;
}

/**
 * Checks an LLM's text against the cited passages (and live fact values as plain numbers, e.g.
 * 49.9 for €49.90).
 */
export function checkPhrasing(text: string, cited: string[], lang: Lang, liveNumbers: number[] = []): PhrasingCheck {
  const trimmed = text.trim();
  if (!trimmed) return { ok: false, reason: "empty" };
  if (trimmed.length > MAX_LLM_CHARS) return { ok: false, reason: "too_long" };
  const source = cited.join("\n");
  const allowed = new Set([...numbersIn(source), ...liveNumbers].map((n) => Math.round(n * 1000) / 1000));
  for (const n of numbersIn(trimmed)) {
    if (!allowed.has(Math.round(n * 1000) / 1000)) return { ok: false, reason: `number_not_in_sources:${n}` };
  }
  const l = lang === "de" ? "de" : "en";
  const src = normalize(source);
  const srcStems = new Set(words(source).map((w) => stem(w, l)));
  const out = normalize(trimmed);
  const outWords = new Set(words(trimmed));
  for (const promise of [...PROMISES.en, ...(l === "de" ? PROMISES.de : [])]) {
    const multi = /\s|%/.test(promise);
    const present = multi ? out.includes(promise) : outWords.has(promise);
    if (!present) continue;
    const inSource = multi ? src.includes(promise) : srcStems.has(stem(promise, l)) || srcStems.has(stem(promise, "en"));
    if (!inSource) return { ok: false, reason: `promise_not_in_sources:${promise}` };
  }
  return { ok: true };
}

/** Asks the configured LLM to phrase the answer; null on any failure (the caller keeps the extractive text). */
export async function phraseWithLlm(
  ctx: AppContext,
  question: string,
  passages: Array<{ title: string; text: string }>,
  lang: Lang,
): Promise<string | null> {
  const llm = ctx.config.llm;
  if (!llm) return null;
  const language = lang === "de" ? "German" : "English";
  const body = {
    model: llm.model,
    temperature: 0,
    max_tokens: 400,
    messages: [
      {
        role: "system",
        content:
          `You answer a shopper's question for an online store in ${language}, in at most three sentences, using ONLY the numbered policy passages given. ` +
          "Do not add any fact, number, price, duration or promise that the passages do not state. If the passages do not answer the question, repeat the most relevant passage.",
      },
      {
        role: "user",
        content: `Passages:\n${passages.map((p, i) => `[${i + 1}] (${p.title}) ${p.text}`).join("\n")}\n\nQuestion: ${question}`,
      },
    ],
  };
  try {
    const res = await ctx.fetch(`${llm.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...(llm.apiKey ? { authorization: `Bearer ${llm.apiKey}` } : {}) },
      body: JSON.stringify(body),
      timeoutMs: llm.timeoutMs,
      maxBytes: 1024 * 1024,
    });
    if (res.status < 200 || res.status >= 300) return null;
    const json = JSON.parse(res.body.toString("utf8")) as { choices?: Array<{ message?: { content?: unknown } }> };
    const content = json.choices?.[0]?.message?.content;
    return typeof content === "string" ? content.trim() : null;
  } catch {
    return null;
  }
}
