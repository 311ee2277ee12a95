/*
 * A small, safe Markdown renderer for assistant replies. Safety first: the whole text is
 * HTML-escaped before any Markdown is interpreted, so the output only ever contains the tags this
 * module writes itself. Links keep only http(s), mailto and tel targets (anything else, such as
 * javascript:, stays plain text) and open in a new tab with rel="noopener noreferrer nofollow".
 *
 * Supported: paragraphs (single newlines become <br>), headings (# … ######, rendered two levels
 * down, h3–h6, to fit a chat bubble), unordered (-, *, +) and ordered (1. / 1)) lists, block
 * quotes (>), fenced code (```), horizontal rules, **bold**, __bold__, *italic*, _italic_,
 * `code` and [text](url). Pure: no DOM.
 *
 * Backslash escapes are honoured as in CommonMark: `\[`, `\*`, `\#`, `\-`, `\1.` … render the
 * character itself and never start a link, emphasis, heading or list. The server escapes text it
 * did not write (product titles, order ids) this way and folds their line breaks into spaces, so
 * a title such as `T-shirt [pay here](https://evil.test)` or one with a fake "— $0.01 · in stock"
 * line renders as text: links only ever come from the answer's own Markdown.
 */

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** HTML-escapes text for element content and double-quoted attribute values. */
export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function unescapeHtml(text) {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[name]);
}

/** The URL when it is safe to link to (http, https, mailto, tel), else null. Input is escaped text. */
export function safeUrl(escaped) {
  const raw = unescapeHtml(escaped).trim();
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  if (/[\u0000-\u001f\u007f\s\\]/.test(raw)) return null;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw);
  if (!scheme) return null;
  if (!["http", "https", "mailto", "tel"].includes(scheme[1].toLowerCase())) return null;
  return escapeHtml(raw);
}

/** A backslash escape of ASCII punctuation, in HTML-escaped text (`\<` arrives as `\&lt;`). */
const ESCAPE = "\\\\(&(?:amp|lt|gt|quot|#39);|[!#$%()*+,\\-./:;=?@[\\\\\\]^_`{|}~])";
const CODE_OR_ESCAPE = new RegExp("`([^`]+)`|" + ESCAPE, "g");

/** Inline Markdown of one escaped line. */
function inline(escaped) {
  // Code spans and backslash escapes are cut out first (left to right, so a backslash inside a
  // code span stays literal and an escaped backtick opens no span); nothing in them is interpreted.
  const codes = [];
  let text = escaped.replace(CODE_OR_ESCAPE, (_, code, literal) => {
    codes.push(code !== undefined ? `<code>${code}</code>` : literal);
    return `\u0000${codes.length - 1}\u0000`;
  });
  text = text.replace(/\[([^\]\n]+)\]\(([^()\s]+)\)/g, (whole, label, url) => {
    const href = safeUrl(url);
    return href === null ? whole : `<a href="${href}" target="_blank" rel="noopener noreferrer nofollow">${label}</a>`;
  });
  text = text
    .replace(/\*\*(?=\S)([^*]*?\S)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^\w])__(?=\S)([^_]*?\S)__(?!\w)/g, "$1<strong>$2</strong>")
    .replace(/(^|[^*\w])\*(?=[^\s*])([^*]*?[^\s*])\*(?!\*)/g, "$1<em>$2</em>")
    .replace(/(^|[^\w])_(?=[^\s_])([^_]*?[^\s_])_(?!\w)/g, "$1<em>$2</em>");
  // eslint-disable-next-line no-control-regex -- NUL delimits the code-span placeholders written above
  return text.replace(/\u0000(\d+)\u0000/g, (_, i) => codes[Number(i)]);
}

/**
 * Renders Markdown to an HTML string that is safe to assign to innerHTML.
 * @param {string} markdown
 * @returns {string}
 */
export function renderMarkdown(markdown) {
  const lines = escapeHtml(String(markdown ?? "").replace(/\r\n?/g, "\n")).split("\n");
  const out = [];
  let paragraph = [];
  let list = null; // { tag: "ul" | "ol", items: string[] }
  let quote = [];

  const flushParagraph = () => {
    if (paragraph.length > 0) out.push(`<p>${paragraph.map(inline).join("<br>")}</p>`);
    paragraph = [];
  };
  const flushList = () => {
    if (list) out.push(`<${list.tag}>${list.items.map((item) => `<li>${inline(item)}</li>`).join("")}</${list.tag}>`);
    list = null;
  };
  const flushQuote = () => {
    if (quote.length > 0) out.push(`<blockquote>${renderMarkdown(quote.map(unescapeHtml).join("\n"))}</blockquote>`);
    quote = [];
  };
  const flushAll = () => {
    flushParagraph();
    flushList();
    flushQuote();
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*```/.test(line)) {
      flushAll();
      const code = [];
      i++;
      while (i < lines.length && !/^\s*```/.test(lines[i])) code.push(lines[i++]);
      out.push(`<pre><code>${code.join("\n")}</code></pre>`);
      continue;
    }
    const quoted = /^\s*&gt;\s?(.*)$/.exec(line);
    if (quoted) {
      flushParagraph();
      flushList();
      quote.push(quoted[1]);
      continue;
    }
    flushQuote();
    if (line.trim() === "") {
      flushAll();
      continue;
    }
    const heading = /^\s*(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      flushAll();
      const level = Math.min(6, heading[1].length + 2);
      out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flushAll();
      out.push("<hr>");
      continue;
    }
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d{1,9}[.)]\s+(.*)$/.exec(line);
    if (bullet || numbered) {
      flushParagraph();
      const tag = bullet ? "ul" : "ol";
      if (list && list.tag !== tag) flushList();
      if (!list) list = { tag, items: [] };
      list.items.push((bullet ?? numbered)[1]);
      continue;
    }
    if (list && /^\s{2,}\S/.test(line)) {
      // A continuation line of the last list item.
      list.items[list.items.length - 1] += " " + line.trim();
      continue;
    }
    flushList();
    paragraph.push(line);
  }
  flushAll();
  return out.join("");
}
