import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { ConfigError, loadConfig } from "./config.js";
import { KEY_FILE, loadConnectorKey, SecretBox } from "./secrets.js";

test("CONNECTOR_ENCRYPTION_KEY: 32 bytes as hex or base64, anything else stops start-up naming the variable", () => {
  const hex = randomBytes(32).toString("hex");
  const b64 = randomBytes(32).toString("base64");
  assert.equal(loadConfig({ CONNECTOR_ENCRYPTION_KEY: hex }).connectorEncryptionKey, hex);
  assert.equal(loadConfig({ CONNECTOR_ENCRYPTION_KEY: b64 }).connectorEncryptionKey, b64);
  assert.equal(loadConfig({}).connectorEncryptionKey, undefined);
  for (const bad of ["short", randomBytes(16).toString("hex"), randomBytes(31).toString("base64"), `${hex}00`]) {
    assert.throws(
      () => loadConfig({ CONNECTOR_ENCRYPTION_KEY: bad }),
      (e: unknown) => e instanceof ConfigError && /CONNECTOR_ENCRYPTION_KEY/.test((e as Error).message),
    );
  }
  assert.deepEqual(loadConnectorKey(hex, "/nonexistent"), Buffer.from(hex, "hex"));
  assert.deepEqual(loadConnectorKey(b64, "/nonexistent"), Buffer.from(b64, "base64"));
});

test("unset key: generated once into DATA_DIR (0600) and reused", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-key-"));
  try {
    const first = loadConnectorKey(undefined, dir);
    const second = loadConnectorKey(undefined, dir);
    assert.equal(first.length, 32);
    assert.deepEqual(first, second);
    assert.equal(fs.statSync(path.join(dir, KEY_FILE)).mode & 0o777, 0o600);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("SecretBox: AES-256-GCM round trip, fresh nonce each time, tampering and wrong context refused", () => {
  const box = new SecretBox(randomBytes(32));
  const a = box.seal("shpat_abc", "ctx-1");
  const b = box.seal("shpat_abc", "ctx-1");
  assert.notEqual(a, b);
  assert.equal(box.open(a, "ctx-1"), "shpat_abc");
  assert.throws(() => box.open(a, "ctx-2"));
  const raw = Buffer.from(a.split(".")[2]!, "base64url");
  raw[14] = raw[14]! ^ 1;
  assert.throws(() => box.open(`v1.${box.keyId}.${raw.toString("base64url")}`, "ctx-1"));
  assert.throws(() => new SecretBox(Buffer.alloc(16)), /32 bytes/);
});
