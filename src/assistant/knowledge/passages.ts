// Splitting a policy's body_markdown into passages: every paragraph, list item, table row or
// block quote becomes one passage that keeps the path of headings above it (the policy title
// first), so "Items must be unworn." under "## Returns" is still found by a question about
// returns. Markdown is reduced to plain text (links → their text, emphasis and code marks dropped).
import type { Citation } from "./types.js";

export interface Passage {
  /** `${concept_id}@${version}#${n}` */
  id: string;
  citation: Citation;
  /** Locale of the policy version. */
  locale: string;
  /** Title › heading › sub-heading. */
  heading: string;
  /** Plain text of the block. */
  text: string;
  /** A table row with its column headers ("Most products — Standard: 15 days; Elite: 30 days"). */
  labelled?: string;
  /** The paragraph ending in ":" that introduces the list this item belongs to. */
  lead?: string;
}

export interface PolicySource {
  concept_id: string;
  version: number;
  handle: string;
  title: string;
  locale: string;
  body_markdown: string;
}

/** Markdown inline syntax to plain text. */
export function plainText(md: string): string {
  return md
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, " ")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|[^\p{L}\p{N}])[*_](?=\S)(.+?)(?<=\S)[*_](?=$|[^\p{L}\p{N}])/gu, "$1$2")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

export function splitPassages(policy: PolicySource): Passage[] {
  const citation: Citation = { handle: policy.handle, concept_id: policy.concept_id, concept_version: policy.version, title: policy.title };
  const headings: string[] = [];
  const blocks: Array<{ heading: string; text: string; labelled?: string; lead?: string }> = [];
  let tableHeader: string[] | null = null;
  /** The last paragraph ending in ":" (a list's lead-in) and whether list items follow it. */
  let lead: string | null = null;
  let inList = false;
  let paragraph: string[] = [];
  let inFence = false;

  const headingPath = () => [policy.title, ...headings.filter(Boolean)].join(" › ");
  const flush = () => {
    const text = plainText(paragraph.join(" "));
    paragraph = [];
    if (!text) return;
    if (inList && lead) blocks.push({ heading: headingPath(), text, lead });
    else blocks.push({ heading: headingPath(), text });
    if (!inList) lead = text.endsWith(":") ? text : null;
  };

  for (const rawLine of policy.body_markdown.replace(/\r\n?/g, "\n").split("\n")) {
    const line = rawLine.trimEnd();
    if (/^\s*(```|~~~)/.test(line)) {
      flush();
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      paragraph.push(line);
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      tableHeader = null;
      lead = null;
      inList = false;
      const level = heading[1]!.length;
      headings.length = level - 1;
      headings[level - 1] = plainText(heading[2]!);
      // A sub-heading that states a quantity ("Standard Shipping (5-7 Business Days)") is a fact too.
      if (level > 1 && /\d/.test(heading[2]!)) blocks.push({ heading: headingPath(), text: plainText(heading[2]!) });
      continue;
    }
    if (/^\s*$/.test(line) || /^\s*([-*_]\s*){3,}$/.test(line)) {
      flush();
      tableHeader = null;
      continue;
    }
    const item = /^\s*(?:[-*+]|\d{1,3}[.)])\s+(.*)$/.exec(line);
    if (item) {
      // One list item, one passage; an item's continuation lines are indented (handled below).
      flush();
      inList = true;
      paragraph.push(item[1]!);
      continue;
    }
    if (inList && !/^\s+/.test(line)) {
      // A paragraph after a list ends the list (and its lead-in).
      flush();
      inList = false;
      lead = null;
    }
    if (/^\s*\|/.test(line)) {
      flush();
      if (/^\s*\|?\s*:?-{2,}/.test(line)) continue; // table separator row
      const cells = line
        .split("|")
        .map((c) => plainText(c.trim()))
        .filter(Boolean);
      if (cells.length === 0) continue;
      const text = cells.join(" — ");
      if (tableHeader === null) {
        tableHeader = cells;
        blocks.push({ heading: headingPath(), text });
      } else {
        // Each value cell keeps its column header: the row reads on its own.
        const labelled = `${cells[0]} — ${cells
          .slice(1)
          .map((c, i) => (tableHeader![i + 1] ? `${tableHeader![i + 1]}: ${c}` : c))
          .join("; ")}`;
        blocks.push({ heading: headingPath(), text, labelled });
      }
      continue;
    }
    tableHeader = null;
    paragraph.push(line.replace(/^\s*>\s?/, ""));
  }
  flush();
  return blocks.map((b, i) => ({
    id: `${policy.concept_id}@${policy.version}#${i}`,
    citation,
    locale: policy.locale,
    heading: b.heading,
    text: b.text,
    ...(b.labelled ? { labelled: b.labelled } : {}),
    ...(b.lead ? { lead: b.lead } : {}),
  }));
}
