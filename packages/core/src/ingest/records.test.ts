import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { Resolver } from '../resolve/resolve.js';
import { createSentimentScorer } from '../score/sentiment.js';
import type { ActivityRecord, CompanyRecord, ContactRecord } from '../connectors/types.js';
import type { Store } from '../store/database.js';
import { RecordWriter } from './records.js';
import { startIngestionRun } from './runs.js';

const dialects = await testDialects();
afterAll(dropTestSchemas);

const company = (over: Partial<CompanyRecord> = {}): CompanyRecord => ({
  kind: 'company',
  providerId: '101',
  name: 'Globex Corporation',
  domains: ['globex.com', 'www.eu.globex.com'],
  mrr: 4200,
  renewalDate: '2026-01-31',
  csmOwner: 'csm@ourco.com',
  ...over,
});
const contact = (over: Partial<ContactRecord> = {}): ContactRecord => ({
  kind: 'contact',
  providerId: '201',
  email: 'hank@globex.com',
  name: 'Hank Scorpio',
  title: 'CEO',
  companyProviderId: '101',
  ...over,
});
const activity = (over: Partial<ActivityRecord> = {}): ActivityRecord => ({
  kind: 'activity',
  providerId: 'meetings:301',
  type: 'meeting',
  occurredAt: '2025-05-02T10:00:00.000Z',
  subject: 'QBR',
  text: 'Great quarter, we are thrilled and plan to renew.',
  fromEmail: 'csm@ourco.com',
  toEmails: ['hank@globex.com'],
  direction: 'outbound',
  opened: null,
  companyProviderId: '101',
  contactEmails: ['hank@globex.com'],
  contactProviderIds: ['201'],
  ...over,
});

async function writer(store: Store, provider = 'hubspot'): Promise<RecordWriter> {
  const runId = await startIngestionRun(store.db, { workspaceId: 'ourco.com', source: provider });
  return new RecordWriter({
    db: store.db,
    workspaceId: 'ourco.com',
    provider,
    runId,
    sourceKey: provider,
    resolver: new Resolver({ ownDomains: ['ourco.com'], blocklist: [] }),
    scorer: createSentimentScorer(),
  });
}

describe.each(dialects)('RecordWriter on $name', (dialect) => {
  it('makes a client of a company with its CRM attributes and every domain, then contacts and activities through it', async () => {
    const store = await dialect.open();
    try {
      await createWorkspace(store.db, { domain: 'ourco.com', name: 'Our', ownerEmail: 'lead@ourco.com' });
      const w = await writer(store);
      // Written out of order on purpose: companies are stored first whatever the batch order.
      await w.write([activity(), contact(), company()], { after: 'x' });
      expect([w.counts.processed, w.counts.added, w.counts.clientsCreated, w.counts.contactsCreated]).toEqual([3, 3, 1, 1]);
      const c = await store.db.selectFrom('clients').selectAll().executeTakeFirstOrThrow();
      expect([c.name, c.name_source, c.primary_domain, c.mrr, c.renewal_date, c.csm_owner]).toEqual([
        'Globex Corporation',
        'hubspot',
        'globex.com',
        4200,
        '2026-01-31',
        'csm@ourco.com',
      ]);
      // www.eu.globex.com folds into globex.com: one domain row.
      const domains = await store.db.selectFrom('client_domains').select('domain').where('client_id', '=', c.id).execute();
      expect(domains.map((d) => d.domain)).toEqual(['globex.com']);
      const ct = await store.db.selectFrom('contacts').selectAll().executeTakeFirstOrThrow();
      expect([ct.client_id, ct.name, ct.title, ct.last_seen_at]).toEqual([c.id, 'Hank Scorpio', 'CEO', '2025-05-02T10:00:00.000Z']);
      const i = await store.db.selectFrom('interactions').selectAll().executeTakeFirstOrThrow();
      expect([i.client_id, i.type, i.source, i.dedupe_key, i.sentiment_label, i.direction]).toEqual([
        c.id,
        'meeting',
        'hubspot',
        'hubspot:meetings:301',
        'positive',
        'outbound',
      ]);
      const cursor = await store.db.selectFrom('source_cursors').select('cursor_json').executeTakeFirstOrThrow();
      expect(JSON.parse(cursor.cursor_json)).toEqual({ after: 'x' });
    } finally {
      await store.close();
    }
  });

  it('is idempotent, updates what changed, and lets a CRM name replace a domain-derived one but not a manual one', async () => {
    const store = await dialect.open();
    try {
      await createWorkspace(store.db, { domain: 'ourco.com', name: 'Our', ownerEmail: 'lead@ourco.com' });
      const now = new Date().toISOString();
      await store.db
        .insertInto('clients')
        .values({
          id: 'cl_mail',
          workspace_id: 'ourco.com',
          name: 'Globex',
          name_source: 'domain',
          primary_domain: 'globex.com',
          mrr: null,
          renewal_date: null,
          csm_owner: null,
          is_excluded: 0,
          status: 'active',
          health_score: null,
          health_updated_at: null,
          last_interaction_at: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await store.db.insertInto('client_domains').values({ workspace_id: 'ourco.com', domain: 'globex.com', client_id: 'cl_mail' }).execute();
      const w = await writer(store);
      await w.write([company(), contact(), activity()], {});
      await w.write([company(), contact(), activity()], {});
      expect([w.counts.added, w.counts.updated, w.counts.skipped]).toEqual([2, 1, 3]); // company enriched the mail-made client
      await w.write([company({ mrr: 5000 }), activity({ text: 'This outage is unacceptable, we will cancel.' })], {});
      expect(w.counts.updated).toBe(3);
      const c = await store.db.selectFrom('clients').selectAll().executeTakeFirstOrThrow();
      expect([c.id, c.name, c.mrr]).toEqual(['cl_mail', 'Globex Corporation', 5000]);
      const rows = await store.db.selectFrom('interactions').select(['sentiment_label']).execute();
      expect(rows.map((r) => r.sentiment_label)).toEqual(['negative']);
      await store.db.updateTable('clients').set({ name: 'Globex (key account)', name_source: 'manual' }).execute();
      await w.write([company({ name: 'Globex Corp.' })], {});
      expect((await store.db.selectFrom('clients').select('name').executeTakeFirstOrThrow()).name).toBe('Globex (key account)');
    } finally {
      await store.close();
    }
  });

  it('skips what cannot belong to a client and resolves a free-mail contact through its company id', async () => {
    const store = await dialect.open();
    try {
      await createWorkspace(store.db, { domain: 'ourco.com', name: 'Our', ownerEmail: 'lead@ourco.com' });
      const w = await writer(store, 'intercom');
      await w.write(
        [
          company({ providerId: 'c9', domains: [] }), // no domain: mail can never resolve to it
          company(),
          contact({ providerId: 'u1', email: 'hank.personal@gmail.com', companyProviderId: '101' }),
          contact({ providerId: 'u2', email: 'stranger@gmail.com', companyProviderId: undefined }),
          activity({
            providerId: 'conv-1',
            type: 'support_ticket',
            companyProviderId: undefined,
            fromEmail: 'hank.personal@gmail.com',
            toEmails: [],
            contactEmails: ['hank.personal@gmail.com'],
            direction: 'inbound',
            text: 'The export is broken again and we are frustrated.',
          }),
          activity({
            providerId: 'conv-2',
            type: 'support_ticket',
            companyProviderId: undefined,
            fromEmail: 'stranger@gmail.com',
            toEmails: [],
            contactEmails: ['stranger@gmail.com'],
            direction: 'inbound',
          }),
        ],
        {},
      );
      expect([w.counts.added, w.counts.skipped, w.counts.skippedBy.no_client]).toEqual([3, 3, 3]);
      const i = await store.db
        .selectFrom('interactions as i')
        .innerJoin('clients as c', 'c.id', 'i.client_id')
        .select(['c.primary_domain', 'i.type', 'i.sentiment_label'])
        .execute();
      expect(i).toEqual([{ primary_domain: 'globex.com', type: 'support_ticket', sentiment_label: 'negative' }]);
    } finally {
      await store.close();
    }
  });
});
