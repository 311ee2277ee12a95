// The availability a store states for its products (POST / PUT /v1/products, issue 38 item 3) is
// what the assistant's embedded catalogue reads live: catalogue search cards and chat product
// cards show it ("in stock", "low stock", "out of stock") instead of "availability not checked",
// it wins over stock guessed from metadata, a change shows on the next read, and a product
// without one is still "availability not checked".
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, machineToken } from "../../../test/support/factories.js";
import { anonymousSession, chatShop, openThread, putSettings, type ChatShop } from "../../../test/support/chat.js";
import { solidImage, startImageHost, type ImageHost } from "../../../test/support/servers.js";

interface Card {
  product_id: string;
  title: string;
  availability_state: string;
  availability: { state: string; quantity?: number } | null;
}
interface LiveFact {
  product_id: string;
  field: string;
  value: unknown;
  source: string;
}

describeEachDialect("assistant: the store's stated availability on catalogue and chat cards", (dialect) => {
  let t: TestApp;
  let host: ImageHost;
  let a: ChatShop;
  let b: ChatShop;
  let tokenA: string;

  const putProduct = async (id: string, payload: Record<string, unknown>, token = tokenA) => {
    const res = await t.search.inject({ method: "PUT", url: `/v1/products/${id}`, headers: bearer(token), payload });
    assert.equal(res.statusCode, 200, res.body);
  };
  const catalog = async (session: string, q: string) => {
    const res = await t.assistant.inject({
      method: "GET",
      url: `/v1/catalog/search?q=${encodeURIComponent(q)}`,
      headers: bearer(session),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { products: Card[]; live_facts: LiveFact[] };
  };
  const chat = async (session: string, text: string) => {
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(session),
      payload: { thread_id: await openThread(t, session), text },
    });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { answer: { response_markdown: string; products: Card[]; live_facts: LiveFact[] } }).answer;
  };
  const byId = (cards: Card[]) => new Map(cards.map((c) => [c.product_id, c]));

  before(async () => {
    t = await createTestApp({ dialect, model: true });
    host = await startImageHost();
    [a, b] = [await chatShop(t), await chatShop(t)];
    await putSettings(t, a, { currency: "USD", support_contact: { email: "help@shop-a.example" } });
    tokenA = await machineToken(t.search, a.store);
    const products = [
      { id: "dress-red", hex: "#d01010", name: "Red Linen Dress", availability: { state: "in_stock", quantity: 12 } },
      { id: "dress-blue", hex: "#1030d0", name: "Blue Linen Dress", availability: { state: "low_stock", quantity: 2 } },
      // Stated availability wins over a stock number kept in metadata.
      { id: "dress-black", hex: "#101010", name: "Black Linen Dress", availability: { state: "out_of_stock" }, inventory_quantity: 50 },
      { id: "dress-green", hex: "#10a030", name: "Green Linen Dress" },
    ];
    for (const p of products) {
      const image_url = host.put(`/${p.id}.png`, await solidImage(p.hex));
      const metadata = {
        name: p.name,
        category: "dresses",
        price: 49.9,
        ...(p.inventory_quantity ? { inventory_quantity: p.inventory_quantity } : {}),
      };
      const res = await t.search.inject({
        method: "POST",
        url: "/v1/products",
        headers: bearer(tokenA),
        payload: { product_id: p.id, image_url, metadata, ...(p.availability ? { availability: p.availability } : {}) },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
  });
  after(async () => {
    await host.close();
    await t.close();
  });

  test("catalogue search: stated availability is a live read with its quantity; none stays unavailable", async () => {
    const body = await catalog(await anonymousSession(t, a), "linen dress");
    const cards = byId(body.products);
    assert.deepEqual(
      ["prd_dress-red", "prd_dress-blue", "prd_dress-black", "prd_dress-green"].map((id) => {
        const c = cards.get(id);
        return [id, c?.availability_state, c?.availability];
      }),
      [
        ["prd_dress-red", "live", { state: "in_stock", quantity: 12 }],
        ["prd_dress-blue", "live", { state: "low_stock", quantity: 2 }],
        ["prd_dress-black", "live", { state: "out_of_stock" }],
        ["prd_dress-green", "unavailable", null],
      ],
    );
    const facts = body.live_facts.filter((f) => f.field === "availability");
    assert.deepEqual(
      facts.map((f) => f.product_id).sort(),
      ["prd_dress-black", "prd_dress-blue", "prd_dress-red"],
      "one availability live fact per product with a stated value",
    );
    assert.ok(facts.every((f) => f.source === "shopsight_catalog"));
  });

  test("chat cards say in stock / low stock / out of stock, and 'availability not checked' only without a value", async () => {
    const answer = await chat(await anonymousSession(t, a), "Show me linen dresses");
    const md = answer.response_markdown;
    assert.match(md, /\*\*Red Linen Dress\*\* — \$49\.90 · in stock/, md);
    assert.match(md, /\*\*Blue Linen Dress\*\* — \$49\.90 · low stock/, md);
    assert.match(md, /\*\*Black Linen Dress\*\* — \$49\.90 · out of stock/, md);
    assert.match(md, /\*\*Green Linen Dress\*\* — \$49\.90 · availability not checked/, md);
    assert.deepEqual(byId(answer.products).get("prd_dress-blue")?.availability, { state: "low_stock", quantity: 2 });
  });

  test("live means live: a PUT of availability shows on the next answer; clearing it goes back to 'not checked'", async () => {
    const session = await anonymousSession(t, a);
    await putProduct("dress-red", { availability: { state: "out_of_stock", quantity: 0 } });
    let md = (await chat(session, "Show me linen dresses")).response_markdown;
    assert.match(md, /\*\*Red Linen Dress\*\* — \$49\.90 · out of stock/, md);
    await putProduct("dress-red", { availability: null });
    md = (await chat(session, "Show me linen dresses")).response_markdown;
    assert.match(md, /\*\*Red Linen Dress\*\* — \$49\.90 · availability not checked/, md);
    await putProduct("dress-red", { availability: { state: "in_stock", quantity: 12 } });
  });

  test("isolation: another store's shoppers never see this store's products or their availability", async () => {
    const body = await catalog(await anonymousSession(t, b), "linen dress");
    assert.deepEqual(body.products, []);
    assert.deepEqual(body.live_facts, []);
  });
});
