import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createSseParser, type SseEvent } from "../../../web/chat/sse.js";
import { STRINGS, stringsFor } from "../../../web/chat/strings.js";

function parse(chunks: string[]): { events: SseEvent[]; lastEventId: string; retry: number | null } {
  const events: SseEvent[] = [];
  const parser = createSseParser((e) => events.push(e));
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return { events, lastEventId: parser.lastEventId, retry: parser.retry };
}

describe("chat widget SSE parser", () => {
  test("parses named events with ids and JSON data", () => {
    const { events, lastEventId } = parse([
      'id: 1\nevent: message.started\ndata: {"a":1}\n\n',
      'id: 2\nevent: message.completed\ndata: {"outcome":"answer"}\n\n',
    ]);
    assert.deepEqual(events, [
      { event: "message.started", data: '{"a":1}', id: "1" },
      { event: "message.completed", data: '{"outcome":"answer"}', id: "2" },
    ]);
    assert.equal(lastEventId, "2");
  });

  test("events split at any byte, CRLF and lone CR line ends (also across chunks)", () => {
    const text = 'id: 7\r\nevent: message.delta\r\ndata: {"delta":"Hel"}\r\n\r\nid: 8\revent: message.delta\rdata: {"delta":"lo"}\r\r';
    const whole = parse([text]).events;
    assert.equal(whole.length, 2);
    for (let size = 1; size <= 5; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      assert.deepEqual(parse(chunks).events, whole, `chunk size ${size}`);
    }
    // A chunk ending in "\r" followed by one starting with "\n" is one line end, not two.
    assert.deepEqual(parse(["data: a\r", "\ndata: b\r", "\n\r", "\n"]).events, [{ event: "message", data: "a\nb", id: "" }]);
  });

  test("multi-line data, comments, default event name, retry, unknown fields and a space-less colon", () => {
    const { events, retry } = parse([": keep-alive\n\nretry: 1500\nfoo: bar\ndata:first\ndata: second\n\n", "event: x\n\n"]);
    assert.deepEqual(events, [{ event: "message", data: "first\nsecond", id: "" }]);
    assert.equal(retry, 1500);
  });

  test("the last id persists across events; an event without data is not dispatched; an unterminated one is dropped", () => {
    const { events, lastEventId } = parse(["id: 3\ndata: a\n\ndata: b\n\nid: 4\n\ndata: partial"]);
    assert.deepEqual(events, [
      { event: "message", data: "a", id: "3" },
      { event: "message", data: "b", id: "3" },
    ]);
    assert.equal(lastEventId, "4");
  });
});

describe("chat widget strings", () => {
  test("the locale's primary language picks the strings, English otherwise", () => {
    assert.equal(stringsFor("de-AT"), STRINGS.de);
    assert.equal(stringsFor("DE"), STRINGS.de);
    assert.equal(stringsFor("fr-FR"), STRINGS.en);
    assert.equal(stringsFor(""), STRINGS.en);
    assert.equal(stringsFor("__proto__"), STRINGS.en);
  });

  test("every language has every key of English", () => {
    const keys = (o: object, prefix = ""): string[] =>
      Object.entries(o).flatMap(([k, v]) => (v && typeof v === "object" ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
    const english = keys(STRINGS.en).sort();
    for (const [language, strings] of Object.entries(STRINGS)) assert.deepEqual(keys(strings).sort(), english, language);
    assert.equal(STRINGS.de.rateLimited(5), "Gerade sind es zu viele Nachrichten. Bitte versuchen Sie es in 5 Sekunden erneut.");
    assert.equal(STRINGS.en.rateLimited(1), "Too many messages right now. Please try again in 1 second.");
  });
});
