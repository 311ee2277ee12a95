// Secrets at rest — storefront private tokens and exchange secrets (Assistant API), webhook
// secrets, bulk-job callback secrets, the secret copied onto each webhook delivery and users' TOTP
// secrets (Search API): AES-256-GCM with a
// 96-bit random nonce and the row's identity as additional authenticated data, so a ciphertext
// copied onto another store's or connection's row does not decrypt.
//
// Key: CONNECTOR_ENCRYPTION_KEY (32 bytes, base64 or hex). Unset: 32 random bytes generated once
// into DATA_DIR/connector-encryption.key (mode 0600), like the JWT signing key; set the variable
// when several processes share one database, or each would generate its own key.
//
// Envelope (text): `v1.<key id>.<base64url(nonce ‖ ciphertext ‖ tag)>`, where the key id is the
// first 8 hex digits of SHA-256(key) so a key change is recognised rather than failing obscurely.
import fs from "node:fs";
import path from "node:path";
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { Config } from "./config.js";

export const KEY_FILE = "connector-encryption.key";

export class SecretBox {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("The connector encryption key must be 32 bytes.");
    this.keyId = createHash("sha256").update(key).digest("hex").slice(0, 8);
  }

  seal(plaintext: string, aad: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, nonce);
    cipher.setAAD(Buffer.from(aad, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return `v1.${this.keyId}.${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url")}`;
  }

  /** The plaintext, or throws when the envelope was made with another key or tampered with. */
  open(envelope: string, aad: string): string {
    const [version, keyId, data] = envelope.split(".");
    if (version !== "v1" || !data) throw new Error("Unknown secret envelope.");
    if (keyId !== this.keyId) throw new Error("The secret was encrypted with another connector key (CONNECTOR_ENCRYPTION_KEY changed?).");
    const raw = Buffer.from(data, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad, "utf8"));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8");
  }
}

function decodeKey(value: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, "hex") : Buffer.from(value, "base64");
}

/** The configured key, or the one generated into DATA_DIR (created on first use). */
export function loadConnectorKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured) return decodeKey(configured);
  const file = path.join(dataDir, KEY_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString("base64"), { flag: "wx", mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  return decodeKey(fs.readFileSync(file, "utf8").trim());
}

const ENVELOPE = /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{38,}$/;

/** True when `value` has the shape of a sealed envelope (migration 0014 seals only the rest). */
export const isSealed = (value: string): boolean => ENVELOPE.test(value);

const boxes = new WeakMap<Config, SecretBox>();

/** One SecretBox per configuration (the key file is read once). */
export function secretBoxFor(config: Config): SecretBox {
  let box = boxes.get(config);
  if (!box) {
    box = new SecretBox(loadConnectorKey(config.connectorEncryptionKey, config.dataDir));
    boxes.set(config, box);
  }
  return box;
}
