import assert from "node:assert/strict";
import { test } from "node:test";
import { Doorkeeper } from "./doorkeeper.js";

test("a key counts as asked before from its second ask; full, the doorkeeper is emptied; clear() forgets", () => {
  const d = new Doorkeeper(2);
  assert.equal(d.askedBefore("red"), false);
  assert.equal(d.askedBefore("red"), true);
  assert.equal(d.askedBefore("blue"), false);
  assert.equal(d.askedBefore("green"), false, "full at two keys: emptied, then green remembered");
  assert.equal(d.askedBefore("red"), false, "red was forgotten with it");
  assert.equal(d.askedBefore("green"), true);
  d.clear();
  assert.equal(d.askedBefore("green"), false);
});
