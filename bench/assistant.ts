// `npm run bench:assistant [-- --turns 60 --seconds 10 --clients 4]`
//
// The Assistant API over a real listener on loopback (SQLite, tiny test model), with the
// evaluation's fixture store (14 policies, 12 products; eval/assistant/northwind.json):
//   1. sequential turns, p50/p95 per kind: a policy question (retrieval + extractive answer), a
//      product request (catalogue search + live reads), a clarification, and catalogue search;
//   2. streaming: time to the first event and to message.completed;
//   3. throughput: `--clients` concurrent shoppers for `--seconds`, each turn in a fresh session
//      and thread (per-session bounds would otherwise refuse them), counting 200s and 429s.
import { parseArgs } from "node:util";
import type { AddressInfo } from "node:net";
import { createTestApp } from "../test/support/harness.js";
import { setUp } from "../eval/assistant/run.js";
import { quantile } from "./vectors.js";

const { values: args } = parseArgs({
  options: {
    turns: { type: "string", default: "60" },
    seconds: { type: "string", default: "10" },
    clients: { type: "string", default: "4" },
  },
});
const TURNS = Number(args.turns);
const SECONDS = Number(args.seconds);
const CLIENTS = Number(args.clients);

// TRUST_PROXY: each simulated shopper names its own address (the mint limit is per client address).
const t = await createTestApp({ dialect: "sqlite", model: true, env: { TRUST_PROXY: "true" } });
let ipCounter = 0;
try {
  const { publicKey } = await setUp(t);
  await t.assistant.listen({ port: 0, host: "127.0.0.1" });
  const base = `http://127.0.0.1:${(t.assistant.server.address() as AddressInfo).port}`;

  const post = async (path: string, body: unknown, token?: string) => {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        // The mint limit is per client address: the bench speaks for many shoppers.
        "x-forwarded-for": `10.9.${(ipCounter >> 8) & 255}.${ipCounter++ & 255}`,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });
    return res;
  };
  const conversation = async () => {
    const s = await post("/v1/sessions/anonymous", { store_public_key: publicKey, locale: "en" });
    if (s.status !== 200) throw new Error(`mint: ${s.status} ${await s.text()}`);
    const token = ((await s.json()) as { session_token: string }).session_token;
    const th = await post("/v1/chat/sessions", { locale: "en" }, token);
    const threadId = ((await th.json()) as { thread_id: string }).thread_id;
    return { token, threadId };
  };

  const kinds: Array<{ name: string; text: string }> = [
    { name: "policy question", text: "Which payment methods do you accept?" },
    { name: "product request", text: "Show me red dresses" },
    { name: "clarification", text: "help" },
  ];
  const lines: string[] = [];
  const fmt = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `p50 ${quantile(s, 0.5).toFixed(1)} ms / p95 ${quantile(s, 0.95).toFixed(1)} ms`;
  };

  for (const kind of kinds) {
    const times: number[] = [];
    let outcome = "";
    for (let i = 0; i < TURNS; i++) {
      const { token, threadId } = await conversation();
      const started = performance.now();
      const res = await post("/v1/chat/messages", { thread_id: threadId, text: kind.text }, token);
      const body = (await res.json()) as { outcome: string };
      times.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`${kind.name}: ${res.status} ${JSON.stringify(body)}`);
      outcome = body.outcome;
    }
    lines.push(`${kind.name.padEnd(18)} (${outcome}) ${fmt(times)} over ${TURNS} turns`);
  }

  {
    const { token } = await conversation();
    const times: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const started = performance.now();
      const res = await fetch(`${base}/v1/catalog/search?q=dress&limit=10`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`catalog search: ${res.status}`);
      times.push(performance.now() - started);
    }
    lines.push(`${"catalogue search".padEnd(18)} (10 live reads) ${fmt(times)} over ${TURNS} calls`);
  }

  {
    const first: number[] = [];
    const done: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const { token, threadId } = await conversation();
      const started = performance.now();
      const res = await post("/v1/chat/messages/stream", { thread_id: threadId, text: "What does shipping cost?" }, token);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      let sawFirst = false;
      for (;;) {
        const { value, done: end } = await reader.read();
        if (end) break;
        text += decoder.decode(value, { stream: true });
        if (!sawFirst && text.includes("\n\n")) {
          first.push(performance.now() - started);
          sawFirst = true;
        }
      }
      if (!text.includes("event: message.completed")) throw new Error("stream ended without message.completed");
      done.push(performance.now() - started);
    }
    lines.push(`stream first event  ${fmt(first)}; message.completed ${fmt(done)} over ${TURNS} turns`);
  }

  {
    const deadline = performance.now() + SECONDS * 1000;
    const counts = { ok: 0, limited: 0, other: 0 };
    const latencies: number[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        let i = 0;
        while (performance.now() < deadline) {
          const { token, threadId } = await conversation();
          const text = kinds[(c + i++) % kinds.length]!.text;
          const started = performance.now();
          const res = await post("/v1/chat/messages", { thread_id: threadId, text }, token);
          await res.arrayBuffer();
          latencies.push(performance.now() - started);
          if (res.status === 200) counts.ok++;
          else if (res.status === 429) counts.limited++;
          else counts.other++;
        }
      }),
    );
    lines.push(
      `throughput          ${CLIENTS} clients for ${SECONDS} s: ${(counts.ok / SECONDS).toFixed(1)} turns/s (${counts.ok} × 200, ${counts.limited} × 429, ${counts.other} other), turn ${fmt(latencies)}`,
    );
  }

  process.stdout.write(
    `\nAssistant API bench (SQLite, tiny test model, loopback; each turn in a fresh session)\n${lines.map((l) => `  ${l}`).join("\n")}\n`,
  );
} finally {
  await t.close();
}
