// Scale-out for the Assistant API: two processes (contexts with their own pools and limiters) over
// one PostgreSQL schema and one Redis. A thread streamed through one process is replayed by the
// other (events live in the database), a session revoked through one is refused by the other at
// once, and a free store's turns-per-minute budget is one budget across both.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { bearer } from "../support/factories.js";
import { createPeers, describeWithPostgresAndRedis, type Peers } from "../support/peers.js";
import { anonymousSession, chatShop, openThread, parseSse, putPolicy } from "../support/chat.js";
import type { TestApp } from "../support/harness.js";
import { buildAssistantApp } from "../../src/assistant/app.js";
import { composeAssistant } from "../../src/assistant/compose.js";
import { PLAN_TURN_LIMITS } from "../../src/assistant/turns/limits.js";
import { ManualClock } from "../../src/platform/clock.js";

describeWithPostgresAndRedis("scale: the chat across processes", () => {
  let cluster: Peers;
  let a: TestApp;
  let b: TestApp;

  before(async () => {
    // A fixed clock: the turn budget is a fixed one-minute window, which a real clock could cross mid-test.
    cluster = await createPeers("postgres", { redis: true, clock: new ManualClock(Date.parse("2026-05-04T10:00:00Z")) });
    const apps: TestApp[] = [];
    for (const peer of cluster.peers) {
      const assistant = await buildAssistantApp(peer.ctx, { services: composeAssistant(peer.ctx, { catalog: peer.services.catalog }) });
      apps.push({ ...peer.asTestApp(), assistant, close: () => assistant.close() });
    }
    [a, b] = apps as [TestApp, TestApp];
  });
  after(async () => {
    await a.close();
    await b.close();
    await cluster.close();
  });

  test("a turn streamed through one process is replayed by the other after Last-Event-ID", async () => {
    const shop = await chatShop(a);
    await putPolicy(a, shop, "returns", {
      handle: "returns",
      title: "Returns",
      body_markdown: "Items can be returned within 30 days of delivery.",
    });
    const token = await anonymousSession(a, shop);
    const thread = await openThread(a, token);
    const streamed = await a.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages/stream",
      headers: bearer(token),
      payload: { thread_id: thread, text: "How many days do I have to return an item?" },
    });
    assert.equal(streamed.statusCode, 200, streamed.body);
    const events = parseSse(streamed.body);
    assert.equal(events.at(-1)!.event, "message.completed");
    assert.ok(events.length >= 3);

    // The other process replays everything after the first event, in order, with the same ids.
    const replay = await b.assistant.inject({
      method: "GET",
      url: `/v1/chat/sessions/${thread}/events`,
      headers: { ...bearer(token), "last-event-id": String(events[0]!.id) },
    });
    assert.equal(replay.statusCode, 200, replay.body);
    const replayed = parseSse(replay.body);
    assert.deepEqual(
      replayed.map((e) => [e.id, e.event]),
      events.slice(1).map((e) => [e.id, e.event]),
    );
    assert.deepEqual(replayed.at(-1)!.data, events.at(-1)!.data);

    // Revoked through B, refused by A at once.
    const revoke = await b.assistant.inject({
      method: "POST",
      url: "/v1/sessions/revoke",
      headers: bearer(token),
      payload: { reason: "scale test" },
    });
    assert.equal(revoke.statusCode, 204, revoke.body);
    const refused = await a.assistant.inject({ method: "GET", url: `/v1/chat/sessions/${thread}`, headers: bearer(token) });
    assert.equal(refused.statusCode, 401, refused.body);
  });

  test("a free store's turns per minute are one budget across both processes", async () => {
    const shop = await chatShop(a, "free");
    const budget = PLAN_TURN_LIMITS.free.turns_per_minute;
    const statuses: number[] = [];
    for (let i = 0; i < budget + 4; i++) {
      const t = i % 2 === 0 ? a : b;
      // A fresh session per turn: the per-session bound is not what is measured here.
      const token = await anonymousSession(t, shop);
      const thread = await openThread(t, token);
      const res = await t.assistant.inject({
        method: "POST",
        url: "/v1/chat/messages",
        headers: bearer(token),
        payload: { thread_id: thread, text: "help" },
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) assert.equal(res.json().code, "RATE_LIMITED");
    }
    assert.deepEqual(statuses, [...Array(budget).fill(200), 429, 429, 429, 429]);
  });
});
