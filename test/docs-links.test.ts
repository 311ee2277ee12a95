// The README and docs/*.md link to each other and into the source tree. Every relative link must
// reach a file or folder that exists, and every #anchor (in the same file or another markdown file)
// must be the slug of a heading there, as GitHub makes it: lower case, punctuation other than "-"
// dropped, each space a "-", a repeated heading's slug suffixed -1, -2, … Links inside code (fenced
// blocks and `spans`) are text, not links. The README stays an entry point of at most 400 lines that
// lists every docs/ file.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

const ROOT = path.resolve(".");
const README_MAX_LINES = 400;

/** Blanks fenced code blocks, inline code spans and HTML comments, keeping line breaks. */
function proseOf(markdown: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  const lines = markdown.split("\n");
  let fence: string | null = null;
  const kept = lines.map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker;
      return "";
    }
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      return "";
    }
    return line;
  });
  return kept
    .join("\n")
    .replace(/<!--[\s\S]*?-->/g, blank)
    .replace(/(`+)[\s\S]*?\1/g, blank);
}

/** GitHub's heading slug (github-slugger): lower case, keep letters, marks, digits, "_", "-" and spaces; spaces become "-". */
function slugOf(headingText: string): string {
  const text = headingText
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images: their text
    .replace(/`/g, ""); // code spans: their content
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a markdown text's headings (ATX headings outside code blocks), duplicates numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker;
      continue;
    }
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      continue;
    }
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (!heading) continue;
    const base = slugOf(heading[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

interface Link {
  line: number;
  target: string;
}

/** Inline links and images `[text](target "title")` and reference definitions `[id]: target` of the prose. */
function linksOf(markdown: string): Link[] {
  const prose = proseOf(markdown);
  const lineAt = (index: number) => prose.slice(0, index).split("\n").length;
  const links: Link[] = [];
  for (const m of prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g))
    links.push({ line: lineAt(m.index), target: m[1]!.replace(/^<|>$/g, "") });
  for (const m of prose.matchAll(/^ {0,3}\[[^\]]+\]:[ \t]*(\S+)/gm)) links.push({ line: lineAt(m.index), target: m[1]! });
  return links;
}

/** What is wrong with the relative links of `file` (paths relative to ROOT); absolute URLs are not checked. */
function brokenLinks(file: string, markdown: string, readTarget: (absolute: string) => string | null = readIfExists): string[] {
  const problems: string[] = [];
  for (const { line, target } of linksOf(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue;
    const hash = target.indexOf("#");
    const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
    const absolute = pathPart === "" ? path.resolve(ROOT, file) : path.resolve(path.dirname(path.resolve(ROOT, file)), pathPart);
    const where = `${file}:${line}: ${target}`;
    if (pathPart !== "" && !fs.existsSync(absolute)) {
      problems.push(`${where}: ${path.relative(ROOT, absolute)} does not exist`);
      continue;
    }
    if (anchor === null) continue;
    if (!absolute.endsWith(".md")) {
      problems.push(`${where}: an anchor into a file that is not markdown`);
      continue;
    }
    const text = pathPart === "" ? markdown : readTarget(absolute);
    if (text === null) problems.push(`${where}: cannot read ${path.relative(ROOT, absolute)}`);
    else if (!anchorsOf(text).has(anchor))
      problems.push(`${where}: no heading with the anchor #${anchor} in ${path.relative(ROOT, absolute)}`);
  }
  return problems;
}

function readIfExists(absolute: string): string | null {
  return fs.existsSync(absolute) && fs.statSync(absolute).isFile() ? fs.readFileSync(absolute, "utf8") : null;
}

const docs = fs
  .readdirSync(path.join(ROOT, "docs"))
  .filter((f) => f.endsWith(".md"))
  .sort()
  .map((f) => `docs/${f}`);
const files = ["README.md", ...docs];

test("headings get GitHub's slugs, repeated ones numbered", () => {
  const anchors = anchorsOf(
    [
      "# Text ranking: lexical + visual evidence",
      "## Merchandising rules (`/v1/search/rules`)",
      "### 50,000 and a million products on a fresh machine (2026-11-24)",
      "## Chat widget `<commerce-ai-chat>`",
      "## Setup",
      "## Setup",
      "```",
      "## Not a heading: inside a code block",
      "```",
    ].join("\n"),
  );
  assert.deepEqual(
    [...anchors],
    [
      "text-ranking-lexical--visual-evidence",
      "merchandising-rules-v1searchrules",
      "50000-and-a-million-products-on-a-fresh-machine-2026-11-24",
      "chat-widget-commerce-ai-chat",
      "setup",
      "setup-1",
    ],
  );
});

test("the checker reports a missing file and a missing anchor, and skips links inside code", () => {
  const md = [
    "# Title",
    "[ok](#title) [gone](docs/nowhere.md) [bad anchor](#no-such-heading) [web](https://example.com/x#y)",
    "`[in code](missing.md)`",
    "```",
    "[in a block](missing.md)",
    "```",
    "[README](README.md#configuration) [folder](src/) [wrong](README.md#no-such-section)",
  ].join("\n");
  const problems = brokenLinks("x.md", md);
  assert.equal(problems.length, 3, problems.join("\n"));
  assert.match(problems[0]!, /x\.md:2: docs\/nowhere\.md: docs\/nowhere\.md does not exist/);
  assert.match(problems[1]!, /x\.md:2: #no-such-heading: no heading with the anchor #no-such-heading/);
  assert.match(problems[2]!, /x\.md:7: README\.md#no-such-section: no heading/);
});

test("every relative link of the README and docs/*.md reaches an existing file and heading", () => {
  assert.ok(docs.length >= 6, `docs/ holds the documentation: ${docs.join(", ")}`);
  const problems = files.flatMap((file) => brokenLinks(file, fs.readFileSync(path.join(ROOT, file), "utf8")));
  assert.deepEqual(problems, []);
  const checked = files.reduce((n, file) => n + linksOf(fs.readFileSync(path.join(ROOT, file), "utf8")).length, 0);
  assert.ok(checked > 50, `only ${checked} links found: the parser lost them`);
});

test(`the README is an entry point of at most ${README_MAX_LINES} lines that links every docs/ file`, () => {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const lines = readme.replace(/\n$/, "").split("\n").length;
  assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move detail into docs/`);
  const targets = new Set(linksOf(readme).map((l) => l.target.split("#")[0]));
  for (const doc of docs) assert.ok(targets.has(doc), `README.md does not link ${doc}`);
});
