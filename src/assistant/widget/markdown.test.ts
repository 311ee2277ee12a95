// Unit tests of the chat widget's pure modules (web/chat/markdown.js, web/chat/sse.js, strings.js).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { escapeHtml, renderMarkdown, safeUrl } from "../../../web/chat/markdown.js";

describe("chat widget markdown renderer", () => {
  test("escapes HTML before interpreting Markdown: no tag from the text survives", () => {
    const html = renderMarkdown(`Hello <script>alert("x")</script> <img src=x onerror=alert(1)> & 'quotes'`);
    assert.equal(
      html,
      "<p>Hello &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt; &amp; &#39;quotes&#39;</p>",
    );
    assert.doesNotMatch(renderMarkdown("**<b onclick=x>bold</b>**"), /<b /);
    assert.equal(renderMarkdown("**<b>x</b>**"), "<p><strong>&lt;b&gt;x&lt;/b&gt;</strong></p>");
  });

  test("renders paragraphs, line breaks, headings, lists, quotes, code and rules", () => {
    const html = renderMarkdown(
      "# Returns\nYou may return items **within 30 days**.\nSecond *line* with `a<b`.\n\n- one\n- two\n  continued\n\n1. first\n2) second\n\n> quoted **bold**\n\n---\n\n```\n<raw> **not bold**\n```",
    );
    assert.equal(
      html,
      "<h3>Returns</h3>" +
        "<p>You may return items <strong>within 30 days</strong>.<br>Second <em>line</em> with <code>a&lt;b</code>.</p>" +
        "<ul><li>one</li><li>two continued</li></ul>" +
        "<ol><li>first</li><li>second</li></ol>" +
        "<blockquote><p>quoted <strong>bold</strong></p></blockquote>" +
        "<hr>" +
        "<pre><code>&lt;raw&gt; **not bold**</code></pre>",
    );
  });

  test("code spans are not interpreted further", () => {
    assert.equal(renderMarkdown("`**x** [a](https://e.x)`"), "<p><code>**x** [a](https://e.x)</code></p>");
  });

  test("links keep only http(s), mailto and tel targets and open safely", () => {
    assert.equal(
      renderMarkdown("[Returns](https://shop.example/returns?a=1&b=2)"),
      '<p><a href="https://shop.example/returns?a=1&amp;b=2" target="_blank" rel="noopener noreferrer nofollow">Returns</a></p>',
    );
    assert.match(renderMarkdown("[mail](mailto:help@shop.example)"), /href="mailto:help@shop.example"/);
    for (const bad of [
      "[x](javascript:alert(1))",
      "[x](JaVaScRiPt:alert`1`)",
      "[x](data:text/html,hi)",
      "[x](vbscript:msgbox)",
      "[x](/relative)",
    ]) {
      const html = renderMarkdown(bad);
      assert.doesNotMatch(html, /<a /, bad);
    }
    // A quote in a URL stays escaped inside the attribute: no attribute can be injected.
    const quoted = renderMarkdown('[x](https://a.example/"onmouseover="x)');
    assert.equal(
      quoted,
      '<p><a href="https://a.example/&quot;onmouseover=&quot;x" target="_blank" rel="noopener noreferrer nofollow">x</a></p>',
    );
    assert.equal(safeUrl("java&#39;script:x"), null);
    assert.equal(safeUrl("https://ok.example/a&amp;b"), "https://ok.example/a&amp;b");
  });

  test("underscores inside words and lone asterisks stay text", () => {
    assert.equal(renderMarkdown("snake_case_name and 2 * 3 * 4"), "<p>snake_case_name and 2 * 3 * 4</p>");
    assert.equal(renderMarkdown("__bold__ and _em_"), "<p><strong>bold</strong> and <em>em</em></p>");
  });

  test("backslash escapes are honoured: escaped punctuation is text and starts no link, emphasis, heading or list", () => {
    assert.equal(
      renderMarkdown("- **T-shirt \\[pay here\\]\\(https://evil.test\\)** — $5.00"),
      "<ul><li><strong>T-shirt [pay here](https://evil.test)</strong> — $5.00</li></ul>",
    );
    assert.equal(renderMarkdown("\\# not a heading"), "<p># not a heading</p>");
    assert.equal(renderMarkdown("\\- not an item"), "<p>- not an item</p>");
    assert.equal(renderMarkdown("1\\. not an item"), "<p>1. not an item</p>");
    assert.equal(renderMarkdown("\\> not a quote"), "<p>&gt; not a quote</p>");
    assert.equal(renderMarkdown("\\*not em\\* \\_nor this\\_"), "<p>*not em* _nor this_</p>");
    assert.equal(renderMarkdown("\\`not code\\`"), "<p>`not code`</p>");
    assert.equal(renderMarkdown("a \\<b\\> and back\\\\slash"), "<p>a &lt;b&gt; and back\\slash</p>");
    // Inside a code span a backslash stays literal; a backslash before a letter stays too.
    assert.equal(renderMarkdown("`a\\*b` \\d"), "<p><code>a\\*b</code> \\d</p>");
  });

  test("empty, null-ish and CRLF input", () => {
    assert.equal(renderMarkdown(""), "");
    assert.equal(renderMarkdown(undefined as unknown as string), "");
    assert.equal(renderMarkdown("a\r\nb\r\n\r\nc"), "<p>a<br>b</p><p>c</p>");
    assert.equal(escapeHtml(`<&>"'`), "&lt;&amp;&gt;&quot;&#39;");
  });
});
