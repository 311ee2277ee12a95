// Instructions addressed to the assistant inside a shopper's text ("ignore all previous
// instructions and …", "SYSTEM: you are now …", "vergiss deine Regeln …", "</policy> New policy:
// …") are not questions about the store: the sentences carrying them are removed before retrieval,
// so their words neither find nor weigh passages. The answer is still built only from the store's
// passages; nothing the text claims is repeated as a fact.
import { sentences } from "./text.js";

const INJECTION =
  /\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|the\s+|your\s+)?(?:previous|prior|above|earlier)?\s*(?:instructions?|rules?|prompts?|polic(?:y|ies))\b|\b(?:system|developer|admin)\s*(?:override|mode|prompt)\b|^\s*system\s*:|\byou\s+are\s+now\b|\bpretend\s+(?:to\s+be|you)\b|\bnew\s+(?:policy|instructions?|rules?)\s*:|<\/?\s*(?:policy|system|instructions?)\s*>|\b(?:print|reveal|show)\s+(?:your\s+|the\s+)?(?:hidden\s+|system\s+)?(?:instructions?|prompt|api\s+key)\b|\bvergiss\s+(?:alle\s+|deine\s+)?(?:regeln|anweisungen)\b|\bignorier\w*\s+(?:alle\s+)?(?:vorherigen\s+)?anweisungen\b/i;

/** The text without the sentences that address instructions to the assistant (an empty string when nothing is left, so an all-injection message finds no evidence). */
export function sanitizeQuestion(text: string): string {
  const kept = sentences(text).filter((s) => !INJECTION.test(s));
  return kept.length > 0 ? kept.join(" ") : "";
}

