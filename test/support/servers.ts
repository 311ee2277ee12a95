// Local HTTP servers for tests (loopback only): an image host and a webhook receiver.
import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { signBody } from "../../src/search/webhooks/events.js";

export interface Started {
  url: string;
  close(): Promise<void>;
}

/** Listens on a free loopback port; the base URL names `host` ("localhost" makes another origin than 127.0.0.1). */
export async function listen(server: http.Server, host: "127.0.0.1" | "localhost" = "127.0.0.1"): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

export const closeServer = (server: http.Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** A solid image of `hex` with light noise (so JPEG and the model see texture), as PNG or JPEG. */
export async function solidImage(hex: string, opts: { size?: number; format?: "png" | "jpeg"; seed?: number } = {}): Promise<Buffer> {
  const size = opts.size ?? 96;
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
  const raw = Buffer.alloc(size * size * 3);
  let s = opts.seed ?? 1;
  for (let i = 0; i < size * size; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const n = ((s >> 16) % 17) - 8;
    raw[i * 3] = Math.max(0, Math.min(255, r + n));
    raw[i * 3 + 1] = Math.max(0, Math.min(255, g + n));
    raw[i * 3 + 2] = Math.max(0, Math.min(255, b + n));
  }
  const img = sharp(raw, { raw: { width: size, height: size, channels: 3 } });
  return opts.format === "jpeg" ? img.jpeg({ quality: 90 }).toBuffer() : img.png().toBuffer();
}

export interface ImageHost extends Started {
  /** Serves `body` at `path` with the given content type (default image/png). */
  put(path: string, body: Buffer, contentType?: string): string;
  /** Requests to `path` are accepted and never answered (a host that hangs until the client gives up). */
  hang(path: string): string;
  hits(path: string): number;
}

export async function startImageHost(): Promise<ImageHost> {
  const files = new Map<string, { body: Buffer; type: string }>();
  const hanging = new Set<string>();
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (hanging.has(path)) return;
    const f = files.get(path);
    if (!f) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": f.type, "content-length": f.body.length }).end(f.body);
  });
  const url = await listen(server);
  return {
    url,
    put(path, body, contentType = "image/png") {
      files.set(path, { body, type: contentType });
      return `${url}${path}`;
    },
    hang(path) {
      hanging.add(path);
      return `${url}${path}`;
    },
    hits: (path) => hits.get(path) ?? 0,
    close: () => closeServer(server),
  };
}

export interface ReceivedCall {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Record<string, any>;
  signatureValid: boolean;
}

export interface Receiver extends Started {
  calls: ReceivedCall[];
  /** Status the receiver answers with (200 by default; 500 to play "down", 410 to say gone). */
  status: number;
}

/** A webhook receiver that checks X-Webhook-Signature with `secret` as a real receiver would. */
export async function startReceiver(secret: string): Promise<Receiver> {
  const receiver = { calls: [] as ReceivedCall[], status: 200 } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      if (receiver.status >= 200 && receiver.status < 300) {
        receiver.calls.push({
          headers: req.headers,
          body,
          json: JSON.parse(body) as Record<string, any>,
          signatureValid: req.headers["x-webhook-signature"] === signBody(secret, body),
        });
      }
      res.writeHead(receiver.status).end();
    });
  });
  receiver.url = await listen(server);
  receiver.close = () => closeServer(server);
  return receiver;
}
