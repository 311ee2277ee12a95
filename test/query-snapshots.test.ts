// The query snapshots (sql/queries/*.sql) must be what scripts/query-snapshots.ts generates from
// the current code (issue 40): a change in a hot query without `npm run query-snapshots` fails
// here, so the change shows in review as a change in those files.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { formatSql, querySnapshotFiles, SNAPSHOT_DIR, staleSnapshots } from "../scripts/query-snapshots.js";

test("the checked-in query snapshots match the queries the code builds", async () => {
  const files = await querySnapshotFiles();
  assert.ok(files.size > 0);
  for (const [name, text] of files) {
    const file = path.join(SNAPSHOT_DIR, name);
    assert.ok(fs.existsSync(file), `sql/queries/${name} is missing: run npm run query-snapshots and commit it`);
    assert.equal(fs.readFileSync(file, "utf8"), text, `sql/queries/${name} is stale: run npm run query-snapshots and commit it`);
  }
  assert.deepEqual(staleSnapshots(files), [], "sql/queries holds files no longer generated: run npm run query-snapshots");
});

test("generation is deterministic and covers every area on its dialects", async () => {
  const a = await querySnapshotFiles();
  const b = await querySnapshotFiles();
  assert.deepEqual([...a], [...b]);
  assert.deepEqual([...a.keys()].sort(), [
    "auth.postgres.sql",
    "auth.sqlite.sql",
    "lexical.postgres.sql",
    "lexical.sqlite.sql",
    "search.postgres.sql",
    "search.sqlite.sql",
    "vectors.postgres.sql",
  ]);
  // Each dialect's own placeholders, and statements the search path depends on.
  assert.match(a.get("search.postgres.sql")!, /^EXPLAIN \(FORMAT JSON\)/m);
  assert.match(a.get("search.sqlite.sql")!, /where "store_id" = \?/);
  assert.match(a.get("vectors.postgres.sql")!, /product_vector_copies_nearest\(\$\d+/);
  assert.match(a.get("lexical.sqlite.sql")!, /product_fts MATCH \?/);
});

test("the check names a changed, a missing and an extra snapshot file", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-query-snapshots-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const files = await querySnapshotFiles();
  for (const [name, text] of files) fs.writeFileSync(path.join(dir, name), text);
  assert.deepEqual(staleSnapshots(files, dir), []);
  const [first, second] = [...files.keys()].sort();
  fs.appendFileSync(path.join(dir, first!), "-- edited\n");
  fs.rmSync(path.join(dir, second!));
  fs.writeFileSync(path.join(dir, "gone.sqlite.sql"), "");
  assert.deepEqual(staleSnapshots(files, dir), [first, second, "gone.sqlite.sql"].sort());
});

test("one-line statements break before top-level clauses only", () => {
  assert.equal(
    formatSql(`select count(*) as "n" from (select "a" from "t" where "x" = $1 limit $2) as "c" where "from" = 'a where b' order by "n"`),
    `select count(*) as "n"\nfrom (select "a" from "t" where "x" = $1 limit $2) as "c"\nwhere "from" = 'a where b'\norder by "n"`,
  );
  assert.equal(formatSql("\n      SELECT a\n      FROM t\n        WHERE b  \n"), "SELECT a\nFROM t\n  WHERE b");
});
