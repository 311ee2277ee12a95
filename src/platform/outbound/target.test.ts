import { test } from "node:test";
import assert from "node:assert/strict";
import { checkTargetUrl, normalizeHost } from "./target.js";
import { AppError } from "../errors/catalogue.js";

const refusal = (url: string): AppError | undefined => {
  try {
    checkTargetUrl(url, false);
    return undefined;
  } catch (e) {
    return e as AppError;
  }
};

test("hosts are normalised before the up-front check: trailing dots, case, IDNA, brackets", () => {
  assert.equal(normalizeHost("LOCALHOST."), "localhost");
  assert.equal(normalizeHost("Example.COM.."), "example.com");
  assert.equal(normalizeHost("bücher.example"), "xn--bcher-kva.example");
  assert.equal(normalizeHost("[::1]"), "::1");
});

test("loopback spelled with a trailing dot, in capitals, in full-width letters or as a bare name is refused at registration", () => {
  for (const url of [
    "https://localhost./hook",
    "https://LOCALHOST/hook",
    "https://LocalHost../hook",
    "https://ｌｏｃａｌｈｏｓｔ/hook",
    "https://api.localhost./hook",
    "https://intranet./hook",
    "https://127.0.0.1./hook",
    "https://[::1]/hook",
    "https://0x7f000001/hook",
  ]) {
    const e = refusal(url);
    assert.ok(e, `${url} refused`);
    assert.equal(e.code, "address_not_allowed", url);
    assert.match(e.message, /OUTBOUND_ALLOW_PRIVATE=true/, "the message names the setting");
  }
  assert.equal(refusal("https://hooks.example.com./x"), undefined, "a public name with a trailing dot is fine");
  assert.equal(refusal("https://BÜCHER.example/x"), undefined);
});

test("plain http names the setting that allows it", () => {
  const e = refusal("http://hooks.example.com/x");
  assert.equal(e?.code, "invalid_url");
  assert.match(e!.message, /OUTBOUND_ALLOW_PRIVATE=true/);
  assert.doesNotThrow(() => checkTargetUrl("http://localhost./x", true));
});
