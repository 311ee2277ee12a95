import { test } from "node:test";
import assert from "node:assert/strict";
import { BatchCommitter } from "./batch-committer.js";

test("entries added in the same tick share one write; entries added during a write go together in the next", async () => {
  const writes: number[][] = [];
  let release!: () => void;
  let gate = new Promise<void>((r) => (release = r));
  const committer = new BatchCommitter<number>(async (entries) => {
    writes.push(entries);
    await gate;
  });
  const first = [1, 2, 3].map((n) => committer.add(n));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(writes, [[1, 2, 3]], "the first write took everything added in that tick");
  // While that write runs, more items arrive; none is written until it has finished.
  const second = [4, 5].map((n) => committer.add(n));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(writes, [[1, 2, 3]]);
  gate = Promise.resolve();
  release();
  await Promise.all([...first, ...second]);
  assert.deepEqual(writes, [
    [1, 2, 3],
    [4, 5],
  ]);
});

test("a failed write rejects its own entries only", async () => {
  const committer = new BatchCommitter<string>(async (entries) => {
    if (entries.includes("bad")) throw new Error("write failed");
  });
  const failed = Promise.allSettled([committer.add("a"), committer.add("bad")]);
  await new Promise((r) => setImmediate(r));
  const later = committer.add("c");
  assert.deepEqual(
    (await failed).map((r) => r.status),
    ["rejected", "rejected"],
  );
  await later;
});
