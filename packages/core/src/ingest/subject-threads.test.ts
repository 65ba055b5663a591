/**
 * Replies without threading headers, judged as a CS lead would: a mailbox exported from Outlook or
 * Exchange keeps no In-Reply-To or References, only "RE: <subject>". A client we answered that way
 * was answered; it must not sit in the risk list as "waiting for our reply". A question nobody
 * answered still waits, and a "RE:" on the same subject weeks later is no answer to it. Through
 * the whole engine, both dialects, whichever folder the mailbox reader meets first.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { createEngine, type Engine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { emlDirSource } from '../source/index.js';
import { listClients } from '../metrics/clients.js';
import { readSnapshots } from '../health/test-fixtures.js';
import { storedSignals } from '../health/model.js';
import { DAY_MS } from '../util/time.js';

afterAll(() => dropTestSchemas());

const WS = 'ourco.com';
const NOW = new Date('2025-03-14T00:00:00Z');
const daysAgo = (d: number, hour = 9): string => new Date(NOW.getTime() - d * DAY_MS + hour * 3_600_000).toISOString();

interface Mail {
  from: string;
  to: string;
  subject: string;
  body: string;
  date: string;
  id: string;
}

const eml = (m: Mail): string =>
  [
    `From: ${m.from}`,
    `To: ${m.to}`,
    `Subject: ${m.subject}`,
    `Date: ${new Date(m.date).toUTCString()}`,
    `Message-ID: <${m.id}>`,
    'Content-Type: text/plain; charset=us-ascii',
    '',
    m.body,
    '',
  ].join('\r\n');

/** Writes the mails as .eml files in the order given (the reader's order), and ingests them. */
async function ingest(engine: Engine, mails: Mail[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chs-subject-threads-'));
  try {
    mails.forEach((m, i) => writeFileSync(join(dir, `${String(i).padStart(3, '0')}.eml`), eml(m)));
    await engine.ingest({ workspaceId: WS, source: emlDirSource(dir), workers: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Acme asks a question every two weeks; we answer each the same day with "RE:" and nothing else that links it. */
function answeredByOutlook(): { inbox: Mail[]; sent: Mail[] } {
  const inbox: Mail[] = [];
  const sent: Mail[] = [];
  for (let k = 0; k < 6; k++) {
    const day = 5 + 14 * k;
    const subject = `Pipeline capacity for week ${k + 1}`;
    inbox.push({
      from: 'Maria Lopez <maria@acme-energy.com>',
      to: 'Sam Reed <sam@ourco.com>',
      subject,
      body: 'Hi Sam, can you confirm the capacity you can give us for that week? We need it for our schedule. Thanks, Maria',
      date: daysAgo(day, 9),
      id: `acme-${k}@acme-energy.com`,
    });
    sent.push({
      from: 'Sam Reed <sam@ourco.com>',
      to: 'Maria Lopez <maria@acme-energy.com>',
      subject: `RE: ${subject}`,
      body: 'Maria, confirmed: 20,000 MMBtu a day for that week. Sam\n\n -----Original Message-----\nFrom: Maria Lopez\nSubject: ' + subject,
      date: daysAgo(day, 14),
      id: `ours-${k}@ourco.com`,
    });
  }
  return { inbox, sent };
}

async function waitingOf(engine: Engine, domain: string): Promise<number> {
  const client = (await listClients(engine.store.db, WS)).find((c) => c.domain === domain);
  expect(client, domain).toBeDefined();
  const snaps = await readSnapshots(engine.store.db, { clientId: client!.id });
  const today = snaps.at(-1)!;
  expect(today.date).toBe('2025-03-14');
  return storedSignals(today.components).some((s) => s.code === 'unanswered') ? Number(today.components.inputs?.unanswered ?? 0) : 0;
}

describe.each(await testDialects())('replies without threading headers on $name', (dialect) => {
  async function fresh(): Promise<Engine> {
    const engine = await createEngine({ database: await dialect.open(), clock: () => NOW });
    await createWorkspace(engine.store.db, { domain: WS, name: 'OurCo', ownerEmail: 'sam@ourco.com' });
    return engine;
  }

  it.each([
    ['the inbox read first', (m: { inbox: Mail[]; sent: Mail[] }) => [...m.inbox, ...m.sent]],
    ['the sent folder read first', (m: { inbox: Mail[]; sent: Mail[] }) => [...m.sent, ...m.inbox]],
  ])('a client we answered with only "RE:" in the subject is not waiting for our reply (%s)', async (_name, order) => {
    const engine = await fresh();
    try {
      await ingest(engine, order(answeredByOutlook()));
      expect(await waitingOf(engine, 'acme-energy.com')).toBe(0);
      const client = (await listClients(engine.store.db, WS)).find((c) => c.domain === 'acme-energy.com');
      // Answered the same day, every time: a healthy account.
      expect(client!.sentimentScore).toBeGreaterThanOrEqual(60);
    } finally {
      await engine.close();
    }
  });

  it('answers read in a later run than the questions still answer them', async () => {
    const engine = await fresh();
    try {
      const { inbox, sent } = answeredByOutlook();
      await ingest(engine, inbox);
      expect(await waitingOf(engine, 'acme-energy.com')).toBeGreaterThan(0);
      await ingest(engine, sent);
      expect(await waitingOf(engine, 'acme-energy.com')).toBe(0);
    } finally {
      await engine.close();
    }
  });

  it('a question nobody answered still waits; a "RE:" on its subject six weeks later, or a forward, is no answer to it', async () => {
    const engine = await fresh();
    try {
      const theirs = { from: 'Maria Lopez <maria@acme-energy.com>', to: 'Sam Reed <sam@ourco.com>' };
      const ours = { from: 'Sam Reed <sam@ourco.com>', to: 'maria@acme-energy.com' };
      const mails: Mail[] = [
        {
          ...theirs,
          subject: 'Invoice 4471 is wrong',
          body: 'Sam, invoice 4471 charges us twice for March. Can you send a corrected invoice?',
          date: daysAgo(50, 9),
          id: 'acme-invoice@acme-energy.com',
        },
        { ...ours, subject: 'RE: Invoice 4471 is wrong', body: 'Maria, is this still open?', date: daysAgo(6, 9), id: 'ours-late@ourco.com' },
        {
          ...theirs,
          subject: 'Meter readings for February',
          body: 'Sam, the February meter readings look off. Can you check them?',
          date: daysAgo(20, 9),
          id: 'acme-meters@acme-energy.com',
        },
        { ...ours, subject: 'FW: Meter readings for February', body: 'Team, see below, please check.', date: daysAgo(19, 9), id: 'ours-fw@ourco.com' },
      ];
      await ingest(engine, mails);
      expect(await waitingOf(engine, 'acme-energy.com')).toBe(2);
    } finally {
      await engine.close();
    }
  });
});
