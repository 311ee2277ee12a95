import assert from "node:assert/strict";
import { test } from "node:test";
import { noteTextChange } from "./changes.js";
import { SegmentMerger } from "./merger.js";

/** A merger over a fake index with `left` steps of merging to do; the steps it was asked for are counted. */
function fakeIndex(left: number, options: { failAt?: number; maxSteps?: number } = {}) {
  const asked: number[] = [];
  const errors: unknown[] = [];
  const merger = new SegmentMerger(
    async (pages) => {
      asked.push(pages);
      if (options.failAt === asked.length) throw new Error("disk I/O error");
      if (left === 0) return false;
      left--;
      return true;
    },
    (e) => errors.push(e),
    { pages: 32, ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}) },
  );
  return { merger, asked, errors, left: () => left };
}

test("the merger merges once the text stopped changing between two looks, until nothing is left", async () => {
  const { merger, asked, left } = fakeIndex(3);
  assert.equal(merger.look(), undefined, "the first look only notes where the text stands (it counts as a change)");
  noteTextChange("store-a");
  assert.equal(merger.look(), undefined, "changed since the last look: writes are going on");
  assert.deepEqual(asked, []);
  const run = merger.look();
  assert.ok(run, "still since the last look: it merges");
  assert.equal(await run, 3, "three steps merged something");
  assert.deepEqual(asked, [32, 32, 32, 32], "the fourth found nothing left");
  assert.equal(left(), 0);
  assert.equal(merger.look(), undefined, "nothing changed since: no merge");
  assert.equal(asked.length, 4);
});

test("the merger stops after maxSteps and goes on at the next look; a change meanwhile waits for quiet again", async () => {
  const { merger, asked } = fakeIndex(5, { maxSteps: 2 });
  merger.look();
  assert.equal(await merger.look(), 2);
  noteTextChange("store-a");
  assert.equal(merger.look(), undefined, "a change since: wait");
  assert.equal(await merger.look(), 2);
  assert.equal(await merger.look(), 1, "the rest, without another change");
  assert.equal(merger.look(), undefined);
  assert.equal(asked.length, 6);
});

test("a failed step is reported and the merge waits for the next change; stop() waits for a merge under way", async () => {
  const failing = fakeIndex(5, { failAt: 2 });
  failing.merger.look();
  assert.equal(await failing.merger.look(), 1);
  assert.equal((failing.errors[0] as Error).message, "disk I/O error");
  assert.equal(failing.merger.look(), undefined, "not again before the text changes");
  noteTextChange("store-b");
  failing.merger.look();
  assert.equal(await failing.merger.look(), 4, "merged the rest after the next change");

  const { merger, asked } = fakeIndex(100);
  merger.look();
  const run = merger.look();
  assert.equal(merger.look(), undefined, "one merge at a time");
  await merger.stop();
  const merged = await run!;
  assert.ok(merged < 100, `stop() ended the merge early (${merged} steps)`);
  assert.equal(asked.length, merged, "no step asked after stop()");
});
