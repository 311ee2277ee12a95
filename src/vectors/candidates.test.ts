// Candidates left in the database: passing() and remembering() (the database itself is exercised
// in postgres.test.ts and search/memory-filter.test.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { sql } from "kysely";
import { isDeferred, passing, remembering, type DeferredCandidates } from "./candidates.js";

/** A filter keeping the ids that start with "y", recording what it is asked. */
function yesFilter(asked: string[][]): DeferredCandidates {
  return {
    deferred: true,
    size: 10_000,
    subquery: sql`SELECT 1`,
    keep: async (ids) => {
      asked.push([...ids]);
      return new Set(ids.filter((id) => id.startsWith("y")));
    },
  };
}

test("passing: a set in hand answers itself; a deferred filter is asked about the ids, none asked for none", async () => {
  const asked: string[][] = [];
  const deferred = yesFilter(asked);
  const inHand = new Set(["a"]);
  assert.equal(await passing(inHand, ["a", "b"]), inHand);
  assert.ok(!isDeferred(inHand));
  assert.ok(isDeferred(deferred));
  assert.deepEqual([...(await passing(deferred, ["y1", "n1"]))], ["y1"]);
  assert.deepEqual([...(await passing(deferred, []))], []);
  assert.deepEqual(asked, [["y1", "n1"]]);
});

test("remembering: each id is asked about once, whatever the order and repeats of later questions", async () => {
  const asked: string[][] = [];
  const c = remembering(yesFilter(asked));
  assert.deepEqual([...(await passing(c, ["y1", "n1", "y2"]))].sort(), ["y1", "y2"]);
  assert.deepEqual([...(await passing(c, ["y2", "n1", "y3", "n2", "y3"]))].sort(), ["y2", "y3"]);
  assert.deepEqual([...(await passing(c, ["n1", "y1"]))], ["y1"]);
  assert.deepEqual(asked, [
    ["y1", "n1", "y2"],
    ["y3", "n2"],
  ]);
  assert.equal(c.size, 10_000);
});

test("remembering: verdicts learnt from another statement answer keep() without asking", async () => {
  const asked: string[][] = [];
  const c = remembering(yesFilter(asked));
  c.learn!(
    new Map([
      ["y1", true],
      ["n1", false],
    ]),
  );
  assert.deepEqual([...(await passing(c, ["n1", "y1"]))], ["y1"]);
  assert.deepEqual([...(await passing(c, ["y1", "y2", "n2"]))].sort(), ["y1", "y2"]);
  assert.deepEqual(asked, [["y2", "n2"]], "only the ids not learnt are asked about");
  assert.equal(yesFilter([]).learn, undefined, "a filter that does not remember learns nothing");
});
