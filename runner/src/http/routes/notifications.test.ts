import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../testing.js';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

describe('POST /notifications/test', () => {
  const received: Received[] = [];
  let server: SMTPServer;
  let port = 0;

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends a real e-mail through SMTP to the calling user', async () => {
    const t = await startTestApp({ config: { smtpUrl: `smtp://127.0.0.1:${port}` } });
    try {
      const res = await t.request(`/api/notifications/test?workspaceId=${t.workspaceId}&channel=email`, { method: 'POST' });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { success: boolean; message: string };
      expect(body.success).toBe(true);
      expect(body.message).toContain('ana@acme.com');
      expect(body.message).toContain(`SMTP server 127.0.0.1:${port}`);

      expect(received).toHaveLength(1);
      const mail = received[0]!;
      expect(mail.from).toBe('notifications@acme.com');
      expect(mail.to).toEqual(['ana@acme.com']);
      const parsed = await simpleParser(mail.raw);
      expect(parsed.subject).toBe('Customer Health Service: test notification for Acme');
      expect(parsed.text).toContain('workspace acme.com');

      const log = await t.engine.store.db.selectFrom('notification_log').selectAll().execute();
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ workspace_id: 'acme.com', kind: 'test', transport: 'smtp', status: 'sent', recipients: 'ana@acme.com' });

      // The sender follows the settings.
      await t.request(`/api/settings?workspaceId=${t.workspaceId}`, {
        method: 'PUT',
        json: { workspace: { notifications: { emailFrom: 'cs-bot@acme.com' } } },
      });
      expect((await t.request(`/api/notifications/test?workspaceId=${t.workspaceId}&channel=email`, { method: 'POST' })).status).toBe(200);
      expect(received[1]?.from).toBe('cs-bot@acme.com');
    } finally {
      await t.close();
    }
  });

  it('writes an .eml into <dataDir>/outbox when no SMTP server is configured, and says so', async () => {
    const t = await startTestApp();
    try {
      const res = await t.request(`/api/notifications/test?workspaceId=${t.workspaceId}&channel=email`, { method: 'POST' });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { success: boolean; message: string };
      expect(body.message).toMatch(/into the server's outbox as .*\.eml \(no SMTP server configured: CHS_SMTP_URL\)$/);
      // The file's name, never the server's path.
      expect(body.message).not.toContain(t.config.dataDir);
      expect(body.message).not.toContain('/');
      const dir = join(t.config.dataDir, 'outbox');
      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/\.eml$/);
      expect(body.message).toContain(files[0]);
      const parsed = await simpleParser(readFileSync(join(dir, files[0]!)));
      expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : '').toBe('ana@acme.com');
      expect(parsed.from?.text).toBe('notifications@acme.com');
      expect(parsed.subject).toContain('test notification');
    } finally {
      await t.close();
    }
  });

  it('refuses channels other than email, and a missing channel, with 400', async () => {
    const t = await startTestApp();
    try {
      for (const qs of ['&channel=sms', '&channel=slack', '', '&channel=']) {
        const res = await t.request(`/api/notifications/test?workspaceId=${t.workspaceId}${qs}`, { method: 'POST' });
        expect(res.status, qs).toBe(400);
        expect(await res.json()).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
      }
    } finally {
      await t.close();
    }
  });

  it('answers 502 NOTIFICATION_FAILED when the SMTP server cannot be reached', async () => {
    // A port nothing listens on: the one just closed.
    const probe = new SMTPServer({ logger: false });
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const deadPort = (probe.server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const t = await startTestApp({ config: { smtpUrl: `smtp://user:pw-secret@127.0.0.1:${deadPort}` } });
    try {
      const res = await t.request(`/api/notifications/test?workspaceId=${t.workspaceId}&channel=email`, { method: 'POST' });
      expect(res.status).toBe(502);
      const body = (await res.json()) as { error: string; code: string };
      expect(body.code).toBe('NOTIFICATION_FAILED');
      expect(body.error).toContain(`127.0.0.1:${deadPort}`);
      expect(body.error).not.toContain('pw-secret');
    } finally {
      await t.close();
    }
  });
});
