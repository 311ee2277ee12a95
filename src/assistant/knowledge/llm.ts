// The OpenAI-compatible LLM client (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_TIMEOUT_MS) and the
// output check shared by both LLM modes (LLM_MODE):
//   - `agent` (default): src/assistant/agent drives a tool-calling loop through chatCompletion()
//     and checks the model's reply with checkPhrasing() and its own rules;
//   - `phrase`: phraseWithLlm() rephrases an extractive policy answer.
//
// chatCompletion() is one POST {LLM_BASE_URL}/chat/completions sent by the safe outbound fetch
// (ctx.fetch: address policy, deadline, body limit — a server on a private or loopback address is
// reachable only with OUTBOUND_ALLOW_PRIVATE=true) with its own time limit (LLM_TIMEOUT_MS). Any
// failure — unreachable, a timeout, a non-2xx status, an unparsable body, no choice — is a value
// ({ ok: false, reason }), never an exception.
//
// Phrasing: the model gets the question and ONLY the passages the extractive answer cited. Its
// text replaces the extractive text only when checkPhrasing() accepts it:
//   - it is non-empty and at most MAX_LLM_CHARS characters;
//   - every number it states (digits in en/de notation, number words) is a number of a cited
//     passage or of a live fact — this covers prices, amounts, durations and percentages;
//   - every promise word it uses (guarantee, free, always, never, refund, money back, lifetime,
//     unlimited, no questions asked, any time … — the default language's and the thread's: the
//     language packs' checks.promises) occurs in a cited passage;
//   - every commitment about delivery, timing or eligibility (ships, delivered, today, next day,
//     eligible, covered … in any language: checks.commitments) has a word of its family in a cited
//     passage.
// Anything else keeps the extractive answer (phrased_by "extractive"); it is not a failure. In
// agent mode phraseWithLlm() does nothing: the agent writes the reply, and when the agent's reply
// is refused the extractive answer is used as it is (one model, one chance per turn).
import type { AppContext } from "../../context/context.js";
import { OutboundError } from "../../platform/outbound/safe-fetch.js";
import { DEFAULT_LANGUAGE, languagePack, languages, packOrDefault, perRegistry } from "../language/index.js";
import { normalize, numbersIn, stem, words, type Lang } from "./text.js";

export const MAX_LLM_CHARS = 1500;

/** The commitment families of every language, joined by their key (each family's words in registry order). */
const commitments = perRegistry(() => {
  const families = new Map<string, string[]>();
  for (const p of languages())
    for (const [key, family] of Object.entries(p.checks.commitments)) families.set(key, [...(families.get(key) ?? []), ...family]);
  return [...families.values()];
});

/** Numbers as the checks compare them: to a thousandth (49.9 and 49.90 are one number). */
export const roundedNumber = (n: number): number => Math.round(n * 1000) / 1000;

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
  const allowed = new Set([...numbersIn(source), ...liveNumbers].map(roundedNumber));
  for (const n of numbersIn(trimmed)) {
    if (!allowed.has(roundedNumber(n))) return { ok: false, reason: `number_not_in_sources:${n}` };
  }
  // The thread's language (the default one for a language without a pack); the default language's promise words are checked in every thread.
  const own = packOrDefault(lang);
  const fallback = languagePack(DEFAULT_LANGUAGE)!;
  const src = normalize(source);
  const srcStems = new Set(words(source).map((w) => stem(w, own.code)));
  const out = normalize(trimmed);
  const outWords = new Set(words(trimmed));
  for (const promise of [...fallback.checks.promises, ...(own === fallback ? [] : own.checks.promises)]) {
    const multi = /\s|%/.test(promise);
    const present = multi ? out.includes(promise) : outWords.has(promise);
    if (!present) continue;
    const inSource = multi ? src.includes(promise) : srcStems.has(stem(promise, own.code)) || srcStems.has(stem(promise, fallback.code));
    if (!inSource) return { ok: false, reason: `promise_not_in_sources:${promise}` };
  }
  const srcWords = new Set(words(source));
  const has = (w: string, all: Set<string>, text: string) => (/[\s-]/.test(w) ? text.includes(w) : all.has(w));
  for (const family of commitments()) {
    const used = family.find((w) => has(w, outWords, out));
    if (used !== undefined && !family.some((w) => has(w, srcWords, src))) return { ok: false, reason: `commitment_not_in_sources:${used}` };
  }
  return { ok: true };
}

/** A tool call as the model sent it; `arguments` is the JSON text (some servers send an object). */
export interface LlmToolCall {
  id: string;
  type?: string;
  function: { name: string; arguments: unknown };
}

/** One message of the chat-completions conversation. */
export interface LlmMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: LlmToolCall[];
  tool_call_id?: string;
}

export type LlmResult = { ok: true; message: LlmMessage } | { ok: false; reason: string };

/**
 * One chat-completions call with the configured model; `body` adds messages, tools, tool_choice …
 * `timeoutMs` (default LLM_TIMEOUT_MS) may only shorten the configured limit.
 */
export async function chatCompletion(ctx: AppContext, body: Record<string, unknown>, timeoutMs?: number): Promise<LlmResult> {
  const llm = ctx.config.llm;
  if (!llm) return { ok: false, reason: "not_configured" };
  let res;
  try {
    res = await ctx.fetch(`${llm.baseUrl}/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        ...(llm.apiKey ? { authorization: `Bearer ${llm.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: llm.model, ...body }),
      timeoutMs: Math.max(1, Math.min(timeoutMs ?? llm.timeoutMs, llm.timeoutMs)),
      maxBytes: 1024 * 1024,
    });
  } catch (e) {
    return { ok: false, reason: e instanceof OutboundError ? e.kind : "unreachable" };
  }
  if (res.status < 200 || res.status >= 300) return { ok: false, reason: `http_${res.status}` };
  let json: { choices?: Array<{ message?: Partial<LlmMessage> }> } | null;
  try {
    json = JSON.parse(res.body.toString("utf8")) as typeof json;
  } catch {
    return { ok: false, reason: "invalid_json" };
  }
  const message = Array.isArray(json?.choices) ? json.choices[0]?.message : undefined;
  if (!message || typeof message !== "object") return { ok: false, reason: "no_choice" };
  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return {
    ok: true,
    message: {
      role: "assistant",
      content: typeof message.content === "string" ? message.content : null,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    },
  };
}

/** Asks the configured LLM to phrase the answer (LLM_MODE=phrase); null on any failure (the caller keeps the extractive text). */
export async function phraseWithLlm(
  ctx: AppContext,
  question: string,
  passages: Array<{ title: string; text: string }>,
  lang: Lang,
): Promise<string | null> {
  if (ctx.config.llm?.mode !== "phrase") return null;
  const language = packOrDefault(lang).name;
  const reply = await chatCompletion(ctx, {
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
  });
  return reply.ok && reply.message.content !== null ? reply.message.content.trim() : null;
}
