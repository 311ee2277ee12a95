// The composition root hands every service its collaborators: a knowledge engine given to
// composeAssistant is the one the chat asks (nothing inside the chat builds its own), and the
// services of one composition share their collaborators (the catalogue search and the chat read
// through one storefront gateway).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../test/support/harness.js";
import { bearer } from "../../test/support/factories.js";
import { anonymousSession, chatShop, openThread, type ChatShop } from "../../test/support/chat.js";
import type { App } from "../platform/http/app.js";
import { buildAssistantApp } from "./app.js";
import { composeAssistant, onFirstUse } from "./compose.js";
import type { Knowledge } from "./knowledge/types.js";

describeEachDialect("assistant composition root", (dialect) => {
  let t: TestApp;
  let app: App; // the Assistant API composed with a stand-in knowledge engine
  let a: ChatShop;
  const asked: Array<{ storeId: string; text: string }> = [];
  const versions = { policies: {}, index_built_at: new Date(0).toISOString() };
  const knowledge: Knowledge = {
    classify: async (_storeId, text) => ({ kind: "policy", query: text }),
    answer: async (storeId, text) => ({ result: (await knowledge.ground(storeId, text, "en")).result, versions }),
    ground: async (storeId, text) => {
      asked.push({ storeId, text });
      return {
        result: { kind: "no_evidence", markdown: "Answered by the knowledge engine handed to composeAssistant." },
        versions,
        lang: "en",
      };
    },
    phrase: async (_text, { result, versions }) => ({ result, versions }),
  };

  before(async () => {
    t = await createTestApp({ dialect });
    app = await buildAssistantApp(t.ctx, { logger: false, services: composeAssistant(t.ctx, { catalog: t.services.catalog, knowledge }) });
    await app.ready();
    a = await chatShop(t);
  });
  after(async () => {
    await app.close();
    await t.close();
  });

  test("the chat asks the knowledge engine it was composed with", async () => {
    const token = await anonymousSession(t, a);
    const threadId = await openThread(t, token);
    const res = await app.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(token),
      payload: { thread_id: threadId, text: "Do you ship to Norway?" },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { answer: { response_markdown: string; limitations: Array<{ code: string }> } };
    assert.match(body.answer.response_markdown, /^Answered by the knowledge engine handed to composeAssistant\./);
    assert.ok(body.answer.limitations.some((l) => l.code === "no_evidence"));
    assert.deepEqual(asked, [{ storeId: a.storeId, text: "Do you ship to Norway?" }]);
  });

  test("one composition: the chat and the catalogue search share the storefront gateway, the sessions share one service", () => {
    const services = composeAssistant(t.ctx, { catalog: t.services.catalog });
    const chat = services.chat as unknown as { gateway: unknown; sessions: unknown; settings: unknown };
    const catalog = services.catalog as unknown as { gateway: unknown };
    assert.equal(chat.gateway, services.gateway);
    assert.equal(catalog.gateway, services.gateway);
    assert.equal(chat.sessions, services.sessions);
    assert.equal(chat.settings, services.settings);
  });
});

test("the knowledge engine built on first use is built once and is handed every argument (a follow-up's previous question too)", async () => {
  let built = 0;
  const seen: unknown[][] = [];
  const lazy = onFirstUse(() => {
    built++;
    return {
      classify: async (...args) => {
        seen.push(args);
        return { kind: "policy", query: String(args[1]) };
      },
      answer: async () => ({
        result: { kind: "no_evidence", markdown: "" },
        versions: { policies: {}, index_built_at: new Date(0).toISOString() },
      }),
      ground: async () => ({
        result: { kind: "no_evidence", markdown: "" },
        versions: { policies: {}, index_built_at: new Date(0).toISOString() },
        lang: "en",
      }),
      phrase: async (_text, { result, versions }) => ({ result, versions }),
    };
  });
  assert.equal(built, 0);
  const previous = async () => "can I return shoes?";
  await lazy.classify("s1", "and during the holidays?", "en", { previous });
  await lazy.classify("s1", "thanks", "en");
  assert.equal(built, 1);
  assert.equal(seen[0]?.[3] && (seen[0][3] as { previous?: unknown }).previous, previous);
  assert.equal(seen[1]?.length, 3);
});
