/**
 * Text the answer quotes but did not write (product titles, order ids, the shopper's query,
 * sentences quoted from policies) as Markdown that renders as that text: line breaks fold into
 * spaces (quoted text cannot start a list item or a fake price line) and Markdown punctuation is
 * backslash-escaped (web/chat/markdown.js honours the escapes, so `[pay here](https://…)` in a
 * title or a policy sentence is no link). Links in an answer come only from its own framing.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, " ").replace(/([\\`*_[\]()<>#|!~])/g, "\\$1");
}
