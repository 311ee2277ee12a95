// Stopping never depends on clients closing their connections (src/platform/http/shutdown.ts):
// with a slow request in flight, an idle keep-alive connection and an open server-sent-event
// stream held by clients that never close them, closing the APIs answers the slow request in
// full, ends the event stream with a retry hint, closes the idle connection, and completes.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type net from "node:net";
import { createTestApp, type TestApp } from "./support/harness.js";
import { bearer } from "./support/factories.js";
import { anonymousSession, chatShop, openThread, type ChatShop } from "./support/chat.js";
import { startStorefront, fakeProduct, type StorefrontServer } from "./support/storefront-server.js";
import { closeServer, listen } from "./support/servers.js";
import { closeGracefully, SHUTDOWN_SSE_RETRY_MS } from "../src/platform/http/shutdown.js";

let t: TestApp;
let shop: ChatShop;
let storefront: StorefrontServer;
let slowOrigin: http.Server;
let releaseSlow: () => void = () => undefined;
before(async () => {
  t = await createTestApp();
  await t.search.listen({ port: 0, host: "127.0.0.1" });
  await t.assistant.listen({ port: 0, host: "127.0.0.1" });
  shop = await chatShop(t);
  storefront = await startStorefront();
  storefront.products = [fakeProduct(1, "Wool scarf", "20.00", { product_type: "Scarves", available: 3 })];
  const conn = await t.assistant.inject({
    method: "POST",
    url: "/v1/admin/connections/storefront",
    headers: bearer(shop.owner),
    payload: { store_url: storefront.url, private_token: storefront.token, reason: "shutdown test" },
  });
  assert.equal(conn.statusCode, 201, conn.body);
  // A site that answers only when the test says so (a slow upstream behind a slow request).
  slowOrigin = http.createServer((_req, res) => {
    releaseSlow = () => res.writeHead(404, { "content-type": "text/plain" }).end("not a storefront");
  });
});
after(async () => {
  await storefront.close();
  slowOrigin.closeAllConnections();
  await closeServer(slowOrigin);
  if (t.search.server.listening || t.assistant.server.listening) await Promise.allSettled([t.search.close(), t.assistant.close()]);
  await t.close().catch(() => undefined);
});

const portOf = (server: http.Server) => (server.address() as net.AddressInfo).port;

/** Sends a request and resolves with the status, the body text and whether the socket was reset. */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
  onData?: (chunk: string) => void,
) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        text += c;
        onData?.(c);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

test("closing answers the slow request, ends the SSE stream with a retry hint and closes idle keep-alive connections", async () => {
  const slowUrl = await listen(slowOrigin);
  const chatPort = portOf(t.assistant.server);
  const searchPort = portOf(t.search.server);

  // 1. An idle keep-alive connection: one request answered, the socket kept open by the client.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const idle = await new Promise<net.Socket>((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port: searchPort, path: "/health", agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(req.socket as net.Socket));
    });
    req.on("error", reject);
  });
  const idleClosed = new Promise<void>((resolve) => idle.once("close", () => resolve()));

  // 2. An open event stream: a chat turn whose catalogue read hangs at the storefront.
  const shopper = await anonymousSession(t, shop);
  const thread = await openThread(t, shopper);
  storefront.hang = true;
  let firstBytes: () => void = () => undefined;
  const streamOpen = new Promise<void>((resolve) => (firstBytes = resolve));
  const sse = send(
    chatPort,
    "POST",
    "/v1/chat/messages/stream",
    { ...bearer(shopper), "content-type": "application/json", accept: "text/event-stream" },
    JSON.stringify({ thread_id: thread, text: "Do you have a wool scarf in stock?" }),
    () => firstBytes(),
  );
  await streamOpen;

  // 3. A slow request in flight: connecting a storefront URL whose site has not answered yet.
  let slowArrived: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (slowArrived = resolve));
  slowOrigin.once("request", () => slowArrived());
  const slow = send(
    chatPort,
    "POST",
    "/v1/admin/connections/storefront",
    { ...bearer(shop.owner), "content-type": "application/json" },
    JSON.stringify({ store_url: slowUrl, reason: "slow" }),
  );
  await arrived;

  // Stop (what SIGTERM does for each listener), then let the slow upstream answer.
  const closing = Promise.all([closeGracefully(t.search, 7000), closeGracefully(t.assistant, 7000)]);
  await idleClosed; // closed by the server while the client kept it
  const stream = await sse;
  assert.equal(stream.status, 200);
  assert.match(stream.text, new RegExp(`retry: ${SHUTDOWN_SSE_RETRY_MS}\\n\\n$`), "the stream ends with a retry hint");
  assert.match(stream.text, /server is stopping/);
  releaseSlow();
  const answered = await slow;
  assert.equal(answered.status, 422, answered.text);
  assert.match(answered.text, /STOREFRONT_UNREACHABLE/, "the in-flight request got its real answer");
  await closing;
  assert.equal(t.search.server.listening, false);
  assert.equal(t.assistant.server.listening, false);
  storefront.hang = false;
  agent.destroy();
});
