#!/usr/bin/env node
// Dumps every answer that reads health history, for a mailbox ingested into a fresh database at a
// fixed "now": client details and score history of every client, the summary, the trends, the
// deltas and what alerts and digests would say. Run before and after a change to the history's
// storage and compare the two files: they must be identical.
//   node scripts/history-answers.mjs --mbox <file> --now <ISO> --out <json> [--db <url|file>] [--workspace <domain>] [--keep]
// With CHS_CORE_ENTRY=<path to another build's packages/core/dist/index.js> it runs that build.
import { writeFileSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
const core = await import(process.env.CHS_CORE_ENTRY ?? '@chs/core');

const { values } = parseArgs({
  options: {
    mbox: { type: 'string' },
    now: { type: 'string' },
    out: { type: 'string' },
    db: { type: 'string', default: '/tmp/history-answers.db' },
    workspace: { type: 'string', default: 'acme-cs.com' },
    // Keep an existing database (made by an earlier version: its migration is what is compared).
    keep: { type: 'boolean', default: false },
  },
});
if (!values.mbox || !values.now || !values.out) throw new Error('usage: --mbox <file> --now <ISO> --out <json>');
const now = new Date(values.now);
if (!values.keep && !core.isPostgresUrl(values.db)) for (const s of ['', '-wal', '-shm']) rmSync(values.db + s, { force: true });
const engine = await core.createEngine({ database: values.db, clock: core.fixedClock(now) });
const db = engine.store.db;
const ws = values.workspace;
if (!(await core.getWorkspace(db, ws))) await core.createWorkspace(db, { domain: ws, name: ws, ownerEmail: `lead@${ws}`, ownerName: 'Lead' });
const t0 = performance.now();
const s = await engine.ingest({ workspaceId: ws, source: core.mboxSource(values.mbox) });
const took = performance.now() - t0;
const out = { ingest: { added: s.itemsAdded, clients: s.clientsCreated, snapshots: s.health.snapshotsWritten }, clients: {}, metrics: {}, notify: {} };
const clients = await core.listClients(db, ws);
out.list = clients;
for (const c of clients) {
  out.clients[c.id] = {
    details: await core.getClientDetails(db, ws, c.id, now),
    history30: await core.getClientHealthHistory(db, ws, c.id, { windowDays: 30, now }),
    history365: await core.getClientHealthHistory(db, ws, c.id, { windowDays: 365, now }),
  };
}
for (const w of [7, 30, 90]) out.metrics[`summary${w}`] = await core.getSummary(db, ws, { windowDays: w, now });
for (const interval of ['daily', 'weekly', 'monthly'])
  for (const w of [30, 365]) out.metrics[`trend-${interval}-${w}`] = await core.healthTrend(db, ws, { windowDays: w, interval, now });
for (const w of [7, 30]) for (const m of [5, 10]) out.metrics[`deltas${w}-${m}`] = await core.scoreDeltas(db, ws, { windowDays: w, minDelta: m, now });
out.notify.scoreDrops = await core.scoreDropAlerts(db, ws, { now, scoreDropPct: 10 });
out.notify.plan = await core.planNotifications(db, ws, { now, dataNow: now, forceDigests: ['daily', 'weekly'] });
// Ids are random and timestamps of writing are wall-clock: name clients by domain and messages by
// their Message-ID, and blank the wall-clock times, so two runs compare.
const names = new Map();
for (const r of await db.selectFrom('clients').select(['id', 'primary_domain']).where('workspace_id', '=', ws).execute())
  names.set(r.id, `client:${r.primary_domain}`);
for (const r of await db.selectFrom('interactions').select(['id', 'dedupe_key']).where('workspace_id', '=', ws).execute())
  names.set(r.id, `msg:${r.dedupe_key}`);
const wall = new Date().toISOString().slice(0, 10);
const text = JSON.stringify(out, null, 1)
  .replace(/(?:cl|in)_[A-Za-z0-9_-]{16}/g, (id) => names.get(id) ?? id)
  .replace(new RegExp(`${wall}T[0-9:.]+Z`, 'g'), 'WALL-CLOCK');
const sorted = JSON.stringify(sortKeys(JSON.parse(text)), null, 1);
writeFileSync(values.out, sorted);
console.error(`ingest+rebuild ${Math.round(took)} ms; ${clients.length} clients; wrote ${values.out}`);
await engine.close();

function sortKeys(v, key) {
  // Contacts seen at the same moment come in no set order.
  if (Array.isArray(v) && key === 'contacts') return v.map((x) => sortKeys(x)).sort((a, b) => (a.email < b.email ? -1 : 1));
  if (Array.isArray(v)) return v.map((x) => sortKeys(x));
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys(v[k], k)]),
  );
}
