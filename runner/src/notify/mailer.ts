/**
 * Mail transport (nodemailer): SMTP when an SMTP URL is configured (CHS_SMTP_URL), otherwise
 * every message is written as an `.eml` file into an outbox folder — so a fresh install can
 * "send" and a human can open the result in any mail client.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import nodemailer from 'nodemailer';
import { ChsError } from '@chs/core';

export interface MailMessage {
  from: string;
  to: string | string[];
  subject: string;
  text: string;
  html?: string;
}

export interface SentMail {
  transport: 'smtp' | 'outbox';
  messageId: string;
  /** The `.eml` file written (outbox only). */
  file?: string;
  /**
   * Where it went, safe to show an API caller: `SMTP server mail.acme.com:587` or `outbox file
   * <name>.eml` (the file's name, never the server's path: that is `file`).
   */
  description: string;
}

export interface Mailer {
  readonly transport: 'smtp' | 'outbox';
  send(message: MailMessage): Promise<SentMail>;
  close(): void;
}

export interface MailerOptions {
  /** `smtp://user:pass@host:port` or `smtps://…`; when absent, the outbox is used. */
  smtpUrl?: string;
  /** Folder for `.eml` files when there is no SMTP URL. */
  outboxDir: string;
}

/** `host:port` of an SMTP URL, never its credentials. */
function smtpTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (u.protocol === 'smtps:' ? '465' : '587')}`;
  } catch {
    return 'the configured SMTP server';
  }
}

export function createMailer(options: MailerOptions): Mailer {
  if (options.smtpUrl) return smtpMailer(options.smtpUrl);
  return outboxMailer(options.outboxDir);
}

function smtpMailer(url: string): Mailer {
  const target = smtpTarget(url);
  const transport = nodemailer.createTransport(url);
  return {
    transport: 'smtp',
    async send(message) {
      try {
        const info = await transport.sendMail(message);
        return { transport: 'smtp', messageId: String(info.messageId), description: `SMTP server ${target}` };
      } catch (err) {
        // nodemailer's messages name the failing step and the server's answer, not the credentials.
        throw new ChsError('NOTIFICATION_FAILED', `SMTP delivery through ${target} failed: ${(err as Error).message}`, { cause: err });
      }
    },
    close: () => transport.close(),
  };
}

function outboxMailer(dir: string): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    transport: 'outbox',
    async send(message) {
      try {
        const info = await transport.sendMail(message);
        await mkdir(dir, { recursive: true });
        const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`;
        const file = join(dir, name);
        // Written aside then renamed, so anything watching the outbox never reads half a message.
        await writeFile(`${file}.tmp`, info.message as Buffer);
        await rename(`${file}.tmp`, file);
        return { transport: 'outbox', messageId: String(info.messageId), file, description: `outbox file ${basename(file)}` };
      } catch (err) {
        // The system error's message names the server's path; its code says enough (the log has the rest).
        const code = (err as NodeJS.ErrnoException).code;
        throw new ChsError('NOTIFICATION_FAILED', `could not write the message to the server's outbox${code ? ` (${code})` : ''}`, { cause: err });
      }
    },
    close: () => transport.close(),
  };
}
