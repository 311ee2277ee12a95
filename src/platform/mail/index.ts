// Outgoing mail. SMTP (nodemailer) when SMTP_URL is set; otherwise every message is rendered to
// RFC 822 and written as one .eml file under DATA_DIR/outbox/ so a single machine needs no mail
// server and a developer can open the message (and its links) directly.
//
// The outbox file keeps the text part as it was written (`Content-Transfer-Encoding: 8bit`,
// RFC 6152) instead of nodemailer's quoted-printable: quoted-printable breaks lines longer than
// 76 characters with a soft `=` and writes `=` as `=3D`, so a verification link copied out of the
// file was broken (`token=3D…=`). Mail clients open either form; a person reading the file can
// now copy the link as it is. With `logLinks` (NODE_ENV=development) every link of a message
// written to the outbox is also printed to the log, so sign-up works without opening the file.
import fs from "node:fs/promises";
import path from "node:path";
import nodemailer, { type Transporter } from "nodemailer";
import type { Config } from "../config.js";
import type { Clock } from "../clock.js";
import { uuid } from "../ids.js";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Sends the message; resolves with an id (the SMTP message id or the .eml path). */
  send(message: MailMessage): Promise<string>;
  close(): void;
}

/** The http(s) links of a text, in order (a sentence's closing punctuation is not part of a link). */
export const linksIn = (text: string): string[] => text.match(/https?:\/\/[^\s<>"]*[^\s<>".,;:!?)]/g) ?? [];

/**
 * Replaces the quoted-printable body of a single-part text message rendered by nodemailer with
 * the original text, labelled 8bit (lines stay whole). Other messages are returned unchanged.
 */
export function withReadableBody(rendered: string, text: string): string {
  const end = rendered.indexOf("\n\n");
  if (end < 0) return rendered;
  const head = rendered.slice(0, end);
  if (!/^Content-Type: text\/plain/im.test(head)) return rendered;
  const header = /^Content-Transfer-Encoding: (quoted-printable|base64|7bit)$/im;
  if (!header.test(head)) return rendered;
  const body = text.replace(/\r\n/g, "\n");
  return `${head.replace(header, "Content-Transfer-Encoding: 8bit")}\n\n${body.endsWith("\n") ? body : `${body}\n`}`;
}

export interface MailerOptions {
  /** Where the outbox lines of `mail.logLinks` go (default: stdout). */
  log?: (line: string) => void;
}

export function createMailer(mail: Config["mail"], clock: Clock, options: MailerOptions = {}): Mailer {
  if (mail.smtpUrl) {
    const transport: Transporter = nodemailer.createTransport(mail.smtpUrl);
    return {
      async send(m) {
        const info = await transport.sendMail({ from: mail.from, ...m });
        return String(info.messageId);
      },
      close: () => transport.close(),
    };
  }
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  // Outbox mail holds live verification and invite links: readable by the service's user only.
  // The folder is tightened once per process (an older version created it 0755).
  let folderReady: Promise<void> | undefined;
  const ensureFolder = () =>
    (folderReady ??= (async () => {
      await fs.mkdir(mail.outboxDir, { recursive: true, mode: 0o700 });
      await fs.chmod(mail.outboxDir, 0o700);
    })());
  return {
    async send(m) {
      const info = await transport.sendMail({ from: mail.from, ...m });
      await ensureFolder();
      const file = path.join(mail.outboxDir, `${clock.now()}-${uuid()}.eml`);
      await fs.writeFile(file, withReadableBody((info.message as Buffer).toString("utf8"), m.text), { encoding: "utf8", mode: 0o600 });
      if (mail.logLinks) {
        const links = linksIn(m.text);
        log(`Mail to ${m.to} (“${m.subject}”) written to ${file}${links.length ? `\n  link: ${links.join("\n  link: ")}` : ""}`);
      }
      return file;
    },
    close: () => transport.close(),
  };
}
