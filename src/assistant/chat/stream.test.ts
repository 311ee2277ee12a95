import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer } from "../../../test/support/factories.js";
import { testEnv } from "../../../test/support/env.js";
import {
  anonymousSession,
  chatShop,
  openThread,
  parseSse,
  putCatalogProduct,
  putPolicy,
  type ChatShop,
} from "../../../test/support/chat.js";
import { ManualClock } from "../../platform/clock.js";
import { createConcurrencyFactory } from "../../platform/concurrency.js";
import { PLAN_TURN_LIMITS, SESSION_LIMITS, TURN_LEASE_MS } from "../turns/limits.js";

describeEachDialect("assistant chat: streaming, replay and limits", (dialect) => {
  let t: TestApp;
  let clock: ManualClock;
  let a: ChatShop;
  let b: ChatShop;
  let baseUrl: string;

  const POLICY_Q = "How long does standard shipping take?";

  before(async () => {
    clock = new ManualClock(Date.parse("2026-03-02T09:00:00Z"));
    // With Redis when available, so limits and the concurrency semaphore are the shared ones.
    t = await createTestApp({ dialect, clock, ...(testEnv.redisUrl ? { env: { REDIS_URL: testEnv.redisUrl } } : {}) });
    [a, b] = [await chatShop(t), await chatShop(t, "free")];
    for (const s of [a, b]) {
      await putPolicy(t, s, "shipping", {
        handle: "shipping",
        title: "Shipping",
        body_markdown: "# Shipping\n\nStandard shipping takes 3 to 5 business days within the country.",
      });
    }
    await putCatalogProduct(
      t,
      a.storeId,
      "dress-red",
      { name: "Red Linen Dress", category: "dresses", price: 49.9, inventory_quantity: 12 },
      0,
    );
    await t.assistant.listen({ port: 0, host: "127.0.0.1" });
    baseUrl = `http://127.0.0.1:${(t.assistant.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await t.close();
  });
  beforeEach(() => {
    clock.advance(61_000);
  });

  test("stream (inject): ordered SSE frames with ids, ending in message.completed = {outcome, …answer}", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages/stream",
      headers: bearer(token),
      payload: { thread_id: thr, text: POLICY_Q },
    });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers["content-type"]), /^text\/event-stream/);
    assert.ok(res.headers["x-correlation-id"], "headers set before the stream are kept");
    const events = parseSse(res.body);
    assert.deepEqual(
      events.map((e) => e.event).filter((n) => n !== "answer.delta"),
      ["turn.started", "intent.classified", "retrieval.completed", "message.completed"],
    );
    assert.deepEqual(
      events.map((e) => e.id),
      events.map((_, i) => i + 1),
      "per-thread ids 1, 2, 3 …",
    );
    const done = events.at(-1)!.data as {
      outcome: string;
      answer_status: string;
      citations: Array<{ concept_id: string }>;
      response_markdown: string;
    };
    assert.equal(done.outcome, "answer");
    assert.equal(done.answer_status, "answered");
    assert.deepEqual(
      done.citations.map((c) => c.concept_id),
      ["shipping"],
    );
    assert.equal(
      events
        .filter((e) => e.event === "answer.delta")
        .map((e) => e.data.text)
        .join(""),
      done.response_markdown,
    );

    // The same turn, as the transcript shows it: the completed answer equals the streamed one.
    const transcript = await t.assistant.inject({ method: "GET", url: `/v1/chat/sessions/${thr}`, headers: bearer(token) });
    const messages = (
      transcript.json() as { messages: Array<{ role: string; outcome: string | null; answer: Record<string, unknown> | null }> }
    ).messages;
    assert.deepEqual({ outcome: messages[1]!.outcome, ...messages[1]!.answer }, done);
  });

  test("stream over a real listener: frames arrive in order; replay with Last-Event-ID and ?after= continues from there", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    const res = await fetch(`${baseUrl}/v1/chat/messages/stream`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ thread_id: thr, text: "Show me linen dresses" }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
    assert.equal(res.headers.get("cache-control"), "no-cache, no-transform");
    const first = parseSse(await res.text());
    assert.equal(first.at(-1)!.event, "message.completed");
    assert.equal(first.at(-1)!.data.outcome, "answer");
    assert.ok(first.some((e) => e.event === "products.read"));

    // A second turn in the same thread continues the sequence.
    const second = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(token),
      payload: { thread_id: thr, text: POLICY_Q },
    });
    const secondEvents = (second.json() as { events: Array<{ id: number; event: string }> }).events;
    assert.equal(secondEvents[0]!.id, first.at(-1)!.id + 1);

    // Reconnect after the 3rd event: everything later, in order, over SSE …
    const replay = await fetch(`${baseUrl}/v1/chat/sessions/${thr}/events`, { headers: { ...bearer(token), "last-event-id": "3" } });
    assert.equal(replay.status, 200);
    assert.match(replay.headers.get("content-type") ?? "", /^text\/event-stream/);
    const replayed = parseSse(await replay.text());
    const all = [...first, ...secondEvents.map((e) => ({ id: e.id, event: e.event }))];
    assert.deepEqual(
      replayed.map((e) => [e.id, e.event]),
      all.filter((e) => e.id > 3).map((e) => [e.id, e.event]),
    );
    assert.deepEqual(replayed.find((e) => e.event === "message.completed")!.data, first.at(-1)!.data);

    // … and as JSON with ?after= (the header wins when both are given).
    const json = await t.assistant.inject({
      method: "GET",
      url: `/v1/chat/sessions/${thr}/events?after=${first.at(-1)!.id}`,
      headers: { ...bearer(token), accept: "application/json" },
    });
    assert.equal(json.statusCode, 200, json.body);
    const body = json.json() as {
      thread_id: string;
      events: Array<{ id: number; event: string; turn_id: string }>;
      last_event_id: number;
      correlation_id: string;
    };
    assert.deepEqual(
      body.events.map((e) => e.id),
      secondEvents.map((e) => e.id),
    );
    assert.equal(body.last_event_id, secondEvents.at(-1)!.id);
    assert.ok(body.correlation_id);
    const both = await t.assistant.inject({
      method: "GET",
      url: `/v1/chat/sessions/${thr}/events?after=0`,
      headers: { ...bearer(token), accept: "application/json", "last-event-id": String(secondEvents.at(-1)!.id) },
    });
    assert.deepEqual((both.json() as { events: unknown[]; last_event_id: number }).events, []);
    assert.equal((both.json() as { last_event_id: number }).last_event_id, secondEvents.at(-1)!.id);
  });

  test("replay: bad parameters are VALIDATION_FAILED; another session's or store's thread is 404", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    for (const q of ["?after=-1", "?after=abc", "?since=1"]) {
      const res = await t.assistant.inject({ method: "GET", url: `/v1/chat/sessions/${thr}/events${q}`, headers: bearer(token) });
      assert.equal(res.statusCode, 400, q);
      assert.equal(res.json().code, "VALIDATION_FAILED");
    }
    const badHeader = await t.assistant.inject({
      method: "GET",
      url: `/v1/chat/sessions/${thr}/events`,
      headers: { ...bearer(token), "last-event-id": "x1" },
    });
    assert.equal(badHeader.statusCode, 400);
    for (const other of [await anonymousSession(t, a), await anonymousSession(t, b)]) {
      const res = await t.assistant.inject({ method: "GET", url: `/v1/chat/sessions/${thr}/events`, headers: bearer(other) });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().code, "NOT_FOUND");
      assert.match(String(res.headers["content-type"]), /problem\+json/);
    }
  });

  test("stream: validation, ownership and limits answer problem details before any 200 header", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    const bad = await fetch(`${baseUrl}/v1/chat/messages/stream`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify({ thread_id: thr }),
    });
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get("content-type") ?? "", /problem\+json/);
    assert.equal(((await bad.json()) as { code: string }).code, "VALIDATION_FAILED");
    const other = await anonymousSession(t, b);
    const notMine = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages/stream",
      headers: bearer(other),
      payload: { thread_id: thr, text: POLICY_Q },
    });
    assert.equal(notMine.statusCode, 404);
    assert.equal(notMine.json().code, "NOT_FOUND");

    for (let i = 0; i < SESSION_LIMITS.turns_per_minute; i++) {
      const ok = await t.assistant.inject({
        method: "POST",
        url: "/v1/chat/messages/stream",
        headers: bearer(token),
        payload: { thread_id: thr, text: POLICY_Q },
      });
      assert.equal(ok.statusCode, 200, ok.body);
    }
    const limited = await fetch(`${baseUrl}/v1/chat/messages/stream`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify({ thread_id: thr, text: POLICY_Q }),
    });
    assert.equal(limited.status, 429);
    assert.match(limited.headers.get("content-type") ?? "", /problem\+json/);
    const problem = (await limited.json()) as { code: string; details: { window: string; retry_after: number; retry_at: string } };
    assert.equal(problem.code, "RATE_LIMITED");
    assert.equal(problem.details.window, "session_turns_per_minute");
    assert.equal(Number(limited.headers.get("retry-after")), problem.details.retry_after);
  });

  test("per-session bound: turns per minute (refused, not queued), then the next window admits again", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    const post = () =>
      t.assistant.inject({ method: "POST", url: "/v1/chat/messages", headers: bearer(token), payload: { thread_id: thr, text: POLICY_Q } });
    for (let i = 0; i < SESSION_LIMITS.turns_per_minute; i++) assert.equal((await post()).statusCode, 200);
    const limited = await post();
    assert.equal(limited.statusCode, 429);
    const problem = limited.json() as {
      code: string;
      detail: string;
      correlation_id: string;
      details: { window: string; limit: number; window_seconds: number; retry_after: number; retry_at: string };
    };
    assert.equal(problem.code, "RATE_LIMITED");
    assert.equal(problem.details.window, "session_turns_per_minute");
    assert.equal(problem.details.limit, SESSION_LIMITS.turns_per_minute);
    assert.equal(problem.details.window_seconds, 60);
    const windowEnd = Math.floor(clock.now() / 60_000) * 60_000 + 60_000;
    assert.equal(problem.details.retry_after, Math.ceil((windowEnd - clock.now()) / 1000));
    assert.equal(problem.details.retry_at, new Date(clock.now() + problem.details.retry_after * 1000).toISOString());
    assert.equal(limited.headers["retry-after"], String(problem.details.retry_after));
    assert.match(problem.detail, /10 turns per minute/);
    // Refused, not queued: the refused message is not in the transcript.
    const transcript = await t.assistant.inject({ method: "GET", url: `/v1/chat/sessions/${thr}`, headers: bearer(token) });
    assert.equal(
      (transcript.json() as { messages: Array<{ role: string }> }).messages.filter((m) => m.role === "user").length,
      SESSION_LIMITS.turns_per_minute,
    );
    // Another session of the same store is not affected.
    const other = await anonymousSession(t, a);
    const ok = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(other),
      payload: { thread_id: await openThread(t, other), text: POLICY_Q },
    });
    assert.equal(ok.statusCode, 200);
    clock.advance(problem.details.retry_after * 1000);
    assert.equal((await post()).statusCode, 200);
  });

  test("per-thread bound: at most max_turns_per_thread turns, then open a new thread", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    for (let i = 0; i < SESSION_LIMITS.max_turns_per_thread; i++) {
      if (i > 0 && i % SESSION_LIMITS.turns_per_minute === 0) clock.advance(60_000);
      const res = await t.assistant.inject({
        method: "POST",
        url: "/v1/chat/messages",
        headers: bearer(token),
        payload: { thread_id: thr, text: "hi" },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    clock.advance(60_000);
    const limited = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(token),
      payload: { thread_id: thr, text: "hi" },
    });
    assert.equal(limited.statusCode, 429);
    const problem = limited.json() as { code: string; details: { window: string; limit: number; retry_after: number | null } };
    assert.equal(problem.code, "RATE_LIMITED");
    assert.equal(problem.details.window, "thread_turns");
    assert.equal(problem.details.limit, SESSION_LIMITS.max_turns_per_thread);
    assert.equal(problem.details.retry_after, null, "waiting does not help: a new thread does");
    const fresh = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(token),
      payload: { thread_id: await openThread(t, token), text: "hi" },
    });
    assert.equal(fresh.statusCode, 200);
  });

  test("plan bound: turns per minute per store (free plan), across sessions", async () => {
    const limit = PLAN_TURN_LIMITS.free.turns_per_minute;
    let sent = 0;
    let token = "";
    let thr = "";
    while (sent < limit) {
      if (sent % SESSION_LIMITS.turns_per_minute === 0) {
        token = await anonymousSession(t, b);
        thr = await openThread(t, token);
      }
      const res = await t.assistant.inject({
        method: "POST",
        url: "/v1/chat/messages",
        headers: bearer(token),
        payload: { thread_id: thr, text: POLICY_Q },
      });
      assert.equal(res.statusCode, 200, res.body);
      sent++;
    }
    const fresh = await anonymousSession(t, b);
    const limited = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(fresh),
      payload: { thread_id: await openThread(t, fresh), text: POLICY_Q },
    });
    assert.equal(limited.statusCode, 429);
    const problem = limited.json() as { code: string; details: { window: string; plan: string; limit: number; retry_after: number } };
    assert.deepEqual(
      [problem.code, problem.details.window, problem.details.plan, problem.details.limit],
      ["RATE_LIMITED", "store_turns_per_minute", "free", limit],
    );
    assert.ok(Number(limited.headers["retry-after"]) >= 1);
    // Store A (another store) is unaffected.
    const other = await anonymousSession(t, a);
    const ok = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(other),
      payload: { thread_id: await openThread(t, other), text: POLICY_Q },
    });
    assert.equal(ok.statusCode, 200);
  });

  test("plan bound: concurrent turns per store — slots held elsewhere refuse at once; a crashed holder's lease expires", async () => {
    const limit = PLAN_TURN_LIMITS.free.concurrent_turns;
    // Another process of the same deployment holding the store's slots: through Redis (with the
    // deployment's key prefix) when configured, else this context's semaphore.
    const peer = testEnv.redisUrl ? new Redis(testEnv.redisUrl, { keyPrefix: t.ctx.redis?.options.keyPrefix ?? "" }) : undefined;
    try {
      const semaphore = (peer ? createConcurrencyFactory(peer, clock) : t.ctx.concurrency)({
        name: "assistant-turns",
        leaseMs: TURN_LEASE_MS,
      });
      const leases = [];
      for (let i = 0; i < limit; i++) {
        const slot = await semaphore.acquire(b.storeId, limit);
        assert.ok(slot.acquired);
        leases.push(slot.lease);
      }
      const token = await anonymousSession(t, b);
      const thr = await openThread(t, token);
      const limited = await t.assistant.inject({
        method: "POST",
        url: "/v1/chat/messages",
        headers: bearer(token),
        payload: { thread_id: thr, text: POLICY_Q },
      });
      assert.equal(limited.statusCode, 429);
      const problem = limited.json() as {
        code: string;
        details: { window: string; limit: number; in_flight: number; retry_after: number };
      };
      assert.deepEqual(
        [problem.code, problem.details.window, problem.details.limit, problem.details.in_flight],
        ["RATE_LIMITED", "store_concurrent_turns", limit, limit],
      );
      assert.equal(limited.headers["retry-after"], String(problem.details.retry_after));
      const streamed = await t.assistant.inject({
        method: "POST",
        url: "/v1/chat/messages/stream",
        headers: bearer(token),
        payload: { thread_id: thr, text: POLICY_Q },
      });
      assert.equal(streamed.statusCode, 429);

      await leases[0]!.release();
      clock.advance(60_000);
      assert.equal(
        (
          await t.assistant.inject({
            method: "POST",
            url: "/v1/chat/messages",
            headers: bearer(token),
            payload: { thread_id: thr, text: POLICY_Q },
          })
        ).statusCode,
        200,
      );
      // The finished turn released its own slot: the remaining held lease plus one new turn fit.
      assert.equal(await semaphore.inFlight(b.storeId), limit - 1);
      // A holder that crashed never releases: its lease runs out after TURN_LEASE_MS.
      const again = await semaphore.acquire(b.storeId, limit);
      assert.ok(again.acquired);
      assert.equal(
        (
          await t.assistant.inject({
            method: "POST",
            url: "/v1/chat/messages",
            headers: bearer(token),
            payload: { thread_id: thr, text: POLICY_Q },
          })
        ).statusCode,
        429,
      );
      clock.advance(TURN_LEASE_MS);
      assert.equal(
        (
          await t.assistant.inject({
            method: "POST",
            url: "/v1/chat/messages",
            headers: bearer(token),
            payload: { thread_id: thr, text: POLICY_Q },
          })
        ).statusCode,
        200,
      );
    } finally {
      peer?.disconnect();
    }
  });
});
