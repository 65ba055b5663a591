/**
 * Renewal outcomes from HubSpot deals, end to end on both dialects: the fake HubSpot (HubSpot's
 * shapes, over a socket) → the connector → the sync's record writer → clients/outcomes.ts. The
 * book of business a CS lead would check it against:
 *
 * - Globex renewed (its renewal deal closed won on 31 May) and Initech left (closed lost late on
 *   14 June, UTC);
 * - Hooli's renewal is still being worked: one deal in "Renewal due", one in an "At risk" stage
 *   that forecasts 0 % but is open — neither is an outcome, and "at risk" is not "churned";
 * - Vandelay bought more through the sales pipeline: a closed-won new-business deal, not a renewal;
 * - Umbrella's renewal closed won, but Umbrella has no domain in HubSpot, so it is no client of
 *   ours: left out and counted, never placed on anyone.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startFakeHubSpotServer, type FakeHubSpotDeal, type FakeHubSpotPipeline, type FakeHubSpotServer } from '../connectors/hubspot/fake-hubspot-server.js';
import { connectIntegration, getHubSpotSettings, updateHubSpotSettings } from '../integrations/repository.js';
import { listWorkspaceOutcomes, recordOutcome, type OutcomeView } from '../clients/outcomes.js';
import { createEngine, type Engine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { isChsError } from '../errors.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { DAY_MS } from '../util/time.js';

const WS = 'ourco.com';
const TOKEN = 'pat-na1-renewals';
const START = Date.parse('2025-06-30T12:00:00Z');
const iso = (at: string) => new Date(at).toISOString();

const RENEWALS: FakeHubSpotPipeline = {
  id: '31415926',
  label: 'Renewals',
  stages: [
    { id: 'renewal-due', label: 'Renewal due', isClosed: false, probability: 0.6 },
    { id: 'at-risk', label: 'At risk', isClosed: false, probability: 0 },
    { id: 'renewed', label: 'Renewed', isClosed: true, probability: 1 },
    { id: 'not-renewed', label: 'Not renewed', isClosed: true, probability: 0 },
  ],
};
const SALES: FakeHubSpotPipeline = {
  id: 'default',
  label: 'Sales Pipeline',
  stages: [
    { id: 'appointmentscheduled', label: 'Appointment Scheduled', isClosed: false, probability: 0.2 },
    { id: 'closedwon', label: 'Closed Won', isClosed: true, probability: 1 },
    { id: 'closedlost', label: 'Closed Lost', isClosed: true, probability: 0 },
  ],
};

const companies = [
  { id: '101', name: 'Globex', domain: 'globex.com', updatedAt: iso('2025-01-10T09:00:00Z') },
  { id: '102', name: 'Initech', domain: 'initech.com', updatedAt: iso('2025-01-11T09:00:00Z') },
  { id: '103', name: 'Hooli', domain: 'hooli.com', updatedAt: iso('2025-01-12T09:00:00Z') },
  { id: '104', name: 'Umbrella', domain: '', updatedAt: iso('2025-01-13T09:00:00Z') },
  { id: '105', name: 'Vandelay', domain: 'vandelay.com', updatedAt: iso('2025-01-14T09:00:00Z') },
];

const deals = (): FakeHubSpotDeal[] => [
  {
    id: '9001',
    name: 'Globex renewal 2025',
    pipeline: RENEWALS.id,
    stage: 'renewed',
    closeDate: iso('2025-05-31T16:00:00Z'),
    updatedAt: iso('2025-05-31T16:05:00Z'),
    companyIds: ['101'],
    primaryCompanyId: '101',
  },
  {
    id: '9002',
    name: 'Initech renewal 2025',
    pipeline: RENEWALS.id,
    stage: 'not-renewed',
    closeDate: iso('2025-06-14T23:30:00Z'),
    updatedAt: iso('2025-06-15T08:00:00Z'),
    companyIds: ['102'],
    primaryCompanyId: '102',
  },
  {
    id: '9003',
    name: 'Hooli renewal 2025',
    pipeline: RENEWALS.id,
    stage: 'renewal-due',
    closeDate: iso('2025-07-31T00:00:00Z'),
    updatedAt: iso('2025-06-20T10:00:00Z'),
    companyIds: ['103'],
    primaryCompanyId: '103',
  },
  {
    id: '9004',
    name: 'Hooli add-on renewal',
    pipeline: RENEWALS.id,
    stage: 'at-risk',
    closeDate: iso('2025-06-20T00:00:00Z'),
    updatedAt: iso('2025-06-21T10:00:00Z'),
    companyIds: ['103'],
    primaryCompanyId: '103',
  },
  {
    id: '9005',
    name: 'Vandelay expansion',
    pipeline: SALES.id,
    stage: 'closedwon',
    closeDate: iso('2025-06-02T12:00:00Z'),
    updatedAt: iso('2025-06-02T12:00:00Z'),
    companyIds: ['105'],
    primaryCompanyId: '105',
  },
  {
    id: '9006',
    name: 'Umbrella renewal 2025',
    pipeline: RENEWALS.id,
    stage: 'renewed',
    closeDate: iso('2025-06-10T12:00:00Z'),
    updatedAt: iso('2025-06-10T12:00:00Z'),
    companyIds: ['104'],
    primaryCompanyId: '104',
  },
];

const dialects = await testDialects();
afterAll(dropTestSchemas);

describe.each(dialects)('renewal outcomes from HubSpot deals on $name', (dialect) => {
  const open: Array<{ close: () => Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  /** A workspace with HubSpot connected to a fresh fake, its clock at START (advance with `t.now += …`). */
  async function setUp(options: { pipeline?: string | null; deals?: FakeHubSpotDeal[] } = {}) {
    const fake: FakeHubSpotServer = await startFakeHubSpotServer({
      accessTokens: [TOKEN],
      companies,
      pipelines: [RENEWALS, SALES],
      deals: options.deals ?? deals(),
    });
    open.push(fake);
    const key = randomBytes(32);
    const t = { now: START };
    const logs: Array<{ msg: string | undefined; obj: object }> = [];
    const note = (obj: object, msg?: string) => void logs.push({ msg, obj });
    const engine: Engine = await createEngine({
      database: await dialect.open(),
      logger: { debug: note, info: note, warn: note, error: note },
      clock: () => new Date(t.now),
      secretKey: key,
      providerUrls: { hubspotApi: fake.apiUrl },
    });
    open.push(engine);
    await createWorkspace(engine.store.db, { domain: WS, name: 'OurCo', ownerEmail: 'lead@ourco.com' });
    await connectIntegration(engine.store.db, key, { workspaceId: WS, provider: 'hubspot', credentials: { accessToken: TOKEN } });
    const pipeline = options.pipeline === undefined ? RENEWALS.id : options.pipeline;
    if (pipeline !== null) await updateHubSpotSettings(engine.store.db, WS, { renewalPipelineId: pipeline });
    const sync = (mode: 'quick' | 'full' = 'quick') => engine.sync({ workspaceId: WS, provider: 'hubspot', mode });
    const clientOf = async (domain: string) =>
      (
        await engine.store.db
          .selectFrom('client_domains')
          .select('client_id')
          .where('workspace_id', '=', WS)
          .where('domain', '=', domain)
          .executeTakeFirstOrThrow()
      ).client_id;
    /** The workspace's outcomes as [client domain, date, outcome, source], oldest first. */
    const outcomes = async () => {
      const byId = new Map(
        (await engine.store.db.selectFrom('client_domains').select(['client_id', 'domain']).where('workspace_id', '=', WS).execute()).map((r) => [
          r.client_id,
          r.domain,
        ]),
      );
      return (await listWorkspaceOutcomes(engine.store.db, WS)).map((o) => [byId.get(o.clientId), o.date, o.outcome, o.source]);
    };
    return { fake, engine, t, sync, clientOf, outcomes, logs };
  }

  it('a mapped pipeline: the won deal renews Globex, the lost one churns Initech, dated by closedate in UTC, from hubspot, no MRR invented', async () => {
    const { fake, engine, sync, outcomes, logs } = await setUp();
    const summary = await sync();
    expect(await outcomes()).toEqual([
      ['globex.com', '2025-05-31', 'renewed', 'hubspot'],
      // Closed at 23:30 UTC on the 14th: the 14th, whatever the portal's time zone.
      ['initech.com', '2025-06-14', 'churned', 'hubspot'],
    ]);
    const stored = await listWorkspaceOutcomes(engine.store.db, WS);
    expect(stored.map((o) => [o.mrrBefore, o.mrrAfter])).toEqual([
      [null, null],
      [null, null],
    ]);
    // Hooli's two open deals (the 0 % "At risk" one included) are filtered, not churned; Umbrella's
    // won deal is left out (no client) and counted; the sales pipeline's deal is never listed.
    expect(summary.itemsFiltered).toBe(2);
    // Skipped: Umbrella the company (no domain) and its deal (no client to place it on), logged.
    expect(summary.itemsSkipped).toBe(2);
    expect(logs.filter((l) => l.msg === 'renewal deal left out: its company is not a client').map((l) => l.obj)).toEqual([
      expect.objectContaining({ deal: 'deals:9006', company: '104' }),
    ]);
    expect(summary.unreconciled).toEqual([]);
    expect(fake.stats.byRoute['GET /crm/v3/pipelines/{objectType}/{pipelineId}']).toBe(1);
    // Umbrella has no domain: it never became a client, and nothing was recorded for it.
    const clients = await engine.store.db.selectFrom('clients').select('name').where('workspace_id', '=', WS).execute();
    expect(clients.map((c) => c.name).sort()).toEqual(['Globex', 'Hooli', 'Initech', 'Vandelay']);
  });

  it('an unmapped integration syncs companies as before and asks HubSpot for no deal and no pipeline', async () => {
    const { fake, engine, sync, outcomes } = await setUp({ pipeline: null });
    await sync();
    expect(await outcomes()).toEqual([]);
    expect(fake.stats.searches['deals']).toBeUndefined();
    expect(fake.stats.byRoute['GET /crm/v3/pipelines/{objectType}/{pipelineId}']).toBeUndefined();
    expect(await getHubSpotSettings(engine.store.db, WS)).toEqual({ renewalPipelineId: null });
    const clients = await engine.store.db.selectFrom('clients').select('name').where('workspace_id', '=', WS).execute();
    expect(clients).toHaveLength(4);
  });

  it('a closed-won deal of another pipeline (new business) is no renewal outcome', async () => {
    const { sync, outcomes } = await setUp();
    await sync();
    expect((await outcomes()).filter(([domain]) => domain === 'vandelay.com')).toEqual([]);
  });

  it('an open deal is ignored, even in a stage that forecasts 0 %', async () => {
    const { sync, outcomes } = await setUp();
    await sync();
    expect((await outcomes()).filter(([domain]) => domain === 'hooli.com')).toEqual([]);
  });

  it('a second sync changes nothing: the next quick one, and a full re-read of every deal', async () => {
    const { t, engine, sync } = await setUp();
    await sync();
    const first = await listWorkspaceOutcomes(engine.store.db, WS);
    t.now += DAY_MS;
    const quick = await sync();
    expect(quick.itemsAdded + quick.itemsUpdated).toBe(0);
    const full = await sync('full');
    expect(full.itemsUpdated).toBe(0);
    // Same rows, same ids, not even rewritten (updatedAt unchanged).
    expect(await listWorkspaceOutcomes(engine.store.db, WS)).toEqual(first);
  });

  it('a deal moved from won to lost turns the renewal into a churn, on the same day or on its new close date', async () => {
    const { t, fake, engine, sync, outcomes } = await setUp();
    await sync();
    const [globex] = (await listWorkspaceOutcomes(engine.store.db, WS)) as [OutcomeView];
    // The signature fell through: moved to "Not renewed", close date unchanged.
    t.now += DAY_MS;
    fake.updateDeal('9001', { stage: 'not-renewed', updatedAt: new Date(t.now - 3600_000).toISOString() });
    await sync();
    const after = await listWorkspaceOutcomes(engine.store.db, WS);
    expect(after[0]).toMatchObject({ id: globex.id, clientId: globex.clientId, date: '2025-05-31', outcome: 'churned', source: 'hubspot' });
    // Then the close date is corrected to the day the client said no: one outcome, on that day.
    t.now += DAY_MS;
    fake.updateDeal('9001', { closeDate: iso('2025-06-03T10:00:00Z'), updatedAt: new Date(t.now - 3600_000).toISOString() });
    await sync();
    expect(await outcomes()).toEqual([
      ['globex.com', '2025-06-03', 'churned', 'hubspot'],
      ['initech.com', '2025-06-14', 'churned', 'hubspot'],
    ]);
  });

  it('a deal that reopens takes its outcome back', async () => {
    const { t, fake, sync, outcomes } = await setUp();
    await sync();
    t.now += DAY_MS;
    // Initech came back to the table: the lost deal is reopened.
    fake.updateDeal('9002', { stage: 'renewal-due', updatedAt: new Date(t.now - 3600_000).toISOString() });
    await sync();
    expect(await outcomes()).toEqual([['globex.com', '2025-05-31', 'renewed', 'hubspot']]);
  });

  it('an outcome a person recorded for that client and day (a downgrade with its MRR) is kept over the deal’s won', async () => {
    const { engine, sync, clientOf } = await setUp();
    const globex = await clientOf('globex.com').catch(() => undefined);
    // Globex is not a client until the first sync reads the companies.
    expect(globex).toBeUndefined();
    await sync();
    await recordOutcome(
      engine.store.db,
      WS,
      await clientOf('globex.com'),
      { date: '2025-05-31', outcome: 'downgraded', mrrBefore: 900, mrrAfter: 600 },
      'api',
      new Date(START),
    );
    await sync('full');
    const kept = (await listWorkspaceOutcomes(engine.store.db, WS)).find((o) => o.date === '2025-05-31');
    expect(kept).toMatchObject({ outcome: 'downgraded', mrrBefore: 900, mrrAfter: 600, source: 'api' });
  });

  it('a deal closed ahead of its close date becomes an outcome once that day has come, though nothing changed in HubSpot', async () => {
    const early: FakeHubSpotDeal = {
      id: '9010',
      name: 'Hooli renewal, signed early',
      pipeline: RENEWALS.id,
      stage: 'renewed',
      closeDate: iso('2025-07-02T09:00:00Z'),
      updatedAt: iso('2025-06-29T15:00:00Z'),
      companyIds: ['103'],
      primaryCompanyId: '103',
    };
    const { t, sync, outcomes } = await setUp({ deals: [...deals(), early] });
    await sync();
    expect((await outcomes()).filter(([d]) => d === 'hooli.com')).toEqual([]);
    t.now = Date.parse('2025-07-03T08:00:00Z');
    await sync();
    expect((await outcomes()).filter(([d]) => d === 'hooli.com')).toEqual([['hooli.com', '2025-07-02', 'renewed', 'hubspot']]);
  });

  it('a pipeline HubSpot does not know is reported and leaves the rest of the sync alone; mapping the right one reads its deals from the start', async () => {
    const { engine, sync, outcomes } = await setUp({ pipeline: '999' });
    const s = await sync();
    expect(s.unreconciled).toEqual([{ providerId: 'pipelines:deals:999', reason: expect.stringContaining('the renewal pipeline 999 could not be read') }]);
    expect(await outcomes()).toEqual([]);
    expect(await engine.store.db.selectFrom('clients').select('id').where('workspace_id', '=', WS).execute()).toHaveLength(4);
    await updateHubSpotSettings(engine.store.db, WS, { renewalPipelineId: RENEWALS.id });
    await sync();
    expect((await outcomes()).map(([d, , o]) => [d, o])).toEqual([
      ['globex.com', 'renewed'],
      ['initech.com', 'churned'],
    ]);
  });

  it('settings: a malformed pipeline id is refused, a reconnect keeps the mapping, null unmaps it, and a workspace without HubSpot has none', async () => {
    const { engine } = await setUp();
    const db = engine.store.db;
    await expect(updateHubSpotSettings(db, WS, { renewalPipelineId: 'two words' })).rejects.toSatisfy((e: unknown) => isChsError(e, 'INVALID_INPUT'));
    await connectIntegration(db, randomBytes(32), { workspaceId: WS, provider: 'hubspot', credentials: { accessToken: 'a-new-token' } });
    expect(await getHubSpotSettings(db, WS)).toEqual({ renewalPipelineId: RENEWALS.id });
    expect(await updateHubSpotSettings(db, WS, { renewalPipelineId: null })).toEqual({ renewalPipelineId: null });
    await createWorkspace(db, { domain: 'other.com', name: 'Other', ownerEmail: 'x@other.com' });
    await expect(getHubSpotSettings(db, 'other.com')).rejects.toSatisfy((e: unknown) => isChsError(e, 'INTEGRATION_NOT_CONNECTED'));
    await expect(updateHubSpotSettings(db, 'other.com', { renewalPipelineId: '1' })).rejects.toSatisfy((e: unknown) =>
      isChsError(e, 'INTEGRATION_NOT_CONNECTED'),
    );
  });
});
