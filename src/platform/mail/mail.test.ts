// The outbox mailer: links stay whole in the .eml file (8bit, not quoted-printable).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ManualClock } from "../clock.js";
import { createMailer, linksIn, withReadableBody } from "./index.js";

const LINK = "http://localhost:8080/verify?token=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG_-xyz";

test("an outbox .eml keeps a long link on one line, and links are printed when logLinks is on", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "outbox-"));
  const lines: string[] = [];
  const mailer = createMailer(
    { smtpUrl: undefined, from: "Shopsight <no-reply@shopsight.local>", outboxDir: dir, logLinks: true },
    new ManualClock(1),
    { log: (l) => lines.push(l) },
  );
  try {
    const file = await mailer.send({
      to: "a@example.com",
      subject: "Verify your Shopsight account",
      text: `Welcome, Grüße.\n\nOpen this link:\n${LINK}\n`,
    });
    const raw = fs.readFileSync(file, "utf8");
    assert.match(raw, /^Content-Transfer-Encoding: 8bit$/m);
    assert.match(raw, /^Content-Type: text\/plain; charset=utf-8$/m);
    assert.match(raw, /^To: a@example\.com$/m);
    assert.ok(raw.split("\n").includes(LINK), raw);
    assert.match(raw, /Grüße/);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, new RegExp(`link: ${LINK.replace(/[.?]/g, "\\$&")}$`));
  } finally {
    mailer.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("withReadableBody leaves multipart or non-text messages alone; linksIn finds http(s) links", () => {
  const multipart = "Content-Type: multipart/mixed; boundary=x\n\n--x\n";
  assert.equal(withReadableBody(multipart, "t"), multipart);
  assert.deepEqual(linksIn(`see ${LINK} and https://a.example/b.`), [LINK, "https://a.example/b"]);
});

test("outbox files are 0600 and their folder 0700 (a folder an older version made 0755 is tightened)", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "outbox-modes-"));
  try {
    for (const existing of [false, true]) {
      const dir = path.join(root, existing ? "old" : "new", "outbox");
      if (existing) fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
      const mailer = createMailer(
        { smtpUrl: undefined, from: "Shopsight <no-reply@shopsight.local>", outboxDir: dir, logLinks: false },
        new ManualClock(1),
      );
      const file = await mailer.send({ to: "a@example.com", subject: "Invite", text: `Accept: ${LINK}\n` });
      mailer.close();
      assert.equal(fs.statSync(dir).mode & 0o777, 0o700, `folder (${existing ? "existing" : "new"})`);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600, "file");
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
