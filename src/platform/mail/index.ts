// Outgoing mail. SMTP (nodemailer) when SMTP_URL is set; otherwise every message is rendered to
// RFC 822 and written as one .eml file under DATA_DIR/outbox/ so a single machine needs no mail
// server and a developer can open the message (and its links) directly.
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

export function createMailer(mail: Config["mail"], clock: Clock): Mailer {
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
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    async send(m) {
      const info = await transport.sendMail({ from: mail.from, ...m });
      await fs.mkdir(mail.outboxDir, { recursive: true });
      const file = path.join(mail.outboxDir, `${clock.now()}-${uuid()}.eml`);
      await fs.writeFile(file, info.message as Buffer);
      return file;
    },
    close: () => transport.close(),
  };
}
