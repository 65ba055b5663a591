/**
 * Attribute precedence (issue 13, point 5): manual > HubSpot > Intercom > domain, per attribute.
 * The either-order case drives the real HubSpot and Intercom connectors (nock stands in for
 * their APIs) through syncProvider, the path a scheduled sync takes; the rest writes records
 * through the RecordWriter, PATCH through updateClientAttributes and the CSV import.
 */
import { randomBytes } from 'node:crypto';
import { Migrator, type Kysely } from 'kysely';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRecord } from '../connectors/types.js';
import { RecordWriter } from '../ingest/records.js';
import { startIngestionRun } from '../ingest/runs.js';
import { connectIntegration } from '../integrations/repository.js';
import { Resolver } from '../resolve/resolve.js';
import { createSentimentScorer } from '../score/sentiment.js';
import type { Store } from '../store/database.js';
import { migrateToLatest } from '../store/database.js';
import { migrations } from '../store/migrations/index.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { syncProvider } from '../sync/provider-sync.js';
import { silentLogger } from '../util/logger.js';
import { fixedClock } from '../util/time.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { updateClientAttributes } from './attributes.js';
import { importClientsCsv } from './import-csv.js';
import { attributePatch, sourceRank, type AttributeColumns } from './precedence.js';

const dialects = await testDialects();
afterAll(dropTestSchemas);

const WS = 'acme.com';
const NOW = '2025-05-20T00:00:00.000Z';
const HUBSPOT = 'https://api.hubapi.com';
const INTERCOM = 'https://api.intercom.io';

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/); // PostgreSQL
});
afterAll(() => nock.enableNetConnect());
afterEach(() => nock.cleanAll());

/** HubSpot's API for one full sync: one company (hooli.com), no contacts or engagements. */
function hubspotServes(c: { name: string; mrr?: string; renewal?: string; ownerId?: string }): void {
  nock.cleanAll();
  nock(HUBSPOT)
    .persist()
    .post('/crm/v3/objects/companies/search')
    .reply(200, {
      total: 1,
      results: [
        {
          id: 'hs-42',
          properties: {
            name: c.name,
            domain: 'hooli.com',
            mrr: c.mrr ?? null,
            renewal_date: c.renewal ?? null,
            hubspot_owner_id: c.ownerId ?? null,
            hs_lastmodifieddate: '2025-05-01T00:00:00.000Z',
          },
          createdAt: '2024-01-01T00:00:00.000Z',
          updatedAt: '2025-05-01T00:00:00.000Z',
          archived: false,
        },
      ],
    })
    .get(/^\/crm\/v3\/owners/)
    .reply(200, {
      results: [
        {
          id: '75001',
          email: 'Carla.CSM@acme.com',
          firstName: 'Carla',
          lastName: 'Csm',
          userId: 9001,
          createdAt: '2024-01-01T00:00:00Z',
          updatedAt: '2024-01-01T00:00:00Z',
          archived: false,
          type: 'PERSON',
        },
      ],
    })
    .post(/^\/crm\/v3\/objects\/(contacts|emails|meetings|calls|notes)\/search/)
    .reply(200, { total: 0, results: [] });
}

/** Intercom's API for one full sync: one contact of one company (hooli.com), no conversations. */
function intercomServes(c: { name: string; monthlySpend?: number }): void {
  nock.cleanAll();
  const pages = { type: 'pages', page: 1, per_page: 150, total_pages: 1 };
  nock(INTERCOM)
    .persist()
    .post('/contacts/search')
    .reply(200, {
      type: 'list',
      total_count: 1,
      pages,
      data: [
        {
          type: 'contact',
          id: 'ic-u1',
          role: 'user',
          email: 'kim@hooli.com',
          name: 'Kim Hooli',
          created_at: 1700000000,
          updated_at: 1747000000,
          custom_attributes: {},
          companies: { type: 'list', data: [{ type: 'company', id: 'ic-7', url: '/companies/ic-7' }], total_count: 1, has_more: false },
        },
      ],
    })
    .get('/companies/ic-7')
    .reply(200, {
      type: 'company',
      id: 'ic-7',
      company_id: 'crm-7',
      name: c.name,
      website: 'https://www.hooli.com',
      created_at: 1700000000,
      updated_at: 1747000000,
      monthly_spend: c.monthlySpend ?? 0,
      custom_attributes: {},
      tags: { type: 'tag.list', tags: [] },
      segments: { type: 'segment.list', segments: [] },
    })
    .post('/conversations/search')
    .reply(200, { type: 'conversation.list', total_count: 0, pages: { ...pages, total_pages: 0 }, conversations: [] });
}

async function connected(store: Store): Promise<Buffer> {
  const key = randomBytes(32);
  await createWorkspace(store.db, { domain: WS, name: 'Acme', ownerEmail: 'lead@acme.com' });
  await connectIntegration(store.db, key, { workspaceId: WS, provider: 'hubspot', credentials: { accessToken: 'pat-na1-test' } });
  await connectIntegration(store.db, key, { workspaceId: WS, provider: 'intercom', credentials: { accessToken: 'dG9rOmFiYw==' } });
  return key;
}

async function sync(store: Store, key: Buffer, provider: 'hubspot' | 'intercom'): Promise<void> {
  const s = await syncProvider(
    { db: store.db, logger: silentLogger, clock: fixedClock(NOW), secretKey: key },
    { workspaceId: WS, provider, mode: 'full', since: new Date('2025-01-01T00:00:00Z') },
  );
  expect(s.status).toBe('completed');
}

const attributes = async (store: Store) => {
  const rows = await store.db
    .selectFrom('clients')
    .select(['name', 'name_source', 'mrr', 'mrr_source', 'renewal_date', 'renewal_source', 'csm_owner', 'csm_source', 'is_excluded', 'excluded_source'])
    .execute();
  expect(rows).toHaveLength(1); // both providers' companies are one client, by domain
  return rows[0]!;
};

const HUBSPOT_HOOLI = {
  name: 'Hooli XYZ',
  name_source: 'hubspot',
  mrr: 12000,
  mrr_source: 'hubspot',
  renewal_date: '2025-12-31',
  renewal_source: 'hubspot',
  csm_owner: 'carla.csm@acme.com',
  csm_source: 'hubspot',
};

describe.each(dialects)('attribute precedence through the HubSpot and Intercom connectors on $name', (dialect) => {
  it('HubSpot then Intercom: HubSpot’s name, MRR, renewal and CSM stay; a later Intercom sync changes nothing', async () => {
    const store = await dialect.open();
    try {
      const key = await connected(store);
      hubspotServes({ name: 'Hooli XYZ', mrr: '12000', renewal: '2025-12-31', ownerId: '75001' });
      await sync(store, key, 'hubspot');
      expect(await attributes(store)).toMatchObject(HUBSPOT_HOOLI);
      intercomServes({ name: 'Hooli', monthlySpend: 3200 });
      await sync(store, key, 'intercom');
      expect(await attributes(store)).toMatchObject(HUBSPOT_HOOLI);
      // Intercom again, with other values: still nothing.
      intercomServes({ name: 'Hooli Inc', monthlySpend: 9999 });
      await sync(store, key, 'intercom');
      expect(await attributes(store)).toMatchObject(HUBSPOT_HOOLI);
      // Intercom's company is linked to the same client all the same.
      const refs = await store.db.selectFrom('external_refs').select(['provider', 'external_id']).where('kind', '=', 'company').orderBy('provider').execute();
      expect(refs).toEqual([
        { provider: 'hubspot', external_id: 'hs-42' },
        { provider: 'intercom', external_id: 'ic-7' },
      ]);
    } finally {
      await store.close();
    }
  });

  it('Intercom then HubSpot: HubSpot replaces Intercom’s name and MRR; Intercom syncing again changes nothing; HubSpot updates its own values', async () => {
    const store = await dialect.open();
    try {
      const key = await connected(store);
      intercomServes({ name: 'Hooli', monthlySpend: 3200 });
      await sync(store, key, 'intercom');
      expect(await attributes(store)).toMatchObject({
        name: 'Hooli',
        name_source: 'intercom',
        mrr: 3200,
        mrr_source: 'intercom',
        renewal_date: null,
        renewal_source: null,
        csm_owner: null,
        csm_source: null,
      });
      hubspotServes({ name: 'Hooli XYZ', mrr: '12000', renewal: '2025-12-31', ownerId: '75001' });
      await sync(store, key, 'hubspot');
      expect(await attributes(store)).toMatchObject(HUBSPOT_HOOLI);
      intercomServes({ name: 'Hooli', monthlySpend: 4100 });
      await sync(store, key, 'intercom');
      expect(await attributes(store)).toMatchObject(HUBSPOT_HOOLI);
      // The same source updates its own values.
      hubspotServes({ name: 'Hooli XYZ Holdings', mrr: '15000', renewal: '2026-06-30', ownerId: '75001' });
      await sync(store, key, 'hubspot');
      expect(await attributes(store)).toMatchObject({ ...HUBSPOT_HOOLI, name: 'Hooli XYZ Holdings', mrr: 15000, renewal_date: '2026-06-30' });
    } finally {
      await store.close();
    }
  });

  it('a manual PATCH beats both connectors and survives their later syncs', async () => {
    const store = await dialect.open();
    try {
      const key = await connected(store);
      hubspotServes({ name: 'Hooli XYZ', mrr: '12000', renewal: '2025-12-31', ownerId: '75001' });
      await sync(store, key, 'hubspot');
      const { id } = await store.db.selectFrom('clients').select('id').executeTakeFirstOrThrow();
      await updateClientAttributes(store.db, WS, id, {
        name: 'Hooli (key account)',
        mrr: 13000,
        renewalDate: '2026-01-31',
        csmOwner: 'Dina@acme.com',
        isExcluded: true,
      });
      const manual = {
        name: 'Hooli (key account)',
        name_source: 'manual',
        mrr: 13000,
        mrr_source: 'manual',
        renewal_date: '2026-01-31',
        renewal_source: 'manual',
        csm_owner: 'dina@acme.com',
        csm_source: 'manual',
        is_excluded: 1,
        excluded_source: 'manual',
      };
      expect(await attributes(store)).toMatchObject(manual);
      hubspotServes({ name: 'Hooli XYZ', mrr: '14000', renewal: '2026-03-31', ownerId: '75001' });
      await sync(store, key, 'hubspot');
      intercomServes({ name: 'Hooli', monthlySpend: 3200 });
      await sync(store, key, 'intercom');
      expect(await attributes(store)).toMatchObject(manual);
    } finally {
      await store.close();
    }
  });
});

const company = (over: Partial<CompanyRecord> = {}): CompanyRecord => ({
  kind: 'company',
  providerId: '101',
  name: 'Globex Corporation',
  domains: ['globex.com'],
  mrr: 4200,
  renewalDate: '2026-01-31',
  csmOwner: 'csm@acme.com',
  ...over,
});

async function write(store: Store, provider: 'hubspot' | 'intercom', ...records: CompanyRecord[]): Promise<RecordWriter> {
  const runId = await startIngestionRun(store.db, { workspaceId: WS, source: provider });
  const w = new RecordWriter({
    db: store.db,
    workspaceId: WS,
    provider,
    runId,
    sourceKey: provider,
    resolver: new Resolver({ ownDomains: [WS], blocklist: [] }),
    scorer: createSentimentScorer(),
  });
  await w.write(records, {});
  return w;
}

const globex = async (store: Store) =>
  store.db
    .selectFrom('clients')
    .select(['id', 'name', 'name_source', 'mrr', 'mrr_source', 'renewal_date', 'renewal_source', 'csm_owner', 'csm_source'])
    .executeTakeFirstOrThrow();

describe.each(dialects)('attribute precedence in the records writer, PATCH and import on $name', (dialect) => {
  it('Intercom fills what HubSpot leaves empty, and HubSpot takes it over when it has a value', async () => {
    const store = await dialect.open();
    try {
      await createWorkspace(store.db, { domain: WS, name: 'Acme', ownerEmail: 'lead@acme.com' });
      await write(store, 'hubspot', company({ renewalDate: undefined, csmOwner: undefined }));
      await write(store, 'intercom', company({ providerId: 'ic-1', name: 'Globex', mrr: 1, renewalDate: '2025-09-30', csmOwner: 'ic@acme.com' }));
      expect(await globex(store)).toMatchObject({
        name: 'Globex Corporation',
        name_source: 'hubspot',
        mrr: 4200,
        mrr_source: 'hubspot',
        renewal_date: '2025-09-30',
        renewal_source: 'intercom',
        csm_owner: 'ic@acme.com',
        csm_source: 'intercom',
      });
      // HubSpot with the same renewal date takes only the source, and with a CSM replaces Intercom's.
      const w = await write(store, 'hubspot', company({ renewalDate: '2025-09-30', csmOwner: 'csm@acme.com' }));
      expect(w.counts.updated).toBe(1);
      expect(await globex(store)).toMatchObject({ renewal_date: '2025-09-30', renewal_source: 'hubspot', csm_owner: 'csm@acme.com', csm_source: 'hubspot' });
      // Re-reading the same company is a no-op.
      const again = await write(store, 'hubspot', company({ renewalDate: '2025-09-30', csmOwner: 'csm@acme.com' }));
      expect([again.counts.updated, again.counts.skipped]).toEqual([0, 1]);
    } finally {
      await store.close();
    }
  });

  it('a name derived from mail yields to any provider; a client made by a provider records its sources', async () => {
    const store = await dialect.open();
    try {
      await createWorkspace(store.db, { domain: WS, name: 'Acme', ownerEmail: 'lead@acme.com' });
      const { created } = await importClientsCsv(store.db, WS, 'domain,mrr\nglobex.com,900\n');
      expect(created).toBe(1);
      expect(await globex(store)).toMatchObject({
        name: 'Globex',
        name_source: 'domain',
        mrr: 900,
        mrr_source: 'manual',
        renewal_source: null,
        csm_source: null,
      });
      await write(store, 'intercom', company({ name: 'Globex', mrr: 1000, renewalDate: undefined, csmOwner: undefined }));
      expect(await globex(store)).toMatchObject({ name: 'Globex', name_source: 'intercom', mrr: 900, mrr_source: 'manual', renewal_source: null });
      await write(store, 'hubspot', company({ domains: ['initech.com'], providerId: '202', name: 'Initech', mrr: undefined }));
      const initech = await store.db.selectFrom('clients').selectAll().where('primary_domain', '=', 'initech.com').executeTakeFirstOrThrow();
      expect(initech).toMatchObject({
        name: 'Initech',
        name_source: 'hubspot',
        mrr: null,
        mrr_source: null,
        renewal_source: 'hubspot',
        csm_source: 'hubspot',
        excluded_source: null,
      });
    } finally {
      await store.close();
    }
  });

  it('a CSV import pins its values against a later HubSpot sync; HubSpot still sets what the import left empty', async () => {
    const store = await dialect.open();
    try {
      await createWorkspace(store.db, { domain: WS, name: 'Acme', ownerEmail: 'lead@acme.com' });
      await write(store, 'hubspot', company());
      const r = await importClientsCsv(store.db, WS, 'domain,name,mrr,renewalDate,csmOwner\nglobex.com,Globex (EMEA),5000,,\n');
      expect([r.updated, r.errors]).toEqual([1, []]);
      await write(store, 'hubspot', company({ name: 'Globex Corp.', mrr: 6000, renewalDate: '2026-02-28', csmOwner: 'new.csm@acme.com' }));
      expect(await globex(store)).toMatchObject({
        name: 'Globex (EMEA)',
        name_source: 'manual',
        mrr: 5000,
        mrr_source: 'manual',
        renewal_date: '2026-02-28',
        renewal_source: 'hubspot',
        csm_owner: 'new.csm@acme.com',
        csm_source: 'hubspot',
      });
    } finally {
      await store.close();
    }
  });

  it('clearing by PATCH releases the attribute: the next provider value fills it again', async () => {
    const store = await dialect.open();
    try {
      await createWorkspace(store.db, { domain: WS, name: 'Acme', ownerEmail: 'lead@acme.com' });
      await write(store, 'hubspot', company());
      const { id } = await globex(store);
      await updateClientAttributes(store.db, WS, id, { mrr: 9000, csmOwner: 'me@acme.com' });
      await write(store, 'hubspot', company({ mrr: 4300 }));
      expect(await globex(store)).toMatchObject({ mrr: 9000, mrr_source: 'manual', csm_owner: 'me@acme.com', csm_source: 'manual' });
      const cleared = await updateClientAttributes(store.db, WS, id, { mrr: null, renewalDate: null });
      expect(cleared).toMatchObject({ mrr: null, mrr_source: null, renewal_date: null, renewal_source: null, csm_owner: 'me@acme.com', csm_source: 'manual' });
      // Released: Intercom may fill it, then HubSpot takes it over; the CSM set by hand stays.
      await write(store, 'intercom', company({ providerId: 'ic-1', mrr: 3100, renewalDate: undefined, csmOwner: 'ic@acme.com' }));
      expect(await globex(store)).toMatchObject({ mrr: 3100, mrr_source: 'intercom', renewal_date: null, csm_owner: 'me@acme.com', csm_source: 'manual' });
      await write(store, 'hubspot', company({ mrr: 4300 }));
      expect(await globex(store)).toMatchObject({
        mrr: 4300,
        mrr_source: 'hubspot',
        renewal_date: '2026-01-31',
        renewal_source: 'hubspot',
        csm_owner: 'me@acme.com',
        csm_source: 'manual',
      });
    } finally {
      await store.close();
    }
  });

  it('migration 007 attributes existing values by where they can have come from', async () => {
    const store = await dialect.open();
    try {
      await createWorkspace(store.db, { domain: WS, name: 'Acme', ownerEmail: 'lead@acme.com' });
      const migrator = new Migrator({
        db: store.db,
        provider: { getMigrations: async () => migrations },
        ...(store.schema ? { migrationTableSchema: store.schema } : {}),
      });
      const down = await migrator.migrateTo('006-interaction-signals');
      expect(down.error).toBeUndefined();
      const at = '2025-01-01T00:00:00.000Z';
      const client = (id: string, over: { mrr?: number; renewal_date?: string; csm_owner?: string; is_excluded?: number; name_source?: string }) => ({
        id,
        workspace_id: WS,
        name: id,
        name_source: 'domain',
        primary_domain: `${id}.com`,
        mrr: null,
        renewal_date: null,
        csm_owner: null,
        is_excluded: 0,
        health_score: null,
        health_updated_at: null,
        last_interaction_at: null,
        created_at: at,
        updated_at: at,
        ...over,
      });
      // The table has no source columns at this version: insert through raw rows of its old shape.
      const old = store.db as unknown as Kysely<{ clients: ReturnType<typeof client> }>;
      await old
        .insertInto('clients')
        .values([
          client('byhand', { mrr: 100, renewal_date: '2025-06-30', is_excluded: 1 }),
          client('viahubspot', { mrr: 200, csm_owner: 'a@acme.com', name_source: 'manual' }),
          client('viaintercom', { mrr: 300, name_source: 'intercom' }),
          client('empty', {}),
        ])
        .execute();
      const ref = (provider: string, internal_id: string) => ({
        workspace_id: WS,
        provider,
        kind: 'company',
        external_id: `${provider}-${internal_id}`,
        internal_id,
        updated_at: at,
      });
      await store.db
        .insertInto('external_refs')
        .values([ref('hubspot', 'viahubspot'), ref('intercom', 'viahubspot'), ref('intercom', 'viaintercom')])
        .execute();
      await migrateToLatest(store.db, store.schema);
      const rows = await store.db.selectFrom('clients').select(['id', 'mrr_source', 'renewal_source', 'csm_source', 'excluded_source']).orderBy('id').execute();
      expect(rows).toEqual([
        { id: 'byhand', mrr_source: 'manual', renewal_source: 'manual', csm_source: null, excluded_source: 'manual' },
        { id: 'empty', mrr_source: null, renewal_source: null, csm_source: null, excluded_source: null },
        { id: 'viahubspot', mrr_source: 'hubspot', renewal_source: null, csm_source: 'hubspot', excluded_source: null },
        { id: 'viaintercom', mrr_source: 'intercom', renewal_source: null, csm_source: null, excluded_source: null },
      ]);
    } finally {
      await store.close();
    }
  });
});

describe('attributePatch', () => {
  const row: AttributeColumns = {
    name: 'Hooli',
    name_source: 'intercom',
    mrr: 3200,
    mrr_source: 'intercom',
    renewal_date: null,
    renewal_source: null,
    csm_owner: 'x@acme.com',
    csm_source: 'hubspot',
    is_excluded: 0,
    excluded_source: null,
  };
  it('ranks manual > hubspot > intercom > domain > none', () => {
    expect(['manual', 'hubspot', 'intercom', 'domain', null, 'google'].map(sourceRank)).toEqual([4, 3, 2, 1, 0, 0]);
  });
  it('writes only over the same or a lower source, and says nothing for what is not offered', () => {
    expect(attributePatch(row, { name: 'Hooli XYZ', mrr: 3200, csmOwner: 'y@acme.com' }, 'hubspot')).toEqual({
      name: 'Hooli XYZ',
      name_source: 'hubspot',
      mrr_source: 'hubspot',
      csm_owner: 'y@acme.com',
    });
    expect(attributePatch({ ...row, name_source: 'hubspot', mrr_source: 'hubspot' }, { name: 'Hooli', mrr: 1, renewalDate: '2025-01-31' }, 'intercom')).toEqual(
      { renewal_date: '2025-01-31', renewal_source: 'intercom' },
    );
    expect(attributePatch(row, {}, 'manual')).toEqual({});
  });
  it('a null clears and releases; exclusion false by hand is kept as manual', () => {
    expect(attributePatch(row, { mrr: null, csmOwner: null, isExcluded: false }, 'manual')).toEqual({
      mrr: null,
      mrr_source: null,
      csm_owner: null,
      csm_source: null,
      excluded_source: 'manual',
    });
    expect(attributePatch(row, { csmOwner: null }, 'intercom')).toEqual({});
  });
});
