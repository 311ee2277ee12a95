import assert from "node:assert/strict";
import { test } from "node:test";
import { TokenSigner } from "./tokens.js";
import { ManualClock } from "../clock.js";

test("verified claims are shared between requests, so they are frozen through (memberships too)", async () => {
  const signer = new TokenSigner(new TextEncoder().encode("k".repeat(48)), 3600, new ManualClock(1_700_000_000_000));
  const { access_token } = await signer.issue({
    sub: "u1",
    user_type: "user",
    memberships: [{ client_id: "s1", slug: "s1", role: "viewer" }],
    is_super_admin: false,
  });
  const first = await signer.verify(access_token);
  const again = await signer.verify(access_token);
  assert.equal(again, first, "the second check answers from the verified tokens");
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first.memberships) && Object.isFrozen(first.memberships[0]));
  assert.throws(() => {
    (first.memberships[0] as { role: string }).role = "owner";
  }, TypeError);
  assert.throws(() => {
    first.memberships.push({ client_id: "s2", slug: "s2", role: "owner" });
  }, TypeError);
  assert.deepEqual((await signer.verify(access_token)).memberships, [{ client_id: "s1", slug: "s1", role: "viewer" }]);
});

test("a correctly signed token without exp (or iat, jti) is refused, whatever else it carries", async () => {
  const key = new TextEncoder().encode("k".repeat(48));
  const clock = new ManualClock(1_700_000_000_000);
  const signer = new TokenSigner(key, 3600, clock);
  const { SignJWT } = await import("jose");
  const claims = { user_type: "client", memberships: [], is_super_admin: false };
  const sign = (withExp: boolean, withIat: boolean, withJti: boolean) => {
    let jwt = new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setSubject("s1").setIssuer("shopsight");
    if (withExp) jwt = jwt.setExpirationTime(Math.floor(clock.now() / 1000) + 60);
    if (withIat) jwt = jwt.setIssuedAt(Math.floor(clock.now() / 1000));
    if (withJti) jwt = jwt.setJti("j1");
    return jwt.sign(key);
  };
  assert.equal((await signer.verify(await sign(true, true, true))).sub, "s1", "the complete token passes");
  for (const [exp, iat, jti] of [
    [false, true, true],
    [true, false, true],
    [true, true, false],
  ] as const) {
    await assert.rejects(signer.verify(await sign(exp, iat, jti)), (e: Error & { code?: string }) => e.code === "unauthorized");
  }
});
