/**
 * Who becomes a client, judged as a CS lead would on small mailboxes written like real mail:
 * a client that writes to us is one (and says it will leave on day one, it is at risk at once);
 * a newsletter, a stranger on someone else's mail, a vendor that only copies us, a friend writing
 * from the office are not: they are kept, counted and suggested, and accepting one scores it
 * over all its mail. Through the whole engine (worker pool, writer, health rebuild), both dialects.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { createEngine, type Engine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { updateSettings } from '../settings/settings.js';
import { emlDirSource } from '../source/index.js';
import { listClients } from '../metrics/clients.js';
import { getSummary } from '../metrics/summary.js';
import { riskSignalAlerts } from '../notify/alerts.js';
import { acceptAndScoreSuggestion } from '../engine/suggestions.js';
import { ignoreSuggestedClient, listSuggestedClients } from './suggestions.js';
import { readSnapshots } from '../health/test-fixtures.js';

afterAll(() => dropTestSchemas());

const WS = 'ourco.com';
const NOW = new Date('2025-03-14T00:00:00Z');

interface Mail {
  from: string;
  to: string[];
  cc?: string[];
  subject: string;
  body: string;
  date: string;
  id: string;
  headers?: string[];
}

function eml(m: Mail): string {
  return [
    `From: ${m.from}`,
    `To: ${m.to.join(', ')}`,
    ...(m.cc?.length ? [`Cc: ${m.cc.join(', ')}`] : []),
    `Subject: ${m.subject}`,
    `Date: ${new Date(m.date).toUTCString()}`,
    `Message-ID: <${m.id}>`,
    ...(m.headers ?? []),
    'Content-Type: text/plain; charset=utf-8',
    '',
    m.body,
    '',
  ].join('\r\n');
}

async function ingest(engine: Engine, mails: Mail[]) {
  const dir = mkdtempSync(join(tmpdir(), 'chs-discovery-'));
  try {
    mails.forEach((m, i) => writeFileSync(join(dir, `${String(i).padStart(3, '0')}.eml`), eml(m)));
    return await engine.ingest({ workspaceId: WS, source: emlDirSource(dir), workers: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A year-old client with a healthy routine: a question a month, answered the same day. */
function routine(): Mail[] {
  const out: Mail[] = [];
  for (let k = 1; k <= 8; k++) {
    const day = new Date(NOW.getTime() - k * 20 * 86_400_000).toISOString();
    out.push({
      from: 'Maria Lopez <maria@acme-logistics.com>',
      to: ['Sam Reed <sam@ourco.com>'],
      subject: `Shipment report ${k}`,
      body: 'Hi Sam, the monthly shipment report is attached. Could you check the invoice totals against our order volumes? Thanks, Maria',
      date: day,
      id: `acme-${k}@acme-logistics.com`,
    });
    out.push({
      from: 'Sam Reed <sam@ourco.com>',
      to: ['Maria Lopez <maria@acme-logistics.com>'],
      subject: `Re: Shipment report ${k}`,
      body: 'Hi Maria, the invoice totals match the order volumes. Happy to review the report on our call. Best, Sam',
      date: new Date(Date.parse(day) + 3 * 3_600_000).toISOString(),
      id: `ours-${k}@ourco.com`,
      headers: [`In-Reply-To: <acme-${k}@acme-logistics.com>`],
    });
  }
  return out;
}

const NOISE: Mail[] = [
  // A newsletter with no list header at all: only its footer says what it is.
  {
    from: 'SaaS Weekly <editor@saasweekly-news.com>',
    to: ['sam@ourco.com'],
    subject: 'This week in SaaS: pricing pages that convert',
    body: 'Ten pricing pages we loved this week, and what they teach.\n\nYou are receiving this email because you signed up at saasweekly-news.com.\nUnsubscribe | Manage preferences',
    date: '2025-03-10T08:00:00Z',
    id: 'nl-1@saasweekly-news.com',
  },
  // A partner agency writes to someone else and copies us: an FYI, not a conversation with us.
  {
    from: 'Dana Kim <dana@brightpath-agency.com>',
    to: ['lee@northwind-partners.com'],
    cc: ['sam@ourco.com'],
    subject: 'FYI: event schedule for the spring conference',
    body: 'Looping in Sam for visibility. Lee, the conference schedule and the booth plan are attached for review.',
    date: '2025-03-11T10:00:00Z',
    id: 'fyi-1@brightpath-agency.com',
  },
  // A friend writing from the office: weekend plans, not his employer talking to us.
  {
    from: 'Tom Hale <tom.hale@granite-works.com>',
    to: ['sam@ourco.com'],
    subject: 'saturday',
    body: 'Hey man, are we still on for golf Saturday? Then beers and the game at my place, bring the kids. My wife says hi :)',
    date: '2025-03-07T18:00:00Z',
    id: 'friend-1@granite-works.com',
  },
  {
    from: 'Sam Reed <sam@ourco.com>',
    to: ['tom.hale@granite-works.com'],
    subject: 'Re: saturday',
    body: 'Sounds good dude. Tell your wife hi, see you Saturday for golf and the game.',
    date: '2025-03-07T19:00:00Z',
    id: 'friend-2@ourco.com',
  },
];

/** The first mail we ever get from a new company: a person there writes to one of us that they will cancel. */
const FIRST_AND_LAST: Mail = {
  from: 'Priya Natarajan <priya.n@harbor-freight-systems.com>',
  to: ['Sam Reed <sam@ourco.com>'],
  subject: 'Cancelling our contract',
  body: 'Hi Sam, we have decided to cancel our contract and will not renew at the end of the month. We are moving to another provider. Please confirm the termination date. Priya',
  date: '2025-03-12T09:30:00Z',
  id: 'cancel-1@harbor-freight-systems.com',
};

describe.each(await testDialects())('client discovery on $name', (dialect) => {
  async function engineWith(mails: Mail[]): Promise<{ engine: Engine; summary: Awaited<ReturnType<typeof ingest>> }> {
    const engine = await createEngine({ database: await dialect.open(), clock: () => NOW });
    await createWorkspace(engine.store.db, { domain: WS, name: 'OurCo', ownerEmail: 'sam@ourco.com' });
    return { engine, summary: await ingest(engine, mails) };
  }

  it("a client that writes to us is one, newsletters, copied FYIs and a friend's notes are not; every message is counted", async () => {
    const { engine, summary: s } = await engineWith([...routine(), ...NOISE]);
    try {
      const db = engine.store.db;
      const clients = await listClients(db, WS);
      expect(clients.map((c) => c.domain)).toEqual(['acme-logistics.com']);
      // Nothing is lost: 16 routine messages stored for the client, the FYI and the friend's two kept for suggestions, the newsletter filtered.
      expect([s.itemsProcessed, s.itemsAdded, s.skipped.suggested, s.itemsFiltered]).toEqual([20, 16, 3, 1]);
      expect(s.itemsProcessed).toBe(s.itemsAdded + s.itemsUpdated + s.itemsSkipped + s.itemsFiltered + s.errorsCount);
      expect(s.filtered).toEqual({ bulk: 1 });
      // The run keeps the breakdown with its counts.
      const run = await db.selectFrom('ingestion_runs').select(['items_skipped', 'skipped_json']).where('id', '=', s.runId).executeTakeFirstOrThrow();
      expect([run.items_skipped, JSON.parse(run.skipped_json)]).toEqual([3, { duplicate: 0, internal: 0, no_client: 0, suggested: 3 }]);
      // The newsletter is kept as a verdict with what showed it, once however often it is read.
      const verdicts = await db.selectFrom('filtered_mail').select(['message_id', 'sender', 'reason', 'evidence']).execute();
      expect(verdicts).toEqual([
        { message_id: 'nl-1@saasweekly-news.com', sender: 'editor@saasweekly-news.com', reason: 'bulk', evidence: expect.stringContaining('footer') },
      ]);
      const { suggestions } = await listSuggestedClients(db, WS);
      const byDomain = new Map(suggestions.map((x) => [x.domain, x]));
      expect([...byDomain.keys()].sort()).toEqual(['brightpath-agency.com', 'granite-works.com', 'northwind-partners.com']);
      expect(byDomain.get('brightpath-agency.com')).toMatchObject({ reason: 'cc_only', messages: 1, messagesFrom: 1, people: 1 });
      expect(byDomain.get('northwind-partners.com')).toMatchObject({ reason: 'co_recipient', messages: 1, messagesFrom: 0 });
      expect(byDomain.get('granite-works.com')).toMatchObject({
        reason: 'personal',
        messages: 2,
        firstAt: '2025-03-07T18:00:00.000Z',
        lastAt: '2025-03-07T19:00:00.000Z',
      });
      // Suggestions stay out of every figure: the portfolio is the one client, in good health.
      const summary = await getSummary(db, WS, { now: NOW });
      expect(summary.health.atRiskCount).toBe(0);
      expect(summary.lists.topRisks).toEqual([]);
      expect(clients[0]!.sentimentScore).toBeGreaterThan(60);

      // Accepting one makes it a client over all its stored mail; ignoring one takes it off the list for good.
      const id = await acceptAndScoreSuggestion(db, WS, 'brightpath-agency.com', NOW);
      const after = await listClients(db, WS);
      expect(after.map((c) => c.domain)).toEqual(['acme-logistics.com', 'brightpath-agency.com']);
      const accepted = await db.selectFrom('clients').select(['health_score', 'discovery']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(accepted.health_score).not.toBeNull();
      expect(accepted.discovery).toBe('manual');
      expect(await ignoreSuggestedClient(db, WS, 'granite-works.com', NOW)).toMatchObject({ domain: 'granite-works.com' });
      expect((await listSuggestedClients(db, WS)).suggestions.map((x) => x.domain)).toEqual(['northwind-partners.com']);
      expect((await listSuggestedClients(db, WS, { status: 'ignored' })).suggestions.map((x) => x.domain)).toEqual(['granite-works.com']);
      // The friend writes again about work: an ignored domain never comes back on its own.
      const again = await ingest(engine, [
        {
          ...NOISE[2]!,
          id: 'friend-3@granite-works.com',
          subject: 'Contract proposal',
          body: 'Sam, our pricing proposal and the contract draft for the project are attached for review.',
        },
        NOISE[0]!,
      ]);
      expect([again.skipped.suggested, again.itemsFiltered]).toEqual([1, 1]);
      expect(await db.selectFrom('filtered_mail').select('message_id').execute()).toHaveLength(1);
      expect((await listClients(db, WS)).map((c) => c.domain)).not.toContain('granite-works.com');
    } finally {
      await engine.close();
    }
  });

  it('the first e-mail from a new company, saying to one of us that it will cancel, makes an at-risk client and a churn alert', async () => {
    const { engine, summary: s } = await engineWith([...routine(), FIRST_AND_LAST]);
    try {
      const db = engine.store.db;
      expect(s.clientsCreated).toBe(2);
      const client = (await listClients(db, WS)).find((c) => c.domain === 'harbor-freight-systems.com');
      expect(client).toBeDefined();
      expect(client!.sentimentScore).toBeLessThan(40);
      const summary = await getSummary(db, WS, { now: NOW });
      expect(summary.lists.topRisks.map((r) => r.clientId)).toContain(client!.id);
      const alerts = await riskSignalAlerts(db, WS, { now: NOW });
      expect(alerts.map((a) => [a.domain, a.signal])).toEqual([['harbor-freight-systems.com', 'churn_intent']]);
    } finally {
      await engine.close();
    }
  });

  it('a client we barely know is "not enough data", not at risk', async () => {
    // One friendly question months ago, and nothing since: neither healthy nor a risk.
    const { engine } = await engineWith([
      {
        from: 'Ola Berg <ola@fjord-analytics.no>',
        to: ['sam@ourco.com'],
        subject: 'Question about the API',
        body: 'Hi Sam, could you send the pricing for the API plan and the contract terms? Thanks, Ola',
        date: '2024-10-02T09:00:00Z',
        id: 'ola-1@fjord-analytics.no',
      },
      {
        from: 'sam@ourco.com',
        to: ['ola@fjord-analytics.no'],
        subject: 'Re: Question about the API',
        body: 'Hi Ola, the pricing and the contract terms are attached. Best, Sam',
        date: '2024-10-02T11:00:00Z',
        id: 'sam-1@ourco.com',
        headers: ['In-Reply-To: <ola-1@fjord-analytics.no>'],
      },
    ]);
    try {
      const db = engine.store.db;
      const [client] = await listClients(db, WS);
      expect(client!.domain).toBe('fjord-analytics.no');
      expect(client!.sentimentScore).toBe(50);
      const snap = (await readSnapshots(db, { clientId: client!.id })).at(-1)!;
      expect(snap.reason).toBe('no_data');
      expect(snap.reason_text).toMatch(/not enough data/i);
      expect(snap.confidence).toBeLessThanOrEqual(0.2);
      expect((await getSummary(db, WS, { now: NOW })).health.atRiskCount).toBe(0);
    } finally {
      await engine.close();
    }
  });

  it('the workspace policy decides: CRM only makes no client from mail; every sender makes one of whoever wrote', async () => {
    for (const [policy, expected] of [
      ['crm_only', []],
      ['every_sender', ['acme-logistics.com', 'brightpath-agency.com', 'granite-works.com']],
    ] as const) {
      const engine = await createEngine({ database: await dialect.open(), clock: () => NOW });
      try {
        await createWorkspace(engine.store.db, { domain: WS, name: 'OurCo', ownerEmail: 'sam@ourco.com' });
        await updateSettings(engine.store.db, WS, { clientDiscovery: policy });
        await ingest(engine, [...routine(), ...NOISE]);
        expect((await listClients(engine.store.db, WS)).map((c) => c.domain)).toEqual(expected);
        if (policy === 'crm_only') {
          const { suggestions } = await listSuggestedClients(engine.store.db, WS);
          expect(suggestions.find((x) => x.domain === 'acme-logistics.com')).toMatchObject({ reason: 'policy', messages: 16 });
        }
      } finally {
        await engine.close();
      }
    }
  });
});
